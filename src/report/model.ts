/** The conformance report as written to conformance.json; md and html are renderings of it. */
import { redactJson, redactText } from '../client/redact.ts';
import type { ExpectOutcome } from '../requirements/expectations.ts';
import type { RequirementVerdict, TestOutcome, VerdictSummary, Verdicts } from '../requirements/verdict.ts';
import { type Reproduction, reproductionOf } from './reproduction.ts';

export interface RunInfo {
  runId: string;
  /** The speakcheck that ran: package version and commit (src/version.ts). */
  harness: string;
  baseUrl: string;
  /** The server's GET /v1/speak/version answer, compact JSON (absent when it gave none). */
  serverVersion?: string;
  target: 'embedded' | 'remote' | 'container';
  profile: 'strict' | 'lenient' | 'sdk';
  only: string[];
  /** `--requirement`: the requirements the run was limited to (absent or empty: all of the areas). */
  requirements?: string[];
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  exitCode: number;
  /** The expect file's effect (`run --expect`): expected, unexpected passes, expired entries. */
  expect?: ExpectOutcome;
  /** Why the run broke down as a whole (unhandled errors), if it did. */
  errors: string[];
}

/** A requirement's verdict as reported; a failed one carries how to reproduce it. */
export type ReportedRequirement = RequirementVerdict & { reproduction?: Reproduction };

export interface ConformanceReport {
  summary: VerdictSummary;
  run: RunInfo;
  requirements: ReportedRequirement[];
  uncovered: string[];
  problems: Verdicts['problems'];
  /** Every test once, with its evidence; requirements refer to them by key. */
  tests: TestOutcome[];
}

export function buildReport(
  verdicts: Verdicts,
  outcomes: readonly TestOutcome[],
  run: RunInfo,
): ConformanceReport {
  // A last redaction pass: failure messages can quote URLs and bodies.
  return redactJson({
    summary: verdicts.summary,
    run,
    requirements: withReproductions(verdicts.requirements, outcomes),
    uncovered: verdicts.uncovered,
    problems: verdicts.problems,
    tests: outcomes,
  }) as ConformanceReport;
}

/** Every failed requirement gets the reproduction of its tests' exchanges (src/report/reproduction.ts). */
function withReproductions(
  requirements: readonly RequirementVerdict[],
  outcomes: readonly TestOutcome[],
): ReportedRequirement[] {
  const byKey = new Map(outcomes.map((t) => [t.key, t]));
  return requirements.map((r) => {
    if (r.status !== 'failed') return r;
    const failing = r.tests.map((k) => byKey.get(k)).filter((t) => t?.state === 'failed');
    const tests = failing.length > 0 ? failing : r.tests.map((k) => byKey.get(k));
    return { ...r, reproduction: reproductionOf(tests.flatMap((t) => t?.evidence ?? [])) };
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
