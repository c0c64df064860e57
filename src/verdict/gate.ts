/**
 * The gate (issue 40): ONE function decides, from the verdicts and the profile's rules
 * (PROFILE_RULES in src/config/types.ts: which levels gate, whether "not judged" fails), the exit
 * code, the headline words and the reasons. The terminal, every report, the badge and the exit code
 * read its result; nothing else evaluates the profile's rules.
 *
 * Not judged is not failed: a MUST nobody could judge (an expiry longer than the run waits,
 * webhooks a remote server cannot deliver) is neither held nor broken. The profiles decide
 * differently, on purpose:
 *   strict, lenient, sdk: exit 0 with the distinct verdict "NO MUST FAILED — N MUST NOT JUDGED"
 *     (never CONFORMS). A CI gate runs on every change against servers it cannot always make fully
 *     judgeable; failing it for that would teach teams to switch the gate off. The gap is printed on
 *     the verdict line and listed in every report, each with what would judge it.
 *   acceptance: exit 1. A buyer accepting a server wants "every MUST and SHOULD held", and an
 *     unjudged one is no answer.
 * A run that could not conclude a requirement (stopped, or kept from finishing) fails in every
 * profile (exit 1, NOT CONCLUDED): it was meant to judge it and did not get to.
 */
import { levelGates, PROFILE_RULES, type Profile } from '../config/types.ts';

export { levelGates };

import { EXIT } from '../exit-codes.ts';
import type { RequirementLevel } from '../requirements/types.ts';
import type { Verdict } from './model.ts';
import { judgesWireFacts, SDK_WIRE_FACTS } from './sdk-profile.ts';
import {
  isBlocked,
  isFailed,
  isGatingFailure,
  isHarnessBug,
  isJudged,
  isUnconcluded,
  isUnmet,
  unjudgedGates,
} from './standing.ts';
import { notJudgedList, type RequirementVerdict, type Verdicts } from './verdict.ts';
import { CONFORMS } from './words.ts';

export interface GateResult {
  exitCode: number;
  /** The verdict in words: the terminal's last line and every report's headline. */
  words: string;
  /** What keeps the run from CONFORMS, most serious first (MUST, then SHOULD, then SECURITY, then the rest). */
  reasons: string[];
}

export interface GateInputs {
  /** Errors vitest reported outside any test. */
  unhandledErrors?: number;
  /** Entries of the expect file past their expiry date: each fails the run. */
  expiredExpectations?: number;
  /** Routes the run learned never serve (src/facts/outages.ts): what they kept from being concluded. */
  outages?: number;
}

type GatedLevel = Exclude<RequirementLevel, 'INFO'>;
const LEVELS: readonly GatedLevel[] = ['MUST', 'SHOULD', 'SECURITY'];
const LEVEL_NAME: Record<GatedLevel, [string, string]> = {
  MUST: ['MUST', 'MUST'],
  SHOULD: ['SHOULD', 'SHOULD'],
  SECURITY: ['security check', 'security checks'],
};

/** The unjudged requirements that keep the word CONFORMS away in this profile. */
export function notJudgedGating(verdicts: Verdicts, profile: Profile): RequirementVerdict[] {
  return notJudgedList(verdicts.requirements).filter((r) => unjudgedGates(r.level, profile));
}

