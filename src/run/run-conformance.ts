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
import { runThrottle, type ThrottleStats, throttleSentence } from '../client/back-pressure.ts';
import { trustCaFile } from '../client/tls-trust.ts';
import { resolveCacheDir } from '../config/cache-dir.mjs';
import { encodeRunConfig, runBudgetMs } from '../config/resolve.ts';
import { RUN_CONFIG_ENV, type RunConfig } from '../config/types.ts';
import { registerSecret } from '../evidence/redact.ts';
import { EXIT } from '../exit-codes.ts';
import { outageLine, runOutages } from '../facts/outages.ts';
import { startRunFacts } from '../facts/run-facts.ts';
import { runsExpiryFile, suiteFilters } from '../harness/suite-files.ts';
import { suitesInlineConfig, suitesViteOverrides } from '../harness/suites-vitest-options.ts';
import { ConformanceReporter, compactVersion } from '../report/conformance-reporter.ts';
import { notJudgedLines, securityLine, summaryTable } from '../report/summary-table.ts';
import { verdictLine } from '../report/verdict-line.ts';
import { REPO_ROOT, StackStartError } from '../stack/embedded.ts';
import { lifetimesSentence, runStackLifetimes } from '../stack/run-lifetimes.ts';
import { EMBEDDED_RUN_WORKERS, type StartedTarget, startTarget, stopAllTargets } from '../stack/target.ts';
import { expectLines } from '../verdict/expectations.ts';
import { judgedText } from '../verdict/verdict.ts';
import { speakcheckVersion } from '../version.ts';
import { PreflightError, preflight } from './preflight.ts';
import { expiryThreads, LOCAL_SUITE_WORKERS, suiteWorkersFor } from './suite-workers.ts';

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

/** Where the run's lines go: stdout/stderr unless the caller collects them. */
interface RunOutput {
  out: (line: string) => void;
  err: (line: string) => void;
  /** On a terminal, the expiry countdown: one line rewritten in place. */
  status?: (line: string) => void;
}

export async function runConformance(config: RunConfig, o: RunOptions = {}): Promise<number> {
  const io = runOutput(o);
  const startedAt = new Date();
  guardSecrets(config);
  config.reportDir = resolve(config.reportDir);
  const maxTimeMs = o.maxTimeMs ?? runBudgetMs(undefined, config);
  const throttle = startBudget(config, startedAt, maxTimeMs);
  // The run's facts (src/facts), published before vitest starts the suites' threads; removed at the end.
  const facts = startRunFacts();
  const stop = new RunStop(maxTimeMs, throttle, io.err);
  const reporter = new ConformanceReporter({
    config,
    startedAt,
    log: io.out,
    throttleStats: () => throttle.stats(),
    ...(io.status ? { status: io.status } : {}),
  });
  const phases = new PhaseClock();
  // Vitest's start-up (vite server, config, transforms) overlaps the stack start and the preflight;
  // its worker threads only start at start(), after the config is complete.
  const vitestReady = createSuitesVitest(config, reporter, resolveCacheDir(config.cacheDir));
  vitestReady.catch(() => undefined); // awaited below; never an unhandled rejection meanwhile
  let vitest: Vitest | undefined;
  let stack: StartedTarget | undefined;
  try {
    const started = await startStack(config, io);
    if (typeof started === 'number') return started;
    stack = started;
    if (stack) phases.end('stack start');
    const checked = await checkServer(config, io);
    if (typeof checked === 'number') return checked;
    phases.end('preflight');
    announceRun(config, stack, checked.version, reporter, io.out);
    vitest = await vitestReady;
    sizeSuiteWorkers(vitest, config, checked.quickestAnswerMs, stack !== undefined, io.out);
    await runSuites(vitest, config, reporter, stop, io.err);
    phases.end('suites');
    return summarize(
      reporter,
      config,
      { phases: phases.lines, throttle, allureHtml: o.allureHtml === true },
      io,
    );
  } finally {
    stop.dispose();
    await closeRun(vitest, stop.stopping, stack);
    facts.remove();
  }
}

