/**
 * Where k6 comes from: the project's own install script (load/install-k6.sh builds the unmodified
 * go.k6.io/k6/v2@v2.2.0 into .cache/k6/v2.2.0/bin, one directory per version so a pin change never
 * overwrites a binary another checkout uses). K6_BIN overrides. Never a hand-rolled substitute.
 */
import { execFile, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { SpeakcheckError } from '../errors.ts';
import { REPO_ROOT } from '../stack/embedded.ts';

export const K6_VERSION = 'v2.2.0';
export const INSTALL_SCRIPT = join(REPO_ROOT, 'load', 'install-k6.sh');
export const K6_CACHE_BIN = join(
  process.env.K6_GOBIN ?? join(REPO_ROOT, '.cache', 'k6', K6_VERSION, 'bin'),
  'k6',
);
/** The install script's exit code when Go is missing (k6 cannot be built: skipped). */
export const INSTALL_SKIPPED = 3;

export class K6UnavailableError extends SpeakcheckError {
  readonly code = 'SPEAKCHECK_K6_UNAVAILABLE';
  override name = 'K6UnavailableError';
}

/** The k6 version line (`k6 v2.2.0 (go..., linux/amd64)`), or undefined when `bin` does not run. */
export function k6Version(bin: string): string | undefined {
  const out = spawnSync(bin, ['version'], { encoding: 'utf8', timeout: 10_000 });
  return out.status === 0 ? out.stdout.trim().split('\n')[0] : undefined;
}

/** The k6 binary to use, without installing anything; undefined when there is none yet. */
export function findK6(): string | undefined {
  const override = process.env.K6_BIN;
  if (override) return existsSync(override) ? override : undefined;
  return existsSync(K6_CACHE_BIN) && k6Version(K6_CACHE_BIN)?.includes(K6_VERSION) ? K6_CACHE_BIN : undefined;
}

/** The k6 binary, running the install script when needed (it reuses a cached build). */
export async function ensureK6(log: (line: string) => void = () => {}): Promise<string> {
  const found = findK6();
  if (found) return found;
  if (process.env.K6_BIN) throw new K6UnavailableError(`K6_BIN=${process.env.K6_BIN} does not exist`);
  log(`k6 ${K6_VERSION} not found at ${K6_CACHE_BIN}: running load/install-k6.sh`);
  const { code, output } = await new Promise<{ code: number; output: string }>((resolve) => {
    // A from-source build takes minutes on two cores; bound it anyway.
    execFile('bash', [INSTALL_SCRIPT], { timeout: 20 * 60_000, encoding: 'utf8' }, (err, stdout, stderr) => {
      const exit =
        err && typeof (err as { code?: unknown }).code === 'number'
          ? (err as { code: number }).code
          : err
            ? 1
            : 0;
      resolve({ code: exit, output: `${stdout}${stderr}`.trim() });
    });
  });
  if (code === INSTALL_SKIPPED)
    throw new K6UnavailableError(output || 'Go is not installed, so k6 cannot be built');
  if (code !== 0)
    throw new K6UnavailableError(
      `load/install-k6.sh failed (exit ${code}): ${output.split('\n').slice(-3).join(' | ')}`,
    );
  const installed = findK6();
  if (!installed)
    throw new K6UnavailableError(`load/install-k6.sh succeeded but ${K6_CACHE_BIN} does not run`);
  return installed;
}
