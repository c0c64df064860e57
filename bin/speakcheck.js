#!/usr/bin/env node
// The package ships TypeScript sources, so there is no build step between editing a suite or the
// reference stack and running it: the CLI runs as an esbuild bundle of the sources, rebuilt whenever
// one changed (src/cli/bundle.mjs: it spares every process and espeak thread of the stack a run-time
// TypeScript loader), or through tsx when that bundle cannot be made (or SPEAKCHECK_TSX=1).
import { register } from 'node:module';
import { bundledCli } from '../src/cli/bundle.mjs';

// Every process this one starts (the stack's API and workers, the suites' vitest workers, ffmpeg):
// glibc gives each thread that allocates its own malloc arena, and the freed memory of the libuv
// threads' arenas stays resident. Two arenas: the API's peak RSS 194 → 121 MB over a full run
// (measured with `speakcheck bench`, no CPU time lost).
process.env.MALLOC_ARENA_MAX ??= '2';

const bundled = await bundledCli();
if (bundled) {
  await import(bundled);
} else {
  const tsx = await import('tsx/esm/api');
  tsx.register();
  // node_modules' ES modules bypass tsx (see the hook for why).
  register('../src/cli/plain-node-modules.mjs', import.meta.url);
  await import('../src/cli/main.ts');
}
