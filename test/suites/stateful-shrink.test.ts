/**
 * The shrinking of the witness sequence (suites/stateful/arbitraries.ts): a failing hand-written
 * sequence is cut to the steps the failure needs, and the witness keeps the state of every judged
 * sequence requirement within the model's bounds.
 */
import { expect, test } from 'vitest';
import { MODEL_LIMITS } from '../../src/checks/stateful/model.ts';
import { asPrimary, shrinkByRemoval, witnessSequence } from '../../suites/stateful/arbitraries.ts';
import { Refresh } from '../../suites/stateful/session-commands.ts';
import { GenerateTake, ListTakes } from '../../suites/stateful/take-commands.ts';
import { BatchGenerate } from '../../suites/stateful/wire-commands.ts';

test('removing steps one by one leaves only those the failure needs, in their order', async () => {
  // Fails when a 3 comes after a 1 (a change, then the read that shows it).
  const fails = async (items: number[]) => {
    const one = items.indexOf(1);
    return one >= 0 && items.indexOf(3, one) > one;
  };
  expect(await shrinkByRemoval([5, 1, 2, 4, 3, 6, 1], fails)).toEqual([1, 3]);
  let tried = 0;
  const counting = async (items: number[]) => {
    tried += 1;
    return fails(items);
  };
  await shrinkByRemoval([1, 2, 3, 4], counting);
  expect(tried).toBe(4);
  expect(await shrinkByRemoval([2, 4], fails)).toEqual([2, 4]);
});

test("the witness's generations fit the model's bounds, so its batch is not skipped", () => {
  const witness = witnessSequence({ accounts: ['primary'] });
  const batch = witness.find((c) => c instanceof BatchGenerate) as BatchGenerate | undefined;
  expect(batch?.texts.length).toBeGreaterThanOrEqual(3);
  const takes = witness
    .map((c) => String(c))
    .reduce((n, name) => {
      if (name.startsWith('GenerateTake')) return n + 1;
      if (name.startsWith('BatchGenerate')) return n + batch!.texts.length;
      const ws = /^WebsocketTake\(.*, (\d+)\)$/.exec(name);
      return ws ? n + Number(ws[1]) : n;
    }, 0);
  expect(takes).toBeLessThanOrEqual(MODEL_LIMITS.takes);
});

test("a shrunk sequence is tried with every step as the first customer, fast-check's wrappers unwrapped", () => {
  const steps = [new GenerateTake('second', 'One.'), new ListTakes('second', 1), new Refresh(0, 2)];
  const primary = asPrimary(steps)!;
  expect(primary.map(String)).toEqual([
    'GenerateTake(primary, "One.")',
    'ListTakes(primary, 1)',
    String(steps[2]),
  ]);
  expect(primary[0]).toBeInstanceOf(GenerateTake);
  expect(primary[2]).toBe(steps[2]);
  expect((steps[0] as GenerateTake).account).toBe('second');
  expect(asPrimary([new GenerateTake('primary', 'One.')])).toBeUndefined();
  // fast-check's sequence: only the steps that ran.
  const wrapped = [
    { cmd: steps[0], hasRan: true },
    { cmd: new ListTakes('second', undefined), hasRan: false },
  ];
  expect(asPrimary(wrapped)!.map(String)).toEqual(['GenerateTake(primary, "One.")']);
});
