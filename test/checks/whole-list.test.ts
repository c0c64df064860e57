/**
 * The one whole-list reader (src/checks/whole-list.ts) against fake lists: a server's first page
 * number (0 or 1), its default page size (none, 1, 2), and a server that ignores `page`.
 */
import { describe, expect, test } from 'vitest';
import {
  ASSUMED_FIRST_PAGE,
  firstPageNumber,
  probedPage,
  readWholeList,
  WHOLE_LIST_MAX_PAGES,
} from '../../src/checks/whole-list.ts';

const ITEMS = ['a', 'b', 'c', 'd', 'e'];

/** A list server: pages counted from `base`, `defaultLength` when no length is asked for. */
function server(base: 0 | 1, defaultLength = Number.POSITIVE_INFINITY, ignoresPage = false) {
  const asked: string[] = [];
  const page = (p: number | undefined, length: number | undefined) => {
    asked.push(`page=${p} length=${length}`);
    const size = length ?? defaultLength;
    const index = ignoresPage || p === undefined ? 0 : p - base;
    return index < 0 ? [] : ITEMS.slice(index * size, index * size + size);
  };
  const readPage = async (p: number, length: number) => page(p, length);
  return { asked, unpaged: () => page(undefined, undefined), readPage };
}

const id = (item: string) => item;

describe('firstPageNumber', () => {
  test.each([0, 1] as const)('finds pages counted from %i', async (base) => {
    const s = server(base);
    expect(await firstPageNumber(s.readPage, id, 'a')).toBe(base);
  });

  test('undefined when no page holds the first item alone: nothing learned', async () => {
    expect(await firstPageNumber(async () => [], id, 'a')).toBeUndefined();
  });

  test('a probe answered other than with a 200 JSON array is no page, not a failure', async () => {
    expect(probedPage({ status: 200, json: [{ take_id: 't' }] })).toEqual([{ take_id: 't' }]);
    expect(probedPage({ status: 422, json: { detail: 'page must be >= 1' } })).toEqual([]);
    expect(probedPage({ status: 200, json: { items: [] } })).toEqual([]);
    expect(probedPage({ status: null })).toEqual([]);
    // A server refusing page=0 but serving page 1: pages counted from 1.
    const refusesZero = async (page: number) =>
      probedPage(
        page === 0 ? { status: 422, json: { detail: 'x' } } : { status: 200, json: ['b'] },
      ) as string[];
    expect(await firstPageNumber(refusesZero, id, 'b')).toBe(1);
  });
});

describe('readWholeList', () => {
  test.each([
    [0, 1],
    [1, 2],
    [0, 3],
  ] as const)('pages from %i, default page size %i: every item once, in order', async (base, size) => {
    const s = server(base, size);
    const whole = await readWholeList(s.unpaged(), {
      readPage: s.readPage,
      idOf: id,
      firstPage: async () => (await firstPageNumber(s.readPage, id, 'a')) ?? ASSUMED_FIRST_PAGE,
      length: 2,
    });
    expect(whole).toEqual({ items: ITEMS, cut: false });
  });

  test('pages of at least the first answer’s length, asked for explicitly', async () => {
    const s = server(1, 3);
    await readWholeList(s.unpaged(), { readPage: s.readPage, idOf: id, firstPage: async () => 1, length: 2 });
    expect(s.asked.slice(1)).toEqual(['page=1 length=3', 'page=2 length=3', 'page=3 length=3']);
    // The first page brought nothing new (it was the unpaged answer): the read went on.
  });

  test('an empty answer, or one known whole, is not read again', async () => {
    const s = server(1, 2);
    const options = { readPage: s.readPage, idOf: id, firstPage: async () => 1, length: 2 };
    expect(await readWholeList([], options)).toEqual({ items: [], cut: false });
    expect(await readWholeList(['a', 'b'], { ...options, complete: true })).toEqual({
      items: ['a', 'b'],
      cut: false,
    });
    expect(s.asked).toEqual([]);
  });

  test('a server that ignores page is read until a page brings nothing new, not forever', async () => {
    const s = server(1, 2, true);
    const whole = await readWholeList(s.unpaged(), {
      readPage: s.readPage,
      idOf: id,
      firstPage: async () => 1,
      length: 2,
    });
    expect(whole).toEqual({ items: ['a', 'b'], cut: false });
    expect(s.asked.length).toBeLessThan(WHOLE_LIST_MAX_PAGES);
  });

  test('a list still growing at the last page the bound allows is cut, and says so', async () => {
    // Every page brings a new item: an endless list.
    const readPage = async (page: number) => [`item-${page}`];
    const whole = await readWholeList(['item-0'], {
      readPage,
      idOf: id,
      firstPage: async () => 1,
      length: 1,
    });
    expect(whole.cut).toBe(true);
    // The unpaged answer and WHOLE_LIST_MAX_PAGES pages, each with one new item.
    expect(whole.items).toHaveLength(WHOLE_LIST_MAX_PAGES + 1);
  });
});
