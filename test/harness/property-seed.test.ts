import { afterEach, describe, expect, it, vi } from 'vitest';
import { propertySeed } from '../../fixtures/property-seed.ts';
import { newTestRecord, runWithRecord } from '../../src/evidence/evidence.ts';

describe('propertySeed', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it('keeps the seed in the running test’s evidence, so the report can replay a passing run', () => {
    vi.stubEnv('SPEAKCHECK_SEED', '');
    const record = newTestRecord();
    const seed = runWithRecord(record, () => propertySeed('lists: filters and bounds'));
    expect(Number.isSafeInteger(seed)).toBe(true);
    expect(record.observations).toEqual([
      `lists: filters and bounds: fast-check seed ${seed} (replay with SPEAKCHECK_SEED=${seed})`,
    ]);
  });

  it('replays SPEAKCHECK_SEED and refuses one that is not an integer', () => {
    vi.stubEnv('SPEAKCHECK_SEED', '1234');
    expect(runWithRecord(newTestRecord(), () => propertySeed('x'))).toBe(1234);
    vi.stubEnv('SPEAKCHECK_SEED', 'abc');
    expect(() => propertySeed('x')).toThrow('SPEAKCHECK_SEED="abc" is not an integer');
  });
});
