/**
 * The run's terminal output (src/report/terminal.ts), without a run: the header from a run plan, the
 * stop's sentences, and the end of the run from verdicts computed by the real pipeline (catalogue →
 * computeVerdicts → gate), line by line and stream by stream, in the order the run prints them.
 */
import { describe, expect, test } from 'vitest';
import type { ThrottleStats } from '../../src/client/back-pressure.ts';
import { resolveRunConfig } from '../../src/config/resolve.ts';
import type { Profile } from '../../src/config/types.ts';
import type { Outage } from '../../src/facts/outages.ts';
import { resolveRunPlan } from '../../src/harness/run-plan.ts';
import { LOCAL_SUITE_WORKERS, REMOTE_SUITE_WORKERS } from '../../src/harness/suite-workers.ts';
import { summaryTable } from '../../src/report/summary-table.ts';
import {
  budgetRanOutReason,
  compactVersion,
  headerLines,
  phaseText,
  type RunEnd,
  type SummaryContext,
  signalReason,
  signalStopsRunLine,
  signalStopsSuitesLine,
  stoppedWaitingLine,
  suiteWorkersLine,
  summaryLines,
  type TerminalLine,
  trafficText,
} from '../../src/report/terminal.ts';
import { catalogue } from '../../src/requirements/index.ts';
import { lifetimesSentence, QUICK_RUN_LIFETIMES } from '../../src/stack/run-lifetimes.ts';
import type { Conclusion } from '../../src/verdict/conclusion.ts';
import type { ExpectOutcome } from '../../src/verdict/expectations.ts';
import { gate } from '../../src/verdict/gate.ts';
import { computeVerdicts, type TestOutcome } from '../../src/verdict/verdict.ts';
import { testOutcome } from '../support/test-outcome.ts';

const now = new Date('2026-11-21T10:20:30.456Z');
const stack = { baseUrl: 'http://127.0.0.1:34137', email: 'demo@stack', password: 'stackpw' };

const idsOf = (area: string, level?: string) =>
  catalogue.filter((r) => r.area === area && (level === undefined || r.level === level)).map((r) => r.id);
const count = (area: string, level: string) => idsOf(area, level).length;

const quietTraffic: ThrottleStats = {
  requests: 996,
  answered429: 0,
  answered503: 0,
  retryAfterAbsent: 0,
  heldS: 0,
  waitedS: 0,
  gaveUp: 0,
};

/** The end of a run of `areas` with these outcomes, as the reporter hands it over. */
function endOf(
  outcomes: TestOutcome[],
  areas: string[],
  profile: Profile = 'strict',
  extra: Partial<RunEnd> = {},
) {
  const verdicts = computeVerdicts(catalogue, outcomes, { areas, profile });
  const gated = gate(verdicts, profile, { expiredExpectations: extra.expect?.expired.length ?? 0 });
  const end: RunEnd = {
    verdicts,
    run: { verdict: gated.words, verdictReasons: gated.reasons, exitCode: gated.exitCode, profile },
    expectedFailedTests: 0,
    ...extra,
  };
  return end;
}

const context = (extra: Partial<SummaryContext> = {}): SummaryContext => ({
  profile: 'strict',
  reportDir: '/tmp/reports/run',
  phases: [phaseText('stack start', 700), phaseText('preflight', 120), phaseText('suites', 7240)],
  traffic: quietTraffic,
  outages: [],
  ...extra,
});

const texts = (lines: TerminalLine[], to: 'out' | 'err') =>
  lines.filter((l) => l.to === to).map((l) => l.text);

