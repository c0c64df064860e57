/**
 * The user's SLO for a load scenario: where it comes from (flag > env > config file, each named),
 * what a scenario accepts, and how the summaries say which thresholds applied and why.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveCommandTarget, resolveLoadOptions } from '../../src/config/resolve.ts';
import {
  fewSamplesWarnings,
  loadHeaderLine,
  loadVerdictLine,
  P95_MIN_SAMPLES,
} from '../../src/load/load-lines.ts';
import { appliedThresholds, parseScenarioSlo, thresholdLines } from '../../src/load/scenario-slo.ts';
import { SloError } from '../../src/load/slo.ts';
import { renderSummaryMarkdown } from '../../src/load/summary-markdown.ts';
import { ttfcRun } from './helpers.ts';

function configDir(yaml: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'slo-config-'));
  writeFileSync(join(dir, 'speakcheck.config.yaml'), yaml);
  return dir;
}

describe('resolveLoadOptions: the SLO and where it came from', () => {
  const dir = configDir('slo: first_playable_p95<900ms\n');
  const file = resolveCommandTarget({}, {}, dir).file;

  it('flag > env > config file, each named', () => {
    const env = { SPEAK_LOAD_SLO: 'first_playable_p95<700ms' };
    expect(resolveLoadOptions({ slo: 'first_playable_p95<500ms' }, env, file)).toEqual({
      slo: { text: 'first_playable_p95<500ms', source: 'flag --slo' },
    });
    expect(resolveLoadOptions({}, env, file)).toEqual({
      slo: { text: 'first_playable_p95<700ms', source: 'env SPEAK_LOAD_SLO' },
    });
    expect(resolveLoadOptions({}, {}, file)).toEqual({
      slo: {
        text: 'first_playable_p95<900ms',
        source: `config file ${join(dir, 'speakcheck.config.yaml')} (slo)`,
      },
    });
  });

  it('none given: no SLO (the defaults then judge errors and completeness only)', () => {
    expect(resolveLoadOptions({}, {}, undefined)).toEqual({});
  });
});

describe('parseScenarioSlo', () => {
  const flag = (text: string) => ({ text, source: 'flag --slo' });

  it('takes an SLO of errors only (a capacity needs a latency term, a scenario does not)', () => {
    expect(parseScenarioSlo(flag('errors<2%'), 'throughput-rest').terms).toEqual([
      { kind: 'errors', maxRate: 0.02, text: 'errors<2%' },
    ]);
  });

  it.each([
    ['take_latency_p95<2s', 'ttfc-websocket', /ttfc-websocket does not measure take_latency/],
    [
      'first_playable_p95<300ms',
      'ttfb-wav',
      /ttfb-wav does not measure first_playable \(it measures wav_first_byte, wav_complete\)/,
    ],
    ['end_of_take_p95<3s', 'ramp', /ramp does not measure end_of_take/],
    ['achieved>=90%', 'throughput-rest', /achieved>= is for the capacity search/],
    ['first_audio_p95<800ms', 'ttfc-websocket', /unknown figure first_audio/],
  ] as const)('refuses %j for %s', (text, scenario, why) => {
    expect(() => parseScenarioSlo(flag(text), scenario)).toThrow(SloError);
    expect(() => parseScenarioSlo(flag(text), scenario)).toThrow(why);
  });
});

describe('the summaries say which thresholds applied and where each came from', () => {
  const summary = ttfcRun(85, 91);
  summary.thresholds = [
    { metric: 'speak_ws_errors', expression: 'rate<0.01', ok: true },
    { metric: 'speak_ws_ttfc{mode:chunks}', expression: 'p(95)<80', ok: false },
    { metric: 'speak_ws_rtf{mode:chunks}', expression: 'p(95)>=0', ok: true },
    { metric: 'checks', expression: 'rate>0.99', ok: true },
  ];
  summary.extra.thresholds = {
    profile: 'errors-only',
    slo: { text: 'first_playable_p95<80ms', source: 'flag --slo' },
    latency: "the user's SLO (flag --slo: first_playable_p95<80ms)",
    applied: [
      { metric: 'speak_ws_errors', expression: 'rate<0.01', source: 'default: errors and completeness' },
      { metric: 'speak_ws_ttfc{mode:chunks}', expression: 'p(95)<80', source: 'flag --slo' },
    ],
  };

  it('each judged threshold with its source; the always-true exposers left out; one outside the plan is a k6 option', () => {
    expect(appliedThresholds(summary).map((t) => [t.metric, t.source, t.ok])).toEqual([
      ['speak_ws_errors', 'default: errors and completeness', true],
      ['speak_ws_ttfc{mode:chunks}', 'flag --slo', false],
      ['checks', 'k6 option', true],
    ]);
  });

  it('the terminal lines', () => {
    expect(thresholdLines(summary)).toEqual([
      "latency thresholds: the user's SLO (flag --slo: first_playable_p95<80ms)",
      '  pass  speak_ws_errors rate<0.01  (default: errors and completeness)',
      '  FAIL  speak_ws_ttfc{mode:chunks} (SLO first_playable) p(95)<80  (flag --slo)',
      '  pass  checks rate>0.99  (k6 option)',
    ]);
  });

  it('the header before k6 and the verdict line after it (issue 51 item 12)', () => {
    expect(
      loadHeaderLine({ scenario: 'ttfc-websocket', target: 'http://127.0.0.1:9', vus: 4, duration: '20s' }),
    ).toBe(
      "speakcheck load ttfc-websocket: http://127.0.0.1:9, 4 VUs, 20s; k6's metrics follow, then the thresholds and the verdict",
    );
    expect(loadHeaderLine({ scenario: 'ramp', target: 'x' })).toContain(
      "the scenario's VUs, the scenario's duration",
    );
    expect(loadVerdictLine(summary, 99)).toBe(
      'verdict: THRESHOLDS FAILED — speak_ws_ttfc{mode:chunks} (SLO first_playable) p(95)<80 (10.0 s)',
    );
    const held = { ...summary, thresholds: summary.thresholds.map((t) => ({ ...t, ok: true })) };
    expect(loadVerdictLine(held, 0)).toBe('verdict: THRESHOLDS HOLD — 3 thresholds passed (10.0 s)');
  });

  it('a judged p95 of fewer than 100 samples is warned about; 100 or more is not', () => {
    expect(P95_MIN_SAMPLES).toBe(100);
    expect(fewSamplesWarnings(summary)).toEqual([]); // the helper's trend has 100 samples
    const few = structuredClone(summary);
    few.metrics['speak_ws_ttfc{mode:chunks}']!.values.count = 20;
    expect(fewSamplesWarnings(few)).toEqual([
      'warning: speak_ws_ttfc{mode:chunks} (SLO first_playable) p(95)<80 rests on 20 samples (fewer than 100: one slow take moves it); a longer --duration or more --vus gives a steadier figure',
    ]);
  });

  it('summary.md: the latency line, the SLO and its source, a source column', () => {
    const md = renderSummaryMarkdown(summary, {
      run: 'r',
      scenario: 'ttfc-websocket',
      baseUrl: 'http://127.0.0.1:9',
      k6Version: 'k6 v2.2.0',
      command: "node bin/speakcheck.js load ttfc-websocket --slo 'first_playable_p95<80ms'",
      exitCode: 99,
    });
    expect(md).toContain("Latency thresholds: the user's SLO (flag --slo: first_playable_p95<80ms).");
    expect(md).toContain('the SLO `first_playable_p95<80ms` from flag --slo');
    expect(md).toContain('| metric | threshold | source | result |');
    expect(md).toContain('| `speak_ws_ttfc{mode:chunks}` | `p(95)<80` | flag --slo | **FAIL** |');
    expect(md).toContain('| `speak_ws_errors` | `rate<0.01` | default: errors and completeness | pass |');
    expect(md).not.toContain('p(95)>=0');
    expect(md).toContain('1 threshold(s) failed.');
  });
});

describe('the ramp says whether its sustained step was judged on latency', () => {
  const ramp = (thresholds: Array<{ metric: string; expression: string; ok: boolean }>) => {
    const summary = ttfcRun(300, 400);
    summary.scenario = 'ramp';
    summary.thresholds = thresholds;
    summary.extra.ramp = {
      limit_ms: 300,
      sustained_rate: 16,
      crossing_rate: 16,
      steps: [{ rate: 16, p95_ms: 400, samples: 80 }],
    };
    return renderSummaryMarkdown(summary, {
      run: 'r',
      scenario: 'ramp',
      baseUrl: 'x',
      k6Version: 'k6',
      command: 'c',
      exitCode: 0,
    });
  };

  it('a server not ours: errors and playable audio; the crossing is reported, not judged', () => {
    const md = ramp([{ metric: 'speak_ws_errors{rate:16}', expression: 'rate<0.01', ok: true }]);
    expect(md).toContain(
      'judged at 16 takes/s (errors and playable audio; the crossing is reported, not judged: Thresholds below)',
    );
  });

  it('the reference stack (or an SLO): latency and errors', () => {
    const md = ramp([
      { metric: 'speak_ws_errors{rate:16}', expression: 'rate<0.01', ok: true },
      { metric: 'speak_ramp_ttfc{rate:16}', expression: 'p(95)<300', ok: false },
    ]);
    expect(md).toContain('judged at 16 takes/s (latency and errors: Thresholds below)');
  });
});
