/**
 * The websocket checks fail on deliberately wrong streams: a scripted loopback worker misbehaves in
 * one way per case and the matching check must throw a Finding that names the fault.
 */
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type WebSocket, WebSocketServer } from 'ws';
import { buildSyntheticStream, tonePcm } from '../../fixtures/ws-streams/synthetic.ts';
import {
  assertFramesWellFormed,
  assertModeShape,
  assertNoStrays,
  assertPcmIdentical,
  assertRequestEnded,
  assertRequestIdEcho,
  assertSerialized,
  assertStreamClean,
  partsModeChunkIds,
} from '../../src/checks/websocket.ts';
import { decodeAudioFrame, encodeAudioFrame } from '../../src/client/ws-frame.ts';
import { SpeakStreamConnection } from '../../src/client/ws-stream.ts';
import { findingOf } from '../support/finding-of.ts';

type Req = { request_id: number | string; stream?: { mode: 'parts' | 'chunks' } };
let server: WebSocketServer;
let url: string;
let script: (socket: WebSocket, req: Req) => void = () => undefined;

const ready = (takeId: string) => ({
  take_id: takeId,
  status: 'ready',
  info: { duration: 1, audio_rate: 22050, normalized_text: ['x'] },
});
function frames(req: Req, takeId = `t-${req.request_id}`): Buffer[] {
  return buildSyntheticStream({
    mode: req.stream?.mode ?? 'parts',
    requestId: req.request_id,
    takeId,
    parts: [tonePcm(200), tonePcm(100, 3)],
    chunkBytes: 64,
  }).frames;
}
function finish(socket: WebSocket, req: Req, list: Buffer[], takeId = `t-${req.request_id}`): void {
  for (const f of list) socket.send(f);
  socket.send(JSON.stringify({ request_id: req.request_id, data: ready(takeId) }));
}

