/**
 * Every sentence about a requirement's verdict, written from the data (issue 48): the message a
 * report shows, why a requirement was not judged and what would judge it. Written from the verdict
 * (src/verdict/model.ts), its standing (src/verdict/standing.ts) and the run's particulars (why it
 * stopped, the back-pressure it waited on); nothing here is read back by any code.
 */

import { OUTAGE_WOULD_JUDGE } from '../client/route-patience.ts';
import type { Profile } from '../config/types.ts';
import { sentencesOf } from '../evidence/observation.ts';
import { redactText } from '../evidence/redact.ts';
import type { Outage, RouteOutageData } from '../facts/outages.ts';
import { type Conclusion, stoppedRemedy } from './conclusion.ts';
import type { RunStopped, StopReason, Verdict } from './model.ts';
import {
  type Group,
  isOpen,
  type Label,
  labelOf,
  type Standable,
  standing,
  unjudgedGates,
} from './standing.ts';

/** What only the whole run knows, and the words say. */
export interface RunParticulars {
  stopped?: RunStopped;
  /** The run waited on the server's limit: "throttled: 429 on N requests, waited M s". */
  throttled?: string;
}

/** A MUST or SHOULD that has no verdict of its own in this run: why, and what would judge it. */
export interface NotJudged {
  /** Its label before the expect file applied (blocked, not-observed, …). */
  status: Label;
  reason: string;
  wouldJudgeIt: string;
}

/** The verdict's message as the reports show it. */
export function messageOf(v: Verdict, profile: Profile | undefined, run: RunParticulars = {}): string {
  const plain = plainMessage(v, profile, run);
  if (!v.expected || labelOf(v, profile) !== 'expected-failure') return plain;
  const { reason, link } = v.expected;
  return `Expected (${reason}${link ? `, ${link}` : ''}): ${v.decided?.kind === 'blocked' ? 'blocked: ' : ''}${plain}`;
}

/** The message before the expect file applied. */
function plainMessage(v: Verdict, profile: Profile | undefined, run: RunParticulars): string {
  const c = v.decided;
  const test = v.decidedIn?.test ?? '';
  if (c?.kind === 'not-concluded' && v.decidedIn === undefined)
    return `Not concluded (${run.throttled ?? 'timeout'}): ${run.stopped?.sentence ?? 'the run was stopped'} before any covering test ran.`;
  if (v.level === 'INFO') return infoMessage(v, run);
  switch (c?.kind) {
    case undefined:
      return v.covered
        ? 'Not observed: no covering test concluded anything about it.'
        : 'No test covers this requirement.';
    case 'violated': {
      const more = (v.decidedIn?.tests ?? 1) - 1;
      const said = `${test}: ${c.message}${more > 0 ? ` (and ${more} more failing test${more > 1 ? 's' : ''})` : ''}`;
      if (labelOf({ ...v, expected: undefined }, profile) !== 'non-strict') return said;
      return `Non-strict (a ${v.level === 'SHOULD' ? 'SHOULD' : 'security check'}, ${profile} profile): ${said}`;
    }
    case 'harness-bug':
      return `Harness error (a bug of speakcheck, not a verdict on the server; please report it): ${c.bug}`;
    case 'blocked':
      return `${test}: blocked by: ${c.by}`;
    case 'not-concluded':
      // A run stopped while it waited on the server's limit says so first.
      return `Not concluded (${c.cause === 'stopped' && run.throttled ? run.throttled : c.cause}): ${test}: ${c.reason}`;
    case 'held': {
      const n = v.decidedIn?.tests ?? 1;
      return `${n} test${n > 1 ? 's' : ''} passed.`;
    }
    case 'not-applicable':
      return `Not applicable: ${c.reason}`;
    case 'not-observed':
      return `Not observed: ${test}: ${c.reason}`;
  }
}

/** INFO judges nothing: its message is what the covering tests saw. */
function infoMessage(v: Verdict, run: RunParticulars): string {
  const c = v.decided;
  const test = v.decidedIn?.test ?? '';
  if (c === undefined) return 'No test covers this requirement.';
  if (c.kind === 'not-concluded')
    return c.cause === 'throttled'
      ? `Not observed: ${test} did not finish (${c.reason}).`
      : `Not concluded (${run.throttled ?? 'timeout'}): ${test} did not finish.`;
  if (c.kind === 'not-observed')
    return `Every covering test was skipped.${v.observations.length > 0 ? ` ${sentencesOf(v.observations).join(' · ')}` : ''}`;
  return v.observations.length > 0 ? sentencesOf(v.observations).join(' · ') : 'Observed; nothing noted.';
}

