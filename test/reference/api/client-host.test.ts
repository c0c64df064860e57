/**
 * URLs handed to clients for the stack's other listeners: one bound to every interface (`serve
 * --host 0.0.0.0`, the image's default) is named by the host the client used for the API, as
 * 0.0.0.0 is no address a client can connect to; one bound to a real address keeps it. The audio
 * redirect (GET /v1/speak/takes/{id}/wav → the blob-store listener) follows the same rule as the
 * websocket address.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { handedOutUrl, reachableUrl } from '../../../reference/api/client-host.ts';
import { insertTake } from '../../../reference/store/takes.ts';
import { plainTakeRow } from '../store/take-rows.ts';
import { type InProcessApp, inProcessApp } from './in-process-app.ts';

describe('reachableUrl', () => {
  it('swaps a wildcard host for the request host, keeping scheme, port and path', () => {
    expect(reachableUrl('http://0.0.0.0:8081', 'speak.example').href).toBe('http://speak.example:8081/');
    expect(reachableUrl('ws://[::]:9000/ws?x=1', 'speak.example').href).toBe(
      'ws://speak.example:9000/ws?x=1',
    );
    expect(reachableUrl('https://0.0.0.0:8443', '[::1]').origin).toBe('https://[::1]:8443');
  });

  it('keeps a real address, and falls back to loopback without a request host', () => {
    expect(reachableUrl('http://127.0.0.1:8081', 'speak.example').origin).toBe('http://127.0.0.1:8081');
    expect(reachableUrl('https://blobs.example', 'speak.example').origin).toBe('https://blobs.example');
    expect(reachableUrl('http://0.0.0.0:8081', '').origin).toBe('http://127.0.0.1:8081');
  });
});

describe('handedOutUrl (the base_url and blob_url serve prints)', () => {
  it('names a wildcard listener by loopback, and keeps any other URL as given', () => {
    expect(handedOutUrl('http://0.0.0.0:8080')).toBe('http://127.0.0.1:8080');
    expect(handedOutUrl('https://[::]:8443')).toBe('https://[::1]:8443');
    expect(handedOutUrl('http://127.0.0.1:41234')).toBe('http://127.0.0.1:41234');
    expect(handedOutUrl('https://blobs.example/audio')).toBe('https://blobs.example/audio');
  });
});

describe('the audio redirect', () => {
  const stacks: InProcessApp[] = [];
  afterAll(async () => {
    for (const s of stacks) await s.close();
  });

  /** Where GET /v1/speak/takes/{id}/wav sends a client that addressed the API as `host`. */
  async function location(blobBaseUrl: string | undefined, host: string): Promise<URL> {
    const stack = await inProcessApp({ name: 'client-host', ...(blobBaseUrl ? { blobBaseUrl } : {}) });
    stacks.push(stack);
    const takeId = 'tk_redirected';
    stack.db.transaction(() =>
      insertTake(stack.db, {
        ...plainTakeRow({ takeId, voiceId: 'vc_x', text: 'Hi.' }),
        user_id: stack.userId,
      }),
    )();
    const answer = await stack.app.inject({
      method: 'GET',
      url: `/v1/speak/takes/${takeId}/wav`,
      headers: { authorization: 'Bearer any', host },
    });
    expect(answer.statusCode).toBe(307);
    return new URL(String(answer.headers.location));
  }

  it('names the API host with the blob listener port when the listener is bound to 0.0.0.0', async () => {
    const url = await location('http://0.0.0.0:8081', 'speak.example:8080');
    expect(url.origin).toBe('http://speak.example:8081');
    expect(url.pathname).toBe('/signed/audio/tk_redirected/wav');
    expect(url.searchParams.get('X-Amz-Signature')).toBeTruthy();
  });

  it('keeps a blob listener bound to a real address, or a public --blob-url', async () => {
    expect((await location('http://127.0.0.1:8081', 'speak.example:8080')).origin).toBe(
      'http://127.0.0.1:8081',
    );
    expect((await location('https://blobs.example', 'speak.example:8080')).origin).toBe(
      'https://blobs.example',
    );
  });

  it('same-origin: the API as the client addressed it', async () => {
    expect((await location(undefined, 'speak.example:8080')).origin).toBe('http://speak.example:8080');
  });
});
