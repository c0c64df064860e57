/** What the API's plugins share: the database, services and the stack's options. */
import type { Ajv2020 } from 'ajv/dist/2020.js';
import type { Database } from 'better-sqlite3';
import type { TokenService } from '../auth/tokens.ts';
import type { StackOptions } from '../options.ts';
import type { AudioUrlSigner } from '../signing/audio-url.ts';
import type { AudioFiles } from '../store/audio-files.ts';
import type { WorkerInfo } from '../worker/pool.ts';

export interface ApiContext {
  db: Database;
  dataDir: string;
  options: StackOptions;
  ajv: Ajv2020;
  tokens: TokenService;
  signer: AudioUrlSigner;
  audio: AudioFiles;
  /** A job was queued: wake the workers. */
  wakeWorkers(): void;
  /** Item events were written by this process: wake the event tail. */
  wakeEvents(): void;
  workers(): WorkerInfo[];
  /** http://host:port the stack listens on (for absolute URLs when a request has no Host). */
  baseUrl(): string;
  /** Public origin of the blob-store listener that serves signed audio URLs; undefined = the API's own origin. */
  blobBaseUrl(): string | undefined;
  /** serve --tls: the key and certificate every listener of the stack serves https with. */
  https?: { key: Buffer; cert: Buffer };
  log(line: string): void;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the bearer guard on protected routes. */
    userId: string;
  }
}