/**
 * A MUST, SHOULD or security check without a verdict of its own: the reason and what would judge it,
 * from the conclusion that decided it, else by its label. Undefined when it was judged.
 */
export function notJudgedOf(
  v: Verdict,
  profile: Profile | undefined,
  run: RunParticulars = {},
): NotJudged | undefined {
  if (v.level === 'INFO') return undefined;
  const status = labelOf({ ...v, expected: undefined }, profile);
  if (status === 'passed' || status === 'failed' || status === 'non-strict') return undefined;
  const c = v.decided;
  // A stopped run's remedy depends on why it was stopped, which only the whole run knows.
  const stoppedHere = c?.kind === 'not-concluded' && c.cause === 'stopped';
  const said = c !== undefined && 'wouldJudge' in c && !stoppedHere ? c : undefined;
  return {
    status,
    reason: said?.reason ?? plainMessage(v, profile, run),
    wouldJudgeIt: said?.wouldJudge ?? defaultRemedy(status, v.covered, v.stop),
  };
}

/** What would judge a requirement whose conclusion named no remedy, by why it was not judged. */
function defaultRemedy(status: Label, covered: boolean, stop: StopReason | undefined): string {
  switch (status) {
    case 'blocked':
      return 'the server getting past the step that blocked it (see the message); then run again';
    case 'not-concluded':
      return stoppedRemedy(stop);
    case 'harness-error':
      return 'a speakcheck without this bug (please report it)';
    case 'not-applicable':
      return 'the server offering the feature';
    case 'not-observed':
      return 'a run where the state it speaks of can be observed (see the reason)';
    default:
      return covered
        ? 'a run where its test is not skipped (see the reason)'
        : 'a test that covers it (none exists: a gap of speakcheck)';
  }
}

/** One conclusion in words, for a test's own result lines (the Allure attachment). */
export function conclusionWords(c: Conclusion): string {
  switch (c.kind) {
    case 'held':
      return 'held';
    case 'violated':
      return `violated: ${c.message}`;
    case 'blocked':
      return `blocked by: ${c.by}`;
    case 'harness-bug':
      return `harness bug: ${c.bug}`;
    case 'not-concluded':
      return `not concluded (${c.cause}): ${c.reason}`;
    default:
      return `${c.kind}: ${c.reason}`;
  }
}

/**
 * Why a run that failed nothing is not CONFORMS: what it left unjudged, per level that gates in its
 * profile ("3 MUST not judged: A, B, C"), for a verdict whose words give no reasons of their own.
 */
export function notJudgedReasons(verdicts: readonly Verdict[], profile: Profile): string[] {
  const open = verdicts.filter((v) => isOpen(v) && unjudgedGates(v.level, profile));
  return (['MUST', 'SHOULD', 'SECURITY'] as const).flatMap((level) => {
    const ids = open.filter((v) => v.level === level).map((v) => v.id);
    if (ids.length === 0) return [];
    const shown =
      ids.length > 8 ? `${ids.slice(0, 8).join(', ')} and ${ids.length - 8} more` : ids.join(', ');
    const name = level === 'SECURITY' ? (ids.length === 1 ? 'security check' : 'security checks') : level;
    return [`${ids.length} ${name} not judged: ${shown}`];
  });
}

/** A failed requirement's finding in one sentence: the test and what it saw, without the expect file's or the profile's prefix. */
export function findingLine(v: Verdict): string {
  const c = v.decided;
  return c?.kind === 'violated'
    ? `${v.decidedIn ? `${v.decidedIn.test}: ` : ''}${c.message}`
    : plainMessage(v, undefined, {});
}

/**
 * A verdict's outcome as the reports name and colour it (the pages' CSS classes `o-<outcome>`, the
 * status filter): the standing's group in the report's words.
 */
export type Outcome = 'failed' | 'blocked' | 'not-judged' | 'passed' | 'info';

const OUTCOME_OF: Record<Group, Outcome> = {
  held: 'passed',
  failed: 'failed',
  blocked: 'blocked',
  'not-judged': 'not-judged',
  observed: 'info',
};

export function outcomeOf(r: Standable): Outcome {
  return OUTCOME_OF[standing(r).group];
}