describe('the header', () => {
  test("against the run's own stack: the stack, the profile, the run id, the lifetimes, the versions", () => {
    const config = resolveRunConfig({}, {}, now);
    const plan = resolveRunPlan(config, stack, { quickestAnswerMs: 2 });
    expect(headerLines(plan, { harness: '0.1.0 (7dc80d8)', server: { version: 1, minor: 0 } })).toEqual([
      `speakcheck: testing http://127.0.0.1:34137 (embedded reference stack), profile strict, run ${config.runId}`,
      `speakcheck: ${lifetimesSentence(QUICK_RUN_LIFETIMES)}`,
      `speakcheck: version 0.1.0 (7dc80d8); the server's /version answered {"version":1,"minor":0}`,
    ]);
  });

  test('a remote server: the selection named, no lifetimes; a /version the throttle kept from being read', () => {
    const config = resolveRunConfig(
      {
        baseUrl: 'http://api.example',
        token: 't',
        only: 'auth,version',
        requirement: ['AUTH-LOGIN-FAIL-401'],
      },
      {},
      now,
    );
    const plan = resolveRunPlan(config, undefined, { quickestAnswerMs: 40 });
    expect(headerLines(plan, { harness: '0.1.0', server: undefined })).toEqual([
      `speakcheck: testing http://api.example, profile strict, areas auth, version, requirements AUTH-LOGIN-FAIL-401, run ${config.runId}`,
      "speakcheck: version 0.1.0; the server's /version was not read (the server throttled)",
    ]);
  });

  test('--max-rps: the pace is said in the header (issue 51 item 6), and in the timing line', () => {
    const config = resolveRunConfig({ baseUrl: 'http://api.example', token: 't', maxRps: '4' }, {}, now);
    const plan = resolveRunPlan(config, undefined, { quickestAnswerMs: 40 });
    expect(headerLines(plan, { harness: '0.1.0', server: '1' })).toContain(
      'speakcheck: paced at 4 requests/s (--max-rps): every request of the run waits its turn; a test that runs out of time names the pacing',
    );
    expect(trafficText({ ...quietTraffic, rateRps: 4 })).toBe(
      "996 requests, waited 0.0 s on the server's rate limit (429: 0, 503: 0); paced at 4 requests/s at the end",
    );
  });

  test('a long /version answer is cut to 200 characters', () => {
    const long = 'v'.repeat(300);
    expect(compactVersion(long)).toBe(`${'v'.repeat(200)}…`);
    expect(compactVersion('1.0')).toBe('1.0');
  });

  test("more suite files at once only at a network's round trip, and the line says why", () => {
    const config = resolveRunConfig({ baseUrl: 'http://api.example', token: 't' }, {}, now);
    const far = resolveRunPlan(config, undefined, { quickestAnswerMs: 41.6 });
    expect(suiteWorkersLine(far, 41.6)).toBe(
      `speakcheck: ${REMOTE_SUITE_WORKERS} suite files at a time: the server's quickest answer took 42 ms, a network's round trip (their waits overlap)`,
    );
    const near = resolveRunPlan(config, undefined, { quickestAnswerMs: 3 });
    expect(near.suiteWorkers).toBe(LOCAL_SUITE_WORKERS);
    expect(suiteWorkersLine(near, 3)).toBeUndefined();
    expect(suiteWorkersLine(resolveRunPlan(config, undefined, undefined), 41.6)).toBeUndefined();
  });
});

describe('the stop', () => {
  test('the budget: its seconds, and the back-pressure the run waited on when there was any', () => {
    expect(budgetRanOutReason(600_000, quietTraffic)).toBe('the run budget of 600 s (--max-time) ran out');
    expect(budgetRanOutReason(4_000, { ...quietTraffic, answered429: 3, waitedS: 2.5 })).toBe(
      'the run budget of 4 s (--max-time) ran out (throttled: 429 on 3 requests, waited 2.5 s)',
    );
    expect(stoppedWaitingLine(budgetRanOutReason(4_000, quietTraffic))).toBe(
      'speakcheck: the run budget of 4 s (--max-time) ran out: not waiting any longer; what has not finished is not concluded.',
    );
  });

  test('a signal: the first stops the suites, the next the run', () => {
    expect(signalStopsSuitesLine('SIGINT')).toBe(
      'speakcheck: SIGINT: stopping the suites and writing the reports (again to stop at once).',
    );
    expect(signalStopsRunLine('SIGTERM')).toBe('speakcheck: SIGTERM: stopping.');
    expect(stoppedWaitingLine(signalReason('SIGINT'))).toBe(
      'speakcheck: SIGINT (interrupted): not waiting any longer; what has not finished is not concluded.',
    );
  });
});

