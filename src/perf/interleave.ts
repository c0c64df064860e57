/**
 * `perf compare BASELINE CURRENT --interleave N` with targets instead of stored runs: the scenario
 * runs N times against each, alternating (baseline, candidate, baseline, ...), so slow drifts of a
 * shared machine (other work, thermal state) fall on both sides alike instead of on one. Runs are
 * stored as <out>/baseline/<i>-<run>/ and <out>/candidate/<i>-<run>/ and compared like stored runs.
 */
import { join } from 'node:path';
import { runId, runLoad } from '../load/run-load.ts';
import type { ScenarioName } from '../load/scenarios.ts';
import type { TargetCredentials } from '../load/target.ts';

/** A target: a base URL, or `embedded` (a reference stack started for each run). */
export function isTarget(arg: string): boolean {
  return arg === 'embedded' || /^https?:\/\//.test(arg);
}

export interface InterleaveOptions {
  scenario: ScenarioName;
  rounds: number;
  baseline: string;
  candidate: string;
  credentials: Omit<TargetCredentials, 'baseUrl'>;
  outDir: string;
  vus?: number;
  duration?: string;
  env?: Record<string, string>;
  log?: (line: string) => void;
}

export interface InterleaveResult {
  baselineDir: string;
  candidateDir: string;
  /** k6 exit codes in run order (A, B, A, B, ...). */
  exitCodes: number[];
  /** Why a run produced no summary, when one did not. */
  failures: string[];
}

export async function runInterleaved(o: InterleaveOptions): Promise<InterleaveResult> {
  const log = o.log ?? ((line: string) => console.log(line));
  const result: InterleaveResult = {
    baselineDir: join(o.outDir, 'baseline'),
    candidateDir: join(o.outDir, 'candidate'),
    exitCodes: [],
    failures: [],
  };
  for (let round = 1; round <= o.rounds; round++) {
    for (const [side, target, dir] of [
      ['baseline', o.baseline, result.baselineDir],
      ['candidate', o.candidate, result.candidateDir],
    ] as const) {
      log(`round ${round}/${o.rounds}: ${side} (${target})`);
      const r = await runLoad({
        ...o.credentials,
        ...(target === 'embedded' ? {} : { baseUrl: target.replace(/\/+$/, '') }),
        scenario: o.scenario,
        vus: o.vus,
        duration: o.duration,
        env: o.env,
        outDir: join(dir, `${String(round).padStart(2, '0')}-${runId(o.scenario)}`),
        log: () => {},
      });
      result.exitCodes.push(r.exitCode);
      if (!r.summary) result.failures.push(`${side} round ${round}: ${r.reason ?? `k6 exit ${r.exitCode}`}`);
    }
  }
  return result;
}
