/**
 * `speakcheck load <scenario>`: start the reference stack unless a base URL is given, run the
 * scenario's k6 script, write reports/load/<run>/summary.json (handleSummary) and summary.md, and
 * always stop what was started. Credentials reach k6 through its environment, never its argv.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../stack/embedded.ts';
import { k6Version } from './k6-binary.ts';
import { type ScenarioName, scenarioScript } from './scenarios.ts';
import { type LoadSummary, readSummaryFile } from './summary.ts';
import { renderSummaryMarkdown } from './summary-markdown.ts';
import { type TargetCredentials, withLoadTarget } from './target.ts';

export {
  EXIT_K6_UNAVAILABLE,
  EXIT_TARGET_UNAVAILABLE,
  type TargetCredentials,
} from './target.ts';

/** k6's own exit code when a threshold failed. */
export const EXIT_THRESHOLDS_FAILED = 99;
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
  o: { timeoutMs: number; tag: string; log: (line: string) => void; extraArgs?: string[] },
): Promise<number> {
  const args = ['run', '--quiet', '--no-usage-report', '--tag', `testid=${o.tag}`, ...(o.extraArgs ?? [])];
  for (const [name, value] of Object.entries(vars)) args.push('-e', `${name}=${value}`);
  args.push(script);
  const child = spawn(k6, args, {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    // Secrets only in the environment; k6 exposes system env vars to scripts as __ENV.
    env: { ...process.env, ...secrets, K6_NO_USAGE_REPORT: 'true' },
  });
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

function commandLine(o: LoadOptions, embedded: boolean): string {
  const parts = ['node bin/speakcheck.js load', o.scenario];
  if (!embedded && o.baseUrl) parts.push('--base-url', o.baseUrl);
  if (o.vus !== undefined) parts.push('--vus', String(o.vus));
  if (o.duration) parts.push('--duration', o.duration);
  if (o.model) parts.push('--model', o.model);
  for (const [k, v] of Object.entries(o.env ?? {})) parts.push('--env', `${k}=${v}`);
  return parts.join(' ');
}

export async function runLoad(o: LoadOptions): Promise<LoadResult> {
  const log = o.log ?? ((line: string) => console.log(line));
  const run = runId(o.scenario);
  const runDir = o.outDir ?? join(REPO_ROOT, 'reports', 'load', run);
  const script = scenarioScript(o.scenario);
  return withLoadTarget(o, runDir, log, async ({ k6, target, stack, secrets, vars: targetVars }) => {
    mkdirSync(runDir, { recursive: true });
    // The target's own flags win over --env knobs of the same name.
    const vars: Record<string, string> = { SUMMARY_DIR: runDir, ...(o.env ?? {}), ...targetVars };
    if (o.vus !== undefined) vars.VUS = String(o.vus);
    if (o.duration) vars.DURATION = o.duration;
    const exitCode = await runK6(k6, script, vars, secrets, {
      timeoutMs: o.timeoutMs ?? 15 * 60_000,
      tag: run,
      log,
    });
    const summaryPath = join(runDir, 'summary.json');
    const result: LoadResult = { exitCode, runDir };
    if (existsSync(summaryPath)) {
      result.summary = readSummaryFile(summaryPath);
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
