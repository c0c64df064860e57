/**
 * Paging and filters (speak-v1.md Endpoints → list query parameters; wire-facts Lists): fast-check
 * properties over id subsets, length/page and older/newer bounds. The server's answer must equal
 * an oracle computed from the full list; pages must partition the list. Every query carries an id
 * subset of the few takes this file creates, so other files creating items at the same time cannot
 * disturb the oracle. Failing cases shrink and print the seed.
 */
import fc from 'fast-check';
import { listQueryArb } from '../fixtures/list-queries.ts';
import { assertProperty } from '../fixtures/property.ts';
import type { ItemKind } from '../schemas/item-kind.ts';
import { Finding, show } from '../src/checks/finding.ts';
import {
  assertListOracle,
  assertPagesPartition,
  describeSemantics,
  type ListItem,
  type ListQuery,
  type ListSemantics,
  listOracle,
  toQueryParams,
  WIRE_LIST_SEMANTICS,
} from '../src/checks/lists.ts';
import {
  against,
  check,
  covers,
  notObserved,
  observe,
  type RequirementId,
  type SpeakContext,
} from '../src/harness/index.ts';
import { generateTake, generateVoice, type Take, type Voice, waitUntilDone } from './support/items.ts';
import { list, listHolding, listPage } from './support/lists.ts';
import { once, prefetch, useSharedVoice } from './support/scenarios.ts';

/**
 * The tests below only read lists of what the fixtures made: side by side, not one after another
 * (against a hosted server the file's list reads, ~30–80 ms each, were its slowest chain: 19 s).
 */
const CONCURRENT = { concurrent: true };

/** Few items: real vendors bill per character. */
const TAKE_COUNT = 6;
const NUM_RUNS = 30;
const TEXTS = ['One.', 'Two.', 'Three.', 'Four.', 'Five.', 'Six.'];

/** The takes' voice, and the first of the voice list's items: the run's shared voice. */
const sharedVoice = useSharedVoice();

const fixture = once(async (speak: SpeakContext) => {
  const voice = await sharedVoice(speak);
  const ids: string[] = [];
  // One after another: distinct creation times give the bounds something to cut between.
  for (const text of TEXTS.slice(0, TAKE_COUNT))
    ids.push((await generateTake(speak, { voice_id: voice.voice_id, text })).take.take_id);
  // Settled items keep their place in the list while pages are read.
  await Promise.all(ids.map((id) => waitUntilDone<Take>(speak, 'take', id)));
  // The full list, in the server's own order, restricted to ours: the oracle's ground truth.
  const full = await fullNow(speak, 'take', ids);
  if (full.length !== ids.length) {
    throw new Finding(`GET /v1/speak/takes holds ${full.length} of the ${ids.length} takes just created`, {
      expected: ids,
      actual: full.map((i) => i.id),
    });
  }
  return { voice, ids, full };
});

/** The voice list, alike: the fixture's voice (generated before this file started) and two more, generated one after another (not awaited to ready). */
const VOICE_COUNT = 3;
const voiceFixture = once(async (speak: SpeakContext) => {
  const { voice } = await fixture(speak);
  const ids = [voice.voice_id];
  for (let i = 1; i < VOICE_COUNT; i++) {
    const { voice: extra } = await generateVoice(speak, {
      name: speak.prefix(`lists-voice-${i}`),
      gender: speak.model.genders[0] ?? 'female',
      model: speak.model.name,
    });
    ids.push(extra.voice_id);
  }
  const full = await fullNow(speak, 'voice', ids);
  if (full.length !== ids.length) {
    throw new Finding(`GET /v1/speak/voices holds ${full.length} of the ${ids.length} voices just created`);
  }
  return { ids, full };
});

prefetch(fixture, voiceFixture);

/**
 * The full list now, restricted to `ids`, in the server's order: fetched again for every oracle
 * check, because a server may move timestamp_ms or the order when an item changes status.
 */
