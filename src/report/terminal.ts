/**
 * What `speakcheck run` prints on the terminal, as pure functions of what the run knows: the header
 * (what is tested, how, which versions), the lines of a stack start or preflight that failed, the
 * stop's sentences, and the end: the summary table, the counts, where the reports are, what was not
 * judged and the verdict line (./verdict-line.ts). The run (src/run/run-conformance.ts) only writes
 * them, so every line is tested without a run (test/report/terminal.test.ts).
 */
import type { ThrottleStats } from '../client/back-pressure.ts';
import { throttleSentence } from '../client/throttle-words.ts';
import type { Profile, Target } from '../config/types.ts';
import type { Outage } from '../facts/outages.ts';
import type { RunPlan } from '../harness/run-plan.ts';
import { LOCAL_SUITE_WORKERS } from '../harness/suite-workers.ts';
import { lifetimesSentence } from '../stack/run-lifetimes.ts';
import { type ExpectOutcome, expectLines } from '../verdict/expectations.ts';
import { judgedText, type Verdicts } from '../verdict/verdict.ts';
import { outageLine } from '../verdict/words.ts';
import { failedLines, notJudgedLines, securityLine, summaryTable } from './summary-table.ts';
import { verdictLine } from './verdict-line.ts';

/** One line of the run's output: stdout, or stderr for what must stand out (problems, alerts, stops). */
export interface TerminalLine {
  readonly to: 'out' | 'err';
  readonly text: string;
}

const out = (text: string): TerminalLine => ({ to: 'out', text });
const err = (text: string): TerminalLine => ({ to: 'err', text });

