/**
 * The latitude matrix, the dual of the defect matrix (test/reference/defects/defect-matrix.int.test.ts): for each
 * latitude switch of the reference stack (reference/latitude/registry.ts), a stack with that switch
 * on and the WHOLE harness against it (`speakcheck run`, strict profile): the verdict must be
 * CONFORMS (exit 0), since every switch makes a choice speak-v1.md leaves open. Then one stack with
 * every mutually compatible switch on at once. Prints the time of each run and the total.
 *
 * Two stacks at a time (the machine has two cores), each with one synthesis worker; the runs bound
 * by the server's waits (WAIT_BOUND) one at a time in a third lane.
 * SPEAKCHECK_LATITUDE_MATRIX=all runs every switch and the combined run; =a,b those switches only
 * (and, when it names `combined`, the combined run); otherwise none. CI runs it as a stage of its
 * own after `npm test` (.ci/run), not beside the defect matrix: two matrices of whole runs at once
 * on two cores made each run several times slower and timing-sensitive checks flaky.
 *
 * A switch that departs from a SHOULD on purpose (`departsFrom`: the alternative its MUST allows,
 * e.g. clamping where refusal is the SHOULD) runs in the lenient profile, where only MUST gates, and
 * the SHOULDs it fails there (non-strict) must be among those it declares: CONFORMS on every MUST,
 * and no other SHOULD lost.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { compatibleLatitudes, LATITUDES, type LatitudeSpec } from '../../../reference/latitude/index.ts';
import { EMBEDDED_RUN_SERVE_ARGS } from '../../../src/stack/target.ts';
import { type HarnessRun, runHarness, runInLanes, startDefectiveStack } from '../defects/defective-stack.ts';

const selection = process.env.SPEAKCHECK_LATITUDE_MATRIX ?? '';
const everything = selection === '1' || selection === 'all';
const named = selection.split(',');
const chosen: readonly LatitudeSpec[] = everything
  ? LATITUDES
  : LATITUDES.filter((latitude) => named.includes(latitude.name));
const COMBINED = 'combined';
const runCombined = everything || named.includes(COMBINED);
/**
 * Stacks served the way a hosted server is (issue 32), beyond one switch: `tls` is `serve --tls`
 * (https, wss and signed URLs under a throwaway CA the run trusts with --ca-file);
 * `hosted` is hosted-latency + rate-limit + --tls at once; `short-lifetimes` is rate-limit whose 429
 * asks for 10 s, with access tokens and signed URLs living 8 s (issue 37: the run's own waits must
 * never make it use a token or a signed URL past the lifetime it shows). Named like switches in the
 * selection.
 */
interface Served {
  label: string;
  names: string[];
  tls: boolean;
  /** Extra `serve` options. */
  serve?: string[];
}
const SERVED: readonly Served[] = [
  { label: 'tls', names: [], tls: true },
  { label: 'hosted', names: ['hosted-latency', 'rate-limit'], tls: true },
  {
    label: 'short-lifetimes',
    names: ['rate-limit'],
    tls: false,
    // A 429 asks for 10 s, longer than the lifetimes: every hold can outlive a URL or a token.
    serve: ['--access-token-ttl', '8', '--signed-url-ttl', '8', '--rate-limit-retry-after', '10'],
  },
];
const servedChosen = SERVED.filter((served) => everything || named.includes(served.label));
const PARALLEL = Number(process.env.SPEAKCHECK_LATITUDE_PARALLEL ?? 2);
/**
 * Runs bound by the server's waits, not by the cores: 429s and their Retry-After, a network's
 * latency. They run one at a time in a lane of their own beside the PARALLEL lanes, longest first
 * (CI on 2026-11-28: these six took 391 of the matrix's 1309 run-seconds alone, short-lifetimes 177 s,
 * and the served stacks ran after the switches, so short-lifetimes ran its last two minutes alone).
 */
const WAIT_BOUND: readonly string[] = [
  'short-lifetimes',
  'retry-after-date',
  'hosted',
  'rate-limit',
  'rate-limit-no-retry-after',
  'hosted-latency',
];
/**
 * Switches whose freedom only shows with lifetimes the run waits out: `speakcheck serve` keeps 900 s
 * tokens and signed URLs and 1 h websocket URLs, past a quick run's --max-expiry-wait, so
 * expiry-leeway runs with 5 s ones (accepted to 25 s: the run must keep trying within the leeway,
 * not fail at the margin; the websocket URL shows its expiry, so the run needs no --ws-url-lifetime).
 */
const SWITCH_SERVE: Readonly<Record<string, string[]>> = {
  'expiry-leeway': ['--access-token-ttl', '5', '--signed-url-ttl', '5', '--websocket-url-ttl', '5'],
};

/**
 * The topology of the stack a run starts itself (one synthesis worker, its websocket endpoint sharing
 * its synthesizer): the whole harness runs fine on it, and a second costs a synthesizer per stack.
 */
const STACK_WORKERS = [...EMBEDDED_RUN_SERVE_ARGS];

interface Outcome {
  label: string;
  names: string[];
  run?: HarnessRun;
  latitudeLine?: string;
  error?: string;
  ms: number;
}

const outcomes = new Map<string, Outcome>();
let totalMs = 0;

const conforms = (o: Outcome) => o.run?.code === 0;

/** The SHOULDs the switches `names` depart from on purpose (registry `departsFrom`). */
function departures(names: readonly string[]): string[] {
  return LATITUDES.filter((l) => names.includes(l.name)).flatMap((l) => l.departsFrom ?? []);
}

