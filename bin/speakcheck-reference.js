#!/usr/bin/env node
// Entry of the reference image: `serve` and `worker` only (src/cli/reference-main.ts), run through tsx
// like bin/speakcheck.js.
import { setFlagsFromString } from 'node:v8';
import { processV8Flags } from '../src/cli/process-v8.mjs';

// V8's flags for this process, by command, before anything runs hot (why: the module).
for (const flag of processV8Flags(process.argv)) setFlagsFromString(flag);
// tsx imported only now: nothing of it has run before the flags are set.
const { register } = await import('tsx/esm/api');
register();
await import('../src/cli/reference-main.ts');
