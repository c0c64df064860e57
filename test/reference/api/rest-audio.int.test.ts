/**
 * Audio of the reference stack over HTTP: 307 to an absolute S3-style signed URL, every format decodes
 * (music-metadata) with the duration of `info` (within 50 ms), the wav holds exactly `duration`
 * samples, tampered signatures → 403, Authorization on the signed URL → 400, other formats before
 * ready → 409, and wav streams while the take is generated.
 */
import { parseBuffer } from 'music-metadata';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isDone, pollUntil, type Session, type Stack, startStack } from '../stack.ts';

type Json = Record<string, unknown>;
let stack: Stack;
let api: Session;
let voiceId: string;
let take: Json;

const FORMATS = {
  wav: { type: 'audio/wav', container: /WAVE/i },
  mp3: { type: 'audio/mpeg', container: /MPEG/i },
  m4a: { type: 'audio/mp4', container: /M4A|mp4|isom/i },
  flac: { type: 'audio/flac', container: /FLAC/i },
  webm: { type: 'audio/webm', container: /webm|EBML/i },
} as const;

beforeAll(async () => {
  stack = await startStack();
  api = await stack.login();
  voiceId = String(
    (
      (await api.post('/v1/speak/voices/generate', { name: 'A', gender: 'male', model: 'english-gb-v2.1' }))
        .json as Json
    ).voice_id,
  );
  const created = (
    await api.post('/v1/speak/takes/generate', {
      voice_id: voiceId,
      text: 'Audio in five formats. Each one lasts as long as the take.',
    })
  ).json as Json;
  take = (await pollUntil(api, `/v1/speak/takes/${created.take_id}`, isDone)).body;
  expect(take.status).toBe('ready');
});
afterAll(async () => {
  await stack?.stop();
});

async function signedUrl(takeId: string, format: string): Promise<string> {
  const reply = await api.get(`/v1/speak/takes/${takeId}/${format}`);
  expect(reply.status, reply.text).toBe(307);
  return reply.headers.get('location')!;
}

