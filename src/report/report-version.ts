/**
 * The one versioned reader of conformance.json (issue 48): `compare`, `rerun` and `expect` read a
 * report through `upgradeReport`, which brings a report written by an older speakcheck to the
 * current model once, so every reader asks `standing` (src/verdict/standing.ts) of every report.
 *
 *   version 1 (no `version` field): a requirement carries only its words, `status` and `message`
 *     (and, later, `notJudged`); the deciding conclusion is rebuilt from them.
 *   version 2: a requirement carries its verdict (`decided`, `expected`, `stop`) beside its words.
 *   version 3: observations are keyed data (src/evidence/observation.ts), not sentences. An older
 *     report's sentences become observations keyed 'sentence' with no values; `writtenAs` keeps the
 *     version the file was written as, and compare does not compare its observations (it says so).
 */
import type { Observation } from '../evidence/observation.ts';
import type { Conclusion } from '../verdict/conclusion.ts';
import type { Verdict } from '../verdict/model.ts';
import { type ConformanceReport, REPORT_VERSION, type ReportedRequirement } from './model.ts';

/** A requirement of a version-1 report: its words only. */
type OldRequirement = Omit<ReportedRequirement, 'decided'> & {
  status: string;
  message: string;
  notJudged?: { status: string; reason: string; wouldJudgeIt: string };
};

/** A report of any version, brought to the current model (a current one is returned as it is). */
export function upgradeReport(report: ConformanceReport): ConformanceReport {
  const version = report.version ?? 1;
  if (version >= REPORT_VERSION) return report;
  const verdicts =
    version >= 2
      ? report.requirements
      : report.requirements.map((r) => upgradeRequirement(r as OldRequirement));
  return {
    ...report,
    version: REPORT_VERSION,
    writtenAs: version,
    requirements: verdicts.map((r) => ({ ...r, observations: keyedOf(r.observations) })),
    tests: (report.tests ?? []).map((t) => ({ ...t, observations: keyedOf(t.observations) })),
  };
}

/** A version-1 or -2 report's observations (sentences), as observations with no key or values of their own. */
function keyedOf(observations: readonly (Observation | string)[] | undefined): Observation[] {
  return (observations ?? []).map((o) => (typeof o === 'string' ? { key: 'sentence', text: o } : o));
}

/** The verdict of a version-1 requirement, from its status and words. */
export function upgradeRequirement(r: OldRequirement): ReportedRequirement {
  const was = r.status === 'expected-failure' ? (r.notJudged?.status ?? 'failed') : r.status;
  const decided = decidedOf(was, r);
  const verdict: Partial<Verdict> = {
    ...(decided ? { decided } : {}),
    ...(r.status === 'expected-failure' ? { expected: { reason: 'listed in the expect file' } } : {}),
  };
  return { ...(r as ReportedRequirement), ...verdict, covered: r.covered ?? (r.tests ?? []).length > 0 };
}

/** The conclusion each version-1 label stood for (a label not listed had none). */
const DECIDED_BY_LABEL: Record<string, (r: OldRequirement, said: Said) => Conclusion | undefined> = {
  passed: () => ({ kind: 'held' }),
  info: () => ({ kind: 'held' }),
  failed: (r) => ({ kind: 'violated', message: r.message }),
  'non-strict': (r) => ({ kind: 'violated', message: r.message }),
  blocked: (r) => ({ kind: 'blocked', by: r.message }),
  'not-concluded': (_, said) => ({ kind: 'not-concluded', cause: 'stopped', ...said }),
  'not-applicable': (_, said) => ({ kind: 'not-applicable', ...said }),
  'not-observed': (_, said) => ({ kind: 'not-observed', ...said }),
  'harness-error': (r) => ({ kind: 'harness-bug', message: r.message, bug: r.message }),
  // An INFO whose covering tests were all skipped; a MUST no test covered has no conclusion.
  skipped: (r, said) =>
    r.level === 'INFO' && (r.tests ?? []).length > 0 ? { kind: 'not-observed', ...said } : undefined,
};

type Said = { reason: string; wouldJudge: string };

function decidedOf(label: string, r: OldRequirement): Conclusion | undefined {
  const said = { reason: r.notJudged?.reason ?? r.message, wouldJudge: r.notJudged?.wouldJudgeIt ?? '' };
  return DECIDED_BY_LABEL[label]?.(r, said);
}
