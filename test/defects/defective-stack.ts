/**
 * Helpers of the defect matrix (and of the latitude matrix, test/latitude/): a reference stack
 * started as `speakcheck serve --defect NAME` or `--latitude NAME` (its own process, stopped by
 * SIGTERM with a bounded wait) and `speakcheck run [--requirement ...]` against it.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../../src/stack/embedded.ts';

const CLI = join(REPO_ROOT, 'bin', 'speakcheck.js');

export interface DefectiveStack {
  baseUrl: string;
  email: string;
  password: string;
  /** The `defects=` line the stack printed. */
  defectsLine: string;
  /** The `latitude=` line the stack printed. */
  latitudeLine: string;
  stop(): Promise<void>;
}

export async function startDefectiveStack(
  defects: string[],
  serveArgs: string[] = [],
  startMs = 120_000,
): Promise<DefectiveStack> {
  const child: ChildProcess = spawn(
    process.execPath,
    [CLI, 'serve', '--port', '0', ...serveArgs, ...defects.flatMap((name) => ['--defect', name])],
    { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stderrTail = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderrTail = (stderrTail + chunk.toString('utf8')).slice(-2000);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const killed = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(killed);
  };
  try {
    const lines = await new Promise<Map<string, string>>((resolve, reject) => {
      const found = new Map<string, string>();
      let buffered = '';
      const timer = setTimeout(
        () => reject(new Error(`stack with ${defects.join(',')} not ready in ${startMs} ms: ${stderrTail}`)),
        startMs,
      );
      child.stdout?.on('data', (chunk: Buffer) => {
        buffered += chunk.toString('utf8');
        for (const line of buffered.split('\n').slice(0, -1)) {
          const at = line.indexOf('=');
          if (at > 0) found.set(line.slice(0, at), line.slice(at + 1));
        }
        const wantsLatitude = serveArgs.includes('--latitude');
        if (
          found.has('password') &&
          (defects.length === 0 || found.has('defects')) &&
          (!wantsLatitude || found.has('latitude'))
        ) {
          clearTimeout(timer);
          resolve(found);
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`stack with ${defects.join(',')} exited (${code}) before ready: ${stderrTail}`));
      });
    });
    return {
      baseUrl: lines.get('base_url')!,
      email: lines.get('email')!,
      password: lines.get('password')!,
      defectsLine: lines.get('defects') ?? '',
      latitudeLine: lines.get('latitude') ?? '',
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

export interface HarnessRun {
  code: number | null;
  output: string;
  /** Requirement id → status from conformance.json (empty when the run wrote none). */
  verdicts: Map<string, string>;
  reportDir: string;
}

/**
 * `speakcheck run --requirement <ids>`: only the tests covering those ids, only they judged; with no
 * ids, the whole harness.
 */
export async function runHarness(
  stack: DefectiveStack,
  requirements: readonly string[],
  env: Record<string, string> = {},
  runArgs: string[] = [],
  timeoutMs = 300_000,
): Promise<HarnessRun> {
  const reportDir = mkdtempSync(join(tmpdir(), 'speakcheck-defect-'));
  const { code, output } = await new Promise<{ code: number | null; output: string }>((resolve) => {
    execFile(
      process.execPath,
      [
        CLI,
        'run',
        '--base-url',
        stack.baseUrl,
        ...(requirements.length > 0 ? ['--requirement', requirements.join(',')] : []),
        '--report-dir',
        reportDir,
        ...runArgs,
      ],
      {
        cwd: REPO_ROOT,
        timeout: timeoutMs,
        maxBuffer: 16 * 1024 * 1024,
        env: {
          ...process.env,
          SPEAKCHECK_RUN_CONFIG: '',
          SPEAK_EMAIL: stack.email,
          SPEAK_PASSWORD: stack.password,
          SPEAKCHECK_SEED: '1',
          ...env,
        },
      },
      (error, stdout, stderr) => {
        const exit = error ? (error as { code?: unknown }).code : 0;
        const killed = (error as { killed?: boolean } | null)?.killed
          ? `\n(speakcheck run killed: still running after ${timeoutMs} ms)`
          : '';
        resolve({ code: typeof exit === 'number' ? exit : null, output: `${stdout}\n${stderr}${killed}` });
      },
    );
  });
  let verdicts = new Map<string, string>();
  try {
    const report = JSON.parse(readFileSync(join(reportDir, 'conformance.json'), 'utf8')) as {
      requirements: Array<{ id: string; status: string }>;
    };
    verdicts = new Map(report.requirements.map((r) => [r.id, r.status]));
  } catch {
    // No report: the assertion on verdicts says so.
  }
  return { code, output, verdicts, reportDir };
}

/** Runs `work` over `items`, at most `limit` at a time, keeping the order of the results. */
export async function mapLimited<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return results;
}
