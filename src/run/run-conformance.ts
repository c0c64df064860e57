/**
 * `speakcheck run`: config → embedded stack (when no base url) → preflight → the run plan → the
 * suites under vitest with the conformance reporter, JUnit and Allure → summary → exit code. The
 * stack is always stopped.
 *
 * The config is never changed: what the suites work with is the run plan (src/harness/run-plan.ts),
 * resolved once after the preflight, frozen, and handed to the suites' threads. The lines the run
 * prints are src/report/terminal.ts; when it stops waiting is ./run-stop.ts.
 *
 * The run has a budget (`--max-time`, counted from the start): every single wait of the suites is
 * bounded, but their sum against a server that hangs everything is not. When the budget runs out,
 * or on the first Ctrl-C (SIGINT) / SIGTERM while the suites run, the run stops waiting: what has
 * not finished is "not concluded (timeout)", every report is still written, and the exit code is 1.
 * A second signal stops at once (exit 130).
 */
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Vitest } from 'vitest/node';
import type { SharedThrottle } from '../client/back-pressure.ts';
import { resolveCacheDir } from '../config/cache-dir.mjs';
import type { DeepReadonly } from '../config/deep-freeze.ts';
import { runBudgetMs } from '../config/resolve.ts';
import type { RunConfig } from '../config/types.ts';
import { registerSecret } from '../evidence/redact.ts';
import { EXIT } from '../exit-codes.ts';
import { runOutages } from '../facts/outages.ts';
import { openRun, providePlan, startRunStack } from '../harness/run-bootstrap.ts';
import {
  type PlanPreflight,
  planThreads,
  type RunBudget,
  type RunPlan,
  resolveRunPlan,
  type ServerAccess,
  serverAccess,
} from '../harness/run-plan.ts';
import { suiteFilters } from '../harness/suite-files.ts';
import { suitesInlineConfig, suitesViteOverrides } from '../harness/suites-vitest-options.ts';
import { generateAllureHtml } from '../report/allure-html.ts';
import { ConformanceReporter } from '../report/conformance-reporter.ts';
import {
  headerLines,
  NO_RESULT_LINE,
  phaseText,
  preflightFailedLine,
  preflightThrottledLine,
  stackFailedLine,
  stackLogLine,
  stackStartingLine,
  stoppedWaitingLine,
  suiteWorkersLine,
  summaryLines,
  type TerminalLine,
} from '../report/terminal.ts';
import { REPO_ROOT, StackStartError } from '../stack/embedded.ts';
import type { StartedTarget } from '../stack/target.ts';
import { speakcheckVersion } from '../version.ts';
import { keepSuiteThreads } from './keep-suite-threads.ts';
import { PreflightError, preflight, preflightHungLine } from './preflight.ts';
import { dropVitestSignalListeners, RunStop } from './run-stop.ts';

/** How long the stopped run waits for vitest to close its workers before leaving them to the exit. */
const CLOSE_BOUND_MS = 5_000;

export interface RunOptions {
  allureHtml?: boolean;
  /** The run's budget, from the start of the run (default: runBudgetMs, by the expiry mode). */
  maxTimeMs?: number;
  out?: (line: string) => void;
  err?: (line: string) => void;
}

/** Where the run's lines go: stdout/stderr unless the caller collects them. */
interface RunOutput {
  out: (line: string) => void;
  err: (line: string) => void;
  /** On a terminal, the expiry countdown: one line rewritten in place. */
  status?: (line: string) => void;
}

/**
 * One conformance run of `config`, whose report directory (and cache directory) the CLI has made
 * absolute (src/cli/commands/run.ts); returns the exit code.
 */
