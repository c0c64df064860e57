/**
 * `speakcheck run`: config → embedded stack (when no base url) → preflight → the suites under vitest
 * with the conformance reporter, JUnit and Allure → summary → exit code. The stack is always stopped.
 *
 * The run has a budget (`--max-time`, counted from the start): every single wait of the suites is
 * bounded, but their sum against a server that hangs everything is not. When the budget runs out,
 * or on the first Ctrl-C (SIGINT) / SIGTERM while the suites run, the run stops waiting: what has
 * not finished is "not concluded (timeout)", every report is still written, and the exit code is 1.
 * A second signal stops at once (exit 130).
 */
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Vitest } from 'vitest/node';
import { EXIT } from '../cli/exit-codes.ts';
import { runThrottle, type ThrottleStats, throttleSentence } from '../client/back-pressure.ts';
import { registerSecret } from '../client/redact.ts';
import { trustCaFile } from '../client/tls-trust.ts';
import { encodeRunConfig, runBudgetMs } from '../config/resolve.ts';
import { RUN_CONFIG_ENV, type RunConfig } from '../config/types.ts';
import { suiteFilters } from '../harness/suite-files.ts';
import { ConformanceReporter, compactVersion } from '../report/conformance-reporter.ts';
import { expectLines } from '../requirements/expectations.ts';
import { judgedText, verdictWords } from '../requirements/verdict.ts';
import { REPO_ROOT, StackStartError } from '../stack/embedded.ts';
import { EMBEDDED_RUN_WORKERS, type StartedTarget, startTarget, stopAllTargets } from '../stack/target.ts';
import { speakcheckVersion } from '../version.ts';
import { PreflightError, preflight } from './preflight.ts';
import { suiteWorkersFor } from './suite-workers.ts';
import { notJudgedLines, securityLine, summaryTable } from './summary-table.ts';

/** How long the stopped run waits for vitest to close its workers before leaving them to the exit. */
const CLOSE_BOUND_MS = 5_000;

export interface RunOptions {
  allureHtml?: boolean;
  /** The run's budget, from the start of the run (default: runBudgetMs, by the expiry mode). */
  maxTimeMs?: number;
  out?: (line: string) => void;
  err?: (line: string) => void;
}

/** `, SECURITY failed: N` apart from the MUSTs and SHOULDs, when the run judged the security area. */
function securityCount(
  requirements: readonly { level: string }[],
  summary: { securityFailed: number },
): string {
  return requirements.some((r) => r.level === 'SECURITY')
    ? `, SECURITY failed: ${summary.securityFailed}`
    : '';
}

/** The verdict line's note when security checks (counted apart from the MUSTs) are among what failed. */
function securityNote(summary: { securityFailed: number; securityBlocked: number }, profile: string): string {
  const failing = summary.securityFailed + summary.securityBlocked;
  if (failing === 0 || profile === 'lenient') return '';
  return `; ${failing} security check${failing > 1 ? 's' : ''} (tenant isolation) failed`;
}