async function runWith(label: string, names: string[], tls = false, serve: string[] = []): Promise<void> {
  const t0 = Date.now();
  let stack: Awaited<ReturnType<typeof startDefectiveStack>> | undefined;
  try {
    stack = await startDefectiveStack(
      [],
      [
        ...STACK_WORKERS,
        ...names.flatMap((name) => ['--latitude', name]),
        ...(tls ? ['--tls'] : []),
        ...serve,
      ],
    );
    // The run trusts the stack's throwaway CA as a vendor's tester would a private one.
    const trust = stack.caFile ? ['--ca-file', stack.caFile] : [];
    if (tls && !stack.caFile) throw new Error('serve --tls printed no ca_file= line');
    const profile = departures(names).length > 0 ? ['--profile', 'lenient'] : [];
    const run = await runHarness(stack, [], {}, [...trust, ...profile]);
    outcomes.set(label, { label, names, run, latitudeLine: stack.latitudeLine, ms: Date.now() - t0 });
  } catch (error) {
    outcomes.set(label, { label, names, error: (error as Error).message, ms: Date.now() - t0 });
  } finally {
    await stack?.stop();
  }
  const o = outcomes.get(label)!;
  const failed = [...(o.run?.verdicts ?? [])].filter(([, status]) => status === 'failed').map(([id]) => id);
  const departed = [...(o.run?.verdicts ?? [])]
    .filter(([, status]) => status === 'non-strict')
    .map(([id]) => id);
  process.stdout.write(
    `latitude ${label}: ${conforms(o) ? 'CONFORMS' : `NOT conforming (exit ${o.run?.code ?? 'none'}; failed: ${failed.join(', ') || o.error || '?'})`}${departed.length ? ` (lenient; SHOULD departed from: ${departed.join(', ')})` : ''} in ${(o.ms / 1000).toFixed(0)} s\n`,
  );
}

describe.runIf(chosen.length > 0 || runCombined || servedChosen.length > 0)('latitude matrix', () => {
  const combined = compatibleLatitudes();

  beforeAll(async () => {
    const started = Date.now();
    const runs = [
      ...chosen.map((latitude) => ({
        label: latitude.name,
        run: () => runWith(latitude.name, [latitude.name], false, SWITCH_SERVE[latitude.name]),
      })),
      ...servedChosen.map((served) => ({
        label: served.label,
        run: () => runWith(served.label, served.names, served.tls, served.serve),
      })),
    ];
    // The wait-bound ones longest first: WAIT_BOUND's order.
    const rank = (label: string) => (WAIT_BOUND.includes(label) ? WAIT_BOUND.indexOf(label) : -1);
    const ordered = [...runs].sort((a, b) => rank(a.label) - rank(b.label));
    await runInLanes(
      ordered,
      PARALLEL,
      (r) => WAIT_BOUND.includes(r.label),
      (r) => r.run(),
    );
    const alone = Date.now() - started;
    if (runCombined)
      await runWith(
        COMBINED,
        combined.map((latitude) => latitude.name),
      );
    totalMs = Date.now() - started;
    process.stdout.write(
      `latitude matrix: ${chosen.length} switch(es)${servedChosen.length > 0 ? ` and ${servedChosen.map((s) => s.label).join(', ')}` : ''} alone in ${(alone / 1000).toFixed(0)} s (${PARALLEL} at a time, the wait-bound ones one at a time beside them)${
        runCombined
          ? `; ${combined.length} compatible switches at once in ${((outcomes.get(COMBINED)?.ms ?? 0) / 1000).toFixed(0)} s`
          : ''
      }; total ${(totalMs / 1000).toFixed(0)} s\n`,
    );
  }, 60 * 60_000);

  afterAll(() => {
    for (const o of outcomes.values()) if (o.run) rmSync(o.run.reportDir, { recursive: true, force: true });
  });

  const cases = [
    ...chosen.map((latitude) => [latitude.name, [latitude.name]] as const),
    ...servedChosen.map((served) => [served.label, served.names] as const),
    ...(runCombined ? [[COMBINED, combined.map((latitude) => latitude.name)] as const] : []),
  ];
  test.each(cases)('%s: the whole harness says CONFORMS', (label, names) => {
    const o = outcomes.get(label);
    expect(o?.error, 'the stack or the run could not start').toBeUndefined();
    // The stack announced its choices.
    expect(o!.latitudeLine).toBe(names.join(','));
    const run = o!.run!;
    const failed = [...run.verdicts].filter(([, status]) => status === 'failed').map(([id]) => id);
    expect(run.code, `exit code; failed: ${failed.join(', ')}\n${run.output.slice(-4000)}`).toBe(0);
    expect(failed).toEqual([]);
    // Latency is never an outage (issue 49): a conformant choice names no route as down.
    expect(run.output.split('\n').filter((line) => line.includes('outage: '))).toEqual([]);
    // Lenient runs: only the declared SHOULDs may have failed (non-strict).
    const departed = [...run.verdicts].filter(([, status]) => status === 'non-strict').map(([id]) => id);
    expect(departed.filter((id) => !departures(names).includes(id))).toEqual([]);
  });
});

test('the lane of wait-bound runs names switches or served stacks that exist', () => {
  const labels = new Set([
    ...LATITUDES.map((latitude) => latitude.name),
    ...SERVED.map((served) => served.label),
  ]);
  // A renamed one would silently run among the working lanes.
  for (const label of WAIT_BOUND) expect(labels.has(label), label).toBe(true);
});