export async function runConformance(config: DeepReadonly<RunConfig>, o: RunOptions = {}): Promise<number> {
  const io = runOutput(o);
  const startedAt = new Date();
  guardSecrets(config);
  const budget: RunBudget = {
    startedAtMs: startedAt.getTime(),
    maxTimeMs: o.maxTimeMs ?? runBudgetMs(undefined, config),
  };
  // The one bootstrap (src/harness/run-bootstrap.ts): throttle, trusted CA and the run's facts, set
  // before anything sends a request or vitest starts the suites' threads; the facts removed at the end.
  const run = openRun(config, { deadlineMs: Date.now() + budget.maxTimeMs });
  const { throttle } = run;
  const stop = new RunStop(budget.maxTimeMs, throttle, io.err);
  const reporter = new ConformanceReporter({
    config,
    startedAt,
    log: io.out,
    throttleStats: () => throttle.stats(),
    ...(io.status ? { status: io.status } : {}),
  });
  const phases = new PhaseClock();
  // Vitest's start-up (vite server, config, transforms) overlaps the stack start and the preflight;
  // its worker threads only start at start(), after the plan is made.
  const vitestReady = createSuitesVitest(config, reporter, resolveCacheDir(config.cacheDir));
  vitestReady.catch(() => undefined); // awaited below; never an unhandled rejection meanwhile
  let vitest: Vitest | undefined;
  let stack: StartedTarget | undefined;
  try {
    const started = await startStack(config, io);
    if (typeof started === 'number') return started;
    stack = started;
    if (stack) phases.end('stack start');
    const checked = await checkServer(serverAccess(config, stack), io);
    if (typeof checked === 'number') return checked;
    phases.end('preflight');
    const plan = resolveRunPlan(config, stack, checked, budget);
    for (const line of headerLines(plan, { harness: speakcheckVersion(), server: checked.version }))
      io.out(line);
    reporter.notePlan(plan, checked.version);
    vitest = await vitestReady;
    const workers = suiteWorkersLine(plan, checked.quickestAnswerMs);
    if (workers) io.out(workers);
    await sizeVitestPool(vitest, plan);
    await runSuites(vitest, plan, reporter, stop, io.err);
    phases.end('suites');
    return summarize(
      reporter,
      plan,
      { phases: phases.lines, throttle, allureHtml: o.allureHtml === true },
      io,
    );
  } finally {
    stop.dispose();
    await closeRun(vitest, stop.stopping, stack);
    run.close();
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

function print(lines: readonly TerminalLine[], io: RunOutput): void {
  for (const line of lines) io[line.to](line.text);
}

/** The credentials never appear in a line or report of the run (src/client/redact.ts). */
function guardSecrets(config: DeepReadonly<RunConfig>): void {
  registerSecret(config.password);
  registerSecret(config.token);
  registerSecret(config.second?.password);
  registerSecret(config.second?.token);
}

/** "stack start 1.2 s, preflight 0.1 s, suites 9.8 s" for the timing line. */
class PhaseClock {
  readonly lines: string[] = [];
  private start = performance.now();

  end(name: string): void {
    const now = performance.now();
    this.lines.push(phaseText(name, now - this.start));
    this.start = now;
  }
}

/**
 * The embedded or container stack when the run starts its own server (the plan takes its address
 * and customers); undefined against a remote server; the exit code when it cannot start.
 */
async function startStack(
  config: DeepReadonly<RunConfig>,
  io: RunOutput,
): Promise<StartedTarget | undefined | number> {
  if (config.target !== 'embedded' && config.target !== 'container') return undefined;
  io.out(stackStartingLine(config.target));
  try {
    return await startRunStack(config, (line) => io.out(stackLogLine(line)));
  } catch (e) {
    if (e instanceof StackStartError) {
      io.err(stackFailedLine(e.message));
      return EXIT.targetUnavailable;
    }
    throw e;
  }
}

/** The preflight: the server's version and quickest answer, or the exit code when it cannot be tested. */
async function checkServer(
  server: ServerAccess,
  io: RunOutput,
): Promise<(PlanPreflight & { version: unknown }) | number> {
  try {
    const checked = await preflight(server);
    if (checked.throttled) io.err(preflightThrottledLine(checked.throttled));
    if (checked.hung) io.err(preflightHungLine(checked.hung));
    return { version: checked.version, quickestAnswerMs: checked.quickestAnswerMs };
  } catch (e) {
    if (e instanceof PreflightError) {
      io.err(preflightFailedLine(e.message));
      return EXIT.targetUnavailable;
    }
    throw e;
  }
}

/**
 * The pool's threads as the plan sizes them (src/harness/suite-workers.ts). The vitest instance was
 * made before the plan existed (its start-up overlaps the stack start and the preflight), and reads
 * them when its pool starts (at start()): they are set on it here, once.
 */
async function sizeVitestPool(vitest: Vitest, plan: RunPlan): Promise<void> {
  const planned = planThreads(plan);
  if (planned === undefined) return;
  // No more threads than files: each thread loads vitest's runtime, and a run of one requirement
  // (the defect matrix runs 105 of them) has one or two files (issue 52).
  const files = (await vitest.globTestSpecifications(suiteFilters(plan))).length;
  const threads = Math.max(1, Math.min(planned, files));
  // Min and max alike, always (also when max is already the plan's: the options' minWorkers is 1):
  // with minWorkers 1 and maxWorkers 4 the run lost files, tinypool ending a thread that still ran
  // one ("Terminating worker thread").
  vitest.config.maxWorkers = threads;
  vitest.config.minWorkers = threads;
}

/** The suites, until they end or the run stops waiting (then what has not finished is not concluded). */
async function runSuites(
  vitest: Vitest,
  plan: RunPlan,
  reporter: ConformanceReporter,
  stop: RunStop,
  err: (line: string) => void,
): Promise<void> {
  dropVitestSignalListeners(stop.ownListeners);
  // The suites' threads (and their global setup) read the plan from vitest's provide (src/harness/run-context.ts).
  providePlan(vitest, plan);
  stop.suitesRunning = true;
  const suites = vitest.start(suiteFilters(plan));
  suites.catch(() => undefined); // a stopped run does not wait for it
  const stopped = await Promise.race([suites.then(() => undefined), stop.requested]);
  stop.suitesRunning = false;
  if (stopped) {
    stop.stopping = true;
    err(stoppedWaitingLine(stopped.sentence));
    await reporter.concludeStopped(stopped);
  }
}

/** The summary table, the counts, the reports, the verdict line; returns the exit code. */
function summarize(
  reporter: ConformanceReporter,
  plan: RunPlan,
  run: { phases: readonly string[]; throttle: SharedThrottle; allureHtml: boolean },
  io: RunOutput,
): number {
  const result = reporter.result;
  if (!result) {
    io.err(NO_RESULT_LINE);
    return EXIT.failed;
  }
  const { verdicts, report, expect, expectedFailedTests } = result;
  const lines = summaryLines(
    { verdicts, run: report.run, expectedFailedTests, ...(expect ? { expect } : {}) },
    {
      profile: plan.profile,
      reportDir: plan.reportDir,
      phases: run.phases,
      traffic: run.throttle.stats(),
      ...(run.allureHtml ? { allure: generateAllureHtml(plan.reportDir) } : {}),
      outages: runOutages(),
    },
  );
  print(lines, io);
  return result.exitCode;
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
  config: DeepReadonly<RunConfig>,
  reporter: ConformanceReporter,
  cacheDir: string,
): Promise<Vitest> {
  const { createVitest } = await import('vitest/node');
  const { QuietJUnitReporter } = await import('./quiet-junit.ts');
  const { LeanAllureReporter } = await import('./lean-allure.ts');
  await keepSuiteThreads();
  return createVitest(
    'test',
    {
      ...suitesInlineConfig(REPO_ROOT),
      reporters: [
        reporter,
        // junit.xml is named with the other reports at the end; vitest's own line is not printed.
        new QuietJUnitReporter({ outputFile: join(config.reportDir, 'junit.xml') }),
        new LeanAllureReporter(join(config.reportDir, 'allure-results')),
      ],
    },
    suitesViteOverrides(cacheDir, REPO_ROOT),
  );
}
