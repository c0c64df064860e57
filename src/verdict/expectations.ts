/**
 * Expected failures (`run --expect FILE`): the failures a vendor already knows about, so a CI gate
 * is green on day one and turns red on anything new. Pure: the file is read in
 * src/config/expect-file.ts, the fold (src/verdict/fold.ts) applies it to the verdicts.
 *
 *   - a failed or blocked requirement with a current entry is expected: its verdict keeps the
 *     failure, and its standing no longer gates the run;
 *   - an entry whose requirement now passes is an "unexpected pass": reported prominently, but the
 *     run still exits 0 (the issue asks for it to be reported; wptrunner too fails on an unexpected
 *     pass only in strict modes) so fixing a bug never breaks the gate;
 *   - an entry past its `expires` date is not applied (the failure counts again) and fails the run:
 *     a waiver with a deadline is meant to be looked at when the deadline comes.
 * Entries for requirements this run did not judge (another selection) change nothing.
 */
import type { Expectation } from '../config/types.ts';
import type { Verdict } from './model.ts';
import { isHeld } from './standing.ts';

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

/**
 * What the expect file did in this run: the requirements it made expected (the fold applied them,
 * src/verdict/fold.ts), the entries whose requirement passed, and those past their expiry date.
 */
export function expectOutcome(
  verdicts: readonly Verdict[],
  entries: readonly Expectation[],
  file: string,
  now: Date = new Date(),
): ExpectOutcome {
  const byId = new Map<string, Verdict>(verdicts.map((v) => [v.id, v]));
  return {
    file,
    expected: verdicts.filter((v) => v.expected !== undefined).map((v) => v.id),
    unexpectedPasses: entries.filter((e) => {
      const v = byId.get(e.requirement);
      return v !== undefined && isHeld(v);
    }),
    expired: entries.filter((e) => isExpired(e, now)),
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
