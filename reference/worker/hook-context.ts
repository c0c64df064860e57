/**
 * What worker/main.ts hands the websocket hook (worker/websocket/index.ts): the worker's database,
 * synthesizer, options and its channel to the API (IPC or a thread's port). Apart from main.ts so the hook can name it without importing the
 * module that imports the hook.
 */
import type { Database } from '../store/db.ts';
import type { createSynthesizer, Synthesizer } from '../synth/index.ts';

export interface WorkerHookContext {
  workerId: string;
  dataDir: string;
  db: Database;
  synthesizer: Synthesizer;
  createSynthesizer: typeof createSynthesizer;
  options: Record<string, unknown>;
  send(message: { type: string } & Record<string, unknown>): void;
  /** Listens to the API's messages (IPC of a worker process, the port of a worker thread); returns the way to stop. */
  onMessage(listener: (message: { type?: string } | undefined) => void): () => void;
  notifyEvents(): void;
  log(line: string): void;
}
