/**
 * Expected failures (`run --expect FILE`): the failures a vendor already knows about, so a CI gate
 * is green on day one and turns red on anything new. Pure: the file is read in
 * src/config/expect-file.ts, this applies it to the verdicts.
 *
 *   - a failed or blocked requirement with a current entry becomes `expected-failure`, keeping the
 *     original failure message (it no longer counts against the exit code);
 *   - an entry whose requirement now passes is an "unexpected pass": reported prominently, but the
 *     run still exits 0 (the issue asks for it to be reported; wptrunner too fails on an unexpected
 *     pass only in strict modes) so fixing a bug never breaks the gate;
 *   - an entry past its `expires` date is not applied (the failure counts again) and fails the run:
 *     a waiver with a deadline is meant to be looked at when the deadline comes.
 * Entries for requirements this run did not judge (another selection) change nothing.
 */
import type { Expectation } from '../config/types.ts';
import { levelCounts, type RequirementVerdict, type Verdicts } from './verdict.ts';

export interface ExpectOutcome {
  /** Where the entries came from (the file), for the messages. */
  file: string;
  /** Requirements whose failure was expected. */
  expected: string[];
  /** Entries whose requirement passed in this run: remove them from the file. */
  unexpectedPasses: Expectation[];
  /** Entries past their expiry date: not applied, and the run fails. */
  expired: Expectation[];
}

/** The day (UTC, `YYYY-MM-DD`) of `now`; an entry expires when this day is after its `expires`. */
function dayOf(now: Date): string {
  return now.toISOString().slice(0, 10);
}

export function isExpired(entry: Expectation, now: Date): boolean {
  return entry.expires !== undefined && dayOf(now) > entry.expires;
}

/** What an entry can expect: a failure, a block, or a SHOULD failed in the lenient profile. */
const EXPECTABLE = new Set<RequirementVerdict['status']>(['failed', 'blocked', 'non-strict']);

export function applyExpectations(
  verdicts: Verdicts,
  entries: readonly Expectation[],
  file: string,
  now: Date = new Date(),
): { verdicts: Verdicts; outcome: ExpectOutcome } {
  const byId = new Map(entries.map((e) => [e.requirement, e]));
  const expired = entries.filter((e) => isExpired(e, now));
  const unexpectedPasses: Expectation[] = [];
  const expected: string[] = [];
  const requirements = verdicts.requirements.map((verdict): RequirementVerdict => {
    const entry = byId.get(verdict.id);
    if (!entry) return verdict;
    if (verdict.status === 'passed') {
      unexpectedPasses.push(entry);
      return verdict;
    }
    if (!EXPECTABLE.has(verdict.status) || isExpired(entry, now)) return verdict;
    expected.push(verdict.id);
    return {
      ...verdict,
      status: 'expected-failure',
      message: `Expected (${entry.reason}${entry.link ? `, ${entry.link}` : ''}): ${verdict.status === 'blocked' ? 'blocked: ' : ''}${verdict.message}`,
    };
  });
  const summary = {
    ...verdicts.summary,
    failed: requirements.filter((r) => r.status === 'failed').length,
    blocked: requirements.filter((r) => r.status === 'blocked').length,
    expectedFailures: expected.length,
    nonStrict: requirements.filter((r) => r.status === 'non-strict').length,
    ...levelCounts(requirements),
  };
  return {
    verdicts: { ...verdicts, requirements, summary },
    outcome: { file, expected, unexpectedPasses, expired },
  };
}

/** What `speakcheck run` prints about the expect file: a summary line, and the alerts to stand out. */
export function expectLines(outcome: ExpectOutcome): { summary?: string; alerts: string[] } {
  const alerts = [
    ...outcome.unexpectedPasses.map(
      (e) => `*** unexpected pass: ${e.requirement} passed: remove it from ${outcome.file} ***`,
    ),
    ...outcome.expired.map(
      (e) =>
        `*** expired: the expected failure ${e.requirement} in ${outcome.file} expired on ${e.expires}: fix it, or renew or remove the entry (the run fails) ***`,
    ),
  ];
  return outcome.expected.length > 0
    ? {
        summary: `expected failures (${outcome.file}): ${outcome.expected.length}: ${outcome.expected.join(', ')}`,
        alerts,
      }
    : { alerts };
}
