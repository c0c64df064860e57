/**
 * `speakcheck load <scenario>`: start the reference stack unless a base URL is given, run the
 * scenario's k6 script, write reports/load/<run>/summary.json (handleSummary) and summary.md, and
 * always stop what was started. Credentials reach k6 through its environment, never its argv.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { EXIT } from '../exit-codes.ts';
import { REPO_ROOT } from '../stack/embedded.ts';
import {
  CpuSampler,
  GENERATOR_SHARE_WARN,
  type GeneratorInterval,
  type GeneratorReport,
  generatorReport,
} from './cpu-share.ts';
import { k6Version } from './k6-binary.ts';
import { fewSamplesWarnings, loadHeaderLine } from './load-lines.ts';
import { MergeError, mergeSegments } from './merge.ts';
import { type GivenSlo, thresholdLines, thresholdVars } from './scenario-slo.ts';
import { type ScenarioName, scenarioScript } from './scenarios.ts';
import { type LoadSummary, readSummaryFile } from './summary.ts';
import { renderSummaryMarkdown } from './summary-markdown.ts';
import { type TargetCredentials, withLoadTarget } from './target.ts';

export type { TargetCredentials } from './target.ts';
export interface LoadOptions extends TargetCredentials {
  scenario: ScenarioName;
  vus?: number;
  duration?: string;
  /** Scenario knobs passed as `-e NAME=value` (RATE, STEPS, MODES, ...). */
  env?: Record<string, string>;
  /** Default reports/load/<run>. */
  outDir?: string;
  /** Upper bound on the whole k6 run; it is killed after this. */
  timeoutMs?: number;
  /**
   * Split the test over this many k6 processes (k6 execution segments, as k6-operator's
   * `parallelism`); each writes its raw samples to <run>/segment-<i>/, merged into one exact summary.
   */
  segments?: number;
  /** Warn when k6 takes more than this share of the machine (default GENERATOR_SHARE_WARN, 0.25). */
  maxGeneratorShare?: number;
  /** The user's SLO and where it came from: its terms replace the reference-tuned latency limits. */
  slo?: GivenSlo;
  /**
   * The base URL is a reference stack the caller started (`--target container`): its tuned latency
   * limits apply, as on the embedded stack runLoad starts itself. Otherwise a base URL is a server
   * not ours: errors and completeness only, plus the user's SLO.
   */
  referenceStack?: boolean;
  log?: (line: string) => void;
}

export interface LoadResult {
  exitCode: number;
  runDir: string;
  summary?: LoadSummary;
  /** Why nothing ran (k6 or target unavailable). */
  reason?: string;
}

export function runId(scenario: string, now = new Date()): string {
  return `${now.toISOString().replace(/[:.]/g, '-')}-${scenario}`;
}

/** Runs a k6 script with the given environment; resolves with k6's exit code. */
export function runK6(
  k6: string,
  script: string,
  vars: Record<string, string>,
  secrets: Record<string, string>,
  o: {
    timeoutMs: number;
    tag: string;
    log: (line: string) => void;
    extraArgs?: string[];
    /** Where k6's web dashboard writes its self-contained HTML report at the end of the run. */
    dashboardExport?: string;
    /** Called with k6's process id once it started (the generator's CPU sampling). */
    onSpawn?: (pid: number | undefined) => void;
  },
): Promise<number> {
  const args = ['run', '--quiet', '--no-usage-report', '--tag', `testid=${o.tag}`, ...(o.extraArgs ?? [])];
  for (const [name, value] of Object.entries(vars)) args.push('-e', `${name}=${value}`);
  args.push(script);
  const child = spawn(k6, args, {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    // Secrets only in the environment; k6 exposes system env vars to scripts as __ENV.
    env: { ...process.env, ...secrets, K6_NO_USAGE_REPORT: 'true', ...dashboardEnv(o.dashboardExport) },
  });
  o.onSpawn?.(child.pid);
  const forward = (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n')) if (line.trim()) o.log(line);
  };
  child.stdout.on('data', forward);
  child.stderr.on('data', forward);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      o.log(`k6 still running after ${o.timeoutMs} ms: stopping it`);
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 5_000).unref();
    }, o.timeoutMs);
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      resolve(code ?? (signal ? 128 : 1));
    });
  });
}

/**
 * k6's built-in web dashboard, exported as one HTML file at the end of the run (its assets are inside
 * the k6 binary: the file opens offline). Port -1: no HTTP server, so nothing listens and k6 does not
 * wait for a browser before it exits. Period 1 s: the dashboard skips the export when it holds fewer
 * than two snapshots, which at its default 10 s period drops every short run.
 */
export function dashboardEnv(exportPath: string | undefined): Record<string, string> {
  if (!exportPath) return {};
  return {
    K6_WEB_DASHBOARD: 'true',
    K6_WEB_DASHBOARD_PORT: '-1',
    K6_WEB_DASHBOARD_PERIOD: '1s',
    K6_WEB_DASHBOARD_EXPORT: exportPath,
  };
}

