/** A scenario shared by several tests (suites/support once()) gives each of them its evidence. */
import { describe, expect, test } from 'vitest';
import {
  type EvidenceEntry,
  newTestRecord,
  recordCharacters,
  recordEvidence,
  recordObservation,
  runWithRecord,
} from '../../src/evidence/evidence.ts';
import { once } from '../../suites/support/scenarios.ts';
import { said } from '../support/said.ts';

const exchange = (url: string): EvidenceEntry => ({
  method: 'GET',
  url,
  requestHeaders: {},
  status: 200,
  headers: {},
  body: '{}',
  ms: 1,
});

describe('once(): scenario evidence', () => {
  test('every awaiting test gets the exchanges and observations; characters are counted once', async () => {
    let runs = 0;
    const scenario = once(async () => {
      runs++;
      recordEvidence(exchange('http://127.0.0.1/v1/speak/takes/generate'));
      await new Promise((resolve) => setImmediate(resolve));
      recordEvidence(exchange('http://127.0.0.1/v1/speak/takes/tk_1'));
      recordObservation(said('took 3 polls'));
      recordCharacters(42);
      return 'tk_1';
    });
    const first = newTestRecord();
    const second = newTestRecord();
    // The first test starts the scenario, the second joins while it runs.
    const [a, b] = await Promise.all([
      runWithRecord(first, async () => {
        recordEvidence(exchange('http://127.0.0.1/first-own'));
        return scenario();
      }),
      runWithRecord(second, () => scenario()),
    ]);
    expect([a, b, runs]).toEqual(['tk_1', 'tk_1', 1]);
    expect(first.evidence.map((e) => e.url)).toEqual([
      'http://127.0.0.1/first-own',
      'http://127.0.0.1/v1/speak/takes/generate',
      'http://127.0.0.1/v1/speak/takes/tk_1',
    ]);
    expect(second.evidence.map((e) => e.url)).toEqual([
      'http://127.0.0.1/v1/speak/takes/generate',
      'http://127.0.0.1/v1/speak/takes/tk_1',
    ]);
    expect(first.observations.map((o) => o.text)).toEqual(['took 3 polls']);
    expect(second.observations.map((o) => o.text)).toEqual(['took 3 polls']);
    expect(first.characters + second.characters).toBe(42);
  });

  test('a failed scenario still hands over what it recorded, and the failure', async () => {
    const scenario = once(async () => {
      recordEvidence(exchange('http://127.0.0.1/v1/speak/voices/generate'));
      throw new Error('voice never ready');
    });
    const record = newTestRecord();
    await expect(runWithRecord(record, () => scenario())).rejects.toThrow('voice never ready');
    expect(record.evidence.map((e) => e.url)).toEqual(['http://127.0.0.1/v1/speak/voices/generate']);
  });

  test('evidence: false shares the value only', async () => {
    const plumbing = once(
      async () => {
        recordEvidence(exchange('http://127.0.0.1/v1/speak/voices/vc_1'));
        return 'vc_1';
      },
      { evidence: false },
    );
    const record = newTestRecord();
    const outside = await plumbing();
    expect(await runWithRecord(record, () => plumbing())).toBe(outside);
    expect(record.evidence).toEqual([]);
  });
});
