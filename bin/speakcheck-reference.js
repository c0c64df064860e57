#!/usr/bin/env node
// Entry of the reference image: `serve` and `worker` only (src/cli/reference-main.ts), run through tsx
// like bin/speakcheck.js.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/reference-main.ts');
