/**
 * A short real k6 run of every scenario against the embedded reference stack, through the CLI's code
 * path (k6 from load/install-k6.sh's location, summary.json from handleSummary, summary.md). The first
 * run starts its own stack (no base URL, as `speakcheck load` does); the others share one stack to keep
 * the smoke under a minute. Latency limits are loose (CI machines are shared: docs/benchmarks.md's figures are
 * measured on a quiet machine); error thresholds stay at each scenario's default.
 * Skipped, with the reason printed, only when k6 is not installed and not required (test/support/required-tools.ts).
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findK6, K6_CACHE_BIN, K6_VERSION } from '../../src/load/k6-binary.ts';
import { k6Percentile, readSamples } from '../../src/load/merge.ts';
import { type LoadOptions, type LoadResult, runLoad } from '../../src/load/run-load.ts';
import { type LoadSummary, readSummaryFile } from '../../src/load/summary.ts';
import { type EmbeddedStack, startEmbeddedStack } from '../../src/stack/embedded.ts';
import { toolReady } from '../support/required-tools.ts';

const k6Ready = toolReady(
  'k6',
  findK6() ? undefined : `k6 ${K6_VERSION} is not installed at ${process.env.K6_BIN || K6_CACHE_BIN}`,
);

type Scenario = LoadOptions['scenario'];

async function smoke(
  scenario: Scenario,
  options: Omit<LoadOptions, 'scenario' | 'outDir' | 'log'>,
): Promise<{ result: LoadResult; summary: LoadSummary; md: string }> {
  const outDir = mkdtempSync(join(tmpdir(), `k6-smoke-${scenario}-`));
  const lines: string[] = [];
  const result = await runLoad({
    scenario,
    outDir,
    timeoutMs: 90_000,
    ...options,
    log: (l) => lines.push(l),
  });
  const tail = lines.slice(-20).join('\n');
  expect(result.reason, tail).toBeUndefined();
  expect(result.exitCode, tail).toBe(0);
  expect(existsSync(join(outDir, 'summary.json'))).toBe(true);
  if (!options.segments) expect(existsSync(join(outDir, 'dashboard.html'))).toBe(true);
  const md = readFileSync(join(outDir, 'summary.md'), 'utf8');
  expect(md).toContain('- Verdict: **thresholds hold**');
  expect(md).not.toMatch(/password|access_token|refresh_token/i);
  return { result, summary: result.summary!, md };
}

function metric(summary: LoadSummary, name: string) {
  const figures = summary.metrics[name];
  expect(
    figures,
    `${name} missing from the summary; it has ${Object.keys(summary.metrics).join(', ')}`,
  ).toBeDefined();
  return figures!.values;
}

describe.skipIf(!k6Ready)('k6 smoke of every scenario against the reference stack', () => {
  let stack: EmbeddedStack;
  const shared = () => ({ baseUrl: stack.baseUrl, email: stack.email, password: stack.password });

  beforeAll(async () => {
    stack = await startEmbeddedStack({ readyTimeoutMs: 60_000 });
  }, 90_000);
  afterAll(async () => {
    await stack?.stop();
  });

  it('ttfc-websocket (both modes, 1 VU, 3 s each, own stack): thresholds hold, TTFC per mode summarized', async () => {
    const { summary } = await smoke('ttfc-websocket', {
      vus: 1,
      duration: '3s',
      env: {
        TTFC_CHUNKS_P50_MS: '1000',
        TTFC_CHUNKS_P95_MS: '5000',
        TTFC_PARTS_P95_MS: '10000',
        END_P95_MS: '30000',
      },
    });
    for (const mode of ['parts', 'chunks']) {
      const ttfc = metric(summary, `speak_ws_ttfc{mode:${mode}}`);
      expect(ttfc.count).toBeGreaterThan(0);
      expect(ttfc.med).toBeGreaterThan(0);
      // What a listener hears: every take contributes a value (gaps: one less per take than frames).
      for (const name of [
        'speak_ws_first_frame',
        'speak_ws_first_part_end',
        'speak_ws_ttlb',
        'speak_ws_rtf',
      ]) {
        const values = metric(summary, `${name}{mode:${mode}}`);
        expect(values.count, name).toBe(ttfc.count);
        expect(values.med, name).toBeGreaterThan(0);
      }
      expect(metric(summary, `speak_ws_first_frame{mode:${mode}}`).med).toBeLessThanOrEqual(ttfc.med!);
      expect(metric(summary, `speak_ws_underrun{mode:${mode}}`).fails).toBe(ttfc.count);
    }
    expect(metric(summary, 'speak_ws_chunk_gap{mode:chunks}').count).toBeGreaterThan(0);
    expect(metric(summary, 'speak_ws_errors').rate).toBe(0);
  }, 120_000);

  it('ttfb-wav (1 VU, 5 s): POST → 307 → first wav byte measured, no errors', async () => {
    const { summary } = await smoke('ttfb-wav', {
      ...shared(),
      vus: 1,
      duration: '5s',
      env: { WAV_TTFB_P95_MS: '5000' },
    });
    const ttfb = metric(summary, 'speak_wav_ttfb');
    expect(ttfb.count).toBeGreaterThan(0);
    expect(ttfb.med).toBeGreaterThan(0);
    expect(metric(summary, 'speak_wav_download').count).toBe(ttfb.count);
    expect(metric(summary, 'speak_wav_rtf').med).toBeGreaterThan(0);
    expect(metric(summary, 'speak_wav_errors').rate).toBe(0);
  }, 120_000);

  it('throughput-rest (1 take/s, 5 s): takes complete and audio seconds per second are counted', async () => {
    const { summary } = await smoke('throughput-rest', {
      ...shared(),
      duration: '5s',
      env: { RATE: '1', TEXTS: 'short' },
    });
    expect(metric(summary, 'speak_takes_completed').count).toBeGreaterThanOrEqual(3);
    expect(metric(summary, 'speak_audio_seconds').rate).toBeGreaterThan(0);
    expect(metric(summary, 'speak_rest_errors').rate).toBe(0);
  }, 120_000);

  it('ramp (1 then 2 takes/s, 3 s each): a p95 per step and the crossing rate in the summary', async () => {
    const { summary } = await smoke('ramp', {
      ...shared(),
      env: { STEPS: '1,2', STEP_S: '3', LIMIT_MS: '1000' },
    });
    for (const rate of [1, 2])
      expect(metric(summary, `speak_ramp_ttfc{rate:${rate}}`).count).toBeGreaterThan(0);
    const ramp = summary.extra.ramp as { crossing_rate: number | null } | undefined;
    expect(ramp, JSON.stringify(summary.extra)).toBeDefined();
    expect(ramp!.crossing_rate === null || ramp!.crossing_rate === 2).toBe(true);
    // The warm-up ran before the steps and is accounted for apart from them.
    const warmup = summary.extra.warmup as { takes: number; ms: number } | undefined;
    expect(warmup?.takes, JSON.stringify(summary.extra)).toBeGreaterThan(0);
    const perStep = [1, 2].map((rate) => metric(summary, `speak_ramp_ttfc{rate:${rate}}`).count ?? 0);
    expect(metric(summary, 'speak_ramp_ttfc').count).toBe(perStep[0]! + perStep[1]!);
    // The generator's CPU per step (Linux /proc) is in the summary.
    const generator = summary.extra.generator as { intervals: unknown[]; unavailable?: string } | undefined;
    if (process.platform === 'linux') expect(generator?.intervals.length, JSON.stringify(generator)).toBe(2);
  }, 120_000);

  it('ttfc-websocket --segments 2 (chunks, 2 VUs): both segments take part; the merged summary is exact', async () => {
    const { result, summary } = await smoke('ttfc-websocket', {
      ...shared(),
      vus: 2,
      duration: '3s',
      segments: 2,
      env: { MODES: 'chunks', TTFC_CHUNKS_P50_MS: '1000', TTFC_CHUNKS_P95_MS: '5000', END_P95_MS: '30000' },
    });
    const segmentTakes = [1, 2].map((i) => {
      const own = readSummaryFile(join(result.runDir, `segment-${i}`, 'summary.json'));
      expect(existsSync(join(result.runDir, `segment-${i}`, 'samples.json.gz'))).toBe(true);
      return own.metrics.speak_ws_takes?.values.count ?? 0;
    });
    expect(
      segmentTakes.every((n) => n > 0),
      `takes per segment: ${segmentTakes}`,
    ).toBe(true);
    expect(metric(summary, 'speak_ws_takes').count).toBe(segmentTakes[0]! + segmentTakes[1]!);
    // The merged p95 is the p95 of both segments' raw samples together.
    const samples = new Map();
    for (const i of [1, 2])
      await readSamples(join(result.runDir, `segment-${i}`, 'samples.json.gz'), samples);
    const all = (samples.get('speak_ws_ttfc').points as { value: number }[])
      .map((p) => p.value)
      .sort((a, b) => a - b);
    expect(metric(summary, 'speak_ws_ttfc{mode:chunks}')['p(95)']).toBeCloseTo(k6Percentile(all, 0.95), 9);
    expect(summary.extra.merged).toMatchObject({ segments: 2 });
  }, 150_000);
});
