/**
 * Reading a whole list of GET /voices or GET /takes when the contract does not show its paging:
 * "Default page size … not shown" and "whether pages are counted from 0 or 1: not shown". The one
 * way the harness does it, for the suites (suites/support/lists.ts) and the sequences
 * (suites/stateful/take-commands.ts): each brings its own request (who asks, how an answer is
 * judged), these functions only decide which pages to ask for.
 */

/** One page: the request of `page` with `length`, as the caller makes and judges it. */
export type ReadPage<T> = (page: number, length: number) => Promise<readonly T[]>;

/**
 * The number of the first page, read from the server: the page that, with length=1, holds the item
 * `firstId` (the first item of an unpaged answer of the same query). Undefined when neither 1 nor 0
 * does (a server that ignores paging, or an order that moved between the two reads: the caller
 * reads from page 1 then, and does not take it as learned).
 */
export async function firstPageNumber<T>(
  readPage: ReadPage<T>,
  idOf: (item: T) => string,
  firstId: string,
): Promise<number | undefined> {
  for (const page of [1, 0]) {
    const got = await readPage(page, 1);
    if (got.length === 1 && idOf(got[0]!) === firstId) return page;
  }
  return undefined;
}

/**
 * A probe's page as firstPageNumber takes it: the items of a 200 JSON array; any other answer (a
 * server refusing page=0) is no page, not a failure — how pages are counted is the server's to choose.
 */
export function probedPage(exchange: { status: number | null; json?: unknown }): unknown[] {
  return exchange.status === 200 && Array.isArray(exchange.json) ? (exchange.json as unknown[]) : [];
}

/** The page a read starts from when the server showed none (firstPageNumber undefined). */
export const ASSUMED_FIRST_PAGE = 1;

/**
 * Bounded: a server that ignores `page` would otherwise be read forever (it stops after two pages
 * anyway: the second brings nothing new); a list longer than this many pages is cut there.
 */
export const WHOLE_LIST_MAX_PAGES = 100;

/** A whole list as read: `cut` when WHOLE_LIST_MAX_PAGES pages still brought new items (not read to its end). */
export interface WholeList<T> {
  items: T[];
  cut: boolean;
}

/**
 * The whole list from its unpaged answer `first`. Even one item may be a full page (a default page
 * size of 1 is the server's to choose), so unless `complete` says the answer cannot be cut short,
 * the list is read again from its first page in pages of `length` (at least `first`'s length),
 * until a page after the first brings nothing new; each item once (by `idOf`), in the order first seen.
 */
export async function readWholeList<T>(
  first: readonly T[],
  options: {
    readPage: ReadPage<T>;
    idOf: (item: T) => string;
    firstPage: () => Promise<number>;
    length: number;
    /** The unpaged answer is known whole (a filter of n ids answered with n items). */
    complete?: boolean;
  },
): Promise<WholeList<T>> {
  if (first.length === 0 || options.complete) return { items: [...first], cut: false };
  const { idOf } = options;
  const all = [...first];
  const seen = new Set(first.map(idOf));
  const base = await options.firstPage();
  const length = Math.max(first.length, options.length);
  for (let page = base; page < base + WHOLE_LIST_MAX_PAGES; page++) {
    const fresh = (await options.readPage(page, length)).filter((item) => !seen.has(idOf(item)));
    // The first page may hold just what the unpaged answer held (its length was the default page
    // size): only a later page that brings nothing new ends the read. A short page does not: a
    // server may cap `length` below what was asked.
    if (fresh.length === 0 && page > base) return { items: all, cut: false };
    for (const item of fresh) seen.add(idOf(item));
    all.push(...fresh);
  }
  return { items: all, cut: true };
}