describe('signed redirects', () => {
  it('307 with an absolute S3-style signed Location that lives 900 s by default', async () => {
    const location = new URL(await signedUrl(String(take.take_id), 'wav'));
    // On the blob-store listener: another origin than the API (as the real service's object storage).
    expect(stack.blobUrl).toBeTruthy();
    expect(location.origin).toBe(stack.blobUrl);
    expect(location.origin).not.toBe(stack.baseUrl);
    expect(location.searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
    expect(location.searchParams.get('X-Amz-Expires')).toBe('900');
    expect(location.searchParams.get('X-Amz-Date')).toMatch(/^\d{8}T\d{6}Z$/);
    expect(location.searchParams.get('X-Amz-Algorithm')).toBeTruthy();
  });

  it.each(Object.entries(FORMATS))(
    '%s decodes with the duration of info (±50 ms)',
    async (format, expected) => {
      const reply = await stack.request('GET', await signedUrl(String(take.take_id), format));
      expect(reply.status, reply.text).toBe(200);
      expect(reply.headers.get('content-type')).toBe(expected.type);
      const metadata = await parseBuffer(reply.body, { mimeType: expected.type }, { duration: true });
      expect(metadata.format.container ?? '').toMatch(expected.container);
      const info = take.info as { duration: number; audio_rate: number };
      const seconds = info.duration / info.audio_rate;
      expect(
        Math.abs((metadata.format.duration ?? 0) - seconds),
        `${format}: ${metadata.format.duration} vs ${seconds}`,
      ).toBeLessThanOrEqual(0.05);
      if (format === 'wav') expect(reply.body.length).toBe(44 + info.duration * 2);
    },
  );

  it('refuses a tampered signature, another path, a missing signature (403) and an Authorization header (400)', async () => {
    const location = await signedUrl(String(take.take_id), 'mp3');
    const url = new URL(location);
    const signature = url.searchParams.get('X-Amz-Signature')!;
    url.searchParams.set(
      'X-Amz-Signature',
      `${signature.slice(0, -1)}${signature.endsWith('0') ? '1' : '0'}`,
    );
    const tampered = await stack.request('GET', url.href);
    expect(tampered.status).toBe(403);
    expect((tampered.json as Json).detail).toContain('signature');
    const otherPath = location.replace('/mp3?', '/flac?');
    expect((await stack.request('GET', otherPath)).status).toBe(403);
    const longer = new URL(location);
    longer.searchParams.set('X-Amz-Expires', '999999');
    expect((await stack.request('GET', longer.href)).status).toBe(403);
    expect((await stack.request('GET', location.split('?')[0]!)).status).toBe(403);
    const withAuth = await stack.request('GET', location, { token: api.access });
    expect(withAuth.status).toBe(400);
    expect(String((withAuth.json as Json).detail)).toContain('only one auth mechanism allowed');
    // The untouched URL still works.
    expect((await stack.request('GET', location)).status).toBe(200);
  });

  it('honours a byte range on a finished file (206), refuses an unsatisfiable one (416)', async () => {
    const location = await signedUrl(String(take.take_id), 'flac');
    const whole = await stack.request('GET', location);
    expect(whole.headers.get('accept-ranges')).toBe('bytes');
    const part = await stack.request('GET', location, { headers: { range: 'bytes=10-99' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 10-99/${whole.body.length}`);
    expect(part.body.equals(whole.body.subarray(10, 100))).toBe(true);
    const tail = await stack.request('GET', location, { headers: { range: 'bytes=-16' } });
    expect(tail.body.equals(whole.body.subarray(-16))).toBe(true);
    const outside = await stack.request('GET', location, {
      headers: { range: `bytes=${whole.body.length}-` },
    });
    expect(outside.status).toBe(416);
    expect((outside.json as Json).detail).toBeTruthy();
  });

  it('unknown take → 404, unknown format → 404', async () => {
    expect((await api.get('/v1/speak/takes/tk_unknown/wav')).status).toBe(404);
    const reply = await api.get(`/v1/speak/takes/${take.take_id}/ogg`);
    expect(reply.status).toBe(404);
    expect(String((reply.json as Json).detail)).toContain('ogg');
  });
});

describe('before ready', () => {
  it('streams wav while it is generated (unknown-length header, then PCM); other formats → 409', async () => {
    const text = Array.from(
      { length: 30 },
      (_, i) => `This is sentence number ${i + 1} of a long streaming take.`,
    ).join(' ');
    const created = (await api.post('/v1/speak/takes/generate', { voice_id: voiceId, text })).json as Json;
    const takeId = String(created.take_id);
    const mp3 = await api.get(`/v1/speak/takes/${takeId}/mp3`);
    expect(mp3.status).toBe(409);
    expect(String((mp3.json as Json).detail)).toContain('only wav');
    const location = await signedUrl(takeId, 'wav');
    const response = await fetch(location, { signal: AbortSignal.timeout(120_000) });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('audio/wav');
    const reader = response.body!.getReader();
    const chunks: Buffer[] = [];
    const first = await reader.read();
    chunks.push(Buffer.from(first.value!));
    const statusAtFirstByte = ((await api.get(`/v1/speak/takes/${takeId}`)).json as Json).status;
    expect(statusAtFirstByte).not.toBe('ready');
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(Buffer.from(value));
    }
    const streamed = Buffer.concat(chunks);
    expect(streamed.toString('ascii', 0, 4)).toBe('RIFF');
    expect(streamed.readUInt32LE(40)).toBe(0xffffffff); // data size unknown while streaming
    const finished = (await pollUntil(api, `/v1/speak/takes/${takeId}`, isDone)).body;
    expect(finished.status).toBe('ready');
    const duration = (finished.info as { duration: number }).duration;
    expect(streamed.length).toBe(44 + duration * 2);
    const stored = await stack.request('GET', await signedUrl(takeId, 'wav'));
    expect(stored.body.readUInt32LE(40)).toBe(duration * 2);
    expect(streamed.subarray(44).equals(stored.body.subarray(44))).toBe(true);
  }, 180_000);
});