async function fullNow(speak: SpeakContext, kind: ItemKind, ids: readonly string[]): Promise<ListItem[]> {
  const all = await listHolding<Take | Voice>(speak, kind, ids);
  return all.map((item) => asListItem(kind, item)).filter((item) => ids.includes(item.id));
}

/**
 * Our items as the server lists them with the id filter, as the pages compared with it are asked
 * for. Not an oracle of the filter (fullNow is): read unfiltered, the list can page through
 * everything (a default page length), and another file deleting meanwhile shifts an item of ours past
 * a page boundary, unseen (the latitude switch default-page-length showed it once).
 */
async function filteredNow(speak: SpeakContext, kind: ItemKind, ids: readonly string[]): Promise<ListItem[]> {
  const ours = await list<Take | Voice>(speak, kind, toQueryParams({ ids: [...ids] }, `${kind}_id`));
  return ours.map((item) => asListItem(kind, item)).filter((item) => ids.includes(item.id));
}

function asListItem(kind: ItemKind, item: Take | Voice): ListItem {
  return {
    id: String(kind === 'take' ? (item as Take).take_id : (item as Voice).voice_id),
    timestamp_ms: item.timestamp_ms,
  };
}

/** The server's one answer to `query` on the take or voice list (no further pages read). */
async function answer(speak: SpeakContext, query: ListQuery, kind: ItemKind = 'take'): Promise<ListItem[]> {
  const items = await listPage<Take | Voice>(speak, kind, toQueryParams(query, `${kind}_id`));
  return items.map((item) => asListItem(kind, item));
}

/**
 * The answer holds exactly the oracle's ids: in its order when `ordered`, else in any order (an
 * unpaged answer's order is the server's: "Default page size, ordering, … not shown").
 */
function sameIds(got: readonly ListItem[], expected: readonly string[], ordered = true): boolean {
  if (got.length !== expected.length) return false;
  if (ordered) return got.every((item, i) => item.id === expected[i]);
  const want = new Set(expected);
  return new Set(got.map((item) => item.id)).size === got.length && got.every((item) => want.has(item.id));
}

/**
 * The requirement a failing filter-and-bounds query is evidence against: LIST-ID-FILTER when the id
 * filter alone is already wrong, else LIST-OLDER when the filter with `older` alone is, else LIST-NEWER.
 */
async function blamedPart(
  speak: SpeakContext,
  query: ListQuery,
  now: readonly ListItem[],
  kind: ItemKind,
  semantics: ListSemantics,
): Promise<RequirementId> {
  const parts: Array<[RequirementId, ListQuery]> = [
    ...(query.ids ? ([['LIST-ID-FILTER', { ids: query.ids }]] as Array<[RequirementId, ListQuery]>) : []),
    [
      'LIST-OLDER',
      {
        ...(query.ids ? { ids: query.ids } : {}),
        ...(query.older === undefined ? {} : { older: query.older }),
      },
    ],
  ];
  for (const [id, part] of parts) {
    const expected = listOracle(now, part, semantics);
    if (!sameIds(await answer(speak, part, kind), expected, isCut(now, part, semantics))) return id;
  }
  return query.newer === undefined ? 'LIST-OLDER' : 'LIST-NEWER';
}

/**
 * Whether the server's page size cuts the answer to `query`, so that which items it holds depends on
 * the order: a length, or a default page size smaller than what matches.
 */
function isCut(full: readonly ListItem[], query: ListQuery, semantics: ListSemantics): boolean {
  if (query.length !== undefined) return true;
  const limit = semantics.defaultLength;
  return (
    limit !== undefined && listOracle(full, query, { ...semantics, defaultLength: undefined }).length > limit
  );
}

/** The size of an answer without length when the server pages by default, else undefined. */
async function defaultLengthOf(speak: SpeakContext, kind: ItemKind, ids: readonly string[]) {
  const unpaged = await answer(speak, { ids }, kind);
  return unpaged.length < ids.length ? unpaged.length : undefined;
}

