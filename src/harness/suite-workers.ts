/**
 * How many suite files run at once, from what the server showed (issue 32: windows that scale with
 * the server, not added to it). Against the embedded or container stack, or any server that answers
 * like one on this machine, the suites share the two cores with it: one file at a time (issue 52). Against a server whose quickest preflight answer took a network's time
 * (a hosted API: 30–80 ms a request), the run is bound by waiting, not by the cores: more files at
 * once overlap their waits (sequential requests, syntheses) instead of adding them up. The run's
 * bound on requests in flight (--concurrency) is shared by the files either way
 * (src/harness/context.ts).
 */
import type { Target } from '../config/types.ts';

/**
 * Files at a time when the cores are shared with the server: two. One (issue 52) saved CPU (paired
 * 0.87x on the 2-core machine) but put the waits of different files in series: against a server
 * whose takes never finish, two 60 s ready bounds one after the other, a verdict in 118 s instead
 * of 66 s (test/reference/defects/stuck-whole-run.int.test.ts, 2026-11-27). A verdict within a
 * minute comes first. With --expiry full the expiry file sleeps in a thread of its own (expiryThreads).
 */
export const LOCAL_SUITE_WORKERS = 2;
/**
 * Files at a time against a server across a network: waiting threads cost little here, and the
 * run against hosted latencies (`serve --latitude hosted-latency`) is bound by its longest chain of
 * waits only when every long file runs at once (4 → 6: 47 → 34 s with the websocket area in four
 * files, measured on the 2-core machine while it was busy).
 */
export const REMOTE_SUITE_WORKERS = 6;
/** A quickest answer at least this slow is a network's round trip, not a process on this machine. */
export const NETWORK_ROUND_TRIP_MS = 20;

export function suiteWorkersFor(target: Target, quickestAnswerMs: number): number {
  if (target !== 'remote') return LOCAL_SUITE_WORKERS;
  return quickestAnswerMs >= NETWORK_ROUND_TRIP_MS ? REMOTE_SUITE_WORKERS : LOCAL_SUITE_WORKERS;
}

/**
 * A thread of its own for the expiry file (suites/expiry.spec.ts) when it waits real lifetimes out
 * (--expiry full: minutes asleep until a token or URL has expired, which in one of the suite threads
 * left the other files one thread fewer for the whole wait). Against the run's own stack the
 * lifetimes are short (src/stack/run-lifetimes.ts: ~6 s of waiting, started first by the sequencer),
 * and a third thread loading the harness cost more than the wait it spared (issue 52, paired on the
 * 2-core machine: CPU 0.93, peak tree −40 MB; wall +0.4–0.9 s on a quiet machine, docs/benchmarks.md). The files' share of
 * --concurrency counts the files that work (RunPlan.suiteWorkers), not this one.
 */
export function expiryThreads(o: { expiryFileRuns: boolean; waitsLong: boolean }): number {
  return o.expiryFileRuns && o.waitsLong ? 1 : 0;
}
