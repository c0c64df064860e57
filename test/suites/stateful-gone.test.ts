/**
 * The answer about a deleted take (suites/stateful/take-commands.ts, goneAnswer): a 5xx fails
 * SEQ-ERROR-AFTER-CHANGE-4XX and stops there, so SEQ-DELETED-TAKE-GONE, whose 404 check did not run,
 * is not observed by it; a 404 observes both.
 */
import { expect, test } from 'vitest';
import { newModel } from '../../src/checks/stateful/model.ts';
import type { Exchange } from '../../src/harness/index.ts';
import type { Real } from '../../suites/stateful/real.ts';
import { goneAnswer } from '../../suites/stateful/take-commands.ts';

const real = { world: { judged: () => true, infoNotes: new Set<string>() } } as unknown as Real;
const answer = (status: number) =>
  ({
    status,
    text: '{}',
    headers: {},
    method: 'GET',
    url: 'http://127.0.0.1:1/v1/speak/takes/tk_1/wav',
  }) as unknown as Exchange;

test('a 5xx about a deleted take observes the 4xx requirement it fails, not the 404 one it never checked', () => {
  const m = newModel(['primary']);
  expect(() => goneAnswer(m, real, answer(500), 'GET /wav of T1')).toThrow('client error (4xx)');
  expect(m.observed.has('SEQ-ERROR-AFTER-CHANGE-4XX')).toBe(true);
  expect(m.observed.has('SEQ-DELETED-TAKE-GONE')).toBe(false);
  const gone = newModel(['primary']);
  goneAnswer(gone, real, answer(404), 'GET /wav of T1');
  expect([...gone.observed].sort()).toEqual(['SEQ-DELETED-TAKE-GONE', 'SEQ-ERROR-AFTER-CHANGE-4XX']);
});
