/**
 * Reading the lists GET /voices and GET /takes: one page, the whole list (following pages when the
 * server has a default page size), and the whole list read again while it lacks items known to exist.
 */
import { show } from '../../src/checks/finding.ts';
import type { SpeakContext } from '../../src/harness/index.ts';
import { expectCreated } from './assertions.ts';
import { expectItemSchema, type Kind } from './items.ts';
import { perFile } from './per-file.ts';

/** The page size a whole-list read asks for once the server showed a default page size of its own. */
const PAGE_READ_LENGTH = 100;

/** The first page number per list, probed once per file. */
const firstPagesOf = perFile(() => new Map<Kind, Promise<number>>());

/** One answer of GET /{kind}s for a query; the JSON array, schema-checked. */
export async function listPage<T>(
  s: SpeakContext,
  kind: Kind,
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

const idOf = (kind: Kind, item: unknown) => String((item as Record<string, unknown>)[`${kind}_id`]);

/**
 * The number of the first page ("whether pages are counted from 0 or 1: not shown"): the page that,
 * with length=1 and an id filter of one or two listed items, holds the first of them (the filter keeps
 * items other files create meanwhile out of the probe).
 */
async function firstPageOf(s: SpeakContext, kind: Kind, ids: readonly string[]): Promise<number> {
  for (const page of [1, 0]) {
    const exchange = await s.api.get(`/v1/speak/${kind}s`, {
      query: { [`${kind}_id`]: ids.join(','), length: 1, page },
    });
    const json = exchange.json;
    if (exchange.status === 200 && Array.isArray(json) && json.length === 1 && idOf(kind, json[0]) === ids[0])
      return page;
  }
  return 1;
}

/**
 * Lists /{kind}s with a query. Without `length` this is the whole list: the default page size is
 * not shown, so when the answer may be one page of several (a server with a default page size), the
 * whole list is read again in pages of an explicit length, until one brings nothing new.
 */
export async function list<T>(
  s: SpeakContext,
  kind: Kind,
  query: Record<string, string | number> = {},
): Promise<T[]> {
  const first = await listPage<T>(s, kind, query);
  // Even one item may be a full page: a default page size of 1 is the server's to choose.
  if ('length' in query || 'page' in query || first.length === 0) return first;
  const seen = new Set(first.map((item) => idOf(kind, item)));
  const all = [...first];
  const firstPages = firstPagesOf(s);
  if (!firstPages.has(kind)) firstPages.set(kind, firstPageOf(s, kind, [...seen].slice(0, 2)));
  const base = await firstPages.get(kind)!;
  // In pages of at least PAGE_READ_LENGTH (`length` is the contract's "Page size."): a default page
  // size of 1 would otherwise take a request per item, and the bound below would cut a long list.
  const length = Math.max(first.length, PAGE_READ_LENGTH);
  // Bounded: a server that ignores page would otherwise be read forever.
  for (let page = base; page <= base + 100; page++) {
    const next = await listPage<T>(s, kind, { ...query, length, page });
    const fresh = next.filter((item) => !seen.has(idOf(kind, item)));
    if (fresh.length === 0) break;
    for (const item of fresh) seen.add(idOf(kind, item));
    all.push(...fresh);
  }
  return all;
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
  kind: Kind,
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