/** Which page number holds the first `length` items: 1 (wire facts) or 0. */
async function firstPageNumber(
  speak: SpeakContext,
  ids: readonly string[],
  full: readonly ListItem[],
  length: number,
  kind: ItemKind = 'take',
): Promise<number> {
  const expected = full.slice(0, length).map((i) => i.id);
  for (const page of [1, 0]) {
    const got = (await answer(speak, { ids, length, page }, kind)).map((i) => i.id);
    if (JSON.stringify(got) === JSON.stringify(expected)) return page;
  }
  throw new Finding(
    `GET /v1/speak/${kind}s with length=${length}: neither page 1 nor page 0 holds the first ${length} items of the list`,
    { expected },
  );
}

/**
 * What the server showed where the contract is silent ("Default page size, ordering, and whether
 * pages are counted from 0 or 1: not shown"; the bounds' inclusivity): the first page number, each
 * bound on an item's own timestamp, the size of an answer without length. LIST-ORACLE adopts it
 * and judges every other answer consistent with it (the order is the full list's own).
 */
async function observedSemantics(
  speak: SpeakContext,
  kind: ItemKind,
  ids: readonly string[],
  full: readonly ListItem[],
): Promise<ListSemantics> {
  const firstPage = await firstPageNumber(speak, ids, full, 1, kind);
  const middle = full[Math.floor(full.length / 2)]!;
  // With a length that holds them all: a default page size (even 1) must not hide the middle item.
  const older = (await answer(speak, { ids, older: middle.timestamp_ms, length: ids.length }, kind)).map(
    (i) => i.id,
  );
  const newer = (await answer(speak, { ids, newer: middle.timestamp_ms, length: ids.length }, kind)).map(
    (i) => i.id,
  );
  const defaultLength = await defaultLengthOf(speak, kind, ids);
  return {
    firstPage,
    olderInclusive: older.includes(middle.id),
    newerInclusive: newer.includes(middle.id),
    ...(defaultLength !== undefined ? { defaultLength } : {}),
  };
}

covers(
  ['LIST-ID-FILTER'],
  'take_id and voice_id filters return exactly the listed ids',
  async ({ speak }) => {
    const { voice, ids, full } = await fixture(speak);
    const subset = [ids[0]!, ids[2]!, ids[5]!];
    const query = { ids: [...subset, 'speakcheck-unknown-id'] };
    // Every page of the filtered list: a default page size (the server's choice) is not the filter's.
    const takes = (await list<Take>(speak, 'take', toQueryParams(query, 'take_id'))).map((t) =>
      asListItem('take', t),
    );
    check('LIST-ID-FILTER', () =>
      assertListOracle(takes, listOracle(full, query), query, full, 'GET /v1/speak/takes', {
        ordered: false,
      }),
    );
    const voices = await list<Voice>(speak, 'voice', { voice_id: `${voice.voice_id},speakcheck-unknown-id` });
    const got = voices.map((v) => v.voice_id);
    check('LIST-ID-FILTER', () => {
      if (got.length !== 1 || got[0] !== voice.voice_id) {
        throw new Finding(
          `GET /v1/speak/voices?voice_id=<ours>,<unknown> answered ${show(got)}, expected only ${voice.voice_id}`,
        );
      }
    });
  },
  CONCURRENT,
);

covers(
  ['LIST-PAGE-BASE'],
  'pages count from 1, page defaults to 1, length absent is unlimited (reported)',
  async ({ speak }) => {
    const { ids, full } = await fixture(speak);
    const first = await firstPageNumber(speak, ids, full, 2);
    const defaultPage = (await answer(speak, { ids, length: 2 })).map((i) => i.id);
    const unlimited = await answer(speak, { ids });
    observe(
      'lists.page-base',
      'first page number: {first}; page omitted gives {defaultPage}; no length gives {unlimited} of {total}',
      {
        values: { first },
        particulars: {
          defaultPage: show(defaultPage.map((id) => id.slice(0, 8))),
          unlimited: unlimited.length,
          total: ids.length,
        },
      },
    );
    check('LIST-PAGE-BASE', () => {
      if (first !== 1) throw new Finding(`pages count from ${first}, the SDK counts from 1`);
    });
    const pageOmitted = await answer(speak, { ids, length: 2 });
    check('LIST-PAGE-BASE', () =>
      assertListOracle(pageOmitted, listOracle(full, { ids, length: 2, page: 1 }), { ids, length: 2 }, full),
    );
    check('LIST-PAGE-BASE', () => {
      if (unlimited.length !== ids.length)
        throw new Finding(
          `without length the list holds ${unlimited.length} of ${ids.length}: a default page size applies`,
        );
    });
  },
  CONCURRENT,
);

