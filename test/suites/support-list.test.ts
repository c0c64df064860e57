/**
 * The suites' whole-list read (suites/support/lists.ts list): a server with a default page size of
 * its own, even 1 ("Default page size … not shown"), is read to the end of a long list, in pages of
 * an explicit length, with either page base; a server without one costs one more request.
 */
import { describe, expect, test, vi } from 'vitest';

vi.mock('../../suites/support/items.ts', () => ({ expectItemSchema: () => undefined }));
vi.mock('../../suites/support/assertions.ts', () => ({
  expectCreated: (exchange: { json: unknown }) => exchange.json,
}));

// The unit project shares a module graph per thread (isolate: false): a file that ran before may
// have loaded these modules with the real ones under them; loaded anew, they see the mocks above.
vi.resetModules();
const { list } = await import('../../suites/support/lists.ts');

/** A take list of `count` items (newest first), paged from `base`, `defaultLength` items without length. */
function server(count: number, defaultLength: number | undefined, base = 1) {
  const stored = Array.from({ length: count }, (_, i) => `tk_${i}`);
  const asked: Array<Record<string, string | number>> = [];
  const api = {
    async get(_path: string, options: { query: Record<string, string | number> }) {
      const q = options.query;
      asked.push(q);
      const filter = q.take_id === undefined ? undefined : String(q.take_id).split(',');
      const matching = filter ? stored.filter((id) => filter.includes(id)) : stored;
      const length = q.length === undefined ? defaultLength : Number(q.length);
      const page = q.page === undefined ? base : Number(q.page);
      const start = length === undefined ? 0 : (page - base) * length;
      const items = length === undefined ? matching : start < 0 ? [] : matching.slice(start, start + length);
      return { status: 200, json: items.map((take_id) => ({ take_id })) };
    },
  };
  return { speak: { api } as never, asked, stored };
}

describe('list (the whole list)', () => {
  test('a default page size of 1 on a list of 250 items: every item, in order', async () => {
    const { speak, stored, asked } = server(250, 1);
    expect(await list(speak, 'take')).toEqual(stored.map((take_id) => ({ take_id })));
    expect(asked.length).toBeLessThan(10);
  });

  test('pages counted from 0', async () => {
    const { speak, stored } = server(7, 1, 0);
    expect((await list<{ take_id: string }>(speak, 'take')).map((t) => t.take_id)).toEqual(stored);
  });

  test('a default page size of 5', async () => {
    const { speak, stored } = server(12, 5);
    expect((await list<{ take_id: string }>(speak, 'take')).map((t) => t.take_id)).toEqual(stored);
  });

  test('no default page size: the first answer, one page more to be sure', async () => {
    const { speak, stored, asked } = server(3, undefined);
    expect((await list<{ take_id: string }>(speak, 'take')).map((t) => t.take_id)).toEqual(stored);
    // The answer, the page-base probe, the first page of the explicit length (the same items: a
    // default page size may equal it) and the page after it, which brings nothing new.
    expect(asked.length).toBeLessThanOrEqual(4);
  });

  test('a list longer than the pages the harness reads: not observed, never taken as whole', async () => {
    const { speak } = server(20_000, 1);
    await expect(list(speak, 'take')).rejects.toMatchObject({
      code: 'SPEAKCHECK_NOT_OBSERVED',
      reason: expect.stringMatching(/not read to its end/),
    });
  });

  test('a first page no probe matched is not kept: the next read probes again', async () => {
    const { speak, asked } = server(5, 1, 2);
    await list(speak, 'take');
    await list(speak, 'take');
    const probes = asked.filter((q) => q.length === 1 && q.page === 1);
    expect(probes).toHaveLength(2);
  });

  test('a filter of one item answered with that one item', async () => {
    const { speak } = server(3, undefined);
    expect(await list(speak, 'take', { take_id: 'tk_1' })).toEqual([{ take_id: 'tk_1' }]);
  });
});
