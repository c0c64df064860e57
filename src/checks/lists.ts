/**
 * List queries (voices and takes alike): the server's answer must equal an oracle computed from the
 * full list. Semantics the contract leaves open ("Default page size, ordering, and whether pages are
 * counted from 0 or 1: not shown"; inclusive bounds) are parameters: the suite adopts what the
 * server showed and judges that every answer is consistent with it.
 */
import { Finding, show } from './finding.ts';

export interface ListItem {
  id: string;
  timestamp_ms: number;
}

export interface ListQuery {
  /** voice_id / take_id: return only these. */
  ids?: readonly string[];
  length?: number;
  page?: number;
  older?: number;
  newer?: number;
}

export interface ListSemantics {
  /** The number of the first page (wire-facts: 1). */
  firstPage: number;
  /** older means "<=" (wire-facts) rather than "<". */
  olderInclusive: boolean;
  /** newer means ">=" (wire-facts) rather than ">". */
  newerInclusive: boolean;
  /** The page size when `length` is absent; undefined: no limit (wire-facts). */
  defaultLength?: number;
}

export const WIRE_LIST_SEMANTICS: ListSemantics = {
  firstPage: 1,
  olderInclusive: true,
  newerInclusive: true,
};

export function describeSemantics(semantics: ListSemantics): string {
  return `pages from ${semantics.firstPage}, older ${semantics.olderInclusive ? '<=' : '<'}, newer ${semantics.newerInclusive ? '>=' : '>'}, ${semantics.defaultLength === undefined ? 'no default page size' : `default page size ${semantics.defaultLength}`}`;
}

/** The query as request parameters for `idParam` (take_id or voice_id). */
export function toQueryParams(
  query: ListQuery,
  idParam: 'take_id' | 'voice_id',
): Record<string, string | number> {
  const params: Record<string, string | number> = {};
  if (query.ids !== undefined) params[idParam] = query.ids.join(',');
  if (query.length !== undefined) params.length = query.length;
  if (query.page !== undefined) params.page = query.page;
  if (query.older !== undefined) params.older = query.older;
  if (query.newer !== undefined) params.newer = query.newer;
  return params;
}

export function describeQuery(query: ListQuery): string {
  return show({ ...query, ids: query.ids?.map((id) => id.slice(0, 8)) }, 300);
}

/**
 * What the server should answer: the full list (in the server's own order) filtered by ids and
 * bounds, then cut to the requested page.
 */
export function listOracle(
  full: readonly ListItem[],
  query: ListQuery,
  semantics = WIRE_LIST_SEMANTICS,
): string[] {
  const ids = query.ids ? new Set(query.ids) : undefined;
  const { older, newer } = query;
  const matching = full.filter((item) => {
    if (ids && !ids.has(item.id)) return false;
    if (
      older !== undefined &&
      !(semantics.olderInclusive ? item.timestamp_ms <= older : item.timestamp_ms < older)
    )
      return false;
    if (
      newer !== undefined &&
      !(semantics.newerInclusive ? item.timestamp_ms >= newer : item.timestamp_ms > newer)
    )
      return false;
    return true;
  });
  const length = query.length ?? semantics.defaultLength;
  if (length === undefined) return matching.map((item) => item.id);
  // An omitted page is the first page, whatever number the server gives it.
  const page = query.page ?? semantics.firstPage;
  const start = (page - semantics.firstPage) * length;
  if (start < 0) return [];
  return matching.slice(start, start + length).map((item) => item.id);
}

/** Compares the server's ids with the oracle's and names the first kind of difference found. */
export function assertListOracle(
  actual: readonly ListItem[],
  expected: readonly string[],
  query: ListQuery,
  full: readonly ListItem[],
  where = 'list',
): void {
  const got = actual.map((item) => item.id);
  const label = `${where} ${describeQuery(query)}`;
  const ts = new Map(full.map((item) => [item.id, item.timestamp_ms]));
  const short = (id: string) => `${id.slice(0, 8)}(ts ${ts.get(id) ?? '?'})`;
  const seen = new Set<string>();
  for (const id of got) {
    if (seen.has(id))
      throw new Finding(`${label}: ${short(id)} appears twice in one answer`, { where: label, actual: got });
    seen.add(id);
  }
  const unexpected = got.filter((id) => !expected.includes(id));
  const missing = expected.filter((id) => !got.includes(id));
  if (unexpected.length || missing.length) {
    const parts = [];
    if (unexpected.length) parts.push(`unexpected ${unexpected.map(short).join(', ')}`);
    if (missing.length) parts.push(`missing ${missing.map(short).join(', ')}`);
    throw new Finding(
      `${label}: answer differs from the oracle: ${parts.join('; ')} (expected ${expected.length} items, got ${got.length})`,
      { where: label, expected, actual: got },
    );
  }
  if (got.some((id, i) => id !== expected[i])) {
    throw new Finding(
      `${label}: same items as the oracle but in another order: expected ${expected.map(short).join(', ')}; got ${got.map(short).join(', ')}`,
      { where: label, expected, actual: got },
    );
  }
}

/**
 * Pages of one query must partition its unpaged answer: concatenated in page order they give the
 * whole list, each id once, no page longer than `length`, and the page after the last is empty.
 */
export function assertPagesPartition(
  pages: readonly (readonly string[])[],
  whole: readonly string[],
  length: number,
  where = 'pages',
): void {
  pages.forEach((page, index) => {
    if (page.length > length) {
      throw new Finding(`${where}: page ${index} holds ${page.length} items, more than length=${length}`, {
        where: `${where} page ${index}`,
        expected: `<= ${length}`,
        actual: page.length,
      });
    }
  });
  const flat = pages.flat();
  const counts = new Map<string, number>();
  for (const id of flat) counts.set(id, (counts.get(id) ?? 0) + 1);
  const duplicates = [...counts].filter(([, n]) => n > 1).map(([id]) => id.slice(0, 8));
  if (duplicates.length) {
    throw new Finding(
      `${where}: pages of length ${length} repeat ${duplicates.join(', ')} (overlap between pages)`,
      {
        where,
        actual: pages,
      },
    );
  }
  const gaps = whole.filter((id) => !counts.has(id)).map((id) => id.slice(0, 8));
  if (gaps.length) {
    throw new Finding(
      `${where}: pages of length ${length} never return ${gaps.join(', ')} (a gap between pages)`,
      {
        where,
        expected: whole,
        actual: pages,
      },
    );
  }
  const extra = flat.filter((id) => !whole.includes(id)).map((id) => id.slice(0, 8));
  if (extra.length) {
    throw new Finding(`${where}: pages return ${extra.join(', ')}, which the unpaged list does not hold`, {
      where,
    });
  }
  if (flat.some((id, i) => id !== whole[i])) {
    throw new Finding(
      `${where}: pages of length ${length} concatenated are not in the unpaged list's order`,
      {
        where,
        expected: whole,
        actual: flat,
      },
    );
  }
}
