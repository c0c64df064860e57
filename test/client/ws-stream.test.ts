/**
 * The stream client against a small scripted worker on loopback: what it collects, when it decides a
 * request ended, and what it says when a wait runs out. (The real worker is exercised by
 * suites/websocket.spec.ts.)
 */
import type { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type WebSocket, WebSocketServer } from 'ws';
import { buildSyntheticStream, tonePcm } from '../../fixtures/ws-streams/synthetic.ts';
import { Finding } from '../../src/checks/finding.ts';
import { assertRequestEnded, assertStreamed } from '../../src/checks/websocket.ts';
import {
  earlyConclusions,
  resetEarlyConclusions,
  SpeakStreamConnection,
  WsClientError,
} from '../../src/client/ws-stream.ts';
import { ALLOWANCE_FLOOR_MS } from '../../src/facts/run-facts.ts';
import { classify } from '../../src/harness/disposition.ts';

type Script = (
  socket: WebSocket,
  request: { request_id: number | string; stream?: { mode: string } },
) => void;

let server: WebSocketServer;
let base: string;
let script: Script = () => undefined;
const upgrades: IncomingMessage[] = [];

const take = (status: string, id = 'take-1') => ({
  take_id: id,
  voice_id: 'v',
  text: 'Hello.',
  status,
  info: status === 'ready' ? { duration: 300, audio_rate: 22050, normalized_text: ['Hello.'] } : null,
});

function frames(mode: 'parts' | 'chunks', requestId: number | string, takeId = 'take-1'): Buffer[] {
  return buildSyntheticStream({
    mode,
    requestId,
    takeId,
    parts: [tonePcm(300), tonePcm(200, 2)],
    chunkBytes: 128,
  }).frames;
}

beforeAll(async () => {
  server = new WebSocketServer({
    host: '127.0.0.1',
    port: 0,
    verifyClient: (info, done) => {
      upgrades.push(info.req);
      if (info.req.url?.includes('bad')) done(false, 401, 'secret rejected');
      else done(true);
    },
  });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  base = `ws://127.0.0.1:${(server.address() as AddressInfo).port}`;
  server.on('connection', (socket) => {
    socket.on('message', (data) => script(socket, JSON.parse(String(data))));
  });
});

