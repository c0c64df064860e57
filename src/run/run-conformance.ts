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
import { registerSecret } from '../client/redact.ts';
import { encodeRunConfig } from '../config/resolve.ts';
import { type Profile, RUN_CONFIG_ENV, type RunConfig } from '../config/types.ts';
import { ConformanceReporter, compactVersion } from '../report/conformance-reporter.ts';
import { expectLines } from '../requirements/expectations.ts';
import { judgesWireFacts, SDK_WIRE_FACTS } from '../requirements/sdk-profile.ts';
import type { RequirementVerdict, Verdicts } from '../requirements/verdict.ts';
import { REPO_ROOT, StackStartError } from '../stack/embedded.ts';
import { EMBEDDED_RUN_WORKERS, type StartedTarget, startTarget, stopAllTargets } from '../stack/target.ts';
import { speakcheckVersion } from '../version.ts';
import { PreflightError, preflight } from './preflight.ts';
import { summaryTable } from './summary-table.ts';

/** Default of `--max-time`: fifteen times a clean run against the embedded stack (about 20 s). */
export const DEFAULT_MAX_TIME_MS = 300_000;
/** How long the stopped run waits for vitest to close its workers before leaving them to the exit. */
const CLOSE_BOUND_MS = 5_000;

export interface RunOptions {
  allureHtml?: boolean;
  /** The run's budget (default DEFAULT_MAX_TIME_MS), from the start of the run. */
  maxTimeMs?: number;
  out?: (line: string) => void;
  err?: (line: string) => void;
}

export async function runConformance(config: RunConfig, o: RunOptions = {}): Promise<number> {
  const out = o.out ?? ((line: string) => process.stdout.write(`${line}\n`));
  const err = o.err ?? ((line: string) => process.stderr.write(`${line}\n`));
  const startedAt = new Date();
  registerSecret(config.password);
  registerSecret(config.token);
  config.reportDir = resolve(config.reportDir);

  let stack: StartedTarget | undefined;
  const phases: string[] = [];
  let phaseStart = performance.now();
  const endPhase = (name: string) => {
    const now = performance.now();
    phases.push(`${name} ${((now - phaseStart) / 1000).toFixed(1)} s`);
    phaseStart = now;
  };
  const maxTimeMs = o.maxTimeMs ?? DEFAULT_MAX_TIME_MS;
  // Resolved with the reason when the run must stop waiting (budget or signal during the suites).
  let requestStop: (reason: string) => void = () => undefined;
  const stopRequested = new Promise<string>((resolve) => {
    requestStop = resolve;
  });
  let suitesRunning = false;
  let stopping = false;
  const budget = setTimeout(
    () => requestStop(`the run budget of ${(maxTimeMs / 1000).toFixed(0)} s (--max-time) ran out`),
    maxTimeMs,
  );
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
  const reporter = new ConformanceReporter({ config, startedAt, log: out });
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
      endPhase('stack start');
    }

    let serverVersion: unknown;
    try {
      serverVersion = (await preflight(config)).version;
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
      `speakcheck: version ${speakcheckVersion()}; the server's /version answered ${compactVersion(serverVersion)}`,
    );
    vitest = await vitestReady;
    // Vitest's logger exits the process on SIGINT/SIGTERM; here a signal stops the suites and the
    // reports are still written (onSignal), so its listeners go (its cleanup still runs at close).
    for (const signal of ['SIGINT', 'SIGTERM'] as const)
      for (const listener of process.rawListeners(signal))
        if (!ownSignalListeners.has(listener)) process.off(signal, listener as (...a: unknown[]) => void);
    process.env[RUN_CONFIG_ENV] = encodeRunConfig(config);
    suitesRunning = true;
    const suites = vitest.start(config.only.map((area) => `suites/${area}`));
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
      `tests: ${tests.passed} passed, ${tests.failed} failed, ${tests.skipped} skipped; MUST failed: ${verdicts.summary.mustFailed}, SHOULD failed: ${verdicts.summary.shouldFailed}${blockedText(verdicts.summary)}`,
    );
    out(`characters synthesized: ${verdicts.summary.characters}`);
    out(`timing: ${phases.join(', ')}`);
    out(
      `reports: ${config.reportDir} (conformance.json, conformance.md, conformance.html, junit.xml, allure-results/)`,
    );
    if (o.allureHtml) out(generateAllureHtml(config.reportDir));
    const { notConcluded, mustFailed, shouldFailed } = verdicts.summary;
    const stoppedNote =
      notConcluded > 0 ? `; ${notConcluded} requirement(s) not concluded: the run was stopped` : '';
    const sdk = sdkVerdict(config.profile, verdicts, exitCode);
    out(
      sdk !== undefined
        ? sdk
        : exitCode === EXIT.ok
          ? 'verdict: CONFORMS'
          : notConcluded > 0 && mustFailed + shouldFailed === 0
            ? `verdict: NOT CONCLUDED (exit ${exitCode}${stoppedNote})`
            : `verdict: DOES NOT CONFORM (exit ${exitCode}${config.profile === 'strict' ? ', strict profile' : ''}${stoppedNote})`,
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

/** ", MUST blocked: n, SHOULD blocked: m" when any requirement was blocked (empty otherwise). */
function blockedText(summary: { mustBlocked: number; shouldBlocked: number }): string {
  if (summary.mustBlocked + summary.shouldBlocked === 0) return '';
  return `, MUST blocked: ${summary.mustBlocked}, SHOULD blocked: ${summary.shouldBlocked}`;
}

/**
 * The verdict line of the sdk profile: whether the server is also compatible with the vendor's SDK
 * and clients (its wire facts, SHOULD there). Undefined in the other profiles, or when the run was
 * stopped or failed on speak-v1.md itself (the usual line says so).
 */
export function sdkVerdict(profile: Profile, verdicts: Verdicts, exitCode: number): string | undefined {
  if (!judgesWireFacts(profile) || verdicts.summary.notConcluded > 0) return undefined;
  const gating = (r: RequirementVerdict) =>
    (r.status === 'failed' || r.status === 'blocked') && r.level !== 'INFO';
  const wireFacts = verdicts.requirements.filter((r) => gating(r) && r.id in SDK_WIRE_FACTS);
  const contract = verdicts.requirements.filter((r) => gating(r) && !(r.id in SDK_WIRE_FACTS));
  if (exitCode === EXIT.ok)
    return "verdict: CONFORMS, and compatible with the vendor's SDK and clients (sdk profile)";
  if (contract.length > 0 || wireFacts.length === 0 || exitCode !== EXIT.failed) return undefined;
  return `verdict: NOT COMPATIBLE with the vendor's SDK and clients (exit ${exitCode}, sdk profile; wire facts not met: ${wireFacts.map((r) => r.id).join(', ')}; no requirement of speak-v1.md failed)`;
}
