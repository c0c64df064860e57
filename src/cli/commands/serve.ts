/**
 * `speakcheck serve`: starts the reference stack and prints, one per line on stdout,
 * `base_url=...`, `blob_url=...` (unless --blob-url same-origin), `email=...`, `password=...` (the seeded demo user; the same password for the same
 * --data dir), `second_email=...`, `second_password=...` (a second seeded user: another customer) and `token=...` (with --permanent-token), then logs on stderr (no tokens, no passwords).
 * Stops cleanly (workers too) on SIGINT/SIGTERM.
 */
import { type Command, InvalidArgumentError, Option } from 'commander';
import { blobOrigin, DEFAULT_OPTIONS, type ExtraUser, SAME_ORIGIN } from '../../../reference/options.ts';
import { startReferenceStack } from '../../../reference/server.ts';
import { SYNTHESIS_DELAY_ENV } from '../../../reference/synth/slowdown.ts';
import { TlsSetupError } from '../../../reference/tls.ts';
import { WEBHOOK_ALLOW_VALUES } from '../../../reference/webhooks/index.ts';
import { EXIT } from '../../exit-codes.ts';
import { StackStartError } from '../../stack/embedded.ts';
import { startTarget, stopAllTargets, stopTargetsOnSignal } from '../../stack/target.ts';
import {
  announceDefects,
  announceLatitude,
  DEFECT_FLAG_DESCRIPTION,
  defectFlag,
  LATITUDE_FLAG_DESCRIPTION,
  latitudeFlag,
  switchNamesHelp,
} from '../defect-flag.ts';
import { onParentGone } from '../parent-watch.ts';

function integer(min: number) {
  return (value: string): number => {
    const n = Number(value);
    if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < min) {
      throw new InvalidArgumentError(`must be an integer >= ${min}`);
    }
    return n;
  };
}

function positiveNumber(value: string): number {
  const n = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value) || !(n > 0)) throw new InvalidArgumentError('must be a number > 0');
  return n;
}

function port(value: string): number {
  const n = integer(0)(value);
  if (n > 65535) throw new InvalidArgumentError('must be a port 0..65535');
  return n;
}

function user(value: string, previous: ExtraUser[] = []): ExtraUser[] {
  const at = value.indexOf(':');
  if (at <= 0 || at === value.length - 1) throw new InvalidArgumentError('must be EMAIL:PASSWORD');
  return [...previous, { email: value.slice(0, at), password: value.slice(at + 1) }];
}

function blobUrl(value: string): string {
  if (value === SAME_ORIGIN) return value;
  try {
    return blobOrigin(value);
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message.replace('option blobUrl', 'it'));
  }
}

interface ServeFlags {
  target: 'embedded' | 'container';
  host: string;
  port: number;
  data?: string;
  workers: number;
  accessTokenTtl: number;
  signedUrlTtl: number;
  websocketUrlTtl: number;
  wsShuffleWindow: number;
  wsSharesSynthesizer?: boolean;
  replaySpokenParts?: boolean;
  workerThreads?: boolean;
  blobUrl?: string;
  blobPort: number;
  user?: ExtraUser[];
  permanentToken?: boolean;
  webhookAllow?: string;
  defect?: string[];
  latitude?: string[];
  latencySeed: number;
  rateLimitRps: number;
  rateLimitBurst: number;
  rateLimitRetryAfter?: number;
  tls?: boolean;
  synthesisDelayMs: number;
}