describe('the end of the run', () => {
  test('a conforming run: every line on stdout, in order, the verdict last', () => {
    const end = endOf([testOutcome('suites/version.spec.ts > all', 'passed', idsOf('version'))], ['version']);
    const lines = summaryLines(end, context());
    expect(texts(lines, 'err')).toEqual([]);
    expect(texts(lines, 'out')).toEqual([
      '',
      summaryTable(end.verdicts.requirements, end.verdicts.summary),
      '',
      'tests: 1 passed, 0 failed, 0 skipped; MUST failed: 0, SHOULD failed: 0',
      'characters synthesized: 0',
      "timing: stack start 0.7 s, preflight 0.1 s, suites 7.2 s; 996 requests, waited 0.0 s on the server's rate limit (429: 0, 503: 0)",
      'reports: /tmp/reports/run (conformance.json, conformance.md, conformance.html, badge.svg, badge.json, junit.xml, allure-results/)',
      `judged: ${count('version', 'MUST')} of ${count('version', 'MUST')} MUST, ${count('version', 'SHOULD')} of ${count('version', 'SHOULD')} SHOULD`,
      'verdict: CONFORMS',
    ]);
  });

  test('the Allure line after the reports, the outages before the verdict', () => {
    const end = endOf([testOutcome('suites/version.spec.ts > all', 'passed', idsOf('version'))], ['version']);
    const outage: Outage = {
      route: 'GET /v1/speak/takes/{take_id}/flac',
      statuses: [429],
      answers: 17,
      spanMs: 31_000,
      servedElsewhere: 212,
      kind: 'unavailable',
      sentence: 'GET /v1/speak/takes/{take_id}/flac answered 429 to all 17 requests over 31 s',
    };
    const out = texts(
      summaryLines(end, context({ allure: 'allure HTML: /tmp/a', outages: [outage] })),
      'out',
    );
    expect(out[out.indexOf('allure HTML: /tmp/a') - 1]).toMatch(/^reports: /);
    const outageAt = out.findIndex((l) => l.includes(outage.sentence));
    expect(outageAt).toBe(out.length - 2);
    expect(out.at(-1)).toMatch(/^verdict: /);
  });

  test('a failing run: problems and alerts on stderr, the security count and line, the verdict with its reasons', () => {
    const [failingMust] = idsOf('version', 'MUST');
    const security = idsOf('security');
    const problems = Array.from({ length: 12 }, (_, i) => ({
      where: `suites/x.spec.ts > t${i}`,
      message: `first line ${i}\nsecond line`,
    }));
    const expectOutcome: ExpectOutcome = {
      file: 'speakcheck.expect.yaml',
      expected: [],
      unexpectedPasses: [{ requirement: security[0]!, reason: 'known' }],
      expired: [],
    };
    const outcomes = [
      testOutcome('suites/version.spec.ts > breaks', 'failed', [failingMust!]),
      testOutcome('suites/security.spec.ts > isolated', 'passed', security),
    ];
    const end = endOf(outcomes, ['version', 'security'], 'strict', { expect: expectOutcome });
    end.verdicts.problems.push(...problems);
    const lines = summaryLines(end, context());
    const err = texts(lines, 'err');
    expect(err.slice(0, 10)).toEqual(
      problems.slice(0, 10).map((p, i) => `  problem: ${p.where}: first line ${i}`),
    );
    expect(err[10]).toBe(
      `*** unexpected pass: ${security[0]} passed: remove it from speakcheck.expect.yaml ***`,
    );
    expect(err).toHaveLength(11);
    const out = texts(lines, 'out');
    expect(out).toContain(
      'tests: 1 passed, 1 failed, 0 skipped; MUST failed: 1, SHOULD failed: 0, SECURITY failed: 0',
    );
    expect(out).toContain(
      `security (tenant isolation, OWASP API1:2023): ${security.length} checks: ${security.length} passed, 0 failed, 0 blocked, 0 not judged; gating (strict profile)`,
    );
    expect(out.at(-1)).toBe('verdict: DOES NOT CONFORM (exit 1, strict profile; 1 MUST failed)');
  });

  test('every failed MUST, SHOULD and security check is named, id and one line each, before the not-judged list', () => {
    // Issue 51: the terminal counted the failed MUSTs but named only the blocked ones.
    const [failingMust, blocked] = idsOf('version', 'MUST');
    const security = idsOf('security');
    const outcomes = [
      testOutcome('suites/version.spec.ts > breaks', 'failed', [failingMust!]),
      testOutcome('suites/version.spec.ts > blocked', 'failed', [blocked!], {
        conclusions: { [blocked!]: [{ kind: 'blocked', by: 'creating the voice failed' }] },
      }),
      testOutcome('suites/security.spec.ts > leaks', 'failed', [security[0]!], {
        conclusions: { [security[0]!]: [{ kind: 'violated', message: "B read A's take" }] },
      }),
    ];
    const out = texts(summaryLines(endOf(outcomes, ['version', 'security']), context()), 'out');
    const failedAt = out.indexOf('failed (2):');
    expect(failedAt).toBeGreaterThan(out.findIndex((l) => l.startsWith('reports: ')));
    expect(out[failedAt + 1]).toBe(`  ${failingMust} (MUST): breaks: breaks broke`);
    expect(out[failedAt + 2]).toBe(`  ${security[0]} (SECURITY): leaks: B read A's take`);
    expect(out.findIndex((l) => l.startsWith('not judged ('))).toBeGreaterThan(failedAt + 2);
  });

  test('blocked requirements, the expected failures and the harness breaking are said', () => {
    const [blocked, alsoBlocked] = idsOf('version', 'MUST');
    const blockedBy: Conclusion = { kind: 'blocked', by: 'creating the voice failed' };
    const bug: Conclusion = { kind: 'harness-bug', message: 'x is undefined', bug: 'suites/support/a.ts:3' };
    const [info] = idsOf('version', 'INFO');
    const [knownFailure] = idsOf('auth', 'MUST');
    const outcomes = [
      testOutcome('suites/version.spec.ts > blocked', 'failed', [blocked!], {
        conclusions: { [blocked!]: [blockedBy] },
      }),
      testOutcome('suites/version.spec.ts > bug', 'failed', [alsoBlocked!], {
        conclusions: { [alsoBlocked!]: [bug] },
      }),
      testOutcome('suites/version.spec.ts > info', 'passed', [info!]),
    ];
    const expectOutcome: ExpectOutcome = {
      file: 'e.yaml',
      expected: [knownFailure!],
      unexpectedPasses: [],
      expired: [],
    };
    const end = endOf(outcomes, ['version'], 'strict', { expect: expectOutcome, expectedFailedTests: 1 });
    const lines = summaryLines(end, context());
    const out = texts(lines, 'out');
    expect(out).toContain(`expected failures (e.yaml): 1: ${knownFailure}`);
    expect(out.find((l) => l.startsWith('tests: '))).toBe(
      'tests: 1 passed, 2 failed (1 expected), 0 skipped; MUST failed: 0, SHOULD failed: 0, MUST blocked: 1, SHOULD blocked: 0',
    );
    expect(texts(lines, 'err')).toEqual([
      'speakcheck: the harness itself broke on 1 requirement(s) (status harness-error; not a verdict on the server): please file a bug report for speakcheck with conformance.json (its message names the line that broke)',
    ]);
    // What was not judged is listed, each with what would judge it, before the judged count.
    const notJudgedAt = out.findIndex((l) => l.startsWith('not judged ('));
    expect(notJudgedAt).toBeGreaterThan(out.findIndex((l) => l.startsWith('reports: ')));
    expect(out[notJudgedAt + 1]).toMatch(
      new RegExp(`^  ${blocked} \\(MUST, blocked\\): .*creating the voice failed`),
    );
  });

  test('a run in which no test ran cannot pass, and says so on stderr', () => {
    const end = endOf([], ['version']);
    const lines = summaryLines(end, context());
    expect(texts(lines, 'err')).toEqual(['speakcheck: no test ran: a run that checks nothing cannot pass.']);
    expect(texts(lines, 'out')).toContain(
      'tests: 0 passed, 0 failed, 0 skipped; MUST failed: 0, SHOULD failed: 0',
    );
  });

  test('the traffic: the longer of the held and the summed waits', () => {
    expect(trafficText({ ...quietTraffic, heldS: 3.04, waitedS: 1.2, answered503: 2 })).toBe(
      "996 requests, waited 3.0 s on the server's rate limit (429: 0, 503: 2)",
    );
  });
});
