/**
 * `load capacity` sees a slower server: the same REST search against the reference stack and
 * against one whose synthesizers hold each part 300 ms longer (`serve --synthesis-delay-ms 300`)
 * finds a lower capacity, and `perf compare` calls it worse (exit 1 material). Short steps and a
 * coarse search keep it near a minute; it runs under real k6 like the smoke test. Every step of a
 * search speaks with one voice, and the search deletes it at the end.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HttpSpeakClient } from '../../src/client/speak-client.ts';
import { type CapacityResult, runCapacity } from '../../src/load/capacity.ts';
import { findK6, K6_VERSION } from '../../src/load/k6-binary.ts';
import { perfCompare } from '../../src/perf/perf-compare.ts';
import { DEFAULT_TOLERANCE } from '../../src/perf/tracked.ts';
import { type EmbeddedStack, startEmbeddedStack } from '../../src/stack/embedded.ts';
import { toolReady } from '../support/required-tools.ts';

interface SpokenWith {
  speakcheck: { voice?: { id: string } };
}

const k6Ready = toolReady('k6', findK6() ? undefined : `k6 ${K6_VERSION} is not installed`);

async function capacityAgainst(
  extraArgs: string[],
  name: string,
  check?: (result: CapacityResult, stack: EmbeddedStack) => Promise<void>,
): Promise<CapacityResult> {
  const stack = await startEmbeddedStack({ extraArgs });
  const lines: string[] = [];
  try {
    const result = await runCapacity({
      baseUrl: stack.baseUrl,
      email: stack.email,
      password: stack.password,
      mode: 'rest',
      over: 'rate',
      start: 8,
      max: 16,
      stepS: 4,
      minSamples: 16,
      precision: 0.5,
      budgetS: 90,
      outDir: mkdtempSync(join(tmpdir(), `capacity-${name}-`)),
      log: (line) => lines.push(line),
    });
    await check?.(result, stack);
    return result;
  } finally {
    await stack.stop();
  }
}

describe.skipIf(!k6Ready)('load capacity against a slowed reference stack', () => {
  it('finds a lower capacity, and perf compare reports it as worse', async () => {
    const normal = await capacityAgainst([], 'normal', async (result, stack) => {
      const voice = result.report?.voice;
      expect(voice?.source).toBe('made');
      const spoken = result.report!.steps.map(
        (step) =>
          (JSON.parse(readFileSync(join(step.dir, 'step-summary.json'), 'utf8')) as SpokenWith).speakcheck
            .voice?.id,
      );
      expect(new Set(spoken), 'every step speaks with the voice step 1 made').toEqual(new Set([voice!.id]));
      const client = await HttpSpeakClient.login(
        { baseUrl: stack.baseUrl, authUrl: stack.baseUrl, requestTimeoutMs: 10_000 },
        { email: stack.email, password: stack.password },
      );
      expect((await client.get(`/v1/speak/voices/${voice!.id}`)).status, 'deleted at the end').toBe(404);
    });
    const slowed = await capacityAgainst(['--synthesis-delay-ms', '300'], 'slowed');
    const n = normal.report!;
    const s = slowed.report!;
    const steps = (r: typeof n) =>
      r.steps.map((x) => `${x.load}: ${x.holds ? 'holds' : x.broken.join('; ')}`).join(' | ');
    expect(n.capacity, steps(n)).toBeGreaterThanOrEqual(8);
    expect(s.firstBad, steps(s)).toBeDefined();
    expect(s.firstBad!, steps(s)).toBeLessThanOrEqual(n.capacity!);
    const { capacities } = perfCompare(
      normal.runDir,
      slowed.runDir,
      DEFAULT_TOLERANCE,
      mkdtempSync(join(tmpdir(), 'capacity-compare-')),
    );
    expect(capacities.map((c) => [c.scenario, c.verdict])).toEqual([['capacity-rest-rate', 'worse']]);
  }, 300_000);
});
