#!/usr/bin/env node
// The CLI runs as an esbuild bundle of the TypeScript sources (src/cli/bundle.mjs: it spares every
// process and espeak thread of the stack a run-time TypeScript loader): the package's dist/, made
// when the package is made, or in a clone one rebuilt in the cache directory whenever a source
// changed, so there is no build step between editing a suite or the reference stack and running it;
// through tsx when no bundle can be had (or SPEAKCHECK_TSX=1). Nothing is ever written into the
// package: what a run generates goes to the cache directory (src/config/cache-dir.mjs).
import { register } from 'node:module';
import { setFlagsFromString } from 'node:v8';
import { bundledCli } from '../src/cli/bundle.mjs';
import { processV8Flags } from '../src/cli/process-v8.mjs';
import { CACHE_DIR_ENV, CacheDirError, cacheDirFlag, resolveCacheDir } from '../src/config/cache-dir.mjs';
import { setChildMalloc } from '../src/config/child-malloc.mjs';

// V8's flags for this process, by command, before anything runs hot (why: the module).
for (const flag of processV8Flags(process.argv)) setFlagsFromString(flag);

// glibc's malloc in every process this one starts, not in this one (why: the module).
setChildMalloc(process.env);

// Resolved once here, from the flag or the environment, and handed down: the run (vitest's caches),
// the stack's processes and a clone's bundle all use the same directory. (A config file's cacheDir
// is read by the run itself, for its caches.) A directory the user named that cannot be written
// stops here (exit 2); when no default can be written, commands that need no cache still run and
// the run says it when it needs one.
let cacheDir;
try {
  cacheDir = resolveCacheDir(cacheDirFlag(process.argv.slice(2)));
  process.env[CACHE_DIR_ENV] = cacheDir;
} catch (error) {
  if (!(error instanceof CacheDirError)) throw error;
  if (error.exitCode === 2) {
    process.stderr.write(`speakcheck: ${error.message}.\n`);
    process.exit(error.exitCode);
  }
}
const bundled = await bundledCli(cacheDir);
if (bundled) {
  await import(bundled);
} else {
  const tsx = await import('tsx/esm/api');
  tsx.register();
  // node_modules' ES modules bypass tsx (see the hook for why).
  register('../src/cli/plain-node-modules.mjs', import.meta.url);
  await import('../src/cli/main.ts');
}