/** k6's flags for segment `index` (0-based) of `count` equal execution segments. */
export function segmentArgs(index: number, count: number): string[] {
  const at = (i: number) => (i === 0 ? '0' : i === count ? '1' : `${i}/${count}`);
  const sequence = Array.from({ length: count + 1 }, (_, i) => at(i)).join(',');
  return ['--execution-segment', `${at(index)}:${at(index + 1)}`, '--execution-segment-sequence', sequence];
}

function commandLine(o: LoadOptions, embedded: boolean): string {
  const parts = ['node bin/speakcheck.js load', o.scenario];
  if (!embedded && o.baseUrl) parts.push('--base-url', o.baseUrl);
  if (o.vus !== undefined) parts.push('--vus', String(o.vus));
  if (o.duration) parts.push('--duration', o.duration);
  if (o.model) parts.push('--model', o.model);
  for (const [k, v] of Object.entries(o.env ?? {})) parts.push('--env', `${k}=${v}`);
  if (o.segments && o.segments > 1) parts.push('--segments', String(o.segments));
  if (o.slo) parts.push('--slo', `'${o.slo.text}'`);
  return parts.join(' ');
}

/**
 * Runs the segments at the same time, each k6 with its own SUMMARY_DIR, raw samples and dashboard,
 * then merges them into <run>/summary.json. Exit code: a k6 failure other than failed thresholds
 * wins; else 99 when a threshold fails on the MERGED figures, else 0.
 */
async function runSegments(
  count: number,
  c: {
    k6: string;
    script: string;
    vars: Record<string, string>;
    secrets: Record<string, string>;
    runDir: string;
    run: string;
    timeoutMs: number;
    log: (line: string) => void;
    onSpawn: (pid: number | undefined) => void;
  },
): Promise<number> {
  const exits = await Promise.all(
    Array.from({ length: count }, (_, i) => {
      const dir = join(c.runDir, `segment-${i + 1}`);
      mkdirSync(dir, { recursive: true });
      return runK6(c.k6, c.script, { ...c.vars, SUMMARY_DIR: dir }, c.secrets, {
        timeoutMs: c.timeoutMs,
        tag: c.run,
        log: (line) => c.log(`[segment ${i + 1}/${count}] ${line}`),
        extraArgs: [...segmentArgs(i, count), '--out', `json=${join(dir, 'samples.json.gz')}`],
        dashboardExport: join(dir, 'dashboard.html'),
        onSpawn: c.onSpawn,
      });
    }),
  );
  const broken = exits.find((code) => code !== 0 && code !== EXIT.thresholdsFailed);
  let merged: Awaited<ReturnType<typeof mergeSegments>>;
  try {
    merged = await mergeSegments([c.runDir]);
  } catch (err) {
    if (!(err instanceof MergeError)) throw err;
    c.log(`the segments could not be merged: ${err.message}`);
    return broken ?? 1;
  }
  writeFileSync(join(c.runDir, 'summary.json'), JSON.stringify(merged.data, null, 2));
  c.log(`merged ${merged.segments.length} segments into ${join(c.runDir, 'summary.json')}`);
  if (broken !== undefined) return broken;
  return merged.failedThresholds ? EXIT.thresholdsFailed : 0;
}

export interface MergeRunResult {
  exitCode: number;
  summaryPath: string;
  segments: string[];
}

/**
 * `speakcheck load merge DIR...`: the segments below the directories (local `--segments` runs or
 * k6-operator runners' volume) merged into <outDir>/summary.json and summary.md. Exit 99 when a
 * threshold fails on the merged figures, as k6 would.
 */
export async function mergeRun(dirs: string[], outDir: string): Promise<MergeRunResult> {
  const merged = await mergeSegments(dirs);
  mkdirSync(outDir, { recursive: true });
  const summaryPath = join(outDir, 'summary.json');
  writeFileSync(summaryPath, JSON.stringify(merged.data, null, 2));
  const summary = readSummaryFile(summaryPath);
  const exitCode = merged.failedThresholds ? EXIT.thresholdsFailed : 0;
  const markdown = renderSummaryMarkdown(summary, {
    run: basename(outDir),
    scenario: summary.scenario,
    baseUrl: `merged from ${merged.segments.length} segment(s): ${merged.segments.join(', ')}`,
    k6Version: 'as run by the segments',
    command: `node bin/speakcheck.js load merge ${dirs.join(' ')}`,
    exitCode,
  });
  writeFileSync(join(outDir, 'summary.md'), markdown);
  return { exitCode, summaryPath, segments: merged.segments };
}

/**
 * The generator's CPU share, per ramp step when the summary has steps, else over the measured phase
 * (from the end of the warm-up to the end of the run), written into summary.json as
 * `speakcheck.generator`.
 */
