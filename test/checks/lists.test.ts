import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { listQueryArb } from '../../fixtures/list-queries.ts';
import { assertProperty } from '../../fixtures/property.ts';
import {
  assertListOracle,
  assertPagesPartition,
  type ListItem,
  type ListQuery,
  listOracle,
} from '../../src/checks/lists.ts';

// Newest first, as many servers list; two items share a timestamp on purpose.
const FULL: ListItem[] = [
  { id: 'f6', timestamp_ms: 1060 },
  { id: 'e5', timestamp_ms: 1050 },
  { id: 'd4', timestamp_ms: 1050 },
  { id: 'c3', timestamp_ms: 1030 },
  { id: 'b2', timestamp_ms: 1020 },
  { id: 'a1', timestamp_ms: 1010 },
];

type Server = (query: ListQuery) => ListItem[];

/** A correct in-memory list endpoint (wire-facts semantics). */
const correct: Server = (q) => listOracle(FULL, q).map((id) => FULL.find((item) => item.id === id)!);

/** Deliberately wrong servers, one mistake each. */
const offByOnePage: Server = (q) => {
  const shifted = q.page !== undefined ? { ...q, page: q.page + 1 } : q;
  return correct(shifted);
};
const ignoresIdFilter: Server = (q) => correct({ ...q, ids: undefined });
const exclusiveBounds: Server = (q) =>
  listOracle(FULL, q, { firstPage: 1, olderInclusive: false, newerInclusive: false }).map(
    (id) => FULL.find((item) => item.id === id)!,
  );
const swappedBounds: Server = (q) => correct({ ...q, older: q.newer, newer: q.older });
const ignoresLength: Server = (q) => correct({ ...q, length: undefined, page: undefined });

function property(server: Server, allowBoundOnItem: boolean) {
  return fc.property(listQueryArb(FULL, { allowBoundOnItem }), (query) => {
    assertListOracle(server(query), listOracle(FULL, query), query, FULL, 'GET /takes');
  });
}

describe('list oracle', () => {
  it('a correct server satisfies the property', async () => {
    await assertProperty('correct list', property(correct, true), { numRuns: 300, seed: 7 });
  });

  it.each([
    ['off-by-one page', offByOnePage, /answer differs from the oracle/],
    ['a list that ignores the id filter', ignoresIdFilter, /unexpected/],
    ['swapped older/newer', swappedBounds, /differs/],
    ['a list that ignores length', ignoresLength, /differs/],
  ])('catches %s, shrinks and prints the seed', async (_label, server, message) => {
    const run = assertProperty('buggy list', property(server as Server, false), { numRuns: 300, seed: 42 });
    await expect(run).rejects.toThrow(message);
    await expect(run).rejects.toThrow(/seed 42; replay with SPEAKCHECK_SEED=42/);
  });

  it('exclusive bounds pass the MUST property (bounds between items) and fail the wire-facts one', async () => {
    await assertProperty('exclusive, between', property(exclusiveBounds, false), { numRuns: 300, seed: 3 });
    await expect(
      assertProperty('exclusive, on items', property(exclusiveBounds, true), { numRuns: 300, seed: 3 }),
    ).rejects.toThrow(/missing/);
  });

  it('names duplicates and order differences', () => {
    const query = { ids: ['a1', 'b2'] };
    expect(() => assertListOracle([FULL[5]!, FULL[5]!], ['a1'], query, FULL)).toThrow(/appears twice/);
    expect(() => assertListOracle([FULL[5]!, FULL[4]!], ['b2', 'a1'], query, FULL)).toThrow(/another order/);
  });

  it("leaves an unpaged answer's order to the server when told to (the filters' MUSTs), not its items", () => {
    const query = { ids: ['a1', 'b2'] };
    const unordered = { ordered: false };
    expect(() =>
      assertListOracle([FULL[5]!, FULL[4]!], ['b2', 'a1'], query, FULL, 'list', unordered),
    ).not.toThrow();
    expect(() => assertListOracle([FULL[5]!], ['b2', 'a1'], query, FULL, 'list', unordered)).toThrow(
      /missing/,
    );
    expect(() => assertListOracle([FULL[5]!, FULL[5]!], ['a1'], query, FULL, 'list', unordered)).toThrow(
      /appears twice/,
    );
  });
});

describe('pages partition', () => {
  const whole = FULL.map((item) => item.id);

  it('accepts a partition', () => {
    expect(() =>
      assertPagesPartition([['f6', 'e5'], ['d4', 'c3'], ['b2', 'a1'], []], whole, 2, { firstPage: 1 }),
    ).not.toThrow();
  });

  it('catches overlapping pages (off by one)', () => {
    expect(() =>
      assertPagesPartition(
        [
          ['f6', 'e5'],
          ['e5', 'd4'],
          ['d4', 'c3'],
          ['c3', 'b2'],
          ['b2', 'a1'],
        ],
        whole,
        2,
        { firstPage: 1 },
      ),
    ).toThrow(/e5, d4, c3, b2 on more than one page/);
  });

  it('catches a gap and an oversized page', () => {
    expect(() =>
      assertPagesPartition([['f6', 'e5'], ['c3', 'b2'], ['a1']], whole, 2, { firstPage: 1 }),
    ).toThrow(/pages skip d4, which the whole list holds/);
    expect(() => assertPagesPartition([['f6', 'e5', 'd4']], whole, 2, { firstPage: 0 })).toThrow(
      /page 0 holds 3 items, more than length=2/,
    );
  });
});