export function gate(verdicts: Verdicts, profile: Profile, inputs: GateInputs = {}): GateResult {
  const { summary } = verdicts;
  const rules = PROFILE_RULES[profile];
  // The harness broke: whatever else happened, the run cannot vouch for its verdicts.
  const harnessErrors = verdicts.requirements.filter(isHarnessBug).length;
  if (harnessErrors > 0)
    return {
      exitCode: EXIT.harnessError,
      words: 'NO VERDICT (harness error)',
      reasons: [`${harnessErrors} requirement(s) hit a bug of speakcheck`],
    };
  const failing = LEVELS.filter((level) => levelGates(level, profile)).flatMap((level) => {
    const failed = count(verdicts, profile, level, isFailed);
    const blocked = count(verdicts, profile, level, isBlocked);
    if (failed + blocked === 0) return [];
    // Each count names its level: "2 blocked" after a SHOULD count read as the MUSTs' (issue 41).
    const named = (n: number) => `${n} ${LEVEL_NAME[level][n === 1 ? 0 : 1]}`;
    const parts = [
      ...(failed > 0 ? [`${named(failed)} failed`] : []),
      ...(blocked > 0 ? [`${named(blocked)} blocked`] : []),
    ];
    return [parts.join(', ')];
  });
  const other: string[] = [];
  const judgedAny = verdicts.requirements.some(isJudged);
  if (verdicts.problems.length > 0) other.push(`${verdicts.problems.length} test file or test problem(s)`);
  if ((inputs.unhandledErrors ?? 0) > 0) other.push(`${inputs.unhandledErrors} unhandled error(s)`);
  if ((inputs.expiredExpectations ?? 0) > 0)
    other.push(
      `${inputs.expiredExpectations} expect entr${inputs.expiredExpectations === 1 ? 'y' : 'ies'} expired`,
    );
  if (failing.length > 0 || other.length > 0)
    return withSdk(
      verdicts,
      profile,
      { exitCode: EXIT.failed, words: 'DOES NOT CONFORM', reasons: [...failing, ...other] },
      other.length === 0,
    );
  const notConcluded = verdicts.requirements.filter(isUnconcluded).length;
  if (notConcluded > 0)
    return {
      exitCode: EXIT.failed,
      words: 'NOT CONCLUDED',
      reasons: [
        `${notConcluded} requirement(s) not concluded${
          (inputs.outages ?? 0) > 0
            ? `: ${inputs.outages} route${inputs.outages === 1 ? '' : 's'} never served (the outage lines name them)`
            : ''
        }`,
      ],
    };
  const open = notJudgedText(verdicts, profile);
  // A run that checked nothing, or judged nothing, is no pass whatever the profile: "no MUST
  // failed" would be vacuous.
  const ranNone = summary.tests.passed + summary.tests.failed === 0;
  if (ranNone || !judgedAny)
    return {
      exitCode: EXIT.failed,
      words: 'NOTHING JUDGED',
      reasons: [
        sharedRemedy(verdicts) ??
          (ranNone ? 'no test ran' : `${open || 'every requirement'} not judged: see what would judge each`),
      ],
    };
  // Failures the expect file lists no longer fail the run, but a server that has them does not
  // conform: the words say the failures were expected (issue 41), never CONFORMS.
  // The headline says what happened (issue 51): "NO UNEXPECTED FAILURE — 4 MUST failed as expected",
  // whether or not something was left unjudged, never "no MUST failed" while MUSTs failed.
  const expected = expectedText(verdicts);
  const noneUnexpected = 'NO UNEXPECTED FAILURE';
  if (!open)
    return withSdk(verdicts, profile, {
      exitCode: EXIT.ok,
      words: expected ? `${noneUnexpected} — ${expected}` : CONFORMS,
      reasons: [],
    });
  const held = expected
    ? `${noneUnexpected} — ${expected};`
    : `${rules.shouldGates ? 'NO MUST OR SHOULD FAILED' : 'NO MUST FAILED'} —`;
  return withSdk(verdicts, profile, {
    // In acceptance an unjudged requirement alone fails the run: then the words still say why.
    exitCode: rules.notJudgedGates ? EXIT.failed : EXIT.ok,
    words: `${held} ${open} NOT JUDGED`,
    // The words say it all; the not-judged lines say what would judge each.
    reasons: [],
  });
}

function count(
  verdicts: Verdicts,
  profile: Profile,
  level: GatedLevel,
  of: (r: RequirementVerdict) => boolean,
): number {
  return verdicts.requirements.filter((r) => r.level === level && of(r) && isGatingFailure(r, profile))
    .length;
}

/**
 * When nothing was judged for one reason a test said (not observed, not applicable: e.g. `--only
 * security` without a second account), that reason and what would judge them, in the verdict line
 * itself: "10 security checks not judged: <why> · what would judge them: <option>". Undefined when
 * the reasons differ (the not-judged lines say each) or none was said.
 */
