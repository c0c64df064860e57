/**
 * Reading the lists GET /voices and GET /takes: one page, the whole list (following pages when the
 * server has a default page size), and the whole list read again while it lacks items known to exist.
 */
import type { ItemKind } from '../../schemas/item-kind.ts';
import { show } from '../../src/checks/finding.ts';
import {
  ASSUMED_FIRST_PAGE,
  firstPageNumber,
  probedPage,
  readWholeList,
  WHOLE_LIST_MAX_PAGES,
} from '../../src/checks/whole-list.ts';
import { cannotObserve, type SpeakContext } from '../../src/harness/index.ts';
import { expectCreated } from './assertions.ts';
import { expectItemSchema } from './items.ts';
import { perFile } from './per-file.ts';

/** The page size a whole-list read asks for once the server showed a default page size of its own. */
const PAGE_READ_LENGTH = 100;

/** The first page number per list, probed once per file. */
const firstPagesOf = perFile(() => new Map<ItemKind, Promise<number>>());

/** One answer of GET /{kind}s for a query; the JSON array, schema-checked. */
export async function listPage<T>(
  s: SpeakContext,
  kind: ItemKind,
  query: Record<string, string | number> = {},
): Promise<T[]> {
  const exchange = await s.api.get(`/v1/speak/${kind}s`, { query });
  const json = expectCreated(exchange, `GET /v1/speak/${kind}s ${show(query)}`);
  expectItemSchema(
    kind,
    kind === 'take' ? 'TakeList' : 'VoiceList',
    json,
    `the ${kind} list for ${show(query)}`,
  );
  return json as T[];
}

const idOf = (kind: ItemKind, item: unknown) => String((item as Record<string, unknown>)[`${kind}_id`]);

/**
 * The number of the first page, probed with an id filter of one or two listed items (it keeps items
 * other files create meanwhile out of the probe) and kept for the file once the server showed it; a
 * probe no page matched (an order that moved between the two reads, a server that ignores paging)
 * is not kept: the read starts from page 1 and the next one probes again. An answer other than a
 * JSON array (a server refusing page=0) is no page.
 */
function firstPageOf(s: SpeakContext, kind: ItemKind, ids: readonly string[]): Promise<number> {
  const firstPages = firstPagesOf(s);
  const known = firstPages.get(kind);
  if (known) return known;
  const probe = async (page: number, length: number) => {
    const exchange = await s.api.get(`/v1/speak/${kind}s`, {
      query: { [`${kind}_id`]: ids.join(','), length, page },
    });
    return probedPage(exchange);
  };
  const probing = firstPageNumber(probe, (item) => idOf(kind, item), ids[0]!).then((page) => {
    if (page === undefined) firstPages.delete(kind);
    return page ?? ASSUMED_FIRST_PAGE;
  });
  // Shared by the reads that ask meanwhile (one probe at a time per list).
  firstPages.set(kind, probing);
  return probing;
}

/**
 * Lists /{kind}s with a query. Without `length` this is the whole list (src/checks/whole-list.ts):
 * the default page size is not shown, so a non-empty answer is read again in pages of an explicit
 * length, at least PAGE_READ_LENGTH (`length` is the contract's "Page size."): a default page size
 * of 1 would otherwise take a request per item, and the bound on pages would cut a long list.
 */
export async function list<T>(
  s: SpeakContext,
  kind: ItemKind,
  query: Record<string, string | number> = {},
): Promise<T[]> {
  const first = await listPage<T>(s, kind, query);
  if ('length' in query || 'page' in query) return first;
  const ids = first.slice(0, 2).map((item) => idOf(kind, item));
  const whole = await readWholeList(first, {
    readPage: (page, length) => listPage<T>(s, kind, { ...query, length, page }),
    idOf: (item) => idOf(kind, item),
    firstPage: () => firstPageOf(s, kind, ids),
    length: PAGE_READ_LENGTH,
  });
  // Not read to its end: what the test wanted of the whole list cannot be seen, which says
  // nothing against the server (a long-lived account's history).
  if (whole.cut)
    cannotObserve(
      `GET /v1/speak/${kind}s ${show(query)} still brought new items after ${WHOLE_LIST_MAX_PAGES} pages: the list was not read to its end`,
      `an account with fewer ${kind}s (the run deletes what it made; older ${kind}s of the account count)`,
    );
  return whole.items;
}

/**
 * The whole list, read again (at most `reads` times in all) while it lacks one of `ids`, items the
 * caller knows exist. When the server has a default page length the list is read page by page, and
 * another file deleting an item on an earlier page meanwhile shifts the next one onto a page already
 * read: unseen in that read (the latitude switch default-page-length showed it). A server that keeps
 * leaving one out is still caught; the last read is returned either way.
 */
export async function listHolding<T>(
  s: SpeakContext,
  kind: ItemKind,
  ids: readonly string[],
  reads = 3,
): Promise<T[]> {
  let all: T[] = [];
  for (let read = 1; read <= reads; read++) {
    all = await list<T>(s, kind);
    const listed = new Set(all.map((item) => idOf(kind, item)));
    if (ids.every((id) => listed.has(id))) break;
  }
  return all;
}
