/**
 * Helpers of the defect matrix (and of the latitude matrix, test/reference/latitude/): a reference stack
 * started as `speakcheck serve --defect NAME` or `--latitude NAME` and `speakcheck run
 * [--requirement ...]` against it, both through the one launcher (src/stack/launcher.ts).
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SPEAKCHECK_BIN as CLI, REPO_ROOT } from '../../../src/stack/embedded.ts';
import { LaunchError, launch, runToEnd, serveReady } from '../../../src/stack/launcher.ts';

export interface DefectiveStack {
  baseUrl: string;
  email: string;
  password: string;
  /** The stack's second seeded user: customer B of the security area (SPEAK_SECOND_*). */
  secondEmail: string;
  secondPassword: string;
  /** The `defects=` line the stack printed. */
  defectsLine: string;
  /** The `latitude=` line the stack printed. */
  latitudeLine: string;
  /** `serve --tls`: the `ca_file=` line, the throwaway CA a client must trust. */
  caFile?: string;
  /** `serve --permanent-token`: the demo user's token; runHarness runs with it alone. */
  token?: string;
  stop(): Promise<void>;
}

export async function startDefectiveStack(
  defects: string[],
  serveArgs: string[] = [],
  startMs = 120_000,
): Promise<DefectiveStack> {
  const wantsLatitude = serveArgs.includes('--latitude');
  const wantsTls = serveArgs.includes('--tls');
  const wantsToken = serveArgs.includes('--permanent-token');
  try {
    const launched = await launch({
      args: [CLI, 'serve', '--port', '0', ...serveArgs, ...defects.flatMap((name) => ['--defect', name])],
      cwd: REPO_ROOT,
      what: `stack with ${defects.join(',')}`,
      ready: serveReady({
        token: wantsToken,
        also: [
          'second_email',
          'second_password',
          ...(defects.length > 0 ? ['defects'] : []),
          ...(wantsLatitude ? ['latitude'] : []),
          ...(wantsTls ? ['ca_file'] : []),
        ],
      }),
      readyTimeoutMs: startMs,
      outputLimit: 2000,
    });
    const lines = launched.fields;
    return {
      baseUrl: lines.get('base_url')!,
      email: lines.get('email')!,
      password: lines.get('password')!,
      secondEmail: lines.get('second_email')!,
      secondPassword: lines.get('second_password')!,
      defectsLine: lines.get('defects') ?? '',
      latitudeLine: lines.get('latitude') ?? '',
      ...(lines.has('ca_file') ? { caFile: lines.get('ca_file')! } : {}),
      ...(lines.has('token') ? { token: lines.get('token')! } : {}),
      stop: async () => {
        await launched.stop();
      },
    };
  } catch (error) {
    if (error instanceof LaunchError) throw new Error(`${error.message}: ${error.output.slice(-2000)}`);
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
  const run = await runToEnd({
    args: [
      CLI,
      'run',
      '--base-url',
      stack.baseUrl,
      ...(requirements.length > 0 ? ['--requirement', requirements.join(',')] : []),
      '--report-dir',
      reportDir,
      ...runArgs,
    ],
    cwd: REPO_ROOT,
    timeoutMs,
    env: {
      ...process.env,
      SPEAKCHECK_RUN_CONFIG: '',
      SPEAK_EMAIL: stack.email,
      SPEAK_PASSWORD: stack.password,
      SPEAK_SECOND_EMAIL: stack.secondEmail,
      SPEAK_SECOND_PASSWORD: stack.secondPassword,
      SPEAKCHECK_SEED: '1',
      // A stack serving a permanent token is run with it alone (no email and password).
      ...(stack.token !== undefined ? { SPEAK_EMAIL: '', SPEAK_PASSWORD: '', SPEAK_TOKEN: stack.token } : {}),
      ...env,
    },
  });
  const killed = run.timedOut ? `\n(speakcheck run killed: still running after ${timeoutMs} ms)` : '';
  const code = run.timedOut ? null : run.code;
  const output = `${run.stdout}\n${run.stderr}${killed}`;
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

/**
 * The matrices' schedule: `parallel` lanes of the items that work the cores, and beside them one
 * lane of those bound by a wait (`waitBound`: a ready bound, a hang's timeout, a Retry-After), in
 * their given order, so that two of them never hold both working lanes idle. With `parallel` 1 a
 * single lane runs everything: the setting caps the stacks at once.
 */
export async function runInLanes<T>(
  items: readonly T[],
  parallel: number,
  waitBound: (item: T) => boolean,
  work: (item: T) => Promise<void>,
): Promise<void> {
  if (parallel <= 1) {
    await mapLimited(items, 1, work);
    return;
  }
  await Promise.all([
    mapLimited(
      items.filter((item) => !waitBound(item)),
      parallel,
      work,
    ),
    mapLimited(items.filter(waitBound), 1, work),
  ]);
}
