/** `speakcheck run`: parse the options, resolve the config, hand over to the run. Exit codes: src/exit-codes.ts. */
import type { Command } from 'commander';
import { loadConfigFile } from '../../config/config-file.ts';
import { ConfigError, printableOptions, type RunFlags, resolveRunConfig } from '../../config/resolve.ts';
import type { RunConfig } from '../../config/types.ts';
import { EXIT, exitCodesHelp } from '../../exit-codes.ts';
import {
  DEFAULT_MAX_TIME_MS,
  defaultMaxTimeMs,
  FULL_EXPIRY_MAX_TIME_MS,
  runConformance,
} from '../../run/run-conformance.ts';

/** `--max-time` in seconds (fractions allowed) → ms; undefined when not given. */
function parseMaxTime(raw: string | undefined): number | undefined {
  if (raw === undefined || raw === '') return undefined;
  const seconds = Number(raw);
  if (!Number.isFinite(seconds) || seconds <= 0)
    throw new ConfigError(`--max-time "${raw}" is not a positive number of seconds (e.g. 300).`);
  return Math.round(seconds * 1000);
}

export type RunCommandFlags = RunFlags & {
  allureHtml?: boolean;
  maxTime?: string;
  list?: boolean;
  config?: string;
  printConfig?: boolean;
};

export const EXIT_CODES_HELP = exitCodesHelp([
  'ok',
  'failed',
  'usage',
  'targetUnavailable',
  'harnessError',
  'interrupted',
]);

/** The resolved config as `--print-config` shows it: secrets replaced, where the file was. */
export function printableConfig(
  config: RunConfig,
  extra: { configFile: string | undefined; maxTimeMs: number },
): Record<string, unknown> {
  return { ...printableOptions(config, extra.configFile), maxTimeMs: extra.maxTimeMs };
}

export function registerRun(program: Command): void {
  const command = program
    .command('run')
    .description(
      `Run the Speak v1 conformance suites against a server (default: the embedded reference stack).\n${EXIT_CODES_HELP}`,
    );
  addRunOptions(command).action(runAction);
}