afterAll(async () => {
  for (const client of server.clients) client.terminate();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

async function connect(): Promise<SpeakStreamConnection> {
  return SpeakStreamConnection.connect(`${base}/ws?secret=good-secret-value`, { timeoutMs: 2000 });
}

describe('websocket stream client', () => {
  // Each test is a run of its own: what an earlier one learned (a silent request) does not carry over.
  beforeEach(() => resetEarlyConclusions());

  it.each(['parts', 'chunks'] as const)(
    'collects a whole %s-mode take and ends it on done + end marker',
    async (mode) => {
      script = (socket, req) => {
        socket.send(JSON.stringify({ request_id: req.request_id, data: take('waiting') }));
        socket.send(JSON.stringify({ request_id: req.request_id, data: take('started') }));
        for (const f of frames(mode, req.request_id)) socket.send(f);
        socket.send(JSON.stringify({ request_id: req.request_id, data: take('ready') }));
      };
      const conn = await connect();
      try {
        const r = await conn.generate(
          { text: 'Hello.', voice_id: 'v' },
          { requestId: 7, mode, timeouts: { firstMessageMs: 2000, endOfTakeMs: 4000 } },
        );
        expect(r.outcome).toBe('ended');
        expect(r.diagnostic).toBeUndefined();
        expect(r.takeId).toBe('take-1');
        expect(r.takeMessages.map((m) => m.data.status)).toEqual(['waiting', 'started', 'ready']);
        expect(r.reassembly.findings).toEqual([]);
        expect(r.reassembly.totalSamples).toBe(500);
        expect(r.timings.firstStatusMs).toBeGreaterThanOrEqual(0);
        expect(r.timings.firstAudioMs).toBeGreaterThanOrEqual(r.timings.firstStatusMs!);
        expect(r.timings.endMs).toBeGreaterThanOrEqual(r.timings.firstAudioMs!);
        expect(r.timings.firstPlayableMs).toBeGreaterThanOrEqual(r.timings.firstAudioMs!);
        expect(upgrades.at(-1)?.headers.authorization).toBeUndefined();
      } finally {
        await conn.close();
      }
    },
  );

  it('waits for audio that the end marker overtook', async () => {
    script = (socket, req) => {
      const all = frames('chunks', req.request_id);
      socket.send(all.at(-1)!);
      socket.send(JSON.stringify({ request_id: req.request_id, data: take('ready') }));
      setTimeout(() => {
        for (const f of all.slice(0, -1).reverse()) socket.send(f);
      }, 50);
    };
    const conn = await connect();
    try {
      const r = await conn.generate({}, { requestId: 'a', mode: 'chunks', timeouts: { settleMs: 2000 } });
      expect(r.outcome).toBe('ended');
      expect(r.reassembly.complete).toBe(true);
      expect(r.reassembly.findings).toEqual([]);
    } finally {
      await conn.close();
    }
  });

  it('ends an incomplete take after the settle time and says what is missing', async () => {
    script = (socket, req) => {
      const all = frames('parts', req.request_id);
      socket.send(all[1]!);
      socket.send(all[2]!);
      socket.send(JSON.stringify({ request_id: req.request_id, data: take('ready') }));
    };
    const conn = await connect();
    try {
      const r = await conn.generate({}, { requestId: 1, mode: 'parts', timeouts: { settleMs: 100 } });
      expect(r.outcome).toBe('ended');
      expect(r.diagnostic).toContain('still incomplete 100 ms after its done status and end marker');
      expect(r.reassembly.findings.map((f) => f.kind)).toEqual(['gap']);
    } finally {
      await conn.close();
    }
  });

  it('times out a request the worker never answers, naming a look-alike request id', async () => {
    script = (socket) => socket.send(JSON.stringify({ request_id: '5', data: take('waiting') }));
    const conn = await connect();
    try {
      const r = await conn.generate({}, { requestId: 5, timeouts: { firstMessageMs: 200 } });
      expect(r.outcome).toBe('timeout');
      expect(r.diagnostic).toContain('no message for request 5 within 200 ms');
      expect(r.diagnostic).toContain('request_id 5 with another JSON type');
    } finally {
      await conn.close();
    }
  });

  it('ends a request on an error message naming it', async () => {
    script = (socket, req) =>
      socket.send(
        JSON.stringify({ status: 'error', message: 'voice not found', request_id: req.request_id }),
      );
    const conn = await connect();
    try {
      const r = await conn.generate({}, { requestId: 3 });
      expect(r.outcome).toBe('error-message');
      expect(r.diagnostic).toContain('voice not found');
      expect(r.statusMessages).toHaveLength(1);
    } finally {
      await conn.close();
    }
  });

  it('starts the clocks of a queued request when the one before it ends', async () => {
    // Serves one request after another, the first one slowly: the second waits longer than its
    // firstMessageMs in the queue, which must not count against it.
    let line = Promise.resolve();
    script = (socket, req) => {
      line = line.then(
        () =>
          new Promise<void>((resolve) =>
            setTimeout(
              () => {
                for (const f of frames('parts', req.request_id, `take-${req.request_id}`)) socket.send(f);
                socket.send(
                  JSON.stringify({
                    request_id: req.request_id,
                    data: take('ready', `take-${req.request_id}`),
                  }),
                );
                resolve();
              },
              req.request_id === 1 ? 1000 : 0,
            ),
          ),
      );
    };
    const conn = await connect();
    try {
      const timeouts = { firstMessageMs: 500, endOfTakeMs: 3000 };
      const [a, b] = await Promise.all([
        conn.generate({}, { requestId: 1, timeouts: { ...timeouts, firstMessageMs: 2000 } }),
        conn.generate({}, { requestId: 2, timeouts }),
      ]);
      expect(a.outcome).toBe('ended');
      expect(b.outcome).toBe('ended');
      expect(b.inLineAt).toBeGreaterThanOrEqual(a.endedAt!);
    } finally {
      await conn.close();
    }
  });

  it('reports a refused upgrade with its HTTP status', async () => {
    const error = await SpeakStreamConnection.connect(`${base}/ws?secret=bad`, { timeoutMs: 2000 }).catch(
      (e) => e,
    );
    expect(error).toBeInstanceOf(WsClientError);
    expect((error as WsClientError).kind).toBe('upgrade-refused');
    expect((error as WsClientError).status).toBe(401);
    expect((error as WsClientError).message).not.toContain('secret=bad');
  });

  it('reports a connection refused at the TCP level', async () => {
    const error = await SpeakStreamConnection.connect('ws://127.0.0.1:9/ws', { timeoutMs: 1000 }).catch(
      (e) => e,
    );
    expect((error as WsClientError).kind).toBe('connect-error');
    expect((error as WsClientError).message).toContain('ECONNREFUSED');
  });

  it('records malformed binary frames and cuts pending requests when the connection closes', async () => {
    script = (socket) => {
      socket.send(Buffer.from('NOPE0000'));
      setTimeout(() => socket.close(1011, 'worker crashed'), 20);
    };
    const conn = await connect();
    const r = await conn.generate({}, { requestId: 9 });
    expect(r.outcome).toBe('closed');
    expect(r.diagnostic).toContain('code 1011');
    expect(conn.frameFailures.map((f) => f.error.kind)).toEqual(['bad-magic']);
  });
});

describe('early conclusion of half-ended requests (no full timeout for a broken stream)', () => {
  const fast = { firstMessageMs: 2000, endOfTakeMs: 30_000, silenceGraceMs: 300, doneAfterMarkerMs: 400 };

  it('done status, then silence without the end marker: ends after the grace, and at once the next time', async () => {
    resetEarlyConclusions();
    script = (socket, req) => {
      socket.send(JSON.stringify({ request_id: req.request_id, data: take('waiting') }));
      for (const f of frames('parts', req.request_id).slice(0, -1)) socket.send(f);
      socket.send(JSON.stringify({ request_id: req.request_id, data: take('ready') }));
    };
    const conn = await connect();
    try {
      const first = await conn.generate({}, { requestId: 'e1', mode: 'parts', timeouts: fast });
      expect(first.outcome).toBe('ended');
      expect(first.diagnostic).toMatch(
        /showed its done status, then nothing for 300 ms: no end-of-take marker/,
      );
      expect(first.timings.endMs).toBeLessThan(5_000);
      expect(earlyConclusions().has('done-without-end-marker')).toBe(true);
      const second = await conn.generate(
        {},
        { requestId: 'e2', mode: 'parts', timeouts: { ...fast, silenceGraceMs: 20_000 } },
      );
      expect(second.diagnostic).toMatch(
        /concluded at once: an earlier request of this run already showed it/,
      );
      expect(second.timings.endMs).toBeLessThan(5_000);
    } finally {
      await conn.close();
      resetEarlyConclusions();
    }
  });

  it('audio and end marker without any Take message: ends after the grace, saying no done status came', async () => {
    resetEarlyConclusions();
    script = (socket, req) => {
      for (const f of frames('chunks', req.request_id)) socket.send(f);
    };
    const conn = await connect();
    try {
      const r = await conn.generate({}, { requestId: 'e3', mode: 'chunks', timeouts: fast });
      expect(r.outcome).toBe('ended');
      expect(r.diagnostic).toMatch(
        /sent its end-of-take marker, then nothing for 400 ms: no done Take status/,
      );
      expect(r.takeMessages).toEqual([]);
      expect(r.timings.endMs).toBeLessThan(5_000);
    } finally {
      await conn.close();
      resetEarlyConclusions();
    }
  });

  it('a done status followed by the marker within the grace ends cleanly', async () => {
    resetEarlyConclusions();
    script = (socket, req) => {
      const all = frames('parts', req.request_id);
      for (const f of all.slice(0, -1)) socket.send(f);
      socket.send(JSON.stringify({ request_id: req.request_id, data: take('ready') }));
      setTimeout(() => socket.send(all.at(-1)!), 100);
    };
    const conn = await connect();
    try {
      const r = await conn.generate({}, { requestId: 'e4', mode: 'parts', timeouts: fast });
      expect(r.outcome).toBe('ended');
      expect(r.diagnostic).toBeUndefined();
      expect(earlyConclusions().size).toBe(0);
    } finally {
      await conn.close();
    }
  });
});

describe('a silent websocket is learned once (issue 37)', () => {
  const fast = { firstMessageMs: 400, endOfTakeMs: 5_000 };
  /** Answers only the first request of each connection; later ones never get a message. */
  const firstOnly = (): Script => {
    const served = new WeakSet<WebSocket>();
    return (socket, req) => {
      if (served.has(socket)) return;
      served.add(socket);
      socket.send(JSON.stringify({ request_id: req.request_id, data: take('waiting') }));
      for (const f of frames('parts', req.request_id)) socket.send(f);
      socket.send(JSON.stringify({ request_id: req.request_id, data: take('ready') }));
    };
  };

  beforeEach(() => resetEarlyConclusions());

  it('a later request left without a message fails WS-SERIALIZED once its bound ran out, and the next one at once', async () => {
    script = firstOnly();
    const one = await connect();
    const two = await connect();
    try {
      const a1 = await one.generate({}, { requestId: 's1', mode: 'parts', timeouts: fast });
      expect(a1.outcome).toBe('ended');
      const a2 = await one.generate({}, { requestId: 's2', mode: 'parts', timeouts: fast });
      expect(a2.outcome).toBe('timeout');
      expect(a2.diagnostic).toMatch(/no message for request s2 within 400 ms of it being first in line/);
      expect(a2.evidenceAgainst).toBe('WS-SERIALIZED');
      expect(a2.timings.endMs).toBeGreaterThanOrEqual(390);
      // Another connection: its first request is served, its second concludes without its bound.
      const b1 = await two.generate({}, { requestId: 't1', mode: 'parts', timeouts: fast });
      expect(b1.outcome).toBe('ended');
      const b2 = await two.generate(
        {},
        { requestId: 't2', mode: 'parts', timeouts: { ...fast, firstMessageMs: 20_000 } },
      );
      expect(b2.outcome).toBe('timeout');
      expect(b2.evidenceAgainst).toBe('WS-SERIALIZED');
      expect(b2.diagnostic).toMatch(
        /no message for request t2, not waited for \(the run already learned it\): an earlier request of this run \(s2\) got no message within 400 ms/,
      );
      expect(b2.timings.endMs).toBeLessThan(1_000);
    } finally {
      await one.close();
      await two.close();
    }
  });

  it('a connection silent from its start is recorded: evidence against WS-TEXT-TAKE only, the first request of another connection not waited for again', async () => {
    script = () => undefined;
    const one = await connect();
    const two = await connect();
    try {
      const a = await one.generate({}, { requestId: 'q1', mode: 'parts', timeouts: fast });
      expect(a.outcome).toBe('timeout');
      // The take request the silent connection never answered: WS-TEXT-TAKE fails, the rest is blocked.
      expect(a.evidenceAgainst).toBe('WS-TEXT-TAKE');
      expect(() => assertRequestEnded(a)).toThrow(Finding);
      try {
        assertRequestEnded(a);
      } catch (err) {
        expect(classify(err)).toMatchObject({ kind: 'run-fact', requirement: 'WS-TEXT-TAKE' });
      }
      try {
        assertStreamed(a, 'a take over the issued URL did not stream', 'a stream');
      } catch (err) {
        expect(classify(err)).toMatchObject({ kind: 'run-fact', requirement: 'WS-TEXT-TAKE' });
      }
      const b = await two.generate(
        {},
        { requestId: 'q2', mode: 'parts', timeouts: { ...fast, firstMessageMs: 20_000 } },
      );
      expect(b.outcome).toBe('timeout');
      expect(b.diagnostic).toMatch(/not waited for .*on a connection that had answered nothing/);
      expect(b.timings.endMs).toBeLessThan(1_000);
      // A silence from the start says nothing about later requests (WS-SERIALIZED): still waited.
      expect(b.evidenceAgainst).toBe('WS-TEXT-TAKE');
    } finally {
      await one.close();
      await two.close();
    }
  });

  it('fair to a server that did answer later requests before: twice its slowest first message (at least the floor), then concluded', async () => {
    let calls = 0;
    const BOUND_MS = 4_000;
    script = (socket, req) => {
      calls += 1;
      // The first two connections serve both requests; from then on only the first of each.
      if (calls > 4 && calls % 2 === 0) return;
      setTimeout(() => {
        socket.send(JSON.stringify({ request_id: req.request_id, data: take('waiting') }));
        for (const f of frames('parts', req.request_id)) socket.send(f);
        socket.send(JSON.stringify({ request_id: req.request_id, data: take('ready') }));
      }, 150);
    };
    const conns = await Promise.all([connect(), connect(), connect(), connect()]);
    try {
      for (const [i, conn] of conns.entries()) {
        const first = await conn.generate(
          {},
          { requestId: `f${i}`, mode: 'parts', timeouts: { ...fast, firstMessageMs: BOUND_MS } },
        );
        expect(first.outcome).toBe('ended');
        const second = await conn.generate(
          {},
          { requestId: `g${i}`, mode: 'parts', timeouts: { ...fast, firstMessageMs: BOUND_MS } },
        );
        if (i < 2) expect(second.outcome).toBe('ended');
        else if (i === 2) expect(second.timings.endMs).toBeGreaterThanOrEqual(BOUND_MS - 10);
        else {
          // Twice the slowest later request's first message (about 150 ms) is below the floor: the
          // floor (a second), not the whole bound.
          expect(second.outcome).toBe('timeout');
          expect(second.diagnostic).toMatch(/already learned it/);
          expect(second.timings.endMs).toBeGreaterThanOrEqual(ALLOWANCE_FLOOR_MS - 10);
          expect(second.timings.endMs).toBeLessThan(BOUND_MS - 10);
        }
      }
    } finally {
      for (const conn of conns) await conn.close();
    }
  });
});
