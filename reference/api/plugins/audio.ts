/**
 * Audio.
 * - GET /v1/speak/takes/{id}/{wav|mp3|m4a|flac|webm} (bearer) → 307, Location = absolute signed URL.
 *   Before `ready` only wav is offered (it streams while it is made); another format before ready →
 *   409 with a detail; any format of a take that ended in error/timeout → 409; unknown format → 404.
 * - GET /signed/audio/{id}/{format}?X-Amz-... (no bearer): the audio with its Content-Type, on the
 *   blob-store listener's own origin (api/app.ts buildBlobApp; `--blob-url`), or on the API's origin
 *   with `--blob-url same-origin`.
 *   Tampered or expired → 403; a request that also carries Authorization → 400 ("only one auth
 *   mechanism allowed", as S3 answers).
 *   A finished file honours one `Range: bytes=a-b` (206; unsatisfiable → 416), as browsers seek.
 *   Streaming wav (take not ready yet, api/growing-wav.ts): a header sized for an unknown length,
 *   then the PCM as the worker writes it, ending when the take is ready; any other end (5-minute
 *   bound, job redone, take failed or deleted) cuts the transfer.
 */

import { type FileHandle, open } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AUDIO_FORMATS, type AudioFormat, isAudioFormat } from '../../audio/formats.ts';
import { defectiveAudioBody } from '../../defects/audio-body.ts';
import { neverAnswer } from '../../defects/hang.ts';
import { defects } from '../../defects/index.ts';
import { deletedTakes } from '../../defects/sequence-memory.ts';
import { latitude } from '../../latitude/index.ts';
import { SIGNED_AUDIO_PREFIX } from '../../signing/audio-url.ts';
import { isDone } from '../../store/status.ts';
import { getTakeRow } from '../../store/takes.ts';
import { authenticate } from '../authenticate.ts';
import { reachableUrl } from '../client-host.ts';
import type { ApiContext } from '../context.ts';
import { ApiError } from '../errors.ts';
import { growingWav } from '../growing-wav.ts';
import { AUDIO_FORMAT_NAMES, AUTH, audioOperationId, error, MALFORMED, redirect } from '../openapi-parts.ts';
import { ownerFor } from '../ownership.ts';
import type { TakeIdParams } from '../route-schema.ts';
import { TAKE_ID, TAKE_ID_EXAMPLE, takeOf } from './takes.ts';

type AudioParams = TakeIdParams & { format: string };

/**
 * The redirect route's operation. The format is validated by the handler (an unknown one is a 404
 * naming the formats); the document declares one operation per format on its own path.
 */
const AUDIO_OPERATION = {
  operationId: 'getTakeAudio',
  tags: ['audio'],
  summary: 'Audio of a take in one format',
  description: 'wav is available before ready (streamed while generated); the other formats once ready.',
  params: {
    ...TAKE_ID,
    required: ['take_id', 'format'],
    properties: { ...(TAKE_ID.properties as object), format: { type: 'string', minLength: 1 } },
  },
  documented: {
    parameters: {
      ...TAKE_ID_EXAMPLE,
      format: { schema: { type: 'string', enum: [...AUDIO_FORMAT_NAMES] }, example: AUDIO_FORMAT_NAMES[0] },
    },
    expand: {
      parameter: 'format',
      values: AUDIO_FORMAT_NAMES,
      operation: (format: string) => ({
        operationId: audioOperationId(format),
        summary: `Audio of a take as ${format}`,
        description:
          format === 'wav'
            ? 'Available before ready: the signed URL streams the wav while it is generated.'
            : 'Only when the take is ready; before that 409.',
      }),
    },
  },
  responses: {
    '307': redirect,
    ...MALFORMED,
    ...AUTH,
    '404': error('Unknown take'),
    '409': error('Not available yet, or the take ended in error/timeout'),
  },
};

function formatOf(value: string): AudioFormat {
  if (!isAudioFormat(value)) {
    throw new ApiError(
      404,
      `unknown audio format ${JSON.stringify(value)} (formats: ${Object.keys(AUDIO_FORMATS).join(', ')})`,
    );
  }
  return value;
}

/**
 * One byte range of `Range: bytes=a-b` / `bytes=a-` / `bytes=-n`; undefined when absent or not a
 * single bytes range (then the whole file is sent, as RFC 9110 allows).
 */
export function parseRange(
  header: string | undefined,
  size: number,
): { start: number; end: number } | 'unsatisfiable' | undefined {
  const match = header ? /^bytes=(\d*)-(\d*)$/.exec(header.trim()) : null;
  if (!match || (match[1] === '' && match[2] === '')) return undefined;
  let start: number;
  let end: number;
  if (match[1] === '') {
    start = Math.max(0, size - Number(match[2]));
    end = size - 1;
  } else {
    start = Number(match[1]);
    end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
  }
  if (start >= size || start > end) return 'unsatisfiable';
  return { start, end };
}