function runOutput(o: RunOptions): RunOutput {
  // On a terminal the expiry countdown is one line rewritten in place; every other line clears it first.
  const live = o.out === undefined && process.stdout.isTTY === true;
  return {
    out: o.out ?? ((line: string) => process.stdout.write(`${live ? '\r\x1b[2K' : ''}${line}\n`)),
    err: o.err ?? ((line: string) => process.stderr.write(`${line}\n`)),
    ...(live ? { status: (line: string) => process.stdout.write(`\r\x1b[2K${line}`) } : {}),
  };
}

/** The credentials never appear in a line or report of the run (src/client/redact.ts). */
function guardSecrets(config: RunConfig): void {
  registerSecret(config.password);
  registerSecret(config.token);
  registerSecret(config.second?.password);
  registerSecret(config.second?.token);
}

/**
 * The run-wide throttle, the trusted CA and the budget's deadline, set before anything sends a
 * request or vitest starts its worker threads: they copy the throttle (one shared buffer) and the
 * CA from this thread's environment data.
 */
function startBudget(config: RunConfig, startedAt: Date, maxTimeMs: number): ReturnType<typeof runThrottle> {
  const throttle = runThrottle();
  throttle.reset({
    ...(config.maxRps !== undefined ? { maxRps: config.maxRps } : {}),
    deadlineMs: Date.now() + maxTimeMs,
  });
  trustCaFile(config.caFile);
  // The expiry waits (src/harness/expiry.ts) end within the budget, or say what budget would judge them.
  config.expiry.deadlineMs = startedAt.getTime() + maxTimeMs;
  config.expiry.maxTimeS = Math.round(maxTimeMs / 1000);
  return throttle;
}

/** "stack start 1.2 s, preflight 0.1 s, suites 9.8 s" for the timing line. */
class PhaseClock {
  readonly lines: string[] = [];
  private start = performance.now();

  end(name: string): void {
    const now = performance.now();
    this.lines.push(`${name} ${((now - this.start) / 1000).toFixed(1)} s`);
    this.start = now;
  }
}

/**
 * When the run stops waiting: the budget (--max-time) runs out, or the first SIGINT/SIGTERM while
 * the suites run (the reports are still written); a signal outside the suites, or a second one,
 * stops the stack and exits at once (130).
 */
class RunStop {
  /** Resolved with the reason when the run must stop waiting. */
  readonly requested: Promise<string>;
  suitesRunning = false;
  stopping = false;
  /** Stopping the stack to exit at once (130): later signals wait for that bounded stop. */
  private exiting = false;
  private request: (reason: string) => void = () => undefined;
  private readonly budget: NodeJS.Timeout;
  /** This run's own listeners, which dropVitestSignalListeners keeps. */
  readonly ownListeners: Set<unknown>;

  constructor(
    maxTimeMs: number,
    throttle: ReturnType<typeof runThrottle>,
    private readonly err: (line: string) => void,
  ) {
    this.requested = new Promise<string>((resolve) => {
      this.request = resolve;
    });
    this.budget = setTimeout(() => {
      const stats = throttle.stats();
      const throttled = stats.answered429 + stats.answered503 > 0 ? ` (${throttleSentence(stats)})` : '';
      this.request(`the run budget of ${(maxTimeMs / 1000).toFixed(0)} s (--max-time) ran out${throttled}`);
    }, maxTimeMs);
    this.budget.unref();
    // `on`, not `once`, until dispose(): with testcontainers loaded (--target container), signal-exit
    // re-raises a signal it sees no other listener of, killing the run before it stopped the stack.
    process.on('SIGINT', this.onSignal);
    process.on('SIGTERM', this.onSignal);
    this.ownListeners = new Set([...process.rawListeners('SIGINT'), ...process.rawListeners('SIGTERM')]);
  }

  private readonly onSignal = (signal: NodeJS.Signals): void => {
    if (this.suitesRunning && !this.stopping) {
      this.stopping = true;
      this.err(`speakcheck: ${signal}: stopping the suites and writing the reports (again to stop at once).`);
      this.request(`${signal} (interrupted)`);
      // The next signal takes the path below: stop the stack and exit at once.
      return;
    }
    if (this.exiting) return;
    this.exiting = true;
    this.err(`speakcheck: ${signal}: stopping.`);
    // stopAllTargets covers an interrupt while the container stack is still starting.
    void stopAllTargets().finally(() => process.exit(EXIT.interrupted));
  };

