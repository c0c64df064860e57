/**
 * The blob-store listener (signed audio URLs on an origin of their own) with a real client: the
 * vendor's shell example `curl -s -L -H "Authorization: Bearer $T" $BASE/v1/speak/takes/$ID/wav`.
 * curl keeps a custom Authorization header on a same-origin redirect and drops it on a cross-origin
 * one, so the example works only when the signed URL is on another origin: here it must give valid
 * audio in every format after ready. With `--blob-url same-origin` (the contract allows it: a client
 * "must drop" Authorization itself) the signed URL is on the API's origin and the same command meets
 * the 400 "only one auth mechanism allowed" the signed URL answers, as S3 does.
 * Runs curl itself when present; says so and skips those cases when it is not and not required
 * (test/support/required-tools.ts).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseBuffer } from 'music-metadata';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolReady } from '../../support/required-tools.ts';
import { isDone, pollUntil, type Session, type Stack, startStack } from '../stack.ts';

type Json = Record<string, unknown>;

const hasCurl = toolReady(
  'curl',
  spawnSync('curl', ['--version'], { stdio: 'ignore' }).status === 0 ? undefined : 'curl is not on PATH',
);

const FORMATS = {
  wav: 'audio/wav',
  mp3: 'audio/mpeg',
  m4a: 'audio/mp4',
  flac: 'audio/flac',
  webm: 'audio/webm',
} as const;

const dir = mkdtempSync(join(tmpdir(), 'speakcheck-curl-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The vendor's shell example, exactly: `curl -s -L -H "Authorization: Bearer $T" URL > file`; status and bytes. */
function curlExample(url: string, token: string, file: string): { httpCode: string; body: Buffer } {
  const run = spawnSync(
    'curl',
    ['-s', '-L', '-H', `Authorization: Bearer ${token}`, '-o', file, '-w', '%{http_code}', url],
    { encoding: 'utf8', timeout: 60_000 },
  );
  expect(run.status, `curl exited ${run.status}: ${run.stderr}`).toBe(0);
  return { httpCode: run.stdout.trim(), body: readFileSync(file) };
}

async function readyTake(api: Session): Promise<Json> {
  const voice = (
    await api.post('/v1/speak/voices/generate', { name: 'Curl', gender: 'female', model: 'english-gb-v2.1' })
  ).json as Json;
  const created = (
    await api.post('/v1/speak/takes/generate', {
      voice_id: voice.voice_id,
      text: 'Downloaded with curl. It follows the redirect.',
    })
  ).json as Json;
  const take = (await pollUntil(api, `/v1/speak/takes/${created.take_id}`, isDone)).body;
  expect(take.status).toBe('ready');
  return take;
}

describe('blob-store listener (default): signed URLs on their own origin', () => {
  let stack: Stack;
  let api: Session;
  let take: Json;
  beforeAll(async () => {
    stack = await startStack(['--workers', '1']);
    api = await stack.login();
    take = await readyTake(api);
  }, 90_000);
  afterAll(async () => {
    await stack?.stop();
  });

  it('the redirect points at the blob_url origin the stack printed, not the API', async () => {
    const reply = await api.get(`/v1/speak/takes/${take.take_id}/wav`);
    expect(reply.status).toBe(307);
    const location = new URL(reply.headers.get('location')!);
    expect(location.origin).toBe(stack.blobUrl);
    expect(location.origin).not.toBe(new URL(stack.baseUrl).origin);
    expect(location.searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
    // Readable by a page on the API's origin that followed the redirect (a bucket's CORS rule).
    expect((await stack.request('GET', location.href)).headers.get('access-control-allow-origin')).toBe('*');
    // The API origin no longer serves signed paths; the blob origin serves nothing else.
    expect(
      (await stack.request('GET', `${stack.baseUrl}${location.pathname}${location.search}`)).status,
    ).toBe(404);
    const elsewhere = await stack.request('GET', `${stack.blobUrl}/v1/speak/version`);
    expect(elsewhere.status).toBe(404);
    expect((elsewhere.json as Json).detail).toBeTruthy();
  });

  it('still refuses a signed URL that also carries Authorization (400, as S3), and a tampered one (403)', async () => {
    const location = (await api.get(`/v1/speak/takes/${take.take_id}/mp3`)).headers.get('location')!;
    const withAuth = await stack.request('GET', location, { token: api.access });
    expect(withAuth.status).toBe(400);
    expect(String((withAuth.json as Json).detail)).toContain('only one auth mechanism allowed');
    const tampered = location.replace('/mp3?', '/wav?');
    expect((await stack.request('GET', tampered)).status).toBe(403);
    expect((await stack.request('GET', location)).status).toBe(200);
  });

  it.skipIf(!hasCurl).each(Object.entries(FORMATS))(
    'curl -s -L -H "Authorization: Bearer $T" $BASE/v1/speak/takes/$ID/%s gives valid audio',
    async (format, mimeType) => {
      const file = join(dir, `a.${format}`);
      const { httpCode, body } = curlExample(
        `${stack.baseUrl}/v1/speak/takes/${take.take_id}/${format}`,
        api.access,
        file,
      );
      expect(httpCode, body.subarray(0, 200).toString('utf8')).toBe('200');
      const metadata = await parseBuffer(body, { mimeType }, { duration: true });
      const info = take.info as { duration: number; audio_rate: number };
      expect(Math.abs((metadata.format.duration ?? 0) - info.duration / info.audio_rate)).toBeLessThanOrEqual(
        0.05,
      );
      if (format === 'wav') {
        expect(body.toString('ascii', 0, 4)).toBe('RIFF');
        expect(body.length).toBe(44 + info.duration * 2);
      }
    },
  );
});

describe('--blob-url same-origin: the signed URLs on the API origin (a documented option)', () => {
  let stack: Stack;
  let api: Session;
  let take: Json;
  beforeAll(async () => {
    stack = await startStack(['--workers', '1', '--blob-url', 'same-origin']);
    api = await stack.login();
    take = await readyTake(api);
  }, 90_000);
  afterAll(async () => {
    await stack?.stop();
  });

  it('prints no blob_url and redirects to its own origin; the URL works without Authorization', async () => {
    expect(stack.blobUrl).toBeUndefined();
    const location = (await api.get(`/v1/speak/takes/${take.take_id}/wav`)).headers.get('location')!;
    expect(new URL(location).origin).toBe(new URL(stack.baseUrl).origin);
    const audio = await stack.request('GET', location);
    expect(audio.status).toBe(200);
    expect(audio.body.toString('ascii', 0, 4)).toBe('RIFF');
  });

  it.skipIf(!hasCurl)('curl keeps Authorization on the same-origin redirect and meets the 400', () => {
    const { httpCode, body } = curlExample(
      `${stack.baseUrl}/v1/speak/takes/${take.take_id}/wav`,
      api.access,
      join(dir, 'same-origin.wav'),
    );
    expect(httpCode).toBe('400');
    expect(body.toString('utf8')).toContain('only one auth mechanism allowed');
  });
});