/** Latitude slow-first-byte: how late the body's first byte of a cold read comes after its headers. */
export const COLD_READ_FIRST_BYTE_MS = 10_500;
/** Latitude slow-first-byte: which full downloads are cold (this process's 4th, then every 8th). */
let downloads = 0;
function coldRead(): boolean {
  return downloads++ % 8 === 3;
}

/** The file's bytes, the headers flushed at once and the first byte only COLD_READ_FIRST_BYTE_MS later. */
async function* firstByteLate(raw: { flushHeaders(): void }, file: FileHandle): AsyncGenerator<Buffer> {
  try {
    raw.flushHeaders();
    await sleep(COLD_READ_FIRST_BYTE_MS);
    for await (const chunk of file.createReadStream()) yield chunk as Buffer;
  } finally {
    // A client gone during the wait never reads the stream, which would have closed the handle.
    await file.close().catch(() => undefined);
  }
}

/** The chunks of `stream`, all at once after its end (what a server that buffers the whole body sends). */
async function* heldUntilEnd(stream: AsyncGenerator<Buffer>): AsyncGenerator<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  yield Buffer.concat(chunks);
}

/**
 * Throws the 404 of an unknown take when `takeId` is gone. A DELETE removes the row, then the files,
 * so a request that found the take can lose its file (or ffmpeg its wav) under it: that is a
 * deleted take (404), not a fault of the server (500) or the encoder (503).
 */
function failIfDeleted(ctx: ApiContext, takeId: string): void {
  if (!getTakeRow(ctx.db, takeId)) throw new ApiError(404, `take ${takeId} not found`);
}

/**
 * A finished take's file: the body a defect serves instead, or the file opened. Read through the
 * handle from here on, so a DELETE after this point no longer takes the bytes from under the answer.
 */
async function openFinished(
  ctx: ApiContext,
  takeId: string,
  format: AudioFormat,
  path: string,
): Promise<{ altered: Buffer } | { file: FileHandle }> {
  try {
    const altered = await defectiveAudioBody(format, path);
    return altered ? { altered } : { file: await open(path, 'r') };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') failIfDeleted(ctx, takeId);
    throw error;
  }
}

/**
 * The origin signed audio URLs point at: the blob-store listener, else (same-origin) the API as the
 * client addressed it. A wildcard listen host (`serve --host 0.0.0.0`, the image's default) is no
 * address a client can connect to: the name the client used for the API stands in (client-host.ts).
 */
function signedAudioOrigin(
  ctx: Pick<ApiContext, 'blobBaseUrl' | 'baseUrl'>,
  request: FastifyRequest,
): string {
  const blob = ctx.blobBaseUrl();
  if (blob !== undefined) return reachableUrl(blob, request.hostname).origin;
  const host = request.headers.host;
  return host ? `${request.protocol}://${host}` : reachableUrl(ctx.baseUrl(), request.hostname).origin;
}

/** Whether `format` is offered while the take is still being made (only wav, unless a defect says otherwise). */
function offeredBeforeReady(format: string): boolean {
  if (format === 'wav') return !defects.has('wav-not-before-ready');
  return format === 'flac' && defects.has('flac-before-ready');
}

/** Defect formats-encoded-after-done: how long a format's encoding takes from its first request. */
const ENCODING_MS = 5_000;

export async function audioPlugin(app: FastifyInstance, ctx: ApiContext): Promise<void> {
  /** Defect formats-encoded-after-done: when each take/format's encoding began (its first request). */
  const encodingStarted = new Map<string, number>();
  // The bearer-protected redirect.
  app.register(async (scoped) => {
    scoped.addHook('onRequest', authenticate(ctx));
    scoped.get<{ Params: AudioParams }>(
      '/v1/speak/takes/:take_id/:format',
      { schema: AUDIO_OPERATION },
      async (request, reply) => {
        const { take_id, format: rawFormat } = request.params;
        const format = formatOf(rawFormat);
        // Defect flac-always-throttled: the flac route only ever answers back-pressure.
        if (format === 'flac' && defects.has('flac-always-throttled'))
          return reply
            .code(429)
            .header('retry-after', '1')
            .send({ detail: 'Rate limit exceeded, retry later' });
        // Defect deleted-take-audio-answers: a take deleted through the API still redirects to its audio.
        const deletedOwner = defects.has('deleted-take-audio-answers')
          ? deletedTakes.get(take_id)
          : undefined;
        if (deletedOwner === request.userId)
          return reply
            .code(307)
            .header(
              'location',
              ctx.signer.sign(signedAudioOrigin(ctx, request), `${SIGNED_AUDIO_PREFIX}/${take_id}/${format}`),
            )
            .send();
        const row = takeOf(ctx, ownerFor(ctx, 'leak-audio', 'take', request.userId, take_id), take_id);
        // Defect example-take-audio-404: the audio routes do not know a voice's example take.
        if (row.example_of !== null && defects.has('example-take-audio-404'))
          throw new ApiError(404, `take ${JSON.stringify(take_id)} not found`);
        if (row.status === 'error' || row.status === 'timeout') {
          throw new ApiError(409, `take ${take_id} ended in ${row.status}: it has no audio`);
        }
        // Latitude redirect-before-ready: every format redirects; the signed URL refuses until ready.
        if (row.status !== 'ready' && !offeredBeforeReady(format) && !latitude.has('redirect-before-ready')) {
          throw new ApiError(
            409,
            `take ${take_id} is not ready (status ${row.status}): only wav is available before ready`,
          );
        }
        // Defect formats-encoded-after-done: a ready take's other formats are encoded on first request.
        if (row.status === 'ready' && format !== 'wav' && defects.has('formats-encoded-after-done')) {
          const key = `${take_id}/${format}`;
          const started = encodingStarted.get(key) ?? Date.now();
          encodingStarted.set(key, started);
          if (Date.now() - started < ENCODING_MS)
            throw new ApiError(409, `take ${take_id}: ${format} is still being encoded, retry shortly`);
        }
        const signed = ctx.signer.sign(
          signedAudioOrigin(ctx, request),
          `${SIGNED_AUDIO_PREFIX}/${take_id}/${format}`,
        );
        const location = defects.has('location-unsigned') ? signed.split('?')[0]! : signed;
        return reply
          .code(defects.has('audio-302') ? 302 : 307)
          .header('location', location)
          .header('cache-control', 'no-store')
          .send();
      },
    );
  });
  // Same-origin mode: the signed URLs are served by the API itself.
  if (ctx.blobBaseUrl() === undefined) await signedAudioRoute(app, ctx);
}