covers(
  ['LIST-BOUNDS-INCLUSIVE'],
  'older/newer equal to an item timestamp include it (reported)',
  async ({ speak }) => {
    const { ids, full } = await fixture(speak);
    const middle = full[Math.floor(full.length / 2)]!;
    const older = (await answer(speak, { ids, older: middle.timestamp_ms })).map((i) => i.id);
    const newer = (await answer(speak, { ids, newer: middle.timestamp_ms })).map((i) => i.id);
    observe('lists.time-bounds', 'older={at} {older} the item at that time; newer={at} {newer} it', {
      values: {
        older: older.includes(middle.id) ? 'includes' : 'excludes',
        newer: newer.includes(middle.id) ? 'includes' : 'excludes',
      },
      particulars: { at: middle.timestamp_ms },
    });
    check('LIST-BOUNDS-INCLUSIVE', () => {
      if (!older.includes(middle.id) || !newer.includes(middle.id))
        throw new Finding('bounds are exclusive; the SDK treats them as inclusive');
    });
  },
  CONCURRENT,
);

covers(
  ['LIST-ORDERING'],
  'list ordering (reported)',
  async ({ speak }) => {
    const { full } = await fixture(speak);
    const stamps = full.map((i) => i.timestamp_ms);
    const newestFirst = stamps.every((t, i) => i === 0 || stamps[i - 1]! >= t);
    const oldestFirst = stamps.every((t, i) => i === 0 || stamps[i - 1]! <= t);
    check('LIST-ORDERING', () =>
      observe('lists.take-order', 'the take list is ordered {order} (timestamps {stamps})', {
        values: { order: newestFirst ? 'newest first' : oldestFirst ? 'oldest first' : 'neither by time' },
        particulars: { stamps: show(stamps) },
      }),
    );
  },
  CONCURRENT,
);

/** Paging and the properties run on both lists; voices get fewer runs (fewer items, and each generation costs). */
const PROPERTY_LISTS = [
  { kind: 'take', label: '', fixture, numRuns: NUM_RUNS },
  { kind: 'voice', label: ' (voices)', fixture: voiceFixture, numRuns: NUM_RUNS / 2 },
] as const;

