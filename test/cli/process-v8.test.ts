import { describe, expect, it } from 'vitest';
import { ESPEAK_V8_FLAGS } from '../../reference/synth/espeak-v8.mjs';
import { processV8Flags } from '../../src/cli/process-v8.mjs';

const argv = (...args: string[]) => ['/usr/bin/node', '/x/bin/speakcheck.js', ...args];

describe("a speakcheck process's V8 flags from its start", () => {
  it("are espeak's for the commands whose process runs espeak threads, none for the others", () => {
    expect(processV8Flags(argv('serve', '--port', '0'))).toEqual(ESPEAK_V8_FLAGS);
    expect(processV8Flags(argv('worker', '--data', '/d'))).toEqual(ESPEAK_V8_FLAGS);
    // The harness keeps V8's defaults (src/run/harness-v8.ts has its own).
    expect(processV8Flags(argv())).toEqual([]);
    expect(processV8Flags(argv('run'))).toEqual([]);
    expect(processV8Flags(argv('bench', '--runs', '1'))).toEqual([]);
    expect(processV8Flags(argv('help', 'serve'))).toEqual([]);
  });
});