export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('Start the reference Speak v1 stack (REST API, workers, signed audio URLs, docs)')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <n>', 'port (0 = any free port)', port, 0)
    .option('--data <dir>', 'data directory (SQLite + audio); default: a temp dir removed on exit')
    .option(
      '--workers <n>',
      'synthesis worker processes (0 = API only; add `speakcheck worker` processes)',
      integer(0),
      2,
    )
    .option('--access-token-ttl <s>', 'access token lifetime in seconds', integer(1), 900)
    .option(
      '--signed-url-ttl <s>',
      'signed audio URL lifetime in seconds (SDK caches 10 min)',
      integer(1),
      900,
    )
    .option('--websocket-url-ttl <s>', 'websocket URL lifetime in seconds', integer(1), 3600)
    .option(
      '--ws-shuffle-window <n>',
      'send websocket audio frames out of order within a window of n frames (0 = in order)',
      integer(0),
      0,
    )
    .option(
      '--ws-shares-synthesizer',
      "each worker's websocket endpoint speaks with its REST synthesizer (one espeak thread per worker instead of two: less CPU and memory, websocket parts may queue behind a REST part); the stack a run starts itself",
    )
    .option(
      '--replay-spoken-parts',
      "a part espeak spoke before is replayed at the engine's pace instead of computed again (the same audio and streaming, less CPU; load figures would no longer measure espeak); the stack a run starts itself",
    )
    .option(
      '--worker-threads',
      'run the synthesis workers as threads of the API process instead of child processes (one Node process fewer: less CPU and memory); the stack a run starts itself',
    )
    .option(
      '--blob-url <url|same-origin>',
      "public origin of the blob-store listener that serves signed audio URLs (default: its own http://HOST:PORT); 'same-origin' = no listener, signed URLs on the API origin",
      blobUrl,
    )
    .option('--blob-port <n>', 'port of the blob-store listener (0 = any free port)', port, 0)
    .option('--user <email:password>', 'an extra user (repeatable)', user)
    .option('--permanent-token', 'create a never-expiring token for the demo user and print token=...')
    .addOption(
      new Option('--webhook-allow <targets>', 'which webhook targets may be called').choices([
        ...WEBHOOK_ALLOW_VALUES,
      ]),
    )
    .option(
      '--synthesis-delay-ms <n>',
      'a slower synthesizer on purpose: each part holds its synthesizer n ms longer (load tests; never a verdict)',
      integer(0),
      0,
    )
    .option('--defect <name>', DEFECT_FLAG_DESCRIPTION, defectFlag)
    .option('--latitude <name>', LATITUDE_FLAG_DESCRIPTION, latitudeFlag)
    .option(
      '--tls',
      'https and wss with a throwaway CA made at start (needs openssl); prints ca_file=<path of its PEM>',
    )
    .option(
      '--rate-limit-rps <n>',
      'requests per second per token under --latitude rate-limit',
      positiveNumber,
      DEFAULT_OPTIONS.rateLimitRps,
    )
    .option(
      '--rate-limit-burst <n>',
      'requests at once per token under --latitude rate-limit',
      integer(1),
      DEFAULT_OPTIONS.rateLimitBurst,
    )
    .option(
      '--rate-limit-retry-after <s>',
      "the Retry-After of --latitude rate-limit's 429, in seconds (default: until a token is back)",
      integer(1),
    )
    .option(
      '--latency-seed <n>',
      'seed of the random delays of --latitude hosted-latency (the same seed, the same figures)',
      integer(0),
      1,
    )
    .addOption(
      new Option('--target <kind>', 'in-process stack, or API + 2 worker containers (testcontainers)')
        .choices(['embedded', 'container'])
        .default('embedded'),
    )
    .addHelpText('after', switchNamesHelp())
    .action(async (flags: ServeFlags) => {
      const log = (line: string) => process.stderr.write(`${new Date().toISOString()} ${line}\n`);
      if (flags.target === 'container') return serveContainers(log);
      // Read by every synthesizer, in this process and in the worker processes it forks (inherited env).
      if (flags.synthesisDelayMs > 0) {
        process.env[SYNTHESIS_DELAY_ENV] = String(flags.synthesisDelayMs);
        log(`SLOWED: each synthesized part holds its synthesizer ${flags.synthesisDelayMs} ms longer`);
      }
      const stack = await startReferenceStack({
        host: flags.host,
        port: flags.port,
        dataDir: flags.data,
        workers: flags.workers,
        accessTokenTtlSeconds: flags.accessTokenTtl,
        signedUrlTtlSeconds: flags.signedUrlTtl,
        websocketUrlTtlSeconds: flags.websocketUrlTtl,
        wsShuffleWindow: flags.wsShuffleWindow,
        wsSharesSynthesizer: flags.wsSharesSynthesizer === true,
        replaySpokenParts: flags.replaySpokenParts === true,
        workerThreads: flags.workerThreads === true,
        blobUrl: flags.blobUrl,
        blobPort: flags.blobPort,
        users: flags.user ?? [],
        permanentToken: flags.permanentToken === true,
        webhookAllow: flags.webhookAllow,
        defects: flags.defect ?? [],
        latitude: flags.latitude ?? [],
        latencySeed: flags.latencySeed,
        rateLimitRps: flags.rateLimitRps,
        rateLimitBurst: flags.rateLimitBurst,
        ...(flags.rateLimitRetryAfter !== undefined
          ? { rateLimitRetryAfterSeconds: flags.rateLimitRetryAfter }
          : {}),
        tls: flags.tls === true,
        log,
      }).catch((error: unknown) => {
        // --tls without openssl (or openssl failing): one sentence, not a stack trace.
        if (!(error instanceof TlsSetupError)) throw error;
        process.stderr.write(`speakcheck serve: could not start: ${error.message}.\n`);
        process.exitCode = error.toolMissing ? EXIT.toolMissing : EXIT.targetUnavailable;
        return undefined;
      });
      if (!stack) return;
      const demo = stack.users[0]!;
      const lines = [
        `base_url=${stack.baseUrl}`,
        ...(stack.blobUrl ? [`blob_url=${stack.blobUrl}`] : []),
        `email=${demo.email}`,
        `password=${demo.password}`,
        // Another customer, for the harness's isolation checks (the security area).
        `second_email=${stack.second.email}`,
        `second_password=${stack.second.password}`,
      ];
      if (stack.permanentToken) lines.push(`token=${stack.permanentToken}`);
      // --tls: the CA a client trusts (NODE_EXTRA_CA_CERTS, curl --cacert), on a line of its own.
      if (stack.caFile) lines.push(`ca_file=${stack.caFile}`);
      if (flags.synthesisDelayMs > 0) lines.push(`synthesis_delay_ms=${flags.synthesisDelayMs}`);
      // Loud on both streams: a defective stack must never pass for a clean one.
      lines.push(...announceDefects(flags.defect ?? [], log));
      lines.push(...announceLatitude(flags.latitude ?? [], log));
      process.stdout.write(`${lines.join('\n')}\n`);

      let stopping = false;
      const stop = (signal: string) => {
        if (stopping) return;
        stopping = true;
        log(`${signal}: stopping`);
        stack.close().then(
          () => process.exit(0),
          (error) => {
            log(`close failed: ${(error as Error).message}`);
            process.exit(1);
          },
        );
      };
      // `on`, not `once`: a handler that left only a library's (signal-exit's) listener would let it
      // re-raise the signal and kill the process before the stack is closed (src/stack/target.ts).
      process.on('SIGINT', () => stop('SIGINT'));
      process.on('SIGTERM', () => stop('SIGTERM'));
      // Started by the harness (src/stack/embedded.ts) with an IPC channel: when the harness dies
      // without stopping the stack (SIGKILL, a crash), the channel closes and the stack goes too.
      if (process.send) process.once('disconnect', () => stop('the process that started this stack is gone'));
      // Started by npx or a script that was stopped without us: adopted by init, stop as on TERM.
      onParentGone(() => stop('the process that started this stack is gone (parent pid changed)'));
    });
}

/** `serve --target container`: the container stack (its own port and data dir) until SIGINT/SIGTERM. */
async function serveContainers(log: (line: string) => void): Promise<void> {
  const stopOnSignal = stopTargetsOnSignal(EXIT.ok, (line) => log(`${line} the containers`));
  onParentGone(() => {
    stopOnSignal();
    log('the process that started this stack is gone: stopping the containers');
    void stopAllTargets().finally(() => process.exit(EXIT.ok));
  });
  try {
    const stack = await startTarget('container', { onLog: log });
    process.stdout.write(`base_url=${stack.baseUrl}\nemail=${stack.email}\npassword=${stack.password}\n`);
    // The containers hold no handle in this process: without a timer it would end here, and its
    // exit hook would stop the stack it just announced. It runs until SIGINT/SIGTERM.
    setInterval(() => {}, 2 ** 31 - 1);
  } catch (error) {
    // Not installed (testcontainers), no runtime, the stack did not come up: one sentence.
    if (!(error instanceof StackStartError)) throw error;
    process.stderr.write(`speakcheck serve: could not start: ${error.message}.\n`);
    process.exitCode = EXIT.targetUnavailable;
  }
}
