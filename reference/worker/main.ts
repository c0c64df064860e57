/**
 * A synthesis worker: a process forked by worker/pool.ts, or (serve --worker-threads, the stack a run
 * starts itself) a worker thread of the API process, which spares the run a Node process (its
 * runtime, its module loading: ~40 MB and a few tenths of a CPU-second). It shares the stack's
 * SQLite database, claims REST jobs with a lease, synthesizes them (worker/synthesize-take.ts) and
 * tells the API over IPC (a thread: its port) when it wrote item events. The API wakes it the same way when a job is queued;
 * a 1 s poll covers a missed wake.
 *
 * Environment: SPEAK_WORKER_ID, SPEAK_DATA_DIR, SPEAK_WORKER_OPTIONS (JSON of the stack options the
 * worker needs, e.g. websocketUrlTtlSeconds; `models` limits the REST jobs it claims and the
 * websockets it serves).
 *
 * Stopping (SIGTERM/SIGINT, or the pool's `shutdown` message): it claims nothing more, stops its take
 * at the next part, gives the jobs it holds back to the queue at once (no lease wait), deregisters and
 * exits; STOP_BOUND_MS after the signal it exits even if a part is still being spoken.
 *
 * Websocket hook: `startWorkerWebsocket(context: WorkerHookContext)` of `./websocket/index.ts`
 * (the context's type: ./hook-context.ts) is started here after the synthesizer. It can talk to the API with `context.send(message)` (the API
 * pool re-emits every message whose `type` it does not know as a 'message' event).
 */
import { isMainThread, parentPort } from 'node:worker_threads';
import { adoptParentDefects, defects } from '../defects/index.ts';
import {
  claimJob,
  finishJob,
  heartbeatJob,
  LEASE_MS,
  releaseJob,
  returnOwnerJobs,
} from '../jobs/job-queue.ts';
import { hostedLatency } from '../latitude/hosted-latency.ts';
import { adoptParentLatitude } from '../latitude/index.ts';
import { openDatabase } from '../store/db.ts';
import { createSynthesizer } from '../synth/index.ts';
import { heartbeatWorker, REGISTRY_HEARTBEAT_MS, registerWorker, unregisterWorker } from './registry.ts';
import { synthesizeTake } from './synthesize-take.ts';

const workerId = process.env.SPEAK_WORKER_ID ?? 'worker';
const dataDir = process.env.SPEAK_DATA_DIR;
if (!dataDir) throw new Error('SPEAK_DATA_DIR is not set');
const options = JSON.parse(process.env.SPEAK_WORKER_OPTIONS ?? '{}') as Record<string, unknown>;
const owner = `${workerId}:${process.pid}`;
/** Models this worker serves (`speakcheck worker --models`); absent = all (the embedded workers). */
const models =
  Array.isArray(options.models) && options.models.length > 0 ? options.models.map(String) : undefined;
/** From the stop signal to the exit, whatever the synthesizer is doing. */
const STOP_BOUND_MS = 5000;
// A forked worker takes its parent's switches; a standalone one had them activated by `speakcheck
// worker --defect` in this very process before this module was imported.
adoptParentDefects();
adoptParentLatitude();

// A thread of the API process (pool.ts with threads): its port is the channel to the API.
const port = isMainThread ? null : parentPort;
// Standalone (`speakcheck worker`, e.g. its own container): no IPC to the API. It registers in the
// shared database instead (worker/registry.ts), logs to stdout, and the API finds its jobs by polling.
const standalone = port === null && typeof process.send !== 'function';
type Message = { type?: string } | undefined;
const onMessage = (listener: (message: Message) => void): (() => void) => {
  if (port) {
    port.on('message', listener);
    return () => port.off('message', listener);
  }
  process.on('message', listener);
  return () => process.off('message', listener);
};
const send = (message: { type: string } & Record<string, unknown>) => {
  if (port) {
    port.postMessage(message);
    return;
  }
  if (standalone) {
    if (message.type === 'log') console.log(String(message.line));
    else if (message.type === 'websocket-listening' && typeof message.url === 'string') {
      registerWorker(db, {
        id: workerId,
        pid: process.pid,
        models: Array.isArray(message.models) ? message.models.map(String) : [],
        websocketUrl: message.url,
        defects: defects.list(),
      });
    }
    return;
  }
  if (process.connected) process.send?.(message);
};
const log = (line: string) => send({ type: 'log', line: `[${workerId}] ${line}` });
const notifyEvents = () => send({ type: 'events' });

// Without the API there is nothing to work for (a thread ends with its process anyway).
process.on('disconnect', () => process.exit(0));

