/**
 * The sequences' whole filtered take list (suites/stateful/take-commands.ts wholeList): a server
 * whose default page size is 1 ("Default page size … not shown") must still be read to its end, not
 * taken for a list that lost its other takes.
 */
import { describe, expect, it } from 'vitest';
import { Real, type SequenceWorld } from '../../suites/stateful/real.ts';
import { wholeList } from '../../suites/stateful/take-commands.ts';

/** A take list over `stored`, paged from `base` with `defaultLength` items when no length is asked. */
function server(stored: string[], defaultLength: number | undefined, base = 1) {
  const asked: Array<Record<string, string | number>> = [];
  const client = {
    async get(_path: string, options: { query: Record<string, string | number> }) {
      asked.push(options.query);
      const filter = String(options.query.take_id).split(',');
      const matching = stored.filter((id) => filter.includes(id));
      const length = options.query.length === undefined ? defaultLength : Number(options.query.length);
      const page = options.query.page === undefined ? base : Number(options.query.page);
      const start = length === undefined ? 0 : (page - base) * length;
      const items = length === undefined ? matching : matching.slice(start, start + length);
      const json = items.map((take_id) => ({ take_id }));
      return { status: 200, json, text: JSON.stringify(json) };
    },
  };
  const world = { clients: { primary: client, second: undefined } } as unknown as SequenceWorld;
  return { real: new Real(world), asked, world };
}

describe('wholeList', () => {
  it('reads every page of a server whose default page size is 1', async () => {
    const { real } = server(['a', 'b', 'c'], 1);
    expect(await wholeList(real, 'primary', ['a', 'b', 'c'])).toEqual(['a', 'b', 'c']);
  });

  it('reads every page with pages counted from 0', async () => {
    const { real } = server(['a', 'b', 'c', 'd'], 1, 0);
    expect(await wholeList(real, 'primary', ['a', 'b', 'c', 'd'])).toEqual(['a', 'b', 'c', 'd']);
  });

  it('learns the first page once the server shows it, and nothing from a probe no page matched', async () => {
    const zero = server(['a', 'b', 'c'], 1, 0);
    await wholeList(zero.real, 'primary', ['a', 'b', 'c']);
    expect(zero.world.firstPage).toBe(0);
    // Pages counted from 2: neither page 1 nor page 0 holds the first take alone.
    const odd = server(['a', 'b', 'c'], 1, 2);
    await wholeList(odd.real, 'primary', ['a', 'b', 'c']);
    expect(odd.world.firstPage).toBeUndefined();
  });

  it('reads pages of the default size the first answer shows (2)', async () => {
    const { real, asked } = server(['a', 'b', 'c', 'd', 'e'], 2);
    expect(await wholeList(real, 'primary', ['a', 'b', 'c', 'd', 'e'])).toEqual(['a', 'b', 'c', 'd', 'e']);
    // The server's own page size, never a longer one it might refuse or cut.
    const lengths = new Set(
      asked.filter((q) => q.length !== undefined && q.length !== 1).map((q) => q.length),
    );
    expect([...lengths]).toEqual([2]);
  });

  it('a probe the server refuses (page=0 answered 400) is no page, not a failure', async () => {
    const { real, world } = server(['a', 'b', 'c'], 1);
    const client = real.client('primary') as unknown as {
      get: (path: string, options: { query: Record<string, string | number> }) => Promise<unknown>;
    };
    const get = client.get.bind(client);
    let probed = false;
    client.get = async (path, options) => {
      const { page, length } = options.query;
      // The order moved between the unpaged read and the probe of page 1; page 0 is refused.
      if (page === 1 && length === 1 && !probed) {
        probed = true;
        return { status: 200, json: [{ take_id: 'b' }], text: '' };
      }
      if (page === 0) return { status: 400, json: { detail: 'pages start at 1' }, text: '' };
      return get(path, options);
    };
    expect(await wholeList(real, 'primary', ['a', 'b', 'c'])).toEqual(['a', 'b', 'c']);
    expect(probed).toBe(true);
    expect(world.firstPage).toBeUndefined();
  });

  it('still shows a take missing from an unpaged list (one of two left)', async () => {
    const { real } = server(['a'], undefined);
    expect(await wholeList(real, 'primary', ['a', 'b'])).toEqual(['a']);
  });

  it('asks once when the first answer holds every take', async () => {
    const { real, asked } = server(['a', 'b'], undefined);
    expect(await wholeList(real, 'primary', ['a', 'b'])).toEqual(['a', 'b']);
    expect(asked).toHaveLength(1);
  });
});
