/**
 * When a conformance run stops waiting: its budget (--max-time, counted from the start) runs out, or
 * the first SIGINT/SIGTERM arrives while the suites run; then what has not finished is "not
 * concluded" and every report is still written. A signal outside the suites, or a second one, stops
 * the stack and exits at once (130).
 */
import type { runThrottle } from '../client/back-pressure.ts';
import { EXIT } from '../exit-codes.ts';
import { MAX_TIMER_MS } from '../harness/test-bound.ts';
import {
  budgetRanOutReason,
  signalReason,
  signalStopsRunLine,
  signalStopsSuitesLine,
} from '../report/terminal.ts';
import { stopAllTargets } from '../stack/target.ts';
import type { RunStopped } from '../verdict/model.ts';

export class RunStop {
  /** Resolved with the reason when the run must stop waiting. */
  readonly requested: Promise<RunStopped>;
  suitesRunning = false;
  stopping = false;
  /** Stopping the stack to exit at once (130): later signals wait for that bounded stop. */
  private exiting = false;
  private request: (stopped: RunStopped) => void = () => undefined;
  private readonly budget: NodeJS.Timeout;
  /** This run's own listeners, which dropVitestSignalListeners keeps. */
  readonly ownListeners: Set<unknown>;

  constructor(
    maxTimeMs: number,
    throttle: ReturnType<typeof runThrottle>,
    private readonly err: (line: string) => void,
  ) {
    this.requested = new Promise<RunStopped>((resolve) => {
      this.request = resolve;
    });
    this.budget = setTimeout(
      () => this.request({ reason: 'budget', sentence: budgetRanOutReason(maxTimeMs, throttle.stats()) }),
      // A longer delay than a Node timer takes would fire at once.
      Math.min(maxTimeMs, MAX_TIMER_MS),
    );
    this.budget.unref();
    // `on`, not `once`, until dispose(): with testcontainers loaded (--target container), signal-exit
    // re-raises a signal it sees no other listener of, killing the run before it stopped the stack.
    process.on('SIGINT', this.onSignal);
    process.on('SIGTERM', this.onSignal);
    this.ownListeners = new Set([...process.rawListeners('SIGINT'), ...process.rawListeners('SIGTERM')]);
  }

  private readonly onSignal = (signal: NodeJS.Signals): void => {
    if (this.suitesRunning && !this.stopping) {
      this.stopping = true;
      this.err(signalStopsSuitesLine(signal));
      this.request({ reason: 'signal', sentence: signalReason(signal) });
      // The next signal takes the path below: stop the stack and exit at once.
      return;
    }
    if (this.exiting) return;
    this.exiting = true;
    this.err(signalStopsRunLine(signal));
    // stopAllTargets covers an interrupt while the container stack is still starting.
    void stopAllTargets().finally(() => process.exit(EXIT.interrupted));
  };

  dispose(): void {
    clearTimeout(this.budget);
    process.off('SIGINT', this.onSignal);
    process.off('SIGTERM', this.onSignal);
  }
}

/**
 * Vitest's logger exits the process on SIGINT/SIGTERM; here a signal stops the suites and the
 * reports are still written (RunStop), so its listeners go (its cleanup still runs at close).
 */
export function dropVitestSignalListeners(own: ReadonlySet<unknown>): void {
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    for (const listener of process.rawListeners(signal))
      if (!own.has(listener)) process.off(signal, listener as (...a: unknown[]) => void);
}
