/**
 * The vitest reporter of `speakcheck run` (vitest 3 reporter API): prints live progress per area,
 * reads each test's meta (requirement ids, evidence, observations) and, at the end of the run,
 * computes the verdicts and writes conformance.json / .md / .html.
 */
import { relative } from 'node:path';
import type { SerializedError, UserConsoleLog } from 'vitest';
import type { Reporter, TestCase, TestModule, TestSpecification, Vitest } from 'vitest/node';
import type { ThrottleStats } from '../client/back-pressure.ts';
import { rateLimitObservation, throttleSentence } from '../client/throttle-words.ts';
import type { DeepReadonly } from '../config/deep-freeze.ts';
import type { RunConfig } from '../config/types.ts';
import { type Observation, observation } from '../evidence/observation.ts';
import { redactText } from '../evidence/redact.ts';
import { runOutages } from '../facts/outages.ts';
import { countdown, parseExpiryWait } from '../harness/expiry.ts';
import '../harness/meta.ts';
import type { RunPlan } from '../harness/run-plan.ts';
import { catalogue, type Requirement, type RequirementId } from '../requirements/index.ts';
import { conclusionsOfState } from '../verdict/conclusion.ts';
import { type ExpectOutcome, isExpired } from '../verdict/expectations.ts';
import { gate } from '../verdict/gate.ts';
import type { RunStopped } from '../verdict/model.ts';
import { testFailed, testSkipped, testStateOf } from '../verdict/standing.ts';
import { computeVerdicts, type Problem, type TestOutcome, type Verdicts } from '../verdict/verdict.ts';
import { speakcheckVersion } from '../version.ts';
import { LiveProgress, type LiveTest } from './live-progress.ts';
import { buildReport, type ConformanceReport } from './model.ts';
import { compactVersion } from './terminal.ts';
import { writeReport } from './write.ts';

export interface ReporterResult {
  verdicts: Verdicts;
  report: ConformanceReport;
  files: string[];
  exitCode: number;
  /** What the expect file did in this run (absent: no expect file). */
  expect?: ExpectOutcome;
  /** Failed tests whose failure the expect file lists (the tests line says how many). */
  expectedFailedTests: number;
}

export interface ConformanceReporterOptions {
  /** The run's config: the reporter starts before the run plan exists (its server is still starting). */
  config: DeepReadonly<RunConfig>;
  startedAt?: Date;
  /** Where progress lines go (default: stdout). */
  log?: (line: string) => void;
  /** The run-wide back-pressure figures (src/client/back-pressure.ts), summed over every thread. */
  throttleStats?: () => ThrottleStats;
  /**
   * Where the expiry countdown goes: a terminal rewrites one line in place (every second); without
   * it the countdown is a progress line every 30 s.
   */
  status?: (line: string) => void;
}

/** How often the expiry countdown is printed as a line when there is no live status line. */
const COUNTDOWN_LINE_EVERY_MS = 30_000;

/** The INFO requirement the run's own back-pressure figures are reported under. */
export const RATE_LIMIT_REQUIREMENT: RequirementId = 'ERR-RATE-LIMIT-OBSERVED';

export class ConformanceReporter implements Reporter {
  result: ReporterResult | undefined;
  private root = process.cwd();
  private readonly startedAt: Date;
  private readonly log: (line: string) => void;
  /** The ✗ lines and the per-area rows while the suites run. */
  private readonly live: LiveProgress;

  private serverVersion: string | undefined;
  /** The run plan, once resolved (after the preflight): the report names its server. */
  private plan: RunPlan | undefined;
  /** Every test file vitest queued, by id: what a stopped run concludes from. */
  private readonly modules = new Map<string, TestModule>();
  /** Why the run was stopped before vitest finished (--max-time, Ctrl-C). */
  private stopReason: RunStopped | undefined;

  /** The expiry waits in progress (--expiry full): label → when each ends, for the countdown. */
  private readonly expiryWaits = new Map<string, number>();
  private countdownTimer: ReturnType<typeof setInterval> | undefined;

  /** A suite announced an expiry wait (src/harness/expiry.ts): count it down in the terminal. */
  onUserConsoleLog(log: UserConsoleLog): void {
    const wait = parseExpiryWait(log.content.trim());
    if (!wait) return;
    this.expiryWaits.set(wait.label, wait.untilMs);
    this.printCountdown();
    if (this.countdownTimer) return;
    this.countdownTimer = setInterval(
      () => this.printCountdown(),
      this.o.status ? 1_000 : COUNTDOWN_LINE_EVERY_MS,
    );
    this.countdownTimer.unref();
  }