function sharedRemedy(verdicts: Verdicts): string | undefined {
  const open = notJudgedList(verdicts.requirements);
  // What the tests said, from their conclusions (data), not from the words written of them.
  const said = open.flatMap((r) =>
    r.decided !== undefined && isUnmet(r.decided) ? [{ ...r, c: r.decided }] : [],
  );
  if (said.length === 0 || said.length < open.length) return undefined;
  const remedies = new Set(said.map((r) => r.c.wouldJudge));
  const reasons = new Set(said.map((r) => r.c.reason));
  if (remedies.size !== 1) return undefined;
  const counts = LEVELS.map((level) => [level, said.filter((r) => r.level === level).length] as const)
    .filter(([, n]) => n > 0)
    .map(([level, n]) => `${n} ${LEVEL_NAME[level][n === 1 ? 0 : 1]}`)
    .join(', ');
  const why = reasons.size === 1 ? `: ${[...reasons][0]}` : '';
  return `${counts} not judged${why} · what would judge ${said.length === 1 ? 'it' : 'them'}: ${[...remedies][0]}`;
}

/** "4 MUST failed, 2 MUST blocked, 1 security check failed as expected", or '' when none was expected. */
function expectedText(verdicts: Verdicts): string {
  const listed = verdicts.requirements.filter((r) => r.expected !== undefined);
  const parts = LEVELS.flatMap((level) =>
    (
      [
        [isFailed, 'failed'],
        [isBlocked, 'blocked'],
      ] as const
    ).flatMap(([of, word]) => {
      const n = listed.filter((r) => r.level === level && of(r)).length;
      return n > 0 ? [`${n} ${LEVEL_NAME[level][n === 1 ? 0 : 1]} ${word}`] : [];
    }),
  );
  return parts.length > 0 ? `${parts.join(', ')} as expected` : '';
}

/** "21 MUST, 2 SHOULD" not judged (those that gate in the profile), or '' when none. */
function notJudgedText(verdicts: Verdicts, profile: Profile): string {
  const open = notJudgedGating(verdicts, profile);
  return LEVELS.map((level) => [level, open.filter((r) => r.level === level).length] as const)
    .filter(([, n]) => n > 0)
    .map(([level, n]) => `${n} ${level}`)
    .join(', ');
}

/**
 * The sdk profile's words also say whether the server works with the vendor's SDK and clients: the
 * wire facts (src/verdict/sdk-profile.ts) are SHOULDs there, so a server that fails only those
 * is NOT COMPATIBLE, not "does not conform" (no sentence of speak-v1.md failed).
 */
function withSdk(
  verdicts: Verdicts,
  profile: Profile,
  result: GateResult,
  /** The run failed on its requirements alone (no test problem, unhandled error or expired entry). */
  failedOnRequirementsAlone = false,
): GateResult {
  if (!judgesWireFacts(profile)) return result;
  const gating = (r: Verdict) => isGatingFailure(r, profile);
  const wireFacts = verdicts.requirements.filter((r) => gating(r) && r.id in SDK_WIRE_FACTS);
  const contract = verdicts.requirements.filter((r) => gating(r) && !(r.id in SDK_WIRE_FACTS));
  if (result.exitCode === EXIT.ok) {
    const unjudged = notJudgedGating(verdicts, profile).filter((r) => r.id in SDK_WIRE_FACTS);
    return {
      ...result,
      words:
        unjudged.length > 0
          ? `${result.words} — SDK compatibility not fully judged (${unjudged.map((r) => r.id).join(', ')})`
          : `${result.words} — compatible with the vendor's SDK and clients`,
    };
  }
  if (contract.length > 0 || wireFacts.length === 0 || result.exitCode !== EXIT.failed) return result;
  if (!failedOnRequirementsAlone) return result;
  return {
    ...result,
    words: `NOT COMPATIBLE with the vendor's SDK and clients (wire facts not met: ${wireFacts.map((r) => r.id).join(', ')}; no requirement of speak-v1.md failed)`,
  };
}