for (const { kind, label, fixture: listFixture, numRuns } of PROPERTY_LISTS) {
  const path = `GET /v1/speak/${kind}s`;

  covers(
    ['LIST-LENGTH', 'LIST-PAGES-PARTITION'],
    `pages of every length partition the list without duplicate or gap${label}`,
    async ({ speak }) => {
      const { ids } = await listFixture(speak);
      // The whole list of ours, every page of it (a default page size may apply without length).
      const whole = (await filteredNow(speak, kind, ids)).map((i) => i.id);
      for (let length = 1; length <= 4; length++) {
        const first = await firstPageNumber(speak, ids, await filteredNow(speak, kind, ids), length, kind);
        const pages: string[][] = [];
        // Bounded: one page past the last one that can hold anything.
        for (let page = first; page <= first + Math.ceil(ids.length / length); page++) {
          pages.push((await answer(speak, { ids, length, page }, kind)).map((i) => i.id));
        }
        const where = `${kind}_id=<${ids.length} ids>&length=${length}`;
        const bounded = check('LIST-LENGTH', () => {
          const over = pages.findIndex((page) => page.length > length);
          if (over >= 0)
            throw new Finding(
              `${where}: page ${first + over} holds ${pages[over]!.length} items, more than length=${length}`,
            );
        });
        if (!bounded) continue;
        check('LIST-PAGES-PARTITION', () => {
          assertPagesPartition(pages, whole, length, { firstPage: first, where });
          if (pages[pages.length - 1]!.length !== 0)
            throw new Finding(`${path}, length=${length}: the page after the last one is not empty`);
        });
      }
    },
    CONCURRENT,
  );

  covers(
    ['LIST-ID-FILTER', 'LIST-OLDER', 'LIST-NEWER'],
    `property${label}: id subsets with older/newer bounds between items equal the oracle`,
    async ({ speak }) => {
      const { ids, full } = await listFixture(speak);
      // A default page size, when the server has one, applies to these unpaged queries too. (Only
      // that: the other semantics the server shows are LIST-ORACLE's to judge.)
      const defaultLength = await defaultLengthOf(speak, kind, ids);
      const semantics = { ...WIRE_LIST_SEMANTICS, ...(defaultLength !== undefined ? { defaultLength } : {}) };
      // Bounds never equal an item's timestamp: the MUST does not depend on inclusive vs exclusive.
      const arb = listQueryArb(full, { allowBoundOnItem: false }).map(
        ({ length: _l, page: _p, ...rest }) => rest as ListQuery,
      );
      // A property that held observed each part its queries used: the id filter, `older`, `newer`.
      const used = { 'LIST-ID-FILTER': false, 'LIST-OLDER': false, 'LIST-NEWER': false };
      await check(['LIST-ID-FILTER', 'LIST-OLDER', 'LIST-NEWER'], async () => {
        await assertProperty(
          `lists${label}: filters and bounds`,
          fc.asyncProperty(arb, async (query) => {
            used['LIST-ID-FILTER'] ||= query.ids !== undefined;
            used['LIST-OLDER'] ||= query.older !== undefined;
            used['LIST-NEWER'] ||= query.newer !== undefined;
            // The two reads at once: the items are settled, and a run's time is its round trips.
            const [now, got] = await Promise.all([fullNow(speak, kind, ids), answer(speak, query, kind)]);
            const expected = listOracle(now, query, semantics);
            const ordered = isCut(now, query, semantics);
            if (sameIds(got, expected, ordered)) return;
            // Which part of the query the server got wrong: the filter alone, then with each bound.
            const blame = await blamedPart(speak, query, now, kind, semantics);
            against(blame, () => assertListOracle(got, expected, query, now, path, { ordered }));
          }),
          { numRuns },
        );
        for (const [id, seen] of Object.entries(used) as Array<[keyof typeof used, boolean]>)
          if (!seen)
            notObserved(id, `no generated query used it in ${numRuns} runs`, 'a run with more property runs');
      });
    },
    CONCURRENT,
  );

  covers(
    ['LIST-ORACLE'],
    `property${label}: any combination of filter, bounds and paging is consistent with the semantics the server showed`,
    async ({ speak }) => {
      const { ids, full } = await listFixture(speak);
      const semantics = await observedSemantics(speak, kind, ids, full);
      observe('lists.semantics', '{path}: {semantics}', {
        values: { path, semantics: describeSemantics(semantics) },
      });
      await check('LIST-ORACLE', () =>
        assertProperty(
          `lists${label}: oracle of the observed semantics`,
          fc.asyncProperty(
            listQueryArb(full, { allowBoundOnItem: true, firstPage: semantics.firstPage }),
            async (query) => {
              const [now, got] = await Promise.all([fullNow(speak, kind, ids), answer(speak, query, kind)]);
              assertListOracle(
                got,
                listOracle(now, query, semantics),
                query,
                now,
                `${path} (${describeSemantics(semantics)})`,
              );
            },
          ),
          { numRuns },
        ),
      );
    },
    CONCURRENT,
  );
}
