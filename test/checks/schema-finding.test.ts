import { describe, expect, test } from 'vitest';
import { Finding } from '../../src/checks/finding.ts';
import { expectSchema, SchemaFinding } from '../../src/harness/schema.ts';

const take = {
  take_id: 't1',
  voice_id: 'v1',
  text: 'Hello.',
  override_language: null,
  style: null,
  prosody: null,
  status_webhook: null,
  done_webhook: null,
  status: 'waiting',
  timestamp_ms: 1_700_000_000_000,
  info: null,
};

function findingOf(fn: () => void): SchemaFinding {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(SchemaFinding);
    expect(e).toBeInstanceOf(Finding);
    return e as SchemaFinding;
  }
  throw new Error('expected a SchemaFinding');
}

describe('expectSchema', () => {
  test('a valid value passes', () => {
    expect(() => expectSchema('Take', take)).not.toThrow();
  });

  test('a wrong type names the pointer, the expected type and the actual value', () => {
    const f = findingOf(() =>
      expectSchema('Take', { ...take, timestamp_ms: '1700' }, 'POST /takes/generate body'),
    );
    expect(f.pointer).toBe('/timestamp_ms');
    expect(f.expected).toBe('type integer');
    expect(f.actual).toBe('"1700" (string)');
    expect(f.message).toBe(
      'POST /takes/generate body does not match schema Take: at /timestamp_ms: expected type integer, found "1700" (string)',
    );
    expect(f.facts).toEqual({ where: '/timestamp_ms', expected: 'type integer', actual: '"1700" (string)' });
  });

  test('a missing property points at where it should be', () => {
    const { info: _dropped, ...withoutInfo } = take;
    const f = findingOf(() => expectSchema('Take', withoutInfo));
    expect(f.pointer).toBe('/info');
    expect(f.actual).toBe('nothing (missing)');
  });

  test('deep values inside anyOf branches are reported at their own pointer', () => {
    const f = findingOf(() =>
      expectSchema('Take', {
        ...take,
        status: 'ready',
        info: { duration: 1.5, audio_rate: 22050, normalized_text: ['Hello.'] },
      }),
    );
    expect(f.problems.map((p) => p.pointer)).toContain('/info/duration');
  });

  test('an enum violation lists the allowed values', () => {
    const f = findingOf(() => expectSchema('Status', 'finished', 'an observed status'));
    expect(f.problems[0]!.expected).toMatch(/^one of \[.*"ready".*\]$/);
    expect(f.problems[0]!.actual).toBe('"finished" (string)');
  });

  test("a take's status is any string: the contract lists the values seen, not all there are", () => {
    expect(() => expectSchema('Take', { ...take, status: 'processing' })).not.toThrow();
    expect(findingOf(() => expectSchema('Take', { ...take, status: 3 })).pointer).toBe('/status');
  });

  test('an unknown schema name is a harness error, not a finding', () => {
    expect(() => expectSchema('NoSuchThing', {})).toThrow(/no schema named "NoSuchThing"/);
  });
});