/** The signed URL itself (blob-store listener, or the API in same-origin mode): no bearer, the signature is the authorisation. */
export async function signedAudioRoute(app: FastifyInstance, ctx: ApiContext): Promise<void> {
  app.get<{ Params: AudioParams; Querystring: Record<string, unknown> }>(
    `${SIGNED_AUDIO_PREFIX}/:take_id/:format`,
    async (request, reply) => {
      // Defect storage-host-hangs: the storage host behind every signed URL accepts and never answers.
      if (defects.has('storage-host-hangs')) return neverAnswer(reply);
      if (defects.has('signed-url-needs-bearer')) await authenticate(ctx)(request);
      if (
        request.headers.authorization !== undefined &&
        !defects.has('signed-url-needs-bearer') &&
        !latitude.has('signed-url-ignores-auth')
      ) {
        throw new ApiError(
          400,
          'only one auth mechanism allowed: this is a signed URL, send it without an Authorization header',
        );
      }
      const { take_id, format: rawFormat } = request.params;
      const check = ctx.signer.verify(request.url.split('?')[0]!, request.query);
      const lax = defects.has('signature-not-checked') || defects.has('location-unsigned');
      if (!check.ok && !lax) throw new ApiError(403, check.detail);
      const format = formatOf(rawFormat);
      const row = getTakeRow(ctx.db, take_id);
      if (!row) throw new ApiError(404, `take ${take_id} not found`);
      reply
        .header('content-type', AUDIO_FORMATS[format].contentType)
        .header('cache-control', 'private, max-age=600');
      if (row.status === 'ready') {
        let path: string;
        try {
          path = await ctx.audio.ensure(
            take_id,
            defects.has('mp3-serves-wav') && format === 'mp3' ? 'wav' : format,
          );
        } catch (error) {
          failIfDeleted(ctx, take_id);
          ctx.log(`encoding ${take_id} to ${format} failed: ${(error as Error).message}`);
          throw new ApiError(503, `encoding to ${format} failed; try again`);
        }
        const opened = await openFinished(ctx, take_id, format, path);
        if ('altered' in opened)
          return reply.header('content-length', String(opened.altered.length)).send(opened.altered);
        const { file } = opened;
        const { size } = await file.stat();
        reply.header('accept-ranges', 'bytes');
        const range = parseRange(request.headers.range, size);
        if (range === 'unsatisfiable') {
          await file.close();
          throw new ApiError(416, `range ${request.headers.range} is outside the ${size} bytes of the file`, {
            'content-range': `bytes */${size}`,
          });
        }
        if (range) {
          reply
            .code(206)
            .header('content-range', `bytes ${range.start}-${range.end}/${size}`)
            .header('content-length', String(range.end - range.start + 1));
          return reply.send(file.createReadStream(range));
        }
        reply.header('content-length', String(size));
        // Latitude slow-first-byte: now and then the storage host sends the headers at once and the
        // body's first byte seconds later (a cold read of a hosted object store).
        if (latitude.has('slow-first-byte') && coldRead())
          return reply.send(Readable.from(firstByteLate(reply.raw, file)));
        return reply.send(file.createReadStream());
      }
      if (isDone(row.status))
        throw new ApiError(409, `take ${take_id} ended in ${row.status}: it has no audio`);
      if (!offeredBeforeReady(format))
        throw new ApiError(409, `take ${take_id} is not ready: only wav is available before ready`);
      // Defect wav-held-until-ready: the wav is answered before ready, but its body only once the take is done.
      const wav = growingWav(ctx, take_id);
      return reply.send(Readable.from(defects.has('wav-held-until-ready') ? heldUntilEnd(wav) : wav));
    },
  );
}