export function addGeneratorShare(
  summaryPath: string,
  sampler: CpuSampler,
  warnAbove = GENERATOR_SHARE_WARN,
): GeneratorReport {
  const raw = JSON.parse(readFileSync(summaryPath, 'utf8')) as { speakcheck?: Record<string, unknown> };
  const speakcheck = raw.speakcheck ?? {};
  const samples = sampler.stop();
  const intervals = measuredIntervals(speakcheck, samples.at(-1)?.atMs ?? Date.now());
  const report = generatorReport(samples, intervals, { warnAbove, available: sampler.available });
  raw.speakcheck = { ...speakcheck, generator: report };
  writeFileSync(summaryPath, JSON.stringify(raw, null, 2));
  return report;
}

/** The ramp's steps (start_ms/end_ms), else the measured phase after the warm-up. */
export function measuredIntervals(speakcheck: Record<string, unknown>, endMs: number): GeneratorInterval[] {
  const ramp = speakcheck.ramp as
    | { steps?: Array<{ rate: number; start_ms?: number; end_ms?: number }> }
    | undefined;
  const steps = (ramp?.steps ?? []).filter(
    (s): s is { rate: number; start_ms: number; end_ms: number } =>
      typeof s.start_ms === 'number' && typeof s.end_ms === 'number',
  );
  if (steps.length)
    return steps.map((s) => ({ label: `step ${s.rate}/s`, fromMs: s.start_ms, toMs: s.end_ms }));
  const warmup = speakcheck.warmup as { endedAtMs?: number } | undefined;
  if (typeof warmup?.endedAtMs === 'number') {
    return [{ label: 'the measured phase', fromMs: warmup.endedAtMs, toMs: endMs }];
  }
  return [];
}

export async function runLoad(o: LoadOptions): Promise<LoadResult> {
  const log = o.log ?? ((line: string) => console.log(line));
  const run = runId(o.scenario);
  const runDir = o.outDir ?? join(REPO_ROOT, 'reports', 'load', run);
  const script = scenarioScript(o.scenario);
  return withLoadTarget(o, runDir, log, async ({ k6, target, stack, secrets, vars: targetVars }) => {
    mkdirSync(runDir, { recursive: true });
    // The target's own flags win over --env knobs of the same name.
    // Which thresholds hold: the reference's tuned limits only on a reference stack, the SLO anywhere.
    const vars: Record<string, string> = {
      SUMMARY_DIR: runDir,
      ...(o.env ?? {}),
      ...thresholdVars(o, stack !== undefined || o.referenceStack === true),
      ...targetVars,
    };
    if (o.vus !== undefined) vars.VUS = String(o.vus);
    if (o.duration) vars.DURATION = o.duration;
    const timeoutMs = o.timeoutMs ?? 15 * 60_000;
    log(
      loadHeaderLine({
        scenario: o.scenario,
        target: stack ? `embedded reference stack (${stack.baseUrl})` : target.baseUrl,
        ...(o.vus === undefined ? {} : { vus: o.vus }),
        ...(o.duration ? { duration: o.duration } : {}),
      }),
    );
    const sampler = new CpuSampler();
    const onSpawn = (pid: number | undefined) => sampler.add(pid);
    let exitCode: number;
    try {
      if (o.segments && o.segments > 1) {
        exitCode = await runSegments(o.segments, {
          k6,
          script,
          vars,
          secrets,
          runDir,
          run,
          timeoutMs,
          log,
          onSpawn,
        });
      } else {
        exitCode = await runK6(k6, script, vars, secrets, {
          timeoutMs,
          tag: run,
          log,
          dashboardExport: join(runDir, 'dashboard.html'),
          onSpawn,
        });
      }
    } finally {
      sampler.stop();
    }
    const summaryPath = join(runDir, 'summary.json');
    const result: LoadResult = { exitCode, runDir };
    if (existsSync(summaryPath)) {
      const generator = addGeneratorShare(summaryPath, sampler, o.maxGeneratorShare);
      for (const warning of generator.warnings) log(`warning: ${warning}`);
      result.summary = readSummaryFile(summaryPath);
      for (const line of thresholdLines(result.summary)) log(line);
      for (const warning of fewSamplesWarnings(result.summary)) log(warning);
      const markdown = renderSummaryMarkdown(result.summary, {
        run,
        scenario: o.scenario,
        baseUrl: stack ? `embedded reference stack (${stack.baseUrl})` : target.baseUrl,
        k6Version: k6Version(k6) ?? 'unknown',
        command: commandLine(o, stack !== undefined),
        exitCode,
      });
      writeFileSync(join(runDir, 'summary.md'), markdown);
    } else {
      result.reason = `k6 exited with ${exitCode} and wrote no summary.json`;
    }
    return result;
  });
}
