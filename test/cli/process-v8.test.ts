import { describe, expect, it } from 'vitest';
import { ESPEAK_V8_FLAGS } from '../../reference/synth/espeak-v8.mjs';
import { HARNESS_V8_FLAGS, processV8Flags, YOUNG_GENERATION_V8_FLAGS } from '../../src/cli/process-v8.mjs';

const argv = (...args: string[]) => ['/usr/bin/node', '/x/bin/speakcheck.js', ...args];

describe("a speakcheck process's V8 flags from its start", () => {
  it("are espeak's for the commands whose process runs espeak threads, the harness's for the others", () => {
    const espeak = [...ESPEAK_V8_FLAGS, ...YOUNG_GENERATION_V8_FLAGS];
    const harness = [...HARNESS_V8_FLAGS, ...YOUNG_GENERATION_V8_FLAGS];
    expect(processV8Flags(argv('serve', '--port', '0'))).toEqual(espeak);
    expect(processV8Flags(argv('worker', '--data', '/d'))).toEqual(espeak);
    expect(processV8Flags(argv())).toEqual(harness); // the main job: a run
    expect(processV8Flags(argv('run'))).toEqual(harness);
    expect(processV8Flags(argv('bench', '--runs', '1'))).toEqual(harness);
    expect(processV8Flags(argv('help', 'serve'))).toEqual(harness);
  });
});
