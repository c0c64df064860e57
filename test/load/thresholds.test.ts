/**
 * How a load run's thresholds are chosen, per target and per source (issue 41, point 7): against a
 * server not ours only errors and completeness are held; the reference's tuned limits only on a
 * reference stack (THRESHOLDS=reference); the user's SLO replaces them anywhere; a scenario knob given
 * explicitly is held as the user's. Each threshold names where it came from.
 */
import { describe, expect, it } from 'vitest';
import {
  planThresholds,
  type ScenarioThresholdSpec,
  type SloData,
  SOURCE,
} from '../../load/lib/thresholds.ts';
import { thresholdVars } from '../../src/load/scenario-slo.ts';

/** ttfc-websocket's spec, chunks mode only (load/scenarios/ttfc-websocket.ts). */
const spec: ScenarioThresholdSpec = {
  errorRates: [{ metric: 'speak_ws_errors', defaultMax: 0.01 }],
  completeness: { speak_ws_takes: ['count>0'], speak_ws_no_audio: ['rate<0.01'] },
  reference: [
    {
      metric: 'speak_ws_ttfc{mode:chunks}',
      stat: 'med',
      op: '<=',
      knob: 'TTFC_CHUNKS_P50_MS',
      defaultValue: 40,
    },
    {
      metric: 'speak_ws_ttfc{mode:chunks}',
      stat: 'p(95)',
      op: '<',
      knob: 'TTFC_CHUNKS_P95_MS',
      defaultValue: 100,
    },
  ],
  figures: {
    first_playable: ['speak_ws_ttfc{mode:chunks}'],
    end_of_take: ['speak_ws_end_of_take{mode:chunks}'],
  },
  exposed: { 'speak_ws_rtf{mode:chunks}': ['p(95)>=0'] },
};

const ERRORS_AND_COMPLETENESS = [
  { metric: 'speak_ws_errors', expression: 'rate<0.01', source: SOURCE.errors },
  { metric: 'speak_ws_takes', expression: 'count>0', source: SOURCE.errors },
  { metric: 'speak_ws_no_audio', expression: 'rate<0.01', source: SOURCE.errors },
];

/** SLO_JSON as the CLI sets it, from the same parser the flag goes through. */
function sloEnv(text: string, source: string): Record<string, string> {
  return thresholdVars({ scenario: 'ttfc-websocket', slo: { text, source } }, false);
}

