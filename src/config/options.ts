/**
 * The option table: every option of `speakcheck run` (and the ones `rerun`, `load` and
 * `perf compare --interleave` share) declared once, as data. From it come the commander options and
 * their help (addTableOptions in src/cli/option-parsers.ts), the config-file keys (config-file.ts), the environment
 * variables and defaults of the resolution (resolve.ts), `--print-config` and docs/configuration.md
 * (config-docs.ts, `npm run docs:config`). A new option is one entry here; where it lands in
 * RunConfig is one line of resolveRunConfig.
 *
 * The key of each entry is commander's attribute name of the flag (camelCase), which is also the
 * config-file key; the layers are flags > environment > config file > default, option by option.
 */
import { AREAS } from '../requirements/types.ts';
import {
  type OptionParser,
  parseAreas,
  parseCaFile,
  parseExpiryMode,
  parseHttpUrl,
  parseListenAddress,
  parseMaxRps,
  parseMaxTime,
  parseNonNegativeInt,
  parsePositiveInt,
  parseProfile,
  parseTarget,
} from './parsers.ts';
import { parseRequirementIds } from './requirement-selection.ts';
import { PROFILE_RULES, PROFILES } from './types.ts';

/**
 * value: one value (`--model NAME`); switch: no value, true when given (`--keep`; env `1` is true);
 * list: repeatable, each value comma-separated (`--requirement`), a list in the config file;
 * csv: one comma-separated value on the command line, a list or a comma string in the config file.
 */
export type OptionKind = 'value' | 'switch' | 'list' | 'csv';

export interface OptionSpec<T = unknown> {
  /** The flag as commander takes it, with the value's placeholder: `--base-url <url>`. */
  flag: string;
  /** The environment variable that sets it (below the flag, above the config file). */
  env?: string;
  /** The config-file key (the flag in camelCase); absent: the option exists on the command line only. */
  configKey?: string;
  /** Raw text → value; the message of its ConfigError names the flag. Absent: the text as is. */
  parse?: OptionParser<T>;
  /** The value when no layer gives one. */
  default?: T;
  /** The default in words when it depends on other options or the run (help and docs show it). */
  defaultText?: string;
  /** What it does, without env or default: those are added from the entry. */
  help: string;
  kind?: OptionKind;
  /** Redacted by --print-config; the help recommends the environment variable. */
  secret?: boolean;
}

export type OptionTable = Readonly<Record<string, OptionSpec<unknown>>>;

/** Default of `--max-time` in seconds: fifteen times a clean run against the embedded stack (about 20 s). */
export const DEFAULT_MAX_TIME_S = 300;
/**
 * Default of `--max-time` with `--expiry full` (the acceptance profile): the contract's longest
 * lifetime, the websocket URL's hour, plus its margin and ten minutes for the rest of the run. A
 * longer lifetime (a 24 h token) is reported not judged, naming the --max-time that would judge it.
 */
export const FULL_EXPIRY_MAX_TIME_S = 4_200;
export const DEFAULT_MAX_TIME_MS = DEFAULT_MAX_TIME_S * 1000;
export const FULL_EXPIRY_MAX_TIME_MS = FULL_EXPIRY_MAX_TIME_S * 1000;

/** Where the server is and how to sign in: every command that talks to a server (run, rerun, load, perf --interleave). */
export const TARGET_OPTIONS = {
  baseUrl: {
    flag: '--base-url <url>',
    env: 'SPEAK_BASE_URL',
    configKey: 'baseUrl',
    parse: parseHttpUrl,
    defaultText: 'start the embedded reference stack',
    help: 'server under test',
  },
  authUrl: {
    flag: '--auth-url <url>',
    env: 'SPEAK_AUTH_URL',
    configKey: 'authUrl',
    parse: parseHttpUrl,
    defaultText: 'the base url',
    help: 'where /auth/* lives',
  },
  email: { flag: '--email <email>', env: 'SPEAK_EMAIL', configKey: 'email', help: 'login email' },
  password: {
    flag: '--password <password>',
    env: 'SPEAK_PASSWORD',
    configKey: 'password',
    secret: true,
    help: 'login password',
  },
  token: {
    flag: '--token <token>',
    env: 'SPEAK_TOKEN',
    configKey: 'token',
    secret: true,
    help: 'a permanent token instead of email/password',
  },
  model: {
    flag: '--model <name>',
    env: 'SPEAK_MODEL',
    configKey: 'model',
    defaultText: 'the first listed',
    help: 'model under test',
  },
} as const satisfies OptionTable;