export async function runConformance(config: RunConfig, o: RunOptions = {}): Promise<number> {
  // On a terminal the expiry countdown is one line rewritten in place; every other line clears it first.
  const live = o.out === undefined && process.stdout.isTTY === true;
  const out = o.out ?? ((line: string) => process.stdout.write(`${live ? '\r\x1b[2K' : ''}${line}\n`));
  const status = live ? (line: string) => process.stdout.write(`\r\x1b[2K${line}`) : undefined;
  const err = o.err ?? ((line: string) => process.stderr.write(`${line}\n`));
  const startedAt = new Date();
  registerSecret(config.password);
  registerSecret(config.token);
  registerSecret(config.second?.password);
  registerSecret(config.second?.token);
  config.reportDir = resolve(config.reportDir);

  let stack: StartedTarget | undefined;
  const phases: string[] = [];
  let phaseStart = performance.now();
  const endPhase = (name: string) => {
    const now = performance.now();
    phases.push(`${name} ${((now - phaseStart) / 1000).toFixed(1)} s`);
    phaseStart = now;
  };
  const maxTimeMs = o.maxTimeMs ?? runBudgetMs(undefined, config);
  // Before anything sends a request or vitest starts its worker threads: they copy the run-wide
  // throttle (one shared buffer) and the trusted CA from this thread's environment data.
  const throttle = runThrottle();
  throttle.reset({
    ...(config.maxRps !== undefined ? { maxRps: config.maxRps } : {}),
    deadlineMs: Date.now() + maxTimeMs,
  });
  trustCaFile(config.caFile);
  // The expiry waits (src/harness/expiry.ts) end within the budget, or say what budget would judge them.
  config.expiry.deadlineMs = startedAt.getTime() + maxTimeMs;
  config.expiry.maxTimeS = Math.round(maxTimeMs / 1000);
  // Resolved with the reason when the run must stop waiting (budget or signal during the suites).
  let requestStop: (reason: string) => void = () => undefined;
  const stopRequested = new Promise<string>((resolve) => {
    requestStop = resolve;
  });
  let suitesRunning = false;
  let stopping = false;
  const budget = setTimeout(() => {
    const stats = throttle.stats();
    const throttled = stats.answered429 + stats.answered503 > 0 ? ` (${throttleSentence(stats)})` : '';
    requestStop(`the run budget of ${(maxTimeMs / 1000).toFixed(0)} s (--max-time) ran out${throttled}`);
  }, maxTimeMs);
  budget.unref();
  const onSignal = (signal: NodeJS.Signals) => {
    if (suitesRunning && !stopping) {
      stopping = true;
      err(`speakcheck: ${signal}: stopping the suites and writing the reports (again to stop at once).`);
      requestStop(`${signal} (interrupted)`);
      // The next signal takes the path below: stop the stack and exit at once.
      process.once(signal, onSignal);
      return;
    }
    err(`speakcheck: ${signal}: stopping.`);
    // stopAllTargets covers an interrupt while the container stack is still starting.
    void stopAllTargets().finally(() => process.exit(EXIT.interrupted));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const reporter = new ConformanceReporter({
    config,
    startedAt,
    log: out,
    throttleStats: () => throttle.stats(),
    ...(status ? { status } : {}),
  });
  const ownSignalListeners = new Set([...process.rawListeners('SIGINT'), ...process.rawListeners('SIGTERM')]);
  // Vitest's start-up (vite server, config, transforms) overlaps the stack start and the preflight;
  // its worker threads only start at start(), after the config is complete.
  const vitestReady = createSuitesVitest(config, reporter);
  vitestReady.catch(() => undefined); // awaited below; never an unhandled rejection meanwhile
  let vitest: Vitest | undefined;
  try {
    if (config.target === 'embedded' || config.target === 'container') {
      out(`speakcheck: starting the ${config.target} reference stack ...`);
      try {
        stack = await startTarget(config.target, {
          onLog: (line) => out(`speakcheck: ${line}`),
          // One synthesis worker: why in src/stack/target.ts.
          workers: EMBEDDED_RUN_WORKERS,
        });
      } catch (e) {
        if (e instanceof StackStartError) {
          err(`speakcheck: could not run: ${e.message}.`);
          return EXIT.targetUnavailable;
        }
        throw e;
      }
      config.baseUrl = stack.baseUrl;
      config.authUrl = stack.baseUrl;
      config.email = stack.email;
      config.password = stack.password;
      // The stack's second customer, unless the user named one (--second-email/--second-token).
      if (stack.second && !config.second) config.second = stack.second;
      endPhase('stack start');
    }

    let serverVersion: unknown;
    let quickestAnswerMs = 0;
    try {
      const checked = await preflight(config);
      serverVersion = checked.version;
      quickestAnswerMs = checked.quickestAnswerMs;
      if (checked.throttled)
        err(
          `speakcheck: the server only throttled the preflight (${checked.throttled}); going on: the suites wait on its limit within --max-time.`,
        );
    } catch (e) {
      if (e instanceof PreflightError) {
        err(`speakcheck: could not run: ${e.message}`);
        return EXIT.targetUnavailable;
      }
      throw e;
    }

    endPhase('preflight');
    out(
      `speakcheck: testing ${config.baseUrl}${stack ? ` (${config.target} reference stack)` : ''}, profile ${config.profile}${
        config.only.length ? `, areas ${config.only.join(', ')}` : ''
      }${config.requirements.length ? `, requirements ${config.requirements.join(', ')}` : ''}, run ${config.runId}`,
    );
    reporter.noteServerVersion(serverVersion);
    out(
      `speakcheck: version ${speakcheckVersion()}; the server's /version ${
        serverVersion === undefined
          ? 'was not read (the server throttled)'
          : `answered ${compactVersion(serverVersion)}`
      }`,
    );
    vitest = await vitestReady;
    config.suiteWorkers = suiteWorkersFor(config.target, quickestAnswerMs);
    if (config.suiteWorkers !== vitest.config.maxWorkers) {
      // Read when the pool starts (at start()). Min and max alike: with minWorkers 1 and maxWorkers 4
      // the run lost files, tinypool ending a thread that still ran one ("Terminating worker thread").
      vitest.config.maxWorkers = config.suiteWorkers;
      vitest.config.minWorkers = config.suiteWorkers;
      out(
        `speakcheck: ${config.suiteWorkers} suite files at a time: the server's quickest answer took ${Math.round(quickestAnswerMs)} ms, a network's round trip (their waits overlap)`,
      );
    }
    // Vitest's logger exits the process on SIGINT/SIGTERM; here a signal stops the suites and the
    // reports are still written (onSignal), so its listeners go (its cleanup still runs at close).
    for (const signal of ['SIGINT', 'SIGTERM'] as const)
      for (const listener of process.rawListeners(signal))
        if (!ownSignalListeners.has(listener)) process.off(signal, listener as (...a: unknown[]) => void);
    process.env[RUN_CONFIG_ENV] = encodeRunConfig(config);
    suitesRunning = true;
    const suites = vitest.start(suiteFilters(config.only));
    suites.catch(() => undefined); // a stopped run does not wait for it
    const stopped = await Promise.race([suites.then(() => undefined), stopRequested]);
    suitesRunning = false;
    if (stopped) {
      stopping = true;
      err(`speakcheck: ${stopped}: not waiting any longer; what has not finished is not concluded.`);
      await reporter.concludeStopped(stopped);
    }
    endPhase('suites');
    const result = reporter.result;
    if (!result) {
      err('speakcheck: the suites ended without a result (see the errors above).');
      return EXIT.failed;
    }
    const { verdicts } = result;
    out('');
    out(summaryTable(verdicts.requirements, verdicts.summary));
    out('');
    for (const problem of verdicts.problems.slice(0, 10))
      err(`  problem: ${problem.where}: ${problem.message.split('\n')[0]}`);
    // Unexpected passes and expired entries stand out on stderr; the count of expected ones is a plain line.
    if (result.expect) {
      const { summary: expectSummary, alerts } = expectLines(result.expect);
      if (expectSummary) out(expectSummary);
      for (const line of alerts) err(line);
    }
    if (verdicts.summary.harnessErrors > 0)
      err(
        `speakcheck: the harness itself broke on ${verdicts.summary.harnessErrors} requirement(s) (status harness-error; not a verdict on the server): please file a bug report for speakcheck with conformance.json (its message names the line that broke)`,
      );
    const { tests } = verdicts.summary;
    let exitCode = result.exitCode;
    if (tests.passed + tests.failed === 0) {
      err('speakcheck: no test ran: a run that checks nothing cannot pass.');
      exitCode = EXIT.failed;
    }
    out(
      `tests: ${tests.passed} passed, ${tests.failed} failed, ${tests.skipped} skipped; MUST failed: ${verdicts.summary.mustFailed}, SHOULD failed: ${verdicts.summary.shouldFailed}${securityCount(verdicts.requirements, verdicts.summary)}${blockedText(verdicts.summary)}`,
    );
    const security = securityLine(verdicts.requirements, config.profile);
    if (security) out(security);
    out(`characters synthesized: ${verdicts.summary.characters}`);
    out(`timing: ${phases.join(', ')}; ${trafficText(throttle.stats())}`);
    out(
      `reports: ${config.reportDir} (conformance.json, conformance.md, conformance.html, badge.svg, badge.json, junit.xml, allure-results/)`,
    );
    if (o.allureHtml) out(generateAllureHtml(config.reportDir));
    for (const line of notJudgedLines(verdicts.requirements)) out(line);
    out(judgedText(verdicts.summary.judged));
    const words = verdictWords(verdicts, config.profile, exitCode);
    const { notConcluded } = verdicts.summary;
    const stoppedNote =
      notConcluded > 0 ? `; ${notConcluded} requirement(s) not concluded: the run was stopped` : '';
    // The same words as every report's (run.verdict): one function says them (verdictWords).
    out(
      exitCode === EXIT.ok && words === 'CONFORMS'
        ? 'verdict: CONFORMS'
        : `verdict: ${words} (exit ${exitCode}, ${config.profile} profile${securityNote(verdicts.summary, config.profile)}${stoppedNote})`,
    );
    return exitCode;
  } finally {
    clearTimeout(budget);
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    // When the run never started, the half-made vitest is not waited for: the CLI exits right after,
    // and "could not run" must be said at once. A stopped run bounds the close: a worker stuck in a
    // hung request is left to the process exit.
    if (vitest) {
      const closing = vitest.close();
      await (stopping ? Promise.race([closing, sleep(CLOSE_BOUND_MS)]) : closing);
    }
    await stack?.stop();
  }
}

async function createSuitesVitest(config: RunConfig, reporter: ConformanceReporter): Promise<Vitest> {
  const { createVitest } = await import('vitest/node');
  return createVitest('test', {
    root: REPO_ROOT,
    config: join(REPO_ROOT, 'suites.vitest.config.ts'),
    watch: false,
    passWithNoTests: true,
    // The harness's own tests point the run at fixture suites; users never need this.
    ...(process.env.SPEAKCHECK_SUITES ? { include: [process.env.SPEAKCHECK_SUITES] } : {}),
    reporters: [
      reporter,
      ['junit', { outputFile: join(config.reportDir, 'junit.xml') }],
      ['allure-vitest/reporter', { resultsDir: join(config.reportDir, 'allure-results') }],
    ],
  });
}

function generateAllureHtml(reportDir: string): string {
  const probe = spawnSync('allure', ['--version'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) {
    return `allure HTML: the allure CLI is not installed; the raw results are in ${join(reportDir, 'allure-results')} (allure generate them elsewhere).`;
  }
  const target = join(reportDir, 'allure-report');
  const generated = spawnSync(
    'allure',
    ['generate', join(reportDir, 'allure-results'), '-o', target, '--clean'],
    {
      encoding: 'utf8',
      timeout: 120_000,
    },
  );
  return generated.status === 0
    ? `allure HTML: ${target}`
    : `allure HTML: allure generate failed: ${generated.stderr.trim()}`;
}

/** "1432 requests, waited 0.0 s on the server's rate limit (429: 0, 503: 0)" for the timing line. */
export function trafficText(stats: ThrottleStats): string {
  const waited = Math.max(stats.heldS, stats.waitedS);
  return `${stats.requests} requests, waited ${waited.toFixed(1)} s on the server's rate limit (429: ${stats.answered429}, 503: ${stats.answered503})`;
}

/** ", MUST blocked: n, SHOULD blocked: m" when any requirement was blocked (empty otherwise). */
function blockedText(summary: { mustBlocked: number; shouldBlocked: number }): string {
  if (summary.mustBlocked + summary.shouldBlocked === 0) return '';
  return `, MUST blocked: ${summary.mustBlocked}, SHOULD blocked: ${summary.shouldBlocked}`;
}