describe('planThresholds', () => {
  it('a server not ours (no THRESHOLDS, or errors-only): errors and completeness only, latency not judged', () => {
    for (const env of [{}, { THRESHOLDS: 'errors-only' }]) {
      const { thresholds, plan } = planThresholds(spec, env, 'ttfc-websocket');
      expect(plan.profile).toBe('errors-only');
      expect(plan.applied).toEqual(ERRORS_AND_COMPLETENESS);
      expect(plan.latency).toMatch(/^none: .*--slo.*perf compare/);
      // The figures stay in the summary (perf compare reads them) through always-true thresholds only.
      expect(thresholds['speak_ws_ttfc{mode:chunks}']).toEqual(['p(95)>=0']);
      expect(thresholds['speak_ws_end_of_take{mode:chunks}']).toEqual(['p(95)>=0']);
      expect(thresholds['speak_ws_rtf{mode:chunks}']).toEqual(['p(95)>=0']);
      expect(thresholds.speak_ws_errors).toEqual(['rate<0.01']);
    }
  });

  it("the reference stack (THRESHOLDS=reference): its tuned limits, named as the reference's", () => {
    const { thresholds, plan } = planThresholds(spec, { THRESHOLDS: 'reference' }, 'ttfc-websocket');
    expect(plan.applied).toEqual([
      ...ERRORS_AND_COMPLETENESS,
      { metric: 'speak_ws_ttfc{mode:chunks}', expression: 'med<=40', source: SOURCE.reference },
      { metric: 'speak_ws_ttfc{mode:chunks}', expression: 'p(95)<100', source: SOURCE.reference },
    ]);
    expect(thresholds['speak_ws_ttfc{mode:chunks}']).toEqual(['med<=40', 'p(95)<100']);
    expect(plan.latency).toMatch(/tuned to the reference stack/);
  });

  it("the user's SLO replaces the reference's limits on any target, its errors term the default share", () => {
    for (const profile of ['reference', 'errors-only']) {
      const env = { THRESHOLDS: profile, ...sloEnv('first_playable_p95<800ms,errors<0.5%', 'flag --slo') };
      const { thresholds, plan } = planThresholds(spec, env, 'ttfc-websocket');
      expect(plan.applied).toEqual([
        { metric: 'speak_ws_errors', expression: 'rate<0.005', source: 'flag --slo' },
        ERRORS_AND_COMPLETENESS[1],
        ERRORS_AND_COMPLETENESS[2],
        { metric: 'speak_ws_ttfc{mode:chunks}', expression: 'p(95)<800', source: 'flag --slo' },
      ]);
      expect(thresholds['speak_ws_ttfc{mode:chunks}']).toEqual(['p(95)<800']);
      expect(plan.slo).toEqual({ text: 'first_playable_p95<800ms,errors<0.5%', source: 'flag --slo' });
      expect(plan.latency).toBe("the user's SLO (flag --slo: first_playable_p95<800ms)");
    }
  });

  it('a p50 term is k6 med; every term of every figure applies; the source is whatever the CLI resolved', () => {
    const env = sloEnv('first_playable_p50<300ms,end_of_take_p99<4s', 'env SPEAK_LOAD_SLO');
    const { plan } = planThresholds(spec, env, 'ttfc-websocket');
    expect(plan.applied.slice(3)).toEqual([
      { metric: 'speak_ws_ttfc{mode:chunks}', expression: 'med<300', source: 'env SPEAK_LOAD_SLO' },
      { metric: 'speak_ws_end_of_take{mode:chunks}', expression: 'p(99)<4000', source: 'env SPEAK_LOAD_SLO' },
    ]);
  });

  it('an SLO of errors only keeps latency unjudged against a server not ours', () => {
    const env = sloEnv('errors<2%', 'config file /x/speakcheck.config.yaml (slo)');
    const { plan } = planThresholds(spec, env, 'ttfc-websocket');
    expect(plan.applied[0]).toEqual({
      metric: 'speak_ws_errors',
      expression: 'rate<0.02',
      source: 'config file /x/speakcheck.config.yaml (slo)',
    });
    expect(plan.applied).toHaveLength(3);
    expect(plan.latency).toMatch(/^none: /);
  });

  it('a scenario knob given explicitly is held on any target, named as the knob; the others stay off', () => {
    const { plan } = planThresholds(spec, { TTFC_CHUNKS_P95_MS: '250' }, 'ttfc-websocket');
    expect(plan.applied.slice(3)).toEqual([
      {
        metric: 'speak_ws_ttfc{mode:chunks}',
        expression: 'p(95)<250',
        source: 'scenario knob TTFC_CHUNKS_P95_MS',
      },
    ]);
    expect(plan.latency).toBe('scenario knobs only (TTFC_CHUNKS_P95_MS)');
  });

  it('an SLO term on a figure the scenario does not measure is refused', () => {
    const slo: SloData = {
      text: 'take_latency_p95<2s',
      source: 'flag --slo',
      terms: [
        { kind: 'latency', figure: 'take_latency', percentile: 95, maxMs: 2000, text: 'take_latency_p95<2s' },
      ],
    };
    expect(() => planThresholds(spec, { SLO_JSON: JSON.stringify(slo) }, 'ttfc-websocket')).toThrow(
      /ttfc-websocket does not measure take_latency \(it measures first_playable, end_of_take\)/,
    );
  });

  it('refuses a THRESHOLDS it does not know', () => {
    expect(() => planThresholds(spec, { THRESHOLDS: 'strict' }, 'ttfc-websocket')).toThrow(
      /THRESHOLDS=strict: use reference or errors-only/,
    );
  });
});

describe('thresholdVars (what the CLI hands k6)', () => {
  it('reference limits only when the run started a reference stack', () => {
    expect(thresholdVars({ scenario: 'ramp' }, true)).toEqual({ THRESHOLDS: 'reference' });
    expect(thresholdVars({ scenario: 'ramp' }, false)).toEqual({ THRESHOLDS: 'errors-only' });
  });

  it('the SLO parsed, with its source, as SLO_JSON', () => {
    const vars = thresholdVars(
      { scenario: 'ttfb-wav', slo: { text: 'wav_first_byte_p95<1.5s', source: 'flag --slo' } },
      false,
    );
    expect(JSON.parse(vars.SLO_JSON!)).toEqual({
      text: 'wav_first_byte_p95<1.5s',
      source: 'flag --slo',
      terms: [
        {
          kind: 'latency',
          figure: 'wav_first_byte',
          percentile: 95,
          maxMs: 1500,
          text: 'wav_first_byte_p95<1.5s',
        },
      ],
    });
  });
});
