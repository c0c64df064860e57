/**
 * One short real k6 run: `speakcheck load ttfc-websocket` against the embedded reference stack,
 * through the same code path as the CLI (k6 from load/install-k6.sh's location, summary.json from
 * handleSummary, summary.md). Skipped, with the reason printed, only when k6 is not installed.
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findK6, K6_CACHE_BIN } from '../../src/load/k6-binary.ts';
import { runLoad } from '../../src/load/run-load.ts';

const k6 = findK6();
if (!k6)
  console.warn(`k6 smoke skipped: k6 v1.8.1 is not installed at ${K6_CACHE_BIN} (run load/install-k6.sh)`);

describe.skipIf(!k6)('k6 smoke against the reference stack', () => {
  it('ttfc-websocket (chunks, 1 VU, 3 s): loose thresholds hold and the summary has the TTFC figures', async () => {
    const outDir = mkdtempSync(join(tmpdir(), 'k6-smoke-'));
    const lines: string[] = [];
    const result = await runLoad({
      scenario: 'ttfc-websocket',
      vus: 1,
      duration: '3s',
      // The smoke proves the pipeline (stack, k6, scenario, summary); latency targets are judged by the
      // README figure runs on a quiet machine, so here they are loose. Errors stay at the 1 % default.
      env: { MODES: 'chunks', TTFC_CHUNKS_P50_MS: '1000', TTFC_CHUNKS_P95_MS: '5000', END_P95_MS: '30000' },
      outDir,
      timeoutMs: 90_000,
      log: (line) => lines.push(line),
    });
    expect(result.reason, lines.slice(-15).join('\n')).toBeUndefined();
    expect(result.exitCode, lines.slice(-15).join('\n')).toBe(0);
    const ttfc = result.summary!.metrics['speak_ws_ttfc{mode:chunks}']!;
    expect(ttfc.values.count).toBeGreaterThan(0);
    expect(ttfc.values.med).toBeGreaterThan(0);
    expect(result.summary!.metrics.speak_ws_errors!.values.rate).toBe(0);
    expect(existsSync(join(outDir, 'summary.json'))).toBe(true);
    const md = readFileSync(join(outDir, 'summary.md'), 'utf8');
    expect(md).toContain('- Verdict: **thresholds hold**');
    expect(md).not.toMatch(/password|access_token/i);
  }, 120_000);
});