  dispose(): void {
    clearTimeout(this.budget);
    process.off('SIGINT', this.onSignal);
    process.off('SIGTERM', this.onSignal);
  }
}

/**
 * The embedded or container stack when the run starts its own server (its address and customers
 * go into the config); undefined against a remote server; the exit code when it cannot start.
 */
async function startStack(config: RunConfig, io: RunOutput): Promise<StartedTarget | undefined | number> {
  if (config.target !== 'embedded' && config.target !== 'container') return undefined;
  io.out(`speakcheck: starting the ${config.target} reference stack ...`);
  let stack: StartedTarget;
  try {
    const lifetimes = runStackLifetimes(config.expiry.mode);
    stack = await startTarget(config.target, {
      onLog: (line) => io.out(`speakcheck: ${line}`),
      // One synthesis worker: why in src/stack/target.ts.
      workers: EMBEDDED_RUN_WORKERS,
      // Short lifetimes in a quick run, so that it judges the expiry MUSTs: src/stack/run-lifetimes.ts.
      ...(lifetimes ? { lifetimes } : {}),
    });
  } catch (e) {
    if (e instanceof StackStartError) {
      io.err(`speakcheck: could not run: ${e.message}.`);
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
  return stack;
}

/** The preflight: the server's version and quickest answer, or the exit code when it cannot be tested. */
async function checkServer(
  config: RunConfig,
  io: RunOutput,
): Promise<{ version: unknown; quickestAnswerMs: number } | number> {
  try {
    const checked = await preflight(config);
    if (checked.throttled)
      io.err(
        `speakcheck: the server only throttled the preflight (${checked.throttled}); going on: the suites wait on its limit within --max-time.`,
      );
    return { version: checked.version, quickestAnswerMs: checked.quickestAnswerMs };
  } catch (e) {
    if (e instanceof PreflightError) {
      io.err(`speakcheck: could not run: ${e.message}`);
      return EXIT.targetUnavailable;
    }
    throw e;
  }
}

/** What is tested, how, and which versions: the run's first lines. */
function announceRun(
  config: RunConfig,
  stack: StartedTarget | undefined,
  serverVersion: unknown,
  reporter: ConformanceReporter,
  out: (line: string) => void,
): void {
  out(
    `speakcheck: testing ${config.baseUrl}${stack ? ` (${config.target} reference stack)` : ''}, profile ${config.profile}${
      config.only.length ? `, areas ${config.only.join(', ')}` : ''
    }${config.requirements.length ? `, requirements ${config.requirements.join(', ')}` : ''}, run ${config.runId}`,
  );
  const lifetimes = stack ? runStackLifetimes(config.expiry.mode) : undefined;
  if (lifetimes) out(`speakcheck: ${lifetimesSentence(lifetimes)}`);
  reporter.noteServerVersion(serverVersion);
  out(
    `speakcheck: version ${speakcheckVersion()}; the server's /version ${
      serverVersion === undefined
        ? 'was not read (the server throttled)'
        : `answered ${compactVersion(serverVersion)}`
    }`,
  );
}

/**
 * Suite files at a time, by the server's quickest answer, and a thread for the expiry waits when
 * they run beside the other files (src/run/suite-workers.ts).
 */
function sizeSuiteWorkers(
  vitest: Vitest,
  config: RunConfig,
  quickestAnswerMs: number,
  ownStack: boolean,
  out: (line: string) => void,
): void {
  config.suiteWorkers = suiteWorkersFor(config.target, quickestAnswerMs);
  const threads =
    config.suiteWorkers +
    expiryThreads({
      expiryFileRuns: runsExpiryFile(config.only),
      waitsBeside:
        config.expiry.mode === 'full' || (ownStack && runStackLifetimes(config.expiry.mode) !== undefined),
    });
  if (config.suiteWorkers !== LOCAL_SUITE_WORKERS)
    out(
      `speakcheck: ${config.suiteWorkers} suite files at a time: the server's quickest answer took ${Math.round(quickestAnswerMs)} ms, a network's round trip (their waits overlap)`,
    );
  if (threads === vitest.config.maxWorkers) return;
  // Read when the pool starts (at start()). Min and max alike: with minWorkers 1 and maxWorkers 4
  // the run lost files, tinypool ending a thread that still ran one ("Terminating worker thread").
  vitest.config.maxWorkers = threads;
  vitest.config.minWorkers = threads;
}

/** The suites, until they end or the run stops waiting (then what has not finished is not concluded). */
async function runSuites(
  vitest: Vitest,
  config: RunConfig,
  reporter: ConformanceReporter,
  stop: RunStop,
  err: (line: string) => void,
): Promise<void> {
  dropVitestSignalListeners(stop.ownListeners);
  process.env[RUN_CONFIG_ENV] = encodeRunConfig(config);
  stop.suitesRunning = true;
  const suites = vitest.start(suiteFilters(config.only));
  suites.catch(() => undefined); // a stopped run does not wait for it
  const stopped = await Promise.race([suites.then(() => undefined), stop.requested]);
  stop.suitesRunning = false;
  if (stopped) {
    stop.stopping = true;
    err(`speakcheck: ${stopped}: not waiting any longer; what has not finished is not concluded.`);
    await reporter.concludeStopped(stopped);
  }
}

/**
 * Vitest's logger exits the process on SIGINT/SIGTERM; here a signal stops the suites and the
 * reports are still written (RunStop), so its listeners go (its cleanup still runs at close).
 */
function dropVitestSignalListeners(own: ReadonlySet<unknown>): void {
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    for (const listener of process.rawListeners(signal))
      if (!own.has(listener)) process.off(signal, listener as (...a: unknown[]) => void);
}

/** The summary table, the counts, the reports, the verdict line; returns the exit code. */
function summarize(
  reporter: ConformanceReporter,
  config: RunConfig,
  run: { phases: readonly string[]; throttle: ReturnType<typeof runThrottle>; allureHtml: boolean },
  { out, err }: RunOutput,
): number {
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
  const { exitCode } = result;
  if (tests.passed + tests.failed === 0)
    err('speakcheck: no test ran: a run that checks nothing cannot pass.');
  out(
    `tests: ${tests.passed} passed, ${tests.failed} failed${result.expectedFailedTests > 0 ? ` (${result.expectedFailedTests} expected)` : ''}, ${tests.skipped} skipped; MUST failed: ${verdicts.summary.mustFailed}, SHOULD failed: ${verdicts.summary.shouldFailed}${securityCount(verdicts.requirements, verdicts.summary)}${blockedText(verdicts.summary)}`,
  );
  const security = securityLine(verdicts.requirements, config.profile);
  if (security) out(security);
  out(`characters synthesized: ${verdicts.summary.characters}`);
  out(`timing: ${run.phases.join(', ')}; ${trafficText(run.throttle.stats())}`);
  out(
    `reports: ${config.reportDir} (conformance.json, conformance.md, conformance.html, badge.svg, badge.json, junit.xml, allure-results/)`,
  );
  if (run.allureHtml) out(generateAllureHtml(config.reportDir));
  for (const line of notJudgedLines(verdicts.requirements)) out(line);
  out(judgedText(verdicts.summary.judged));
  // Each route the run learned to be unavailable, once (what it kept from being concluded is not concluded).
  for (const outage of runOutages()) out(outageLine(outage));
  out(verdictLine(result.report.run));
  return exitCode;
}

/**
 * When the run never started, the half-made vitest is not waited for: the CLI exits right after,
 * and "could not run" must be said at once. A stopped run bounds the close: a worker stuck in a
 * hung request is left to the process exit. The stack is always stopped.
 */
async function closeRun(
  vitest: Vitest | undefined,
  stopping: boolean,
  stack: StartedTarget | undefined,
): Promise<void> {
  if (vitest) {
    const closing = vitest.close();
    await (stopping ? Promise.race([closing, sleep(CLOSE_BOUND_MS)]) : closing);
  }
  await stack?.stop();
}

async function createSuitesVitest(
  config: RunConfig,
  reporter: ConformanceReporter,
  cacheDir: string,
): Promise<Vitest> {
  const { createVitest } = await import('vitest/node');
  return createVitest(
    'test',
    {
      ...suitesInlineConfig(REPO_ROOT),
      reporters: [
        reporter,
        ['junit', { outputFile: join(config.reportDir, 'junit.xml') }],
        ['allure-vitest/reporter', { resultsDir: join(config.reportDir, 'allure-results') }],
      ],
    },
    suitesViteOverrides(cacheDir),
  );
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
