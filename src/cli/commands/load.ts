import { type Command, InvalidArgumentError, Option } from 'commander';
import type { TargetFlags } from '../../config/types.ts';
import { runCrosscheck } from '../../load/crosscheck.ts';
import { EXIT_K6_UNAVAILABLE, EXIT_THRESHOLDS_FAILED, runLoad } from '../../load/run-load.ts';
import { isScenario, SCENARIOS } from '../../load/scenarios.ts';

/** Usage errors (unknown scenario, unsupported target). */
const EXIT_USAGE = 2;

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a positive integer');
  return n;
}

function keyValue(value: string, previous: Record<string, string> = {}): Record<string, string> {
  const match = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(value);
  if (!match) throw new InvalidArgumentError('expected NAME=value (NAME in upper case, e.g. RATE=8)');
  return { ...previous, [match[1]!]: match[2]! };
}

interface LoadFlags extends TargetFlags {
  vus?: number;
  duration?: string;
  target: string;
  env?: Record<string, string>;
  out?: string;
  requests: number;
  rounds: number;
}

export function registerLoad(program: Command): void {
  program
    .command('load')
    .description(
      `Run a k6 load scenario (${SCENARIOS.join(', ')}) or the k6-vs-Node TTFC cross-check (crosscheck). ` +
        'Without --base-url the reference stack is started and stopped around the run. ' +
        `Exit codes: 0 thresholds hold, ${EXIT_THRESHOLDS_FAILED} thresholds failed, ${EXIT_K6_UNAVAILABLE} k6 unavailable, 4 target unavailable.`,
    )
    .argument('<scenario>', `${SCENARIOS.join(' | ')} | crosscheck`)
    .option(
      '--base-url <url>',
      'server under test (default: start the embedded reference stack)',
      process.env.SPEAK_BASE_URL,
    )
    .option('--auth-url <url>', 'auth server (default: the base url)', process.env.SPEAKCHECK_AUTH_URL)
    .option('--email <email>', 'login email (or SPEAK_EMAIL)', process.env.SPEAK_EMAIL)
    .option(
      '--password <password>',
      'login password (prefer SPEAK_PASSWORD: argv is visible to ps)',
      process.env.SPEAK_PASSWORD,
    )
    .option('--token <token>', 'permanent token instead of login (or SPEAK_TOKEN)', process.env.SPEAK_TOKEN)
    .option('--model <name>', 'model under test (default: the first listed)')
    .option('--vus <n>', 'virtual users (websocket connections / concurrent clients)', positiveInt)
    .option('--duration <d>', 'duration per scenario phase, e.g. 10s')
    .addOption(
      new Option('--target <kind>', 'the stack to start without --base-url')
        .choices(['embedded', 'container'])
        .default('embedded'),
    )
    .option(
      '--env <NAME=value>',
      'scenario knob passed to k6 (repeatable), e.g. RATE=8, STEPS=1,2,4',
      keyValue,
    )
    .option('--out <dir>', 'run directory (default reports/load/<run>)')
    .option('--requests <n>', 'crosscheck: takes measured per side', positiveInt, 40)
    .option('--rounds <n>', 'crosscheck: k6 runs, alternating with Node runs', positiveInt, 3)
    .action(async (scenario: string, flags: LoadFlags) => {
      // --target container: API + worker containers (src/stack/container.ts), stopped at the end,
      // on failure and on SIGINT/SIGTERM.
      let containers: { stop(): Promise<void> } | undefined;
      if (flags.target === 'container' && !flags.baseUrl) {
        const launcher = await import('../../stack/container.ts');
        const onSignal = () => {
          void launcher.stopAllContainers().finally(() => process.exit(130));
        };
        process.once('SIGINT', onSignal);
        process.once('SIGTERM', onSignal);
        try {
          const stack = await launcher.startContainerStack({ onLog: (line) => console.error(line) });
          containers = stack;
          flags.baseUrl = stack.baseUrl;
          flags.email = stack.email;
          flags.password = stack.password;
          flags.token = undefined;
        } catch (error) {
          console.error(`speakcheck load: the container stack did not start: ${(error as Error).message}`);
          process.exitCode = 4;
          return;
        }
      }
      try {
        await runScenario(scenario, flags);
      } finally {
        await containers?.stop();
      }
    });
}

async function runScenario(scenario: string, flags: LoadFlags): Promise<void> {
  const target = {
    baseUrl: flags.baseUrl?.replace(/\/+$/, ''),
    authUrl: flags.authUrl,
    email: flags.email,
    password: flags.password,
    token: flags.token,
    model: flags.model,
  };
  if (scenario === 'crosscheck') {
    const r = await runCrosscheck({
      ...target,
      requests: flags.requests,
      rounds: flags.rounds,
      outDir: flags.out,
    });
    if (r.reason) console.error(`speakcheck load crosscheck: ${r.reason}`);
    if (r.differenceMs !== undefined) {
      console.log(
        `k6 median TTFC ${r.k6MedianMs!.toFixed(2)} ms (${r.k6Samples} takes, ${r.k6Failures} failed), ` +
          `node median ${r.nodeMedianMs!.toFixed(2)} ms (${r.nodeSamples} takes, ${r.nodeFailures} failed): ` +
          `median difference k6 - node = ${r.differenceMs.toFixed(2)} ms`,
      );
      console.log(`report: ${r.runDir}/crosscheck.md`);
    }
    process.exitCode = r.exitCode;
    return;
  }
  if (!isScenario(scenario)) {
    console.error(
      `speakcheck load: unknown scenario "${scenario}" (have: ${SCENARIOS.join(', ')}, crosscheck)`,
    );
    process.exitCode = EXIT_USAGE;
    return;
  }
  const r = await runLoad({
    ...target,
    scenario,
    vus: flags.vus,
    duration: flags.duration,
    env: flags.env,
    outDir: flags.out,
  });
  if (r.reason) console.error(`speakcheck load: ${r.reason}`);
  if (r.summary) console.log(`summary: ${r.runDir}/summary.json, ${r.runDir}/summary.md`);
  if (r.exitCode === EXIT_THRESHOLDS_FAILED)
    console.error('speakcheck load: thresholds failed (see summary.md)');
  process.exitCode = r.exitCode;
}