/** The options of `run`, shared by `rerun` (the same names, the same meaning). */
export function addRunOptions(command: Command): Command {
  return command
    .option(
      '--base-url <url>',
      'server under test (env SPEAK_BASE_URL); absent: start the embedded reference stack',
    )
    .option('--auth-url <url>', 'where /auth/* lives (env SPEAK_AUTH_URL; default: the base url)')
    .option('--email <email>', 'login email (env SPEAK_EMAIL)')
    .option(
      '--password <password>',
      'login password (env SPEAK_PASSWORD; prefer the env var: flags show in ps)',
    )
    .option('--token <token>', 'a permanent token instead of email/password (env SPEAK_TOKEN)')
    .option('--model <name>', 'model under test (env SPEAK_MODEL; default: the first listed)')
    .option(
      '--webhook-url <url>',
      'public URL of the harness webhook sink, for remote servers (env SPEAK_WEBHOOK_URL)',
    )
    .option(
      '--webhook-listen <host:port>',
      'where the webhook sink listens, HOST:PORT or PORT (env SPEAK_WEBHOOK_LISTEN; default 127.0.0.1, a free port or the --webhook-url port)',
    )
    .option('--request-timeout <ms>', 'bound of one HTTP exchange (default 15000)')
    .option('--ready-timeout <ms>', 'bound of waiting for a voice/take to be ready (default 60000)')
    .option(
      '--access-token-lifetime <s>',
      "seconds the server's access tokens live (env SPEAK_ACCESS_TOKEN_LIFETIME; default: read a JWT's exp); " +
        'waited out to judge AUTH-EXPIRED-TOKEN-401 when up to --max-expiry-wait, or any within --max-time with --expiry full',
    )
    .option(
      '--ws-url-lifetime <s>',
      "seconds the server's websocket URLs live (env SPEAK_WS_URL_LIFETIME; default: read the URL's expiry if it shows one); " +
        "waited out to judge WS-URL-EXPIRED-REFUSED when up to --max-expiry-wait, or any within --max-time with --expiry full (default: the contract's hour)",
    )
    .option(
      '--max-expiry-wait <s>',
      'the longest lifetime a quick run (--expiry quick) waits out (env SPEAK_MAX_EXPIRY_WAIT; default 20); longer: those requirements are not judged, saying what would judge them',
    )
    .option(
      '--profile <profile>',
      'strict (MUST and SHOULD gate; default), lenient (only MUST gates), acceptance (strict, and any MUST, SHOULD or security check not judged fails; --expiry full) or sdk (strict plus the wire facts the vendor SDK relies on, as SHOULD) (env SPEAK_PROFILE)',
    )
    .option(
      '--expiry <mode>',
      'quick: wait out lifetimes up to --max-expiry-wait; full: wait out the real ones (token, signed URL, websocket URL hour) beside the rest of the run, within --max-time (env SPEAK_EXPIRY; default: full in the acceptance profile, else quick)',
    )
    .option(
      '--signed-url-lifetime <s>',
      "seconds the server's signed audio URLs live (env SPEAK_SIGNED_URL_LIFETIME; default: read X-Amz-Expires); judges AUDIO-SIGNED-EXPIRES where the run waits it out",
    )
    .option(
      '--only <areas>',
      'comma-separated areas: auth,models,voices,takes,lists,audio,errors,docs,version,websocket,webhooks,security',
    )
    .option(
      '--requirement <ids>',
      'run only the tests covering these requirement ids, comma-separated, repeatable (env SPEAK_REQUIREMENTS); ' +
        'only they are judged; without --only, only their areas load',
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .option(
      '--expect <file>',
      'expected failures, YAML or JSON list of {requirement, reason, link?, expires?} (env SPEAK_EXPECT; default: ./speakcheck.expect.yaml when present): ' +
        'listed failures do not fail the run; an unexpected pass is reported (exit unchanged); an expired entry fails the run',
    )
    .option(
      '--list',
      'print the areas, tests and requirement ids this selection (--only, --requirement) would run, and exit: contacts no server, starts no stack',
    )
    .option('--concurrency <n>', 'upper bound of requests in flight (default 8)')
    .option('--keep', 'keep what the run creates (default: delete it at the end)')
    .option('--report-dir <dir>', 'where the reports go (default reports/<timestamp>/)')
    .option(
      '--target <target>',
      'embedded | container (API + worker containers) | remote (default: remote when a base url is given)',
    )
    .option('--allure-html', 'also generate the Allure HTML report (needs the allure CLI)')
    .option(
      '--max-time <s>',
      `budget of the whole run in seconds (env SPEAK_MAX_TIME; default ${DEFAULT_MAX_TIME_MS / 1000}, with --expiry full ${FULL_EXPIRY_MAX_TIME_MS / 1000}): then, as on Ctrl-C, what has not finished is "not concluded (timeout)", the reports are written and the exit code is 1`,
    )
    .option(
      '--config <file>',
      'options from a JSON or YAML file (default: speakcheck.config.json|yaml|yml in the working directory); ' +
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the help shows the file's own syntax
        'keys as the flags in camelCase (baseUrl, reportDir, …), ${NAME} replaced from the environment; flags > env > file',
    )
    .option('--print-config', 'print the resolved options (secrets redacted) and exit 0, contacting nothing')
    .option(
      '--second-email <email>',
      "a second account's login email (env SPEAK_SECOND_EMAIL), for the security area's isolation checks (customer B against A's items); the embedded and container stacks make one themselves",
    )
    .option(
      '--second-password <password>',
      "the second account's password (env SPEAK_SECOND_PASSWORD; prefer the env var: flags show in ps)",
    )
    .option(
      '--second-token <token>',
      'a permanent token of the second account instead of its email/password (env SPEAK_SECOND_TOKEN)',
    )
    .option(
      '--max-rps <n>',
      "run-wide request rate to stay under from the start, e.g. a hosted server's known limit (env SPEAK_MAX_RPS; default: unpaced until the server answers 429)",
    )
    .option(
      '--ca-file <file>',
      'a private CA (PEM) to trust besides the system roots, for https and wss alike (env SPEAK_CA_FILE); certificate verification is never turned off',
    );
}

/** Resolve the config and run; exits the process with the run's code. */
export async function runAction(flags: RunCommandFlags): Promise<never> {
  let code: number;
  try {
    const file = loadConfigFile(flags.config);
    const config = resolveRunConfig(flags, process.env, new Date(), file?.values);
    const maxTimeMs = parseMaxTime(
      [flags.maxTime, process.env.SPEAK_MAX_TIME, file?.values.maxTime].find(
        (v) => v !== undefined && v !== '',
      ),
    );
    if (flags.printConfig) {
      const shown = printableConfig(config, {
        configFile: file?.path,
        maxTimeMs: maxTimeMs ?? defaultMaxTimeMs(config),
      });
      process.stdout.write(`${JSON.stringify(shown, null, 2)}\n`);
      process.exit(EXIT.ok);
    }
    if (flags.list) process.exit(await listAction(config));
    code = await runConformance(config, {
      allureHtml: flags.allureHtml === true,
      ...(maxTimeMs === undefined ? {} : { maxTimeMs }),
    });
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`speakcheck run: ${err.message}\n`);
      code = EXIT.usage;
    } else {
      process.stderr.write(
        `speakcheck run: could not run: ${err instanceof Error ? err.message : String(err)}\n`,
      );
      code = EXIT.targetUnavailable;
    }
  }
  // Vitest and undici may keep handles open; the verdict is final here.
  process.exit(code);
}

/** `run --list`: collect, print, exit 0 (1 when a suite file does not load). */
async function listAction(config: RunConfig): Promise<number> {
  const { collectTests, formatList } = await import('../../run/list-tests.ts');
  const { files, errors } = await collectTests(config);
  process.stdout.write(`${formatList(files, config)}\n`);
  for (const e of errors) process.stderr.write(`speakcheck run --list: ${e}\n`);
  return errors.length > 0 ? EXIT.failed : EXIT.ok;
}