/** The order of the bars and their key. */
export const OUTCOMES: readonly Outcome[] = ['passed', 'failed', 'blocked', 'not-judged', 'info'];

/** Worst first: what a reader acts on, in that order. */
const OUTCOME_ORDER: readonly Outcome[] = ['failed', 'blocked', 'not-judged', 'passed', 'info'];

export function outcomeRank(o: Outcome): number {
  return OUTCOME_ORDER.indexOf(o);
}

/** The worst outcome among some verdicts (at least one). */
export function worstOutcome(of: readonly Standable[]): Outcome {
  return of.map(outcomeOf).sort((a, b) => outcomeRank(a) - outcomeRank(b))[0]!;
}

const OUTCOME_LABEL: Record<Outcome, string> = {
  failed: 'failed',
  blocked: 'blocked',
  'not-judged': 'not judged',
  passed: 'passed',
  info: 'info',
};

export function outcomeLabel(o: Outcome): string {
  return OUTCOME_LABEL[o];
}

/** The groups of "Act on first", in order, with their headings. */
export const ACT_GROUPS: readonly { outcome: Outcome; title: string }[] = [
  { outcome: 'failed', title: 'Failed' },
  { outcome: 'blocked', title: 'Blocked (not judged: a step before the checks failed)' },
  {
    outcome: 'not-judged',
    title: 'Not judged (not observed, skipped, not applicable, not concluded, harness error)',
  },
];

/** The verdict's word for a run that conforms with nothing to add (src/verdict/gate.ts says it). */
export const CONFORMS = 'CONFORMS';

/**
 * Whether a verdict's words are the plain CONFORMS, that needs no detail after it. The one place a
 * word is compared: the headline is the gate's sentence, and a report keeps no other trace of it.
 */
export function isPlainConforms(words: string): boolean {
  return words === CONFORMS;
}

/** How a failed line marks a failure that does not gate: ", expected", ", non-strict", or ''. */
export function failedMark(v: Standable, profile: Profile): string {
  const label = labelOf(v, profile);
  return label === 'expected-failure' ? ', expected' : label === 'non-strict' ? ', non-strict' : '';
}

/** What would judge what a route that does not answer kept from being judged. */
export const UNANSWERED_WOULD_JUDGE =
  'the server fixed to answer this route (or a longer --request-timeout, if it is only slow)';

/** What would judge what an outage kept from being concluded, by its kind. */
export function outageWouldJudge(o: Pick<Outage, 'kind'>): string {
  return o.kind === 'unavailable' ? OUTAGE_WOULD_JUDGE : UNANSWERED_WOULD_JUDGE;
}

/** "outage: GET … answered 429 to all 17 requests over 31 s while …; … would be judged with …" */
export function outageLine(o: Outage): string {
  // A second net: an outage's evidence may quote a request (a signed URL carries its signature).
  return `outage: ${redactText(o.sentence)}; what it kept from being concluded would be judged with ${outageWouldJudge(o)}`;
}

/** An outage as conformance.json keeps it: its figures, its evidence and what would judge it. */
export interface OutageWords extends RouteOutageData {
  sentence: string;
  wouldJudge: string;
}

export function outageWords(o: Outage): OutageWords {
  const { route, statuses, answers, spanMs, servedElsewhere, sentence } = o;
  return { route, statuses, answers, spanMs, servedElsewhere, sentence, wouldJudge: outageWouldJudge(o) };
}

/** What a label means, as the pages say it before the message: its name, and why it is not a pass. */
const LABEL_NOTE: Partial<Record<Label, { name: string; why: string }>> = {
  blocked: {
    name: 'Blocked, not judged',
    why: 'a step before its checks failed; a blocked MUST or SHOULD counts against conformance',
  },
  'expected-failure': { name: 'Expected failure', why: 'listed in the expect file; does not gate the run' },
  skipped: { name: 'Not judged', why: 'every covering test was skipped, or none exists' },
  'not-applicable': { name: 'Not judged', why: 'the server does not offer this optional feature' },
  'not-observed': { name: 'Not judged', why: 'the state it speaks of was not observed in this run' },
  'not-concluded': { name: 'Not judged', why: 'the run was stopped before a covering test finished' },
  'harness-error': { name: 'Not judged', why: 'the harness broke while judging it; not the server’s fault' },
};

export function labelNote(label: Label): { name: string; why: string } | undefined {
  return LABEL_NOTE[label];
}