/** Where the options come from besides flags and environment, and showing them: run, rerun, load (perf: --config). */
export const FILE_OPTIONS = {
  config: {
    flag: '--config <file>',
    defaultText: 'speakcheck.config.json|yaml|yml in the working directory',
    help:
      'options from a JSON or YAML file: keys as the flags in camelCase (baseUrl, reportDir, …), ' +
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the help shows the file's own syntax
      '${NAME} replaced from the environment; flags > env > file',
  },
  printConfig: {
    flag: '--print-config',
    kind: 'switch',
    help: 'print the resolved options (secrets redacted) and exit 0, contacting nothing',
  },
} as const satisfies OptionTable;

/** The options of `run` (and `rerun`) besides the target and file ones, in the order --help shows them. */
export const RUN_ONLY_OPTIONS = {
  webhookUrl: {
    flag: '--webhook-url <url>',
    env: 'SPEAK_WEBHOOK_URL',
    configKey: 'webhookUrl',
    parse: parseHttpUrl,
    help: 'public URL of the harness webhook sink, for remote servers',
  },
  webhookListen: {
    flag: '--webhook-listen <host:port>',
    env: 'SPEAK_WEBHOOK_LISTEN',
    configKey: 'webhookListen',
    parse: parseListenAddress,
    defaultText: '127.0.0.1, a free port or the --webhook-url port',
    help: 'where the webhook sink listens, HOST:PORT or PORT',
  },
  requestTimeout: {
    flag: '--request-timeout <ms>',
    env: 'SPEAK_REQUEST_TIMEOUT_MS',
    configKey: 'requestTimeout',
    parse: parsePositiveInt,
    default: 15_000,
    help: 'bound of one HTTP exchange',
  },
  readyTimeout: {
    flag: '--ready-timeout <ms>',
    env: 'SPEAK_READY_TIMEOUT_MS',
    configKey: 'readyTimeout',
    parse: parsePositiveInt,
    // 45 s: "after a few seconds" many times over, and a stuck item's verdict within a minute of
    // the run's start (the first item is made ~3 s in; the verdict follows its bound by ~4 s).
    default: 45_000,
    help: 'bound of waiting for a voice/take to be ready',
  },
  accessTokenLifetime: {
    flag: '--access-token-lifetime <s>',
    env: 'SPEAK_ACCESS_TOKEN_LIFETIME',
    configKey: 'accessTokenLifetime',
    parse: parsePositiveInt,
    defaultText: "read a JWT's exp",
    help:
      "seconds the server's access tokens live; waited out to judge AUTH-EXPIRED-TOKEN-401 when up to " +
      '--max-expiry-wait, or any within --max-time with --expiry full',
  },
  wsUrlLifetime: {
    flag: '--ws-url-lifetime <s>',
    env: 'SPEAK_WS_URL_LIFETIME',
    configKey: 'wsUrlLifetime',
    parse: parsePositiveInt,
    defaultText: "read the URL's expiry if it shows one, else the contract's hour",
    help:
      "seconds the server's websocket URLs live; waited out to judge WS-URL-EXPIRED-REFUSED when up to " +
      '--max-expiry-wait, or any within --max-time with --expiry full',
  },
  maxExpiryWait: {
    flag: '--max-expiry-wait <s>',
    env: 'SPEAK_MAX_EXPIRY_WAIT',
    configKey: 'maxExpiryWait',
    parse: parsePositiveInt,
    default: 20,
    help:
      'the longest lifetime a quick run (--expiry quick) waits out; longer: those requirements are not ' +
      'judged, saying what would judge them',
  },
  expiryLeeway: {
    flag: '--expiry-leeway <s>',
    env: 'SPEAK_EXPIRY_LEEWAY',
    configKey: 'expiryLeeway',
    parse: parseNonNegativeInt,
    default: 300,
    help:
      'seconds past a lifetime a server may still accept an access token, signed audio URL or ' +
      "websocket URL (clock skew: RFC 7519's leeway, 'usually no more than a few minutes'); a refusal " +
      'within it passes, one the run cannot wait for is not judged',
  },
  profile: {
    flag: '--profile <profile>',
    env: 'SPEAK_PROFILE',
    configKey: 'profile',
    parse: parseProfile,
    default: 'strict',
    help: PROFILES.map((p) => `${p}: ${PROFILE_RULES[p].summary.replace(/; default$/, '')}`).join(' | '),
  },
  expiry: {
    flag: '--expiry <mode>',
    env: 'SPEAK_EXPIRY',
    configKey: 'expiry',
    parse: parseExpiryMode,
    defaultText: 'full in the acceptance profile, else quick',
    help:
      'quick: wait out lifetimes up to --max-expiry-wait; full: wait out the real ones (token, signed URL, ' +
      'websocket URL hour) beside the rest of the run, within --max-time',
  },
  signedUrlLifetime: {
    flag: '--signed-url-lifetime <s>',
    env: 'SPEAK_SIGNED_URL_LIFETIME',
    configKey: 'signedUrlLifetime',
    parse: parsePositiveInt,
    defaultText: 'read X-Amz-Expires',
    help: "seconds the server's signed audio URLs live; judges AUDIO-SIGNED-EXPIRES where the run waits it out",
  },
  only: {
    flag: '--only <areas>',
    env: 'SPEAK_ONLY',
    configKey: 'only',
    kind: 'csv',
    parse: parseAreas,
    defaultText: 'every area',
    help: `comma-separated areas: ${AREAS.join(',')}`,
  },
  requirement: {
    flag: '--requirement <ids>',
    env: 'SPEAK_REQUIREMENTS',
    configKey: 'requirement',
    kind: 'list',
    parse: (raw) => parseRequirementIds([raw]),
    help:
      'run only the tests covering these requirement ids, comma-separated, repeatable; only they are ' +
      'judged; without --only, only their areas load',
  },
  expect: {
    flag: '--expect <file>',
    env: 'SPEAK_EXPECT',
    configKey: 'expect',
    defaultText: './speakcheck.expect.yaml when present',
    help:
      'expected failures, YAML or JSON list of {requirement, reason, link?, expires?}: listed failures do ' +
      'not fail the run; an unexpected pass is reported (exit unchanged); an expired entry fails the run',
  },
  list: {
    flag: '--list',
    kind: 'switch',
    help:
      'print the areas, tests and requirement ids this selection (--only, --requirement) would run, and ' +
      'exit: contacts no server, starts no stack, needs no credentials',
  },
  concurrency: {
    flag: '--concurrency <n>',
    env: 'SPEAK_CONCURRENCY',
    configKey: 'concurrency',
    parse: parsePositiveInt,
    default: 8,
    help: 'upper bound of requests in flight',
  },
  keep: {
    flag: '--keep',
    env: 'SPEAK_KEEP',
    configKey: 'keep',
    kind: 'switch',
    default: false,
    help: 'keep what the run creates (otherwise deleted at the end)',
  },
  sequences: {
    flag: '--sequences <n>',
    env: 'SPEAK_SEQUENCES',
    configKey: 'sequences',
    parse: parsePositiveInt,
    defaultText:
      '4, then one witness sequence when they left a judged requirement unobserved; 200 in the acceptance profile',
    help: 'random call sequences the stateful suite explores against its model of the contract (docs/stateful.md)',
  },
  seed: {
    flag: '--seed <n>',
    env: 'SPEAKCHECK_SEED',
    configKey: 'seed',
    parse: parsePositiveInt,
    defaultText: 'random, printed',
    help: 'the seed of every generated input (property tests, call sequences): a run with the seed a report names replays them',
  },
  replayPath: {
    flag: '--replay-path <path>',
    env: 'SPEAK_REPLAY_PATH',
    configKey: 'replayPath',
    help: 'with --seed: replay exactly the shrunk sequence a report names (its path, as the report prints it)',
  },
  reportDir: {
    flag: '--report-dir <dir>',
    env: 'SPEAK_REPORT_DIR',
    configKey: 'reportDir',
    defaultText: 'reports/<timestamp>/',
    help: 'where the reports go',
  },
  cacheDir: {
    flag: '--cache-dir <dir>',
    env: 'SPEAKCHECK_CACHE_DIR',
    configKey: 'cacheDir',
    defaultText: '$XDG_CACHE_HOME/speakcheck, else ~/.cache/speakcheck, else <temp dir>/speakcheck-<uid>',
    help:
      "where a run's generated files go (vite's and vitest's caches; a clone's bundle of the sources): " +
      'never inside the installed package, which may be read-only (a clone reads the flag and the ' +
      'environment for its bundle, before the config file)',
  },
  target: {
    flag: '--target <target>',
    configKey: 'target',
    parse: parseTarget,
    defaultText: 'remote when a base url is given, else embedded',
    help: 'embedded | container (API + worker containers) | remote',
  },
  allureHtml: {
    flag: '--allure-html',
    kind: 'switch',
    help: 'also generate the Allure HTML report (needs the allure CLI)',
  },
  maxTime: {
    flag: '--max-time <s>',
    env: 'SPEAK_MAX_TIME',
    configKey: 'maxTime',
    parse: parseMaxTime,
    defaultText: `${DEFAULT_MAX_TIME_S}, with --expiry full ${FULL_EXPIRY_MAX_TIME_S}`,
    help:
      'budget of the whole run in seconds: then, as on Ctrl-C, what has not finished is "not concluded ' +
      '(timeout)", the reports are written and the exit code is 1',
  },
  secondEmail: {
    flag: '--second-email <email>',
    env: 'SPEAK_SECOND_EMAIL',
    configKey: 'secondEmail',
    help:
      "a second account's login email, for the security area's isolation checks (customer B against A's " +
      'items); the embedded and container stacks make one themselves',
  },
  secondPassword: {
    flag: '--second-password <password>',
    env: 'SPEAK_SECOND_PASSWORD',
    configKey: 'secondPassword',
    secret: true,
    help: "the second account's password",
  },
  secondToken: {
    flag: '--second-token <token>',
    env: 'SPEAK_SECOND_TOKEN',
    configKey: 'secondToken',
    secret: true,
    help: 'a permanent token of the second account instead of its email/password',
  },
  maxRps: {
    flag: '--max-rps <n>',
    env: 'SPEAK_MAX_RPS',
    configKey: 'maxRps',
    parse: parseMaxRps,
    defaultText: 'unpaced until the server answers 429',
    help: "run-wide request rate to stay under from the start, e.g. a hosted server's known limit",
  },
  caFile: {
    flag: '--ca-file <file>',
    env: 'SPEAK_CA_FILE',
    configKey: 'caFile',
    parse: parseCaFile,
    help:
      'a private CA (PEM) to trust besides the system roots, for https and wss alike; certificate ' +
      'verification is never turned off',
  },
} as const satisfies OptionTable;