beforeAll(async () => {
  server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  server.on('connection', (socket) =>
    socket.on('message', (data) => script(socket, JSON.parse(String(data)))),
  );
});
afterAll(async () => {
  for (const c of server.clients) c.terminate();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

async function run(mode: 'parts' | 'chunks', count = 1) {
  const conn = await SpeakStreamConnection.connect(url, { timeoutMs: 2000 });
  try {
    const timeouts = { firstMessageMs: 500, endOfTakeMs: 1500, settleMs: 100 };
    const results = await Promise.all(
      Array.from({ length: count }, (_, i) =>
        conn.generate({ text: 'x' }, { requestId: i + 1, mode, timeouts }),
      ),
    );
    return { conn, results };
  } finally {
    await conn.close();
  }
}

describe('websocket checks catch faulty streams', () => {
  it('a well-behaved stream passes every check', async () => {
    script = (socket, req) => finish(socket, req, frames(req));
    const { conn, results } = await run('chunks');
    const r = results[0]!;
    assertRequestEnded(r);
    assertFramesWellFormed(conn);
    assertStreamClean(r);
    assertModeShape(r);
    assertRequestIdEcho(r);
    assertNoStrays(conn);
  });

  it('a missing end-of-take marker: the request does not end cleanly', async () => {
    script = (socket, req) => finish(socket, req, frames(req).slice(0, -1));
    const { results } = await run('parts');
    expect(findingOf(() => assertRequestEnded(results[0]!)).message).toMatch(/no end-of-take marker/);
  });

  it('a frame with bad magic is reported with its bytes', async () => {
    script = (socket, req) => {
      socket.send(Buffer.from('JSOX\u0002\u0000\u0000\u0000{}'));
      finish(socket, req, frames(req));
    };
    const { conn } = await run('parts');
    expect(findingOf(() => assertFramesWellFormed(conn)).message).toContain('bad-magic');
  });

  it('a WAV header sized for less than the part is a stream finding', async () => {
    script = (socket, req) => {
      const list = frames(req).map((f) => {
        const { metadata, audio } = decodeAudioFrame(f);
        if (metadata.part_id !== 0 || audio.length < 44) return f;
        const lying = Buffer.from(audio);
        lying.writeUInt32LE(10, 40);
        return encodeAudioFrame(metadata, lying);
      });
      finish(socket, req, list);
    };
    const { results } = await run('parts');
    expect(findingOf(() => assertStreamClean(results[0]!)).message).toContain('header-size-mismatch');
  });

  it('chunk ids in parts mode are reported, not judged (the contract forbids none)', async () => {
    script = (socket, req) =>
      finish(
        socket,
        req,
        frames(req).map((f) => {
          const { metadata, audio } = decodeAudioFrame(f);
          return encodeAudioFrame({ ...metadata, chunk_id: audio.length ? 1 : undefined }, audio);
        }),
      );
    const { results } = await run('parts');
    expect(() => assertModeShape(results[0]!)).not.toThrow();
    expect(results[0]!.reassembly.findings).toEqual([]);
    expect(partsModeChunkIds(results[0]!).length).toBeGreaterThan(0);
  });

  it('frames that drop request_id are caught by the echo check', async () => {
    script = (socket, req) => {
      socket.send(
        JSON.stringify({
          request_id: req.request_id,
          data: { take_id: `t-${req.request_id}`, status: 'waiting', info: null },
        }),
      );
      finish(
        socket,
        req,
        frames(req).map((f) => {
          const { metadata, audio } = decodeAudioFrame(f);
          return encodeAudioFrame({ ...metadata, request_id: null }, audio);
        }),
      );
    };
    const { results } = await run('parts');
    expect(findingOf(() => assertRequestIdEcho(results[0]!)).message).toContain('request_id null');
  });

  it('audio of the second request interleaved with the first breaks serialization', async () => {
    const held: Array<{ socket: WebSocket; req: Req }> = [];
    script = (socket, req) => {
      held.push({ socket, req });
      if (held.length < 2) return;
      const [a, b] = held.map((h) => frames(h.req));
      const mixed = a!.flatMap((f, i) => [f, ...(b![i] ? [b![i]!] : [])]).concat(b!.slice(a!.length));
      for (const f of mixed) socket.send(f);
      for (const h of held)
        socket.send(JSON.stringify({ request_id: h.req.request_id, data: ready(`t-${h.req.request_id}`) }));
    };
    const { results } = await run('parts', 2);
    expect(findingOf(() => assertSerialized(results[0]!, results[1]!)).message).toContain(
      'one after another',
    );
  });

  it("a status past waiting of the second request before the first's end breaks serialization; waiting does not", async () => {
    const sendSecondEarly = (status: string) => {
      const held: Req[] = [];
      script = (socket, req) => {
        held.push(req);
        if (held.length < 2) return;
        const [a, b] = held as [Req, Req];
        socket.send(JSON.stringify({ request_id: b.request_id, data: { take_id: 't-2', status } }));
        finish(socket, a, frames(a));
        finish(socket, b, frames(b));
      };
    };
    sendSecondEarly('started');
    const started = await run('parts', 2);
    expect(findingOf(() => assertSerialized(started.results[0]!, started.results[1]!)).message).toContain(
      'status started',
    );
    sendSecondEarly('waiting');
    const waiting = await run('parts', 2);
    expect(() => assertSerialized(waiting.results[0]!, waiting.results[1]!)).not.toThrow();
  });

  it('audio for a request nobody sent is a stray', async () => {
    script = (socket, req) => {
      socket.send(frames({ request_id: 99 })[0]!);
      finish(socket, req, frames(req));
    };
    const { conn } = await run('parts');
    expect(findingOf(() => assertNoStrays(conn)).message).toContain('name no request');
  });

  it('PCM that differs from the REST wav names the first differing sample', () => {
    const a = tonePcm(100);
    const b = Buffer.from(a);
    b[51] = (b[51]! + 1) % 256;
    expect(findingOf(() => assertPcmIdentical(a, b, 2, 'take t')).message).toContain(
      'from byte 51 (sample 25)',
    );
    expect(findingOf(() => assertPcmIdentical(a, a.subarray(0, 150), 2, 'take t')).message).toContain(
      '50 bytes more in the stream',
    );
  });
});