  private printCountdown(): void {
    const now = Date.now();
    for (const [label, until] of this.expiryWaits) if (until <= now) this.expiryWaits.delete(label);
    if (this.expiryWaits.size === 0) {
      this.stopCountdown();
      return;
    }
    const waits = [...this.expiryWaits].map(([label, until]) => `${label} ${countdown(until, now)}`);
    // A quick run waits too, short lifetimes (the run's own stack: src/stack/run-lifetimes.ts).
    const line = `  expiry waits (--expiry ${this.o.config.expiry.mode ?? 'quick'}): ${waits.join(' · ')}`;
    (this.o.status ?? this.log)(line);
  }

  private stopCountdown(): void {
    if (this.countdownTimer) clearInterval(this.countdownTimer);
    this.countdownTimer = undefined;
    this.o.status?.('');
  }

  /** The run plan and what the server's /version answered (preflight), for the report's header. */
  notePlan(plan: RunPlan, serverVersion: unknown): void {
    this.plan = plan;
    if (serverVersion !== undefined) this.serverVersion = compactVersion(serverVersion);
  }

  constructor(private readonly o: ConformanceReporterOptions) {
    this.startedAt = o.startedAt ?? new Date();
    this.log = o.log ?? ((line) => process.stdout.write(`${line}\n`));
    const now = this.startedAt;
    const expected = new Set(
      (o.config.expect?.entries ?? []).filter((e) => !isExpired(e, now)).map((e) => e.requirement),
    );
    const byId = new Map<string, Requirement>(catalogue.map((r) => [r.id, r]));
    this.live = new LiveProgress(this.log, expected, (id) => byId.get(id), o.config.only);
  }

  onInit(vitest: Vitest): void {
    this.root = vitest.config.root;
  }

  onTestModuleQueued(testModule: TestModule): void {
    this.modules.set(testModule.moduleId, testModule);
  }

  onTestModuleCollected(testModule: TestModule): void {
    this.modules.set(testModule.moduleId, testModule);
  }

  /**
   * The run was stopped before the suites ended: conclude from what has finished so far. Tests
   * still running and files not started are "not concluded (timeout)"; every report is written.
   */
  async concludeStopped(reason: RunStopped): Promise<void> {
    if (this.result) return;
    this.stopReason = reason;
    await this.conclude([...this.modules.values()], []);
  }

  /** Every file the run is about to run: an area's row waits for all of its files. */
  onTestRunStart(specifications: ReadonlyArray<TestSpecification>): void {
    this.live.plan(specifications.map((s) => this.file(s)));
  }

  onTestCaseResult(testCase: TestCase): void {
    const result = testCase.result();
    if (!testFailed(result)) return;
    const message = redactText(firstLine(result.errors[0]?.message ?? 'failed'));
    this.live.failed(this.file(testCase.module), { ...liveTest(testCase), message });
  }

  onTestModuleEnd(testModule: TestModule): void {
    // Said before the row it slowed: the server's limit now paces the run (issue 51 item 6).
    const traffic = this.o.throttleStats?.();
    if (traffic) this.live.throttled(traffic.answered429, traffic.answered503);
    this.live.fileEnded(
      this.file(testModule),
      [...testModule.children.allTests()].map(liveTest),
      testModule.diagnostic().duration,
      testModule.errors().length > 0,
    );
  }

  async onTestRunEnd(
    testModules: ReadonlyArray<TestModule>,
    unhandledErrors: ReadonlyArray<SerializedError>,
  ): Promise<void> {
    // A stopped run was concluded already; vitest ending later changes nothing.
    if (this.result) return;
    await this.conclude(testModules, unhandledErrors);
  }

