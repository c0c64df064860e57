import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { textTable } from '../../load/lib/text-table.ts';
import { parseSummary, readSummaryFile, SummaryFormatError, statLabel } from '../../src/load/summary.ts';
import { renderSummaryMarkdown } from '../../src/load/summary-markdown.ts';

// Written by k6 v1.8.1's handleSummary (load/lib/summary.ts) for a ttfc-websocket run; trimmed to a
// few metrics. The values come from a throwaway local server, the shape is k6's.
const FIXTURE = join(import.meta.dirname, 'fixtures', 'k6-summary-ttfc-websocket.json');

describe('k6 summary parsing', () => {
  const summary = readSummaryFile(FIXTURE);

  it('reads the scenario, trends with their percentiles, counters, rates and the run duration', () => {
    expect(summary.scenario).toBe('ttfc-websocket');
    const chunks = summary.metrics['speak_ws_ttfc{mode:chunks}']!;
    expect(chunks.type).toBe('trend');
    expect(chunks.time).toBe(true);
    expect(Object.keys(chunks.values).sort()).toEqual([
      'avg',
      'count',
      'max',
      'med',
      'min',
      'p(90)',
      'p(95)',
      'p(99)',
    ]);
    expect(summary.metrics.speak_ws_takes!.type).toBe('counter');
    expect(summary.metrics.speak_ws_takes!.values.rate).toBeGreaterThan(0);
    expect(summary.metrics.speak_ws_errors!.type).toBe('rate');
    expect(summary.testRunDurationMs).toBeGreaterThan(1000);
    expect(summary.extra).toMatchObject({ modes: ['parts', 'chunks'] });
  });

  it('collects every threshold with its verdict', () => {
    const chunkThresholds = summary.thresholds.filter((t) => t.metric === 'speak_ws_ttfc{mode:chunks}');
    expect(chunkThresholds.map((t) => t.expression).sort()).toEqual(['med<15', 'p(95)<50']);
    expect(chunkThresholds.every((t) => t.ok)).toBe(true);
  });

  it('marks a failed threshold as failed', () => {
    const raw = JSON.parse(readFileSync(FIXTURE, 'utf8'));
    raw.metrics.speak_ws_errors.thresholds = { 'rate<0.01': { ok: false } };
    const parsed = parseSummary(raw);
    expect(parsed.thresholds.find((t) => t.metric === 'speak_ws_errors')).toEqual({
      metric: 'speak_ws_errors',
      expression: 'rate<0.01',
      ok: false,
    });
  });

  it('rejects what is not a k6 summary, naming the source and the problem', () => {
    expect(() => parseSummary({ nope: 1 }, 'x.json')).toThrow(
      new SummaryFormatError('x.json: no "metrics" object'),
    );
    expect(() => parseSummary({ metrics: { m: { type: 'histogram', values: {} } } }, 'y.json')).toThrow(
      /y\.json: metric "m"/,
    );
    expect(() => readSummaryFile(join(import.meta.dirname, 'no-such-file.json'))).toThrow(SummaryFormatError);
  });

  it('names k6 stats the way reports print them', () => {
    expect(statLabel('med')).toBe('p50');
    expect(statLabel('p(95)')).toBe('p95');
    expect(statLabel('p(99.9)')).toBe('p99.9');
    expect(statLabel('rate')).toBe('rate');
  });
});

/** The run facts summary.md prints above the figures (any values: the tests read the figures). */
const runInfo = (exitCode: number) => ({
  run: 'r1',
  scenario: 'ttfc-websocket',
  baseUrl: 'x',
  k6Version: 'k6',
  command: 'c',
  exitCode,
});

describe('summary.md', () => {
  const summary = readSummaryFile(FIXTURE);
  const md = renderSummaryMarkdown(summary, {
    run: 'r1',
    scenario: 'ttfc-websocket',
    baseUrl: 'http://127.0.0.1:1234',
    k6Version: 'k6 v1.8.1',
    command: 'node bin/speakcheck.js load ttfc-websocket',
    exitCode: 0,
  });

  it('tabulates latencies, counts, error rates and thresholds', () => {
    const ttfc = summary.metrics['speak_ws_ttfc{mode:chunks}']!.values;
    expect(md).toContain('- Verdict: **thresholds hold**');
    expect(md).toContain(`| \`speak_ws_ttfc{mode:chunks}\` | ${ttfc.min} ms | ${ttfc.med} ms |`);
    expect(md).toMatch(/\| `speak_ws_takes` \| \d+ \| [\d.]+ \|/);
    expect(md).toContain('| `speak_ws_errors` | 0.00 % | 0 |');
    // A summary written before runs recorded their threshold plan: the source is k6's options.
    expect(md).toContain('| `speak_ws_ttfc{mode:chunks}` | `med<15` | k6 option | pass |');
    expect(md).not.toMatch(/\n\n\n/);
  });

  it('shows a trend that never got a sample as empty, not as a 0 ms latency', () => {
    const raw = JSON.parse(readFileSync(FIXTURE, 'utf8'));
    raw.metrics['speak_ws_ttfc{mode:parts}'].values = { count: 0, med: 0, 'p(90)': 0, 'p(95)': 0, max: 0 };
    const empty = renderSummaryMarkdown(parseSummary(raw), runInfo(0));
    expect(empty).toContain('| `speak_ws_ttfc{mode:parts}` | – | – | – | – | – | – | 0 |');
    expect(textTable(raw)).toMatch(/^speak_ws_ttfc\{mode:parts\} +no samples$/m);
    expect(textTable(raw)).toMatch(/^speak_ws_ttfc\{mode:chunks\} +p50=[\d.]+ms /m);
  });

  it('names the voice the run spoke with, and how it came to the run', () => {
    const raw = JSON.parse(readFileSync(FIXTURE, 'utf8'));
    const render = (voice: unknown) => {
      raw.speakcheck = { ...raw.speakcheck, voice };
      return renderSummaryMarkdown(parseSummary(raw), runInfo(0));
    };
    expect(render({ id: 'vc_1', source: 'made' })).toContain(
      '- Voice: vc_1 (made for this run; --env VOICE_ID=<id> reuses one)',
    );
    expect(render({ id: 'vc_2', source: 'given' })).toContain('- Voice: vc_2 (given as VOICE_ID)');
    expect(render(undefined)).not.toContain('- Voice:');
    expect(render(undefined)).not.toMatch(/\n\n\n/);
  });

  it('says when thresholds failed', () => {
    const failed = renderSummaryMarkdown(summary, runInfo(99));
    expect(failed).toContain('**THRESHOLDS FAILED**');
  });
});
