/**
 * Where everything a run generates goes (the first-start bundle of a clone, vitest's and vite's
 * caches): never inside the package, which may be read-only or owned by another user (an npm
 * install as root run by an unprivileged user, a read-only image). In order:
 *   1. --cache-dir DIR / SPEAKCHECK_CACHE_DIR (/ the config file's cacheDir): this one or nothing;
 *   2. $XDG_CACHE_HOME/speakcheck, else ~/.cache/speakcheck;
 *   3. <the OS temp dir>/speakcheck-<uid> (a read-only home, a user without one).
 * An explicit directory that cannot be written is the user's option: exit 2; no writable default
 * anywhere: exit 3. Either way one sentence naming the directory and the option.
 * Plain JavaScript: bin/speakcheck.js needs it before any bundle or TypeScript loader exists.
 */
import { accessSync, constants, mkdirSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const CACHE_DIR_ENV = 'SPEAKCHECK_CACHE_DIR';
export const CACHE_DIR_FLAG = '--cache-dir';

export class CacheDirError extends Error {
  /** @param {string} message @param {number} exitCode */
  constructor(message, exitCode) {
    super(message);
    this.name = 'CacheDirError';
    this.exitCode = exitCode;
  }
}

/** The directory (created) when it can be written; the error's code (EACCES, EROFS, …) otherwise. */
function writable(dir) {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    accessSync(dir, constants.W_OK | constants.X_OK);
    return undefined;
  } catch (error) {
    return /** @type {NodeJS.ErrnoException} */ (error).code ?? String(error);
  }
}

/** The value of `--cache-dir DIR` or `--cache-dir=DIR` in argv (bin reads it before commander). */
export function cacheDirFlag(argv) {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === CACHE_DIR_FLAG) return argv[i + 1];
    if (arg.startsWith(`${CACHE_DIR_FLAG}=`)) return arg.slice(CACHE_DIR_FLAG.length + 1);
    if (arg === '--') break;
  }
  return undefined;
}

/**
 * The cache directory, created and writable. `explicit`: the --cache-dir flag's value (or the
 * config file's); else SPEAKCHECK_CACHE_DIR; else the defaults above.
 * @param {string | undefined} explicit
 * @param {NodeJS.ProcessEnv} [env]
 * @returns {string}
 */
export function resolveCacheDir(explicit, env = process.env) {
  const chosen = explicit || env[CACHE_DIR_ENV];
  if (chosen) {
    const dir = resolve(chosen);
    const problem = writable(dir);
    if (problem)
      throw new CacheDirError(
        `the cache directory ${dir} cannot be written (${problem}): give ${CACHE_DIR_FLAG} (or ${CACHE_DIR_ENV}) a directory this user can write`,
        2,
      );
    return dir;
  }
  const tried = [];
  const home = (() => {
    try {
      return homedir();
    } catch {
      return '';
    }
  })();
  const candidates = [
    env.XDG_CACHE_HOME ? join(resolve(env.XDG_CACHE_HOME), 'speakcheck') : undefined,
    home ? join(home, '.cache', 'speakcheck') : undefined,
    join(tmpdir(), `speakcheck-${process.getuid?.() ?? 'user'}`),
  ].filter((dir) => dir !== undefined);
  for (const dir of candidates) {
    const problem = writable(dir);
    if (!problem) return dir;
    tried.push(`${dir} (${problem})`);
  }
  throw new CacheDirError(
    `no cache directory can be written (${tried.join(', ')}): give ${CACHE_DIR_FLAG} (or ${CACHE_DIR_ENV}) a directory this user can write`,
    3,
  );
}
