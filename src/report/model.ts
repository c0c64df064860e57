/** The conformance report as written to conformance.json; md and html are renderings of it. */
import type { ThrottleStats } from '../client/back-pressure.ts';
import type { Profile } from '../config/types.ts';
import { redactJson, redactText } from '../evidence/redact.ts';
import type { ExpectOutcome } from '../verdict/expectations.ts';
import { isFailed, isGatingFailure, testFailed } from '../verdict/standing.ts';
import type { RequirementVerdict, TestOutcome, VerdictSummary, Verdicts } from '../verdict/verdict.ts';
import type { OutageWords } from '../verdict/words.ts';
import { type Reproduction, reproductionOf } from './reproduction.ts';
import { sequenceReproduction } from './reproduction-sequence.ts';

/**
 * How a report names the run's target beside its URL. `remote` is the config's word for "a server
 * given with --base-url", which may well be on loopback: "(remote)" beside http://127.0.0.1:8080
 * read as a mistake (issue 51 item 10).
 */
export function targetWords(target: RunInfo['target']): string {
  if (target === 'remote') return 'given with --base-url';
  return target === 'embedded'
    ? "the run's embedded reference stack"
    : "the run's reference stack in containers";
}

export interface RunInfo {
  runId: string;
  /** The speakcheck that ran: package version and commit (src/version.ts). */
  harness: string;
  baseUrl: string;
  /** The server's GET /v1/speak/version answer, compact JSON (absent when it gave none). */
  serverVersion?: string;
  target: 'embedded' | 'remote' | 'container';
  profile: Profile;
  only: string[];
  /** `--requirement`: the requirements the run was limited to (absent or empty: all of the areas). */
  requirements?: string[];
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  exitCode: number;
  /**
   * The verdict in words (src/verdict/gate.ts): CONFORMS only when every MUST (strict: and SHOULD)
   * was judged and held; else e.g. "NO MUST FAILED — 2 MUST NOT JUDGED" or "DOES NOT CONFORM".
   */
  verdict?: string;
  /** What keeps the run from CONFORMS, MUSTs first (the gate's reasons). */
  verdictReasons?: string[];
  /** The expect file's effect (`run --expect`): expected, unexpected passes, expired entries. */
  expect?: ExpectOutcome;
  /** Why the run broke down as a whole (unhandled errors), if it did. */
  errors: string[];
  /** Requests the run made and the server's back-pressure it waited on (src/client/back-pressure.ts). */
  traffic?: ThrottleStats;
  /** `--ca-file`: the private CA the run trusted (the reproduction curls pass it as --cacert). */
  caFile?: string;
  /** `--auth-url`: where the login endpoint is (the reproductions log in there). */
  authUrl?: string;
  /** `--keep`: the run left what it made in place (a reproduction may use its ids). */
  keep?: boolean;
}

/** The version of conformance.json this speakcheck writes (src/report/report-version.ts reads older ones). */
export const REPORT_VERSION = 3;

/** A requirement's verdict as reported; a failed one carries how to reproduce it. */
export type ReportedRequirement = RequirementVerdict & { reproduction?: Reproduction };

export interface ConformanceReport {
  /** The version of this file's shape (src/report/report-version.ts); absent: version 1. */
  version?: number;
  /** The version the file was written as, when the reader upgraded an older one (never written). */
  writtenAs?: number;
  summary: VerdictSummary;
  run: RunInfo;
  requirements: ReportedRequirement[];
  uncovered: string[];
  problems: Verdicts['problems'];
  /** Every test once, with its evidence; requirements refer to them by key. */
  tests: TestOutcome[];
  /** Each route the run learned to be unavailable, once (src/facts/outages.ts); absent when none. */
  outages?: OutageWords[];
}

export function buildReport(
  verdicts: Verdicts,
  outcomes: readonly TestOutcome[],
  run: RunInfo,
): ConformanceReport {
  // A last redaction pass: failure messages can quote URLs and bodies.
  return redactJson({
    version: REPORT_VERSION,
    summary: verdicts.summary,
    run,
    requirements: withReproductions(verdicts.requirements, outcomes, run),
    uncovered: verdicts.uncovered,
    problems: verdicts.problems,
    tests: outcomes,
  }) as ConformanceReport;
}

/**
 * Every failed requirement gets a reproduction of one of its failing tests' failing request
 * (src/report/reproduction.ts).
 */
function withReproductions(
  requirements: readonly RequirementVerdict[],
  outcomes: readonly TestOutcome[],
  run: Pick<RunInfo, 'caFile' | 'authUrl' | 'keep' | 'profile'>,
): ReportedRequirement[] {
  const byKey = new Map(outcomes.map((t) => [t.key, t]));
  const context = outcomes.flatMap((t) => t.evidence);
  return requirements.map((r) => {
    // A failure that fails the run: not one the expect file lists, nor one the profile only reports.
    if (!isGatingFailure(r, run.profile) || !isFailed(r)) return r;
    const covering = r.tests.map((k) => byKey.get(k)).filter((t): t is TestOutcome => t !== undefined);
    const failing = covering.filter(testFailed);
    const tests = failing.length > 0 ? failing : covering;
    const reproduction =
      sequenceReproduction(tests, r.id) ??
      reproductionOf(tests, {
        requirement: r.id,
        context,
        ...(run.caFile ? { caFile: run.caFile } : {}),
        ...(run.authUrl ? { authUrl: run.authUrl } : {}),
        ...(run.keep ? { keep: true } : {}),
      });
    return { ...r, reproduction };
  });
}

/** "; areas: a, b; requirements: X, Y" as the renderers state the selection (empty when all ran). */
export function selectionText(run: Pick<RunInfo, 'only' | 'requirements'>): string {
  const parts: string[] = [];
  if (run.only.length) parts.push(`areas: ${run.only.join(', ')}`);
  if (run.requirements?.length) parts.push(`requirements: ${run.requirements.join(', ')}`);
  return parts.map((p) => `; ${p}`).join('');
}

export function safeText(text: string): string {
  return redactText(text);
}
