/**
 * The one versioned reader of conformance.json (issue 48): `compare`, `rerun` and `expect` read a
 * report through `upgradeReport`, which brings a report written by an older speakcheck to the
 * current model once, so every reader asks `standing` (src/verdict/standing.ts) of every report.
 *
 *   version 1 (no `version` field): a requirement carries only its words, `status` and `message`
 *     (and, later, `notJudged`); the deciding conclusion is rebuilt from them.
 *   version 2: a requirement carries its verdict (`decided`, `expected`, `stop`) beside its words.
 */
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
  if ((report.version ?? 1) >= REPORT_VERSION) return report;
  return {
    ...report,
    version: REPORT_VERSION,
    requirements: report.requirements.map((r) => upgradeRequirement(r as OldRequirement)),
  };
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

function decidedOf(status: string, r: OldRequirement): Conclusion | undefined {
  const reason = r.notJudged?.reason ?? r.message;
  const wouldJudge = r.notJudged?.wouldJudgeIt ?? '';
  switch (status) {
    case 'passed':
    case 'info':
      return { kind: 'held' };
    case 'failed':
    case 'non-strict':
      return { kind: 'violated', message: r.message };
    case 'blocked':
      return { kind: 'blocked', by: r.message };
    case 'not-concluded':
      return { kind: 'not-concluded', cause: 'stopped', reason, wouldJudge };
    case 'not-applicable':
      return { kind: 'not-applicable', reason, wouldJudge };
    case 'harness-error':
      return { kind: 'harness-bug', message: r.message, bug: r.message };
    case 'not-observed':
      return { kind: 'not-observed', reason, wouldJudge };
    case 'skipped':
      // An INFO whose covering tests were all skipped; a MUST no test covered has no conclusion.
      return r.level === 'INFO' && r.tests.length > 0
        ? { kind: 'not-observed', reason, wouldJudge }
        : undefined;
    default:
      return undefined;
  }
}
