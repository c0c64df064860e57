/**
 * `speakcheck worker --data DIR`: one synthesis worker outside the API process (its own container,
 * sharing the API's data volume). It registers itself in the shared SQLite database (id, models,
 * websocket address), claims REST jobs by polling the leased queue and serves websockets for its
 * models. With `--defect NAME` (as `serve --defect`) its worker-side switches are on, announced on
 * stdout (`defects=...`) and stderr, and recorded in its registration. Stops on SIGINT/SIGTERM: the
 * job it holds goes back to the queue at once for another worker, within a bound.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { type Command, InvalidArgumentError } from 'commander';
import { activateDefects } from '../../../reference/defects/index.ts';
import { activateLatitude } from '../../../reference/latitude/index.ts';
import { findModel, MODELS } from '../../../reference/models/catalogue.ts';
import {
  announceDefects,
  announceLatitude,
  DEFECT_FLAG_DESCRIPTION,
  defectFlag,
  LATITUDE_FLAG_DESCRIPTION,
  latitudeFlag,
  switchNamesHelp,
} from '../defect-flag.ts';

/** Model names (aliases such as studio/polyglot too), as the catalogue's public names. */
function models(value: string): string[] {
  const names = value
    .split(',')
    .map((m) => m.trim())
    .filter(Boolean);
  const unknown = names.filter((n) => !findModel(n));
  if (names.length === 0 || unknown.length > 0) {
    throw new InvalidArgumentError(
      `unknown model(s) ${unknown.join(', ')}; known: ${MODELS.map((m) => m.name).join(', ')}`,
    );
  }
  return [...new Set(names.map((n) => findModel(n)!.name))];
}

function port(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > 65535) throw new InvalidArgumentError('must be a port 0..65535');
  return n;
}

interface WorkerFlags {
  data: string;
  id?: string;
  models?: string[];
  host: string;
  wsPort: number;
  wsShuffleWindow: number;
  defect?: string[];
  latitude?: string[];
}

export function registerWorker(program: Command): void {
  program
    .command('worker')
    .description('Run one synthesis worker that joins an API (`serve --workers 0`) through its data dir')
    .requiredOption('--data <dir>', 'the data directory the API uses (shared volume)')
    .option('--id <id>', 'worker id, unique per stack (default: worker-<hostname>-<pid>-<random>)')
    .option('--models <a,b>', 'models this worker serves: REST jobs and websockets (default: all)', models)
    .option('--host <host>', 'address its websocket server listens on', '127.0.0.1')
    .option('--ws-port <n>', 'websocket port (0 = any free port)', port, 0)
    .option('--ws-shuffle-window <n>', 'send websocket audio frames out of order within N', port, 0)
    .option('--defect <name>', DEFECT_FLAG_DESCRIPTION, defectFlag)
    .option('--latitude <name>', LATITUDE_FLAG_DESCRIPTION, latitudeFlag)
    .addHelpText('after', switchNamesHelp())
    .action(async (flags: WorkerFlags) => {
      // Switches live in this process: the worker entry below runs in it and reads them.
      activateDefects(flags.defect ?? []);
      activateLatitude(flags.latitude ?? []);
      const log = (line: string) => process.stderr.write(`${new Date().toISOString()} ${line}\n`);
      const lines = [
        ...announceDefects(flags.defect ?? [], log),
        ...announceLatitude(flags.latitude ?? [], log),
      ];
      if (lines.length > 0) process.stdout.write(`${lines.join('\n')}\n`);
      // Containers on the host network share the hostname and often the pid: add a random suffix.
      process.env.SPEAK_WORKER_ID =
        flags.id ?? `worker-${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
      process.env.SPEAK_DATA_DIR = flags.data;
      process.env.SPEAK_WORKER_OPTIONS = JSON.stringify({
        host: flags.host,
        wsPort: flags.wsPort,
        wsShuffleWindow: flags.wsShuffleWindow,
        ...(flags.models ? { models: flags.models } : {}),
      });
      // The worker entry runs its loop at import and exits the process when it stops.
      await import('../../../reference/worker/main.ts');
    });
}