/** A /version answer on one short line: any JSON a server sends, cut to 200 characters. */
export function compactVersion(version: unknown): string {
  const text = typeof version === 'string' ? version : JSON.stringify(version);
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

export function stackStartingLine(target: Target): string {
  return `speakcheck: starting the ${target} reference stack ...`;
}

/** A log line of the run's own stack. */
export function stackLogLine(line: string): string {
  return `speakcheck: ${line}`;
}

/** The stack did not start (exit 3). */
export function stackFailedLine(message: string): string {
  return `speakcheck: could not run: ${message}.`;
}

/** The preflight found no server to test (exit 3); its sentences end with their own full stop. */
export function preflightFailedLine(message: string): string {
  return `speakcheck: could not run: ${message}`;
}

/** The server only throttled the preflight: the run goes on. */
export function preflightThrottledLine(throttled: string): string {
  return `speakcheck: the server only throttled the preflight (${throttled}); going on: the suites wait on its limit within --max-time.`;
}

/**
 * The run's first lines: what is tested (the server, the profile, the selection, the run id), the
 * lifetimes the run's own stack serves, and the versions of speakcheck and the server.
 */
export function headerLines(plan: RunPlan, versions: { harness: string; server: unknown }): string[] {
  const ownStack = plan.target !== 'remote';
  const lines = [
    `speakcheck: testing ${plan.baseUrl}${ownStack ? ` (${plan.target} reference stack)` : ''}, profile ${plan.profile}${
      plan.only.length ? `, areas ${plan.only.join(', ')}` : ''
    }${plan.requirements.length ? `, requirements ${plan.requirements.join(', ')}` : ''}, run ${plan.runId}`,
  ];
  if (plan.stackLifetimes) lines.push(`speakcheck: ${lifetimesSentence(plan.stackLifetimes)}`);
  // The pace is said where it is set: every request of the run waits its turn under it.
  if (plan.maxRps !== undefined)
    lines.push(
      `speakcheck: paced at ${plan.maxRps} requests/s (--max-rps): every request of the run waits its turn; a test that runs out of time names the pacing`,
    );
  lines.push(
    `speakcheck: version ${versions.harness}; the server's /version ${
      versions.server === undefined
        ? 'was not read (the server throttled)'
        : `answered ${compactVersion(versions.server)}`
    }`,
  );
  return lines;
}

/** Why the run runs more suite files at once than the default (undefined: it does not). */
export function suiteWorkersLine(plan: RunPlan, quickestAnswerMs: number): string | undefined {
  if (plan.suiteWorkers === undefined || plan.suiteWorkers === LOCAL_SUITE_WORKERS) return undefined;
  return `speakcheck: ${plan.suiteWorkers} suite files at a time: the server's quickest answer took ${Math.round(quickestAnswerMs)} ms, a network's round trip (their waits overlap)`;
}

/** Why the run stops waiting when its budget runs out (and the server's back-pressure, if any). */
export function budgetRanOutReason(maxTimeMs: number, stats: ThrottleStats): string {
  const throttled = stats.answered429 + stats.answered503 > 0 ? ` (${throttleSentence(stats)})` : '';
  return `the run budget of ${(maxTimeMs / 1000).toFixed(0)} s (--max-time) ran out${throttled}`;
}

/** Why the run stops waiting on a signal while the suites run. */
export function signalReason(signal: string): string {
  return `${signal} (interrupted)`;
}

/** The first signal while the suites run: they stop, the reports are still written. */
export function signalStopsSuitesLine(signal: string): string {
  return `speakcheck: ${signal}: stopping the suites and writing the reports (again to stop at once).`;
}

/** A signal outside the suites, or a second one: the run stops at once. */
export function signalStopsRunLine(signal: string): string {
  return `speakcheck: ${signal}: stopping.`;
}

/** The run stopped waiting for the suites (`reason`: budgetRanOutReason or signalReason). */
export function stoppedWaitingLine(reason: string): string {
  return `speakcheck: ${reason}: not waiting any longer; what has not finished is not concluded.`;
}

export const NO_RESULT_LINE = 'speakcheck: the suites ended without a result (see the errors above).';

/** "stack start 1.2 s" for the timing line. */
export function phaseText(name: string, ms: number): string {
  return `${name} ${(ms / 1000).toFixed(1)} s`;
}

/** "1432 requests, waited 0.0 s on the server's rate limit (429: 0, 503: 0)" for the timing line. */
export function trafficText(stats: ThrottleStats): string {
  const waited = Math.max(stats.heldS, stats.waitedS);
  const pace = stats.rateRps ? `; paced at ${stats.rateRps} requests/s at the end` : '';
  return `${stats.requests} requests, waited ${waited.toFixed(1)} s on the server's rate limit (429: ${stats.answered429}, 503: ${stats.answered503})${pace}`;
}

/** What the run ended with: the reporter's verdicts and the report's run header. */
export interface RunEnd {
  verdicts: Verdicts;
  /** The report's run (conformance.json `run`): the verdict line reads it. */
  run: Parameters<typeof verdictLine>[0];
  /** What the expect file did (absent: no expect file). */
  expect?: ExpectOutcome;
  /** Failed tests whose failure the expect file lists. */
  expectedFailedTests: number;
}

/** What the end of the run says besides the verdicts. */
export interface SummaryContext {
  profile: Profile;
  reportDir: string;
  /** The phases' durations, phaseText each. */
  phases: readonly string[];
  traffic: ThrottleStats;
  /** What became of the Allure HTML (`--allure-html`; absent: not asked for). */
  allure?: string;
  /** Each route the run learned to be unavailable (src/facts/outages.ts). */
  outages: readonly Outage[];
}

/** The end of the run: the summary table, the counts, the reports, what was not judged, the verdict. */
export function summaryLines(end: RunEnd, context: SummaryContext): TerminalLine[] {
  const { verdicts } = end;
  const { summary } = verdicts;
  const lines: TerminalLine[] = [
    out(''),
    out(summaryTable(verdicts.requirements, summary, context.profile)),
    out(''),
  ];
  for (const problem of verdicts.problems.slice(0, 10))
    lines.push(err(`  problem: ${problem.where}: ${problem.message.split('\n')[0]}`));
  // Unexpected passes and expired entries stand out on stderr; the count of expected ones is a plain line.
  if (end.expect) {
    const { summary: expectSummary, alerts } = expectLines(end.expect);
    if (expectSummary) lines.push(out(expectSummary));
    for (const alert of alerts) lines.push(err(alert));
  }
  if (summary.harnessErrors > 0)
    lines.push(
      err(
        `speakcheck: the harness itself broke on ${summary.harnessErrors} requirement(s) (status harness-error; not a verdict on the server): please file a bug report for speakcheck with conformance.json (its message names the line that broke)`,
      ),
    );
  const { tests } = summary;
  if (tests.passed + tests.failed === 0)
    lines.push(err('speakcheck: no test ran: a run that checks nothing cannot pass.'));
  lines.push(
    out(
      `tests: ${tests.passed} passed, ${tests.failed} failed${end.expectedFailedTests > 0 ? ` (${end.expectedFailedTests} expected)` : ''}${tests.notConcluded > 0 ? `, ${tests.notConcluded} not concluded` : ''}, ${tests.skipped} skipped; MUST failed: ${summary.mustFailed}, SHOULD failed: ${summary.shouldFailed}${securityCount(verdicts)}${blockedText(summary)}`,
    ),
  );
  const security = securityLine(verdicts.requirements, context.profile);
  if (security) lines.push(out(security));
  lines.push(
    out(`characters synthesized: ${summary.characters}`),
    out(`timing: ${context.phases.join(', ')}; ${trafficText(context.traffic)}`),
    out(
      `reports: ${context.reportDir} (conformance.json, conformance.md, conformance.html, badge.svg, badge.json, junit.xml, allure-results/)`,
    ),
  );
  if (context.allure !== undefined) lines.push(out(context.allure));
  for (const line of failedLines(verdicts.requirements, context.profile)) lines.push(out(line));
  for (const line of notJudgedLines(verdicts.requirements)) lines.push(out(line));
  lines.push(out(judgedText(summary.judged)));
  // Each route the run learned to be unavailable, once (what it kept from being concluded is not concluded).
  for (const outage of context.outages) lines.push(out(outageLine(outage)));
  lines.push(out(verdictLine(end.run)));
  return lines;
}

/** `, SECURITY failed: N` apart from the MUSTs and SHOULDs, when the run judged the security area. */
function securityCount(verdicts: Verdicts): string {
  return verdicts.requirements.some((r) => r.level === 'SECURITY')
    ? `, SECURITY failed: ${verdicts.summary.securityFailed}`
    : '';
}

/** ", MUST blocked: n, SHOULD blocked: m" when any requirement was blocked (empty otherwise). */
function blockedText(summary: { mustBlocked: number; shouldBlocked: number }): string {
  if (summary.mustBlocked + summary.shouldBlocked === 0) return '';
  return `, MUST blocked: ${summary.mustBlocked}, SHOULD blocked: ${summary.shouldBlocked}`;
}
