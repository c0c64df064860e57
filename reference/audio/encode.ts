/**
 * WAV → compressed formats with the static ffmpeg of @ffmpeg-installer/linux-x64.
 *
 * Each call is one bounded ffmpeg process: killed (SIGKILL) when it exceeds its timeout, and a failure
 * throws an Error carrying the tail of ffmpeg's stderr. Output is written to a temporary name beside
 * outPath and renamed on success, so a reader never sees a half-written file.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rename, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { AudioFormat } from './formats.ts';

export const DEFAULT_ENCODE_TIMEOUT_MS = 60_000;
const STDERR_TAIL_BYTES = 2_000;

/** Path of the ffmpeg binary shipped by @ffmpeg-installer/linux-x64 (it has no JS entry point). */
export const FFMPEG_PATH = join(
  dirname(createRequire(import.meta.url).resolve('@ffmpeg-installer/linux-x64/package.json')),
  'ffmpeg',
);

type EncodedFormat = Exclude<AudioFormat, 'wav'>;

/**
 * Codec and container arguments per format. FLAC keeps the source rate (lossless, exact length).
 * The lossy formats are resampled to 48 kHz: Opus only runs at 48 kHz, and for MP3 and AAC the
 * encoder delay and frame padding that duration readers count (music-metadata and many players take
 * frames × frame size and ignore the LAME/edit-list gapless info) shrink with the frame duration:
 * measured +46 ms (AAC) and up to +72 ms (MP3, MPEG-2 frames) at 22050 Hz, against +21 ms and at
 * most ~48 ms at 48 kHz.
 */
const FORMAT_ARGS: Record<EncodedFormat, string[]> = {
  mp3: ['-c:a', 'libmp3lame', '-q:a', '4', '-ar', '48000', '-f', 'mp3'],
  // AAC in MP4; the index (moov) first so a player can start before the whole file is there.
  m4a: ['-c:a', 'aac', '-b:a', '96k', '-ar', '48000', '-movflags', '+faststart', '-f', 'ipod'],
  flac: ['-c:a', 'flac', '-f', 'flac'],
  webm: ['-c:a', 'libopus', '-b:a', '48k', '-ar', '48000', '-f', 'webm'],
};

export class FfmpegError extends Error {
  constructor(
    message: string,
    readonly stderrTail: string,
  ) {
    super(stderrTail ? `${message}: ${stderrTail}` : message);
    this.name = 'FfmpegError';
  }
}

/** Runs ffmpeg with args; resolves on exit 0, else throws FfmpegError (also on timeout). */
export function runFfmpeg(args: string[], timeoutMs = DEFAULT_ENCODE_TIMEOUT_MS): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(FFMPEG_PATH, ['-nostdin', '-hide_banner', '-loglevel', 'error', ...args], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (text: string) => {
      stderr = (stderr + text).slice(-STDERR_TAIL_BYTES);
    });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(new FfmpegError(`ffmpeg could not start (${error.message})`, ''));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const tail = stderr.trim();
      if (timedOut) reject(new FfmpegError(`ffmpeg killed after ${timeoutMs} ms`, tail));
      else if (code === 0) resolve();
      else reject(new FfmpegError(`ffmpeg failed (${signal ? `signal ${signal}` : `exit ${code}`})`, tail));
    });
  });
}

export async function encodeWavFile(
  wavPath: string,
  format: EncodedFormat,
  outPath: string,
  o: { timeoutMs?: number } = {},
): Promise<void> {
  const args = FORMAT_ARGS[format];
  if (!args) throw new Error(`unknown encoded format ${String(format)}`);
  const partial = `${outPath}.${randomBytes(6).toString('hex')}.partial`;
  try {
    await runFfmpeg(['-y', '-i', wavPath, '-vn', ...args, partial], o.timeoutMs ?? DEFAULT_ENCODE_TIMEOUT_MS);
    await rename(partial, outPath);
  } catch (error) {
    await rm(partial, { force: true });
    throw error;
  }
}
