/**
 * The sequences' websocket command (suites/stateful/session-commands.ts WebsocketTake) on a server
 * that closes idle connections ("A disconnect does not happen while a request is being processed"
 * forbids only a close during a request): a connection found closed before a request is reopened
 * and noted (INFO), and the request is judged on the new one; nothing is sent on a closed one.
 */
import { describe, expect, test, vi } from 'vitest';
import { newModel } from '../../src/checks/stateful/model.ts';

const opened: FakeConnection[] = [];

class FakeConnection {
  open = true;
  sent = 0;
  async generate(_data: unknown, o: { requestId: number }) {
    if (!this.open) return { outcome: 'closed', diagnostic: 'cannot send: the connection is closed' };
    this.sent += 1;
    return { outcome: 'ended', takeId: `tk_${o.requestId}`, lastTake: { status: 'ready' } };
  }
  async close() {
    this.open = false;
  }
}

vi.mock('../../src/harness/index.ts', async (importOriginal) => ({
  ...(await importOriginal<object>()),
  fetchWebsocketUrl: async () => 'ws://127.0.0.1:1/ws?secret=x',
  SpeakStreamConnection: {
    connect: async () => {
      const conn = new FakeConnection();
      opened.push(conn);
      return conn;
    },
  },
}));

// The unit project shares a module graph per thread (isolate: false): a file that ran before may
// have loaded these modules with the real ones under them; loaded anew, they see the mocks above.
vi.resetModules();
const { WebsocketTake } = await import('../../suites/stateful/session-commands.ts');
const { Real } = await import('../../suites/stateful/real.ts');

function world() {
  return {
    speak: {
      model: { name: 'polyglot' },
      config: { timeouts: { requestMs: 1000, readyMs: 1000 } },
      track: () => undefined,
    },
    accounts: ['primary'],
    clients: { primary: {} },
    voices: { primary: 'vc_1' },
    infoNotes: new Set<string>(),
    judged: () => true,
  };
}

describe('WebsocketTake on a connection the server closed while idle', () => {
  test('reopens, notes it, and judges the request on the open connection', async () => {
    opened.length = 0;
    const m = newModel(['primary']);
    const w = world();
    const r = new Real(w as never);
    await new WebsocketTake('primary', true, 'One.', 1).run(m, r);
    expect(m.sockets.map((s) => s.requests)).toEqual([1]);
    // The server closes it while idle; the next command reuses the last connection.
    opened[0]!.open = false;
    await new WebsocketTake('primary', false, 'Two.', 2).run(m, r);
    expect(opened).toHaveLength(2);
    expect(opened[1]!.sent).toBe(2);
    expect(m.sockets.map((s) => s.requests)).toEqual([1, 2]);
    expect([...w.infoNotes].join('\n')).toMatch(/closed connection W1 while idle.*new connection W2/);
  });

  test('an open connection is reused, nothing noted', async () => {
    opened.length = 0;
    const m = newModel(['primary']);
    const w = world();
    const r = new Real(w as never);
    await new WebsocketTake('primary', true, 'One.', 1).run(m, r);
    await new WebsocketTake('primary', false, 'Two.', 1).run(m, r);
    expect(opened).toHaveLength(1);
    expect(m.sockets.map((s) => s.requests)).toEqual([2]);
    expect(w.infoNotes.size).toBe(0);
  });
});
