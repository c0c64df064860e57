/**
 * A slower synthesizer on purpose (`speakcheck serve --synthesis-delay-ms N`, inherited by the
 * worker processes through SYNTHESIS_DELAY_ENV): each part holds its synthesizer N ms longer
 * before the part completes, as a slower engine would, without burning CPU on a shared machine.
 * Latency is never a verdict of the harness; the switch exists so load tests can prove that they
 * see a slower server (test/load/capacity-slowdown.int.test.ts).
 */
export const SYNTHESIS_DELAY_ENV = 'SPEAKCHECK_REFERENCE_SYNTHESIS_DELAY_MS';

export function synthesisDelayMs(): number {
  const value = Number(process.env[SYNTHESIS_DELAY_ENV] ?? 0);
  return Number.isFinite(value) && value > 0 ? value : 0;
}

export function slowdown(): Promise<void> {
  const ms = synthesisDelayMs();
  return ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve();
}
