/**
 * What worker/main.ts hands the websocket hook (worker/websocket/index.ts): the worker's database,
 * synthesizer, options and IPC. Apart from main.ts so the hook can name it without importing the
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
  notifyEvents(): void;
  log(line: string): void;
}