/** Start-up phases, as seconds since the process (or thread) started (logged by the pool: worker/pool.ts). */
const startedAt = Number(process.env.SPEAK_WORKER_STARTED_AT);
const uptime = () =>
  port && Number.isFinite(startedAt) ? (Date.now() - startedAt) / 1000 : process.uptime();
const startup = { modules: uptime(), synthesizer: 0, websocket: 0 };
const db = openDatabase(dataDir);
// With serve --replay-spoken-parts (the stack a run starts itself), a part spoken before is
// replayed at the engine's pace, not computed again (reference/synth/part-replay.ts).
const synth = await createSynthesizer({ replaySpokenParts: options.replaySpokenParts === true });
startup.synthesizer = uptime();

let closing = false;
let wakeUp: (() => void) | undefined;
const waitForWork = (ms: number) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      wakeUp = undefined;
      resolve();
    }
    wakeUp = done;
  });

// The websocket endpoint of this worker (./websocket/index.ts), after the synthesizer.
const { startWorkerWebsocket } = await import('./websocket/index.ts');
const hook: { close(): Promise<void> } = await startWorkerWebsocket({
  workerId,
  dataDir,
  db,
  synthesizer: synth,
  createSynthesizer,
  options,
  send,
  onMessage,
  notifyEvents,
  log,
});

if (standalone) {
  // The websocket hook registered this worker with its models and URL (send above).
  const beat = setInterval(() => heartbeatWorker(db, workerId), REGISTRY_HEARTBEAT_MS);
  beat.unref();
}

let exiting = false;
/** Last step of every stop: held jobs back to the queue, out of the registry, exit. Synchronous, so
 *  no sample callback of this worker can write after its job was given back. */
function exitNow(code: number): void {
  if (exiting) return;
  exiting = true;
  const returned = returnOwnerJobs(db, owner);
  if (returned > 0) log(`${returned} job(s) given back to the queue`);
  if (standalone) unregisterWorker(db, workerId);
  db.close();
  // In a thread: ends the thread, not the API's process.
  process.exit(code);
}

function stop(why: string): void {
  if (closing) return;
  closing = true;
  log(`${why}: stopping`);
  wakeUp?.();
  setTimeout(() => {
    log(`not stopped within ${STOP_BOUND_MS} ms; exiting anyway`);
    exitNow(0);
  }, STOP_BOUND_MS);
}
process.once('SIGTERM', () => stop('SIGTERM'));
process.once('SIGINT', () => stop('SIGINT'));

onMessage((message) => {
  if (message?.type === 'wake') wakeUp?.();
  if (message?.type === 'shutdown') stop('shutdown');
});

startup.websocket = uptime();
send({ type: 'ready', pid: process.pid, startup });

async function runJob(job: { jobId: number; takeId: string }): Promise<void> {
  let ours = true;
  const heartbeat = setInterval(() => {
    ours = heartbeatJob(db, job.jobId, owner);
  }, LEASE_MS / 3);
  try {
    const result = await synthesizeTake(
      { db, synth, dataDir: dataDir!, workerId, notifyEvents, stillOurs: () => ours && !closing },
      job.takeId,
    );
    // Interrupted by a stop: the job stays leased here and exitNow gives it back to the queue.
    if (result === 'ready' || !closing) finishJob(db, job.jobId, owner);
  } catch (error) {
    log(`take ${job.takeId} failed: ${(error as Error).message}`);
    releaseJob(db, job.jobId, owner, (error as Error).message);
  } finally {
    clearInterval(heartbeat);
  }
}

/**
 * Jobs this worker runs at once: one (espeak is one engine), except under latitude hosted-latency,
 * where a job mostly waits on timers (queue, per-part pace) as a hosted service's many synthesizers
 * would: there the parts still queue behind each other in the one synthesizer, the waits overlap.
 */
const HOSTED_PARALLEL_JOBS = 8;
const parallelJobs = hostedLatency() ? HOSTED_PARALLEL_JOBS : 1;
const running = new Set<Promise<void>>();

while (!closing) {
  const job =
    running.size < parallelJobs
      ? claimJob(db, owner, { onTakeFailed: notifyEvents, ...(models ? { models } : {}) })
      : undefined;
  if (!job) {
    await waitForWork(1000);
    continue;
  }
  if (parallelJobs === 1) {
    await runJob(job);
    continue;
  }
  const run: Promise<void> = runJob(job).finally(() => {
    running.delete(run);
    wakeUp?.(); // a slot is free: claim the next job now
  });
  running.add(run);
}
await Promise.all(running);

// Give the jobs back before closing the websockets and the synthesizer (which may take a while).
const returned = returnOwnerJobs(db, owner);
if (returned > 0) log(`${returned} job(s) given back to the queue`);
await Promise.race([
  Promise.all([hook.close(), synth.close()]),
  new Promise((resolve) => setTimeout(resolve, 3000)),
]);
exitNow(0);
