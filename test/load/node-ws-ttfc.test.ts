/**
 * The one Node TTFC client (src/load/node-ws-ttfc.ts) against a scripted in-process websocket server:
 * which frame each timing is taken at, in both modes. No stack, no k6.
 */
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { buildSyntheticStream, tonePcm } from '../../fixtures/ws-streams/synthetic.ts';
import { timeOneTake } from '../../src/load/node-ws-ttfc.ts';

/** Each step: a message to send, or a pause (ms) so that the client's clock sees a gap. */
type Step = string | Buffer | number;
let steps: (requestId: string, mode: string) => Step[];
let server: WebSocketServer;
let client: WebSocket;

const takeMessage = (requestId: string, status: string) =>
  JSON.stringify({ request_id: requestId, data: { take_id: 't1', status } });

beforeAll(async () => {
  server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  server.on('connection', (socket) =>
    socket.on('message', async (data) => {
      const request = JSON.parse(String(data)) as { request_id: string; stream: { mode: string } };
      for (const step of steps(request.request_id, request.stream.mode)) {
        if (typeof step === 'number') await new Promise((resolve) => setTimeout(resolve, step));
        else socket.send(step);
      }
    }),
  );
  client = new WebSocket(`ws://127.0.0.1:${(server.address() as AddressInfo).port}`);
  await new Promise((resolve) => client.once('open', resolve));
});

afterAll(async () => {
  client.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

function stream(requestId: string, mode: 'parts' | 'chunks'): Buffer[] {
  return buildSyntheticStream({
    mode,
    requestId,
    takeId: 't1',
    parts: [tonePcm(300), tonePcm(200, 2)],
    chunkBytes: 128,
    headerAlone: true,
  }).frames;
}

describe('timeOneTake', () => {
  it('chunks mode: first audio at chunk 0 (the header), playable only once chunk 1 brings samples', async () => {
    steps = (id) => {
      const [header, ...rest] = stream(id, 'chunks');
      return [takeMessage(id, 'waiting'), 30, header!, 60, ...rest, takeMessage(id, 'ready')];
    };
    const t = await timeOneTake(client, 'c1', 'Hello.', 'v', 'chunks', 5000);
    expect(t.statusMs).toBeLessThan(t.firstAudioMs);
    expect(t.firstAudioMs).toBeGreaterThanOrEqual(25);
    expect(t.playableMs - t.firstAudioMs).toBeGreaterThanOrEqual(50);
  });

  it('parts mode: the part-0 WAV is both the first audio and playable', async () => {
    steps = (id) => [takeMessage(id, 'waiting'), 30, ...stream(id, 'parts'), takeMessage(id, 'ready')];
    const t = await timeOneTake(client, 'p1', 'Hello.', 'v', 'parts', 5000);
    expect(t.playableMs).toBe(t.firstAudioMs);
  });

  it('a take that fails ends the wait with its status', async () => {
    steps = (id) => [takeMessage(id, 'waiting'), takeMessage(id, 'error')];
    await expect(timeOneTake(client, 'e1', 'Hello.', 'v', 'chunks', 5000)).rejects.toThrow(
      /take ended in error/,
    );
  });
});