  private async conclude(
    testModules: ReadonlyArray<TestModule>,
    unhandledErrors: ReadonlyArray<SerializedError>,
  ): Promise<void> {
    this.expiryWaits.clear();
    this.stopCountdown();
    // A stopped run: the rows of the areas whose files did not all end, with what did.
    this.live.flush();
    const outcomes: TestOutcome[] = [];
    const fileErrors: Problem[] = [];
    for (const module of testModules) {
      const file = this.file(module);
      for (const error of module.errors())
        fileErrors.push({ where: file, message: redactText(errorText(error)) });
      for (const test of module.children.allTests()) outcomes.push(this.outcome(test, file));
    }
    const config = this.plan ?? this.o.config;
    const traffic = this.o.throttleStats?.();
    const throttled =
      traffic && traffic.answered429 + traffic.answered503 > 0 ? throttleSentence(traffic) : undefined;
    const computed = computeVerdicts(catalogue, outcomes, {
      areas: config.only,
      requirements: config.requirements,
      fileErrors,
      profile: config.profile,
      ...(this.stopReason ? { stopped: this.stopReason } : {}),
      ...(throttled ? { throttled } : {}),
      ...(traffic ? { runObservations: { [RATE_LIMIT_REQUIREMENT]: [wholeRunRateLimit(traffic)] } } : {}),
      ...(config.expect ? { expect: config.expect } : {}),
    });
    const verdicts = computed;
    const gated = gate(verdicts, config.profile, {
      unhandledErrors: unhandledErrors.length,
      expiredExpectations: verdicts.expect?.expired.length ?? 0,
      outages: runOutages().length,
    });
    const { exitCode } = gated;
    const finishedAt = new Date();
    const report = buildReport(verdicts, outcomes, {
      runId: config.runId,
      harness: speakcheckVersion(),
      baseUrl: config.baseUrl,
      ...(this.serverVersion === undefined ? {} : { serverVersion: this.serverVersion }),
      target: config.target,
      profile: config.profile,
      only: [...config.only],
      requirements: [...config.requirements],
      startedAt: this.startedAt.toISOString(),
      finishedAt: finishedAt.toISOString(),
      durationMs: finishedAt.getTime() - this.startedAt.getTime(),
      exitCode,
      verdict: gated.words,
      verdictReasons: gated.reasons,
      ...(verdicts.expect ? { expect: verdicts.expect } : {}),
      ...(traffic ? { traffic } : {}),
      ...(config.caFile ? { caFile: config.caFile } : {}),
      authUrl: config.authUrl,
      ...(config.keep ? { keep: true } : {}),
      errors: [
        ...(this.stopReason ? [`The run was stopped: ${this.stopReason.sentence}.`] : []),
        ...unhandledErrors.map((e) => redactText(errorText(e))),
      ],
    });
    const files = await writeReport(config.reportDir, report);
    this.result = {
      verdicts,
      report,
      files,
      exitCode,
      expectedFailedTests: this.live.expectedFailedTests(),
      ...(verdicts.expect ? { expect: verdicts.expect } : {}),
    };
  }

  private file(module: Pick<TestModule, 'moduleId'>): string {
    return relative(this.root, module.moduleId).replace(/\\/g, '/');
  }

  private outcome(test: TestCase, file: string): TestOutcome {
    const meta = test.meta();
    const result = test.result();
    const requirements = meta.requirements ?? [];
    const errors = testFailed(result) ? (result.errors ?? []).map((e) => redactText(errorText(e))) : [];
    const note = testSkipped(result) && result.note ? redactText(result.note) : undefined;
    const conclusions =
      meta.conclusions ??
      conclusionsOfState(testStateOf(result.state, this.stopReason !== undefined), requirements, {
        ...(errors[0] === undefined ? {} : { error: errors[0] }),
        ...(note === undefined ? {} : { note }),
        ...(this.stopReason ? { stopped: this.stopReason } : {}),
      });
    // A test kept from finishing (back-pressure, its own bound, the run stopped) concluded nothing.
    const state = testStateOf(result.state, this.stopReason !== undefined, conclusions);
    return {
      key: `${file} > ${test.fullName}`,
      file,
      name: test.fullName,
      state,
      durationMs: test.diagnostic()?.duration ?? 0,
      errors: testFailed({ state }) ? errors : [],
      requirements,
      unknownRequirements: meta.unknownRequirements ?? [],
      observations: [
        ...(meta.observations ?? []),
        ...(note ? [observation('test-skipped', 'Skipped: {note}', { values: { note } })] : []),
      ],
      evidence: meta.evidence ?? [],
      droppedEvidence: meta.droppedEvidence ?? 0,
      characters: meta.characters ?? 0,
      conclusions,
      ...(meta.conclusions ? {} : { concludedByState: true }),
    };
  }
}

function liveTest(test: TestCase): LiveTest {
  const meta = test.meta();
  return {
    name: test.fullName,
    state: test.result().state,
    requirements: meta.requirements ?? [],
    ...(meta.conclusions ? { conclusions: meta.conclusions } : {}),
  };
}

function errorText(error: { message?: string; diff?: string; name?: string }): string {
  const message = error.message ?? String(error);
  const diff = error.diff ? `\n${error.diff.slice(0, 1_000)}` : '';
  return `${message}${diff}`;
}

function firstLine(text: string): string {
  const line = text.split('\n')[0] ?? '';
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}

/**
 * The whole run's back-pressure as an observation: whether the server limited the run is what it
 * chose; the counts and waits are this run's.
 */
function wholeRunRateLimit(traffic: ThrottleStats): Observation {
  return observation('rate-limit.whole-run', 'Whole run: {summary}', {
    values: { limited: traffic.answered429 + traffic.answered503 > 0 },
    particulars: { summary: rateLimitObservation(traffic) },
  });
}