/** The capacity search's SLO when none is given (src/load/slo.ts): a listener's first audio, a finished REST take. */
export const DEFAULT_CAPACITY_SLO = {
  websocket: 'first_playable_p95<300ms,errors<1%,achieved>=90%',
  rest: 'take_latency_p95<2s,errors<1%,achieved>=90%',
} as const;

/** The options of `load` kept in the table (its scenario knobs stay commander's: src/cli/commands/load.ts). */
export const LOAD_OPTIONS = {
  slo: {
    flag: '--slo <terms>',
    env: 'SPEAK_LOAD_SLO',
    configKey: 'slo',
    defaultText:
      'a scenario against --base-url: errors and completeness only; on the embedded or container stack: ' +
      `the reference's tuned limits; capacity: websocket ${DEFAULT_CAPACITY_SLO.websocket}, rest ${DEFAULT_CAPACITY_SLO.rest}`,
    help:
      'your service-level objective, comma-separated terms that must all hold: <figure>_p<50|90|95|99><<n>ms|s ' +
      '(first_playable, end_of_take: websocket; take_latency, queue_wait: REST; wav_first_byte, wav_complete: ' +
      'ttfb-wav), errors<<n>%, achieved>=<n>% (capacity only). A scenario holds its latency terms instead of ' +
      "the reference's tuned limits; the capacity search holds every step to it",
  },
} as const satisfies OptionTable;

