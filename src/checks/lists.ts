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

/**
 * Compares the server's ids with the oracle's and names the first kind of difference found. The
 * order is judged unless `ordered` is false: an unpaged answer's order is the server's to choose
 * ("Default page size, ordering, … not shown"), so the filters' MUSTs compare the items alone, and
 * LIST-ORACLE (consistency with the full list's order) judges the order.
 */
export function assertListOracle(
  actual: readonly ListItem[],
  expected: readonly string[],
  query: ListQuery,
  full: readonly ListItem[],
  where = 'list',
  { ordered = true }: { ordered?: boolean } = {},
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
  if (ordered && got.some((id, i) => id !== expected[i])) {
    throw new Finding(
      `${label}: same items as the oracle but in another order: expected ${expected.map(short).join(', ')}; got ${got.map(short).join(', ')}`,
      { where: label, expected, actual: got },
    );
  }
}

/**
 * Pages of one `length`, read one after another with no change between them, against the whole list
 * read just before (the server's order): they must concatenate to it, none longer than `length`.
 * Returns what is wrong, or []. `firstPage` is the number of `pages[0]` as the server counts (the
 * sentences name its pages), `label` shortens an id. The one judgement of paging: the lists suite
 * (assertPagesPartition) and the sequences (suites/stateful) both use it.
 */
export function pagesProblems(
  pages: readonly (readonly string[])[],
  whole: readonly string[],
  length: number,
  { firstPage, label = (id) => id }: { firstPage: number; label?: (id: string) => string },
): string[] {
  const problems: string[] = [];
  pages.forEach((page, i) => {
    if (page.length > length)
      problems.push(`page ${firstPage + i} holds ${page.length} items, more than length=${length}`);
  });
  const joined = pages.flat();
  const seen = new Set<string>();
  const repeated = new Set<string>();
  for (const id of joined) {
    if (seen.has(id)) repeated.add(id);
    seen.add(id);
  }
  if (repeated.size > 0) problems.push(`${[...repeated].map(label).join(', ')} on more than one page`);
  const skipped = whole.filter((id) => !seen.has(id));
  if (skipped.length > 0)
    problems.push(`pages skip ${skipped.map(label).join(', ')}, which the whole list holds`);
  const extra = joined.filter((id) => !whole.includes(id));
  if (extra.length > 0)
    problems.push(`pages hold ${extra.map(label).join(', ')}, which the whole list does not`);
  if (problems.length === 0 && joined.some((id, i) => id !== whole[i]))
    problems.push(
      `pages hold the whole list's items in another order: ${joined.map(label).join(', ')} vs ${whole.map(label).join(', ')}`,
    );
  return problems;
}

/**
 * Pages of one query partition its unpaged answer `whole` (pagesProblems: concatenated in page
 * order they give the whole list, each id once, no page longer than `length`), else a Finding
 * naming every problem. That the page after the last is empty is the caller's to judge.
 */
export function assertPagesPartition(
  pages: readonly (readonly string[])[],
  whole: readonly string[],
  length: number,
  { firstPage, where = 'pages' }: { firstPage: number; where?: string },
): void {
  const problems = pagesProblems(pages, whole, length, { firstPage, label: (id) => id.slice(0, 8) });
  if (problems.length > 0)
    throw new Finding(`${where}: pages of length ${length}: ${problems.join('; ')}`, {
      where,
      expected: whole,
      actual: pages,
    });
}
