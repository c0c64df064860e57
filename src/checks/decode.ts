/**
 * Full decoding of fetched audio with the ffmpeg the package ships (@ffmpeg-installer/linux-x64).
 * Header-level parsing (music-metadata) proves the container, not the sound: a FLAC cut in half still
 * has a STREAMINFO that reads fine. Here every byte is decoded, and what comes out is measured:
 * the decoded duration, and every error the decoder reported on the way (a truncated frame, bytes
 * after the stream that are not audio).
 *
 * The harness locates the binary from the package itself (not through reference/, which the harness
 * never imports).
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { type AudioFormat, FORMAT_EXPECTATIONS } from './audio.ts';
import { Finding } from './finding.ts';

/** Decoded to one channel at this rate: only durations are compared, so one common rate suffices. */
const DECODE_RATE = 48_000;
const DECODE_TIMEOUT_MS = 30_000;
const STDERR_TAIL = 2_000;

let ffmpegPath: string | undefined;
export function harnessFfmpegPath(): string {
  ffmpegPath ??= join(
    dirname(createRequire(import.meta.url).resolve('@ffmpeg-installer/linux-x64/package.json')),
    'ffmpeg',
  );
  return ffmpegPath;
}

export interface DecodedAudio {
  /** Seconds of sound the decoder produced from the whole body. */
  durationSeconds: number;
  /** What the decoder reported as errors (empty for a clean stream). */
  errors: string[];
}

/**
 * Decodes `body` completely (stdin → mono s16le at 48 kHz → counted, not kept). Rejects only when
 * ffmpeg cannot run at all; a body it cannot decode resolves with its errors and what it got.
 */
export function decodeAudio(body: Buffer): Promise<DecodedAudio> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      harnessFfmpegPath(),
      [
        '-nostdin',
        '-hide_banner',
        '-loglevel',
        'error',
        '-i',
        'pipe:0',
        '-vn',
        '-ac',
        '1',
        '-ar',
        String(DECODE_RATE),
        '-f',
        's16le',
        'pipe:1',
      ],
      { stdio: ['pipe', 'pipe', 'pipe'] },
    );
    let bytes = 0;
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (text: string) => {
      stderr = (stderr + text).slice(-STDERR_TAIL);
    });
    // ffmpeg may stop reading early (a body it gives up on): that is its answer, not ours to fail.
    child.stdin.on('error', () => undefined);
    child.stdin.end(body);
    const timer = setTimeout(() => child.kill('SIGKILL'), DECODE_TIMEOUT_MS);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(new Error(`the harness could not run ffmpeg (${harnessFfmpegPath()}): ${error.message}`));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const errors = stderr
        .split('\n')
        .map((line) => line.replace(/^\[[^\]]*@ 0x[0-9a-f]+\]\s*/, '').trim())
        .filter(Boolean);
      if (signal) errors.push(`the decoder was stopped (${signal}) after ${DECODE_TIMEOUT_MS} ms`);
      else if (code !== 0 && errors.length === 0) errors.push(`the decoder exited with ${code}`);
      resolve({ durationSeconds: bytes / 2 / DECODE_RATE, errors });
    });
  });
}

/**
 * The body decodes without a decoder error and the sound it holds lasts as long as its own header
 * says (`declaredSeconds`: the container's duration as music-metadata read it, or the wav's data
 * size). A truncated download decodes short of its header (or with errors); a body with bytes
 * after the stream decodes with errors. Tolerance: the format's (lossy encoders' priming and
 * padding, which some headers count and decoders trim).
 */
export function assertDecodesCompletely(
  format: AudioFormat,
  decoded: DecodedAudio,
  declaredSeconds: number | undefined,
  bodyBytes: number,
  where: string,
): void {
  if (decoded.errors.length > 0) {
    throw new Finding(
      `${where}: the ${format} body (${bodyBytes} bytes) does not decode cleanly: ${decoded.errors.length} decoder error(s), first: ${decoded.errors[0]}; ${decoded.durationSeconds.toFixed(3)} s decoded`,
      { where, expected: 'no decoder error', actual: decoded.errors.slice(0, 5) },
    );
  }
  if (declaredSeconds === undefined || !Number.isFinite(declaredSeconds)) return;
  const toleranceMs = FORMAT_EXPECTATIONS[format].toleranceMs;
  const driftMs = Math.abs(decoded.durationSeconds - declaredSeconds) * 1000;
  if (driftMs > toleranceMs) {
    throw new Finding(
      `${where}: the ${format} header declares ${declaredSeconds.toFixed(3)} s but the body decodes to ${decoded.durationSeconds.toFixed(3)} s (off by ${driftMs.toFixed(0)} ms, tolerance ${toleranceMs} ms): ${decoded.durationSeconds < declaredSeconds ? 'the audio is cut short' : 'the body holds more than its header says'}`,
      { where, expected: declaredSeconds, actual: decoded.durationSeconds },
    );
  }
}