/** Every option of `run` and `rerun`. */
export const RUN_OPTIONS = { ...TARGET_OPTIONS, ...RUN_ONLY_OPTIONS, ...FILE_OPTIONS } as const;

/** The keys a config file may hold: every command's options (run ignores load's, load run's). */
export const CONFIG_FILE_OPTIONS = { ...RUN_OPTIONS, ...LOAD_OPTIONS } as const;

/** The value an entry resolves to: its parser's, else a switch's boolean, a list's strings, a text. */
export type ValueOf<S> = S extends { parse: OptionParser<infer T> }
  ? T
  : S extends { kind: 'switch' }
    ? boolean
    : S extends { kind: 'list' }
      ? string[]
      : string;
/** The resolved values of a table: each option's value, undefined when no layer and no default gives one. */
export type OptionValues<Table extends OptionTable> = { [K in keyof Table]?: ValueOf<Table[K]> };
/**
 * What commander, a config file or a caller hands over for a table: text as typed (a switch a
 * boolean, a list option its values).
 */
export type RawOptions<Table extends OptionTable> = {
  [K in keyof Table]?: Table[K] extends { kind: 'switch' }
    ? boolean
    : Table[K] extends { kind: 'list' }
      ? string[] | string
      : string;
};

/** The long flag without its placeholder: `--base-url`. */
export function flagName(spec: OptionSpec<unknown>): string {
  return spec.flag.split(' ')[0]!;
}

/** commander's attribute name of the flag (`--base-url` → `baseUrl`): the key of the entry. */
export function attributeName(spec: OptionSpec<unknown>): string {
  return flagName(spec)
    .slice(2)
    .replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

/** The config-file keys of a table. */
export function configKeys(table: OptionTable): string[] {
  return Object.values(table).flatMap((spec) => (spec.configKey ? [spec.configKey] : []));
}

/** The default as help and docs show it: the constant, else the words; undefined when there is none. */
export function defaultShown(spec: OptionSpec<unknown>): string | undefined {
  if (spec.default !== undefined && spec.kind !== 'switch') return String(spec.default);
  return spec.defaultText;
}

/** The help line of an option: what it does, then its environment variable and default, once each. */
export function helpText(spec: OptionSpec<unknown>): string {
  const notes = [
    spec.env ? `env ${spec.env}${spec.secret ? '; prefer it: flags show in ps' : ''}` : undefined,
    defaultShown(spec) === undefined ? undefined : `default: ${defaultShown(spec)}`,
  ].filter((note) => note !== undefined);
  return notes.length === 0 ? spec.help : `${spec.help} (${notes.join('; ')})`;
}
