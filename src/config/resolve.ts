/**
 * The one config resolution of every command: flags > environment > config file > defaults, option
 * by option. `resolveTargetFlags` layers the options every command that talks to a server shares
 * (run, rerun, load, perf --interleave: base URL, auth URL, credentials, model) under the same
 * environment variables (TARGET_ENV); `resolveRunConfig` adds run's own options on top. Every
 * problem is reported as a ConfigError whose message names the flag and says what is wrong with
 * its value.
 */
import { randomBytes } from 'node:crypto';
import { join, resolve } from 'node:path';
import { REDACTED } from '../evidence/redact.ts';
import { readCaFile } from './ca-file.ts';
import { type LoadedConfigFile, loadConfigFile } from './config-file.ts';
import { ConfigError } from './errors.ts';
import { expectFilePath, loadExpectFile } from './expect-file.ts';
import { areasOfRequirements, parseRequirementIds } from './requirement-selection.ts';
import {
  type ExpiryMode,
  type ListenAddress,
  PROFILE_RULES,
  PROFILES,
  type Profile,
  type RunConfig,
  type SecondIdentity,
  type Target,
  type TargetFlags,
} from './types.ts';

export { ConfigError } from './errors.ts';

/** What commander hands over (all strings, as typed on the command line). */
export interface RunFlags extends TargetFlags {
  webhookUrl?: string;
  webhookListen?: string;
  requestTimeout?: string;
  readyTimeout?: string;
  accessTokenLifetime?: string;
  wsUrlLifetime?: string;
  maxExpiryWait?: string;
  profile?: string;
  /** `--expiry quick|full` (default: the profile's). */
  expiry?: string;
  /** `--signed-url-lifetime S`: seconds a signed audio URL lives. */
  signedUrlLifetime?: string;
  only?: string;
  /** `--requirement`, repeatable; each value comma-separated ids. */
  requirement?: string[] | string;
  concurrency?: string;
  keep?: boolean;
  reportDir?: string;
  target?: string;
  /** `--expect FILE`: the expected failures (default: speakcheck.expect.yaml when present). */
  expect?: string;
  secondEmail?: string;
  secondPassword?: string;
  secondToken?: string;
  /** `--max-rps N`: the run-wide request rate to stay under from the start. */
  maxRps?: string;
  /** `--ca-file FILE`: a private CA (PEM) trusted besides the system roots. */
  caFile?: string;
}

export const AREAS = [
  'auth',
  'models',
  'voices',
  'takes',
  'lists',
  'audio',
  'errors',
  'docs',
  'version',
  'websocket',
  'webhooks',
  'security',
] as const;

/** The environment variable of each target option: the same for every command. */
export const TARGET_ENV = {
  baseUrl: 'SPEAK_BASE_URL',
  authUrl: 'SPEAK_AUTH_URL',
  email: 'SPEAK_EMAIL',
  password: 'SPEAK_PASSWORD',
  token: 'SPEAK_TOKEN',
  model: 'SPEAK_MODEL',
} as const satisfies Record<keyof TargetFlags, string>;

const given = (value: string | undefined) => (value === undefined || value === '' ? undefined : value);

/**
 * Where the server is and how to sign in, each option from the first layer that gives it (flags >
 * TARGET_ENV > file); URLs checked and without a trailing slash. No defaults: each command decides
 * what an absent base URL means (run and load start the embedded stack).
 */
export function resolveTargetFlags(
  flags: TargetFlags,
  env: Record<string, string | undefined> = process.env,
  file: TargetFlags = {},
): TargetFlags {
  const out: TargetFlags = {};
  for (const key of Object.keys(TARGET_ENV) as (keyof TargetFlags)[]) {
    const value = given(flags[key]) ?? given(env[TARGET_ENV[key]]) ?? given(file[key]);
    if (value !== undefined) out[key] = value;
  }
  if (out.baseUrl) out.baseUrl = parseHttpUrl(out.baseUrl, '--base-url');
  if (out.authUrl) out.authUrl = parseHttpUrl(out.authUrl, '--auth-url');
  return out;
}

/**
 * For the commands besides run (load, perf --interleave): the config file (`--config`, else
 * speakcheck.config.* in the working directory) read as run reads it, then resolveTargetFlags.
 */
export function resolveCommandTarget(
  flags: TargetFlags & { config?: string },
  env: Record<string, string | undefined> = process.env,
  cwd: string = process.cwd(),
): { target: TargetFlags; file: LoadedConfigFile | undefined } {
  const file = loadConfigFile(flags.config, env, cwd);
  return { target: resolveTargetFlags(flags, env, file?.values), file };
}

/** Resolved options as `--print-config` shows them (every command): passwords and tokens redacted, the file read. */
export function printableOptions(
  options: { password?: string | undefined; token?: string | undefined; second?: SecondIdentity | undefined },
  configFile: string | undefined,
): Record<string, unknown> {
  const shown: Record<string, unknown> = { ...options };
  for (const secret of ['password', 'token'] as const) if (options[secret]) shown[secret] = REDACTED;
  if (options.second) {
    const second: Record<string, unknown> = { ...options.second };
    for (const secret of ['password', 'token'] as const)
      if (options.second[secret]) second[secret] = REDACTED;
    shown.second = second;
  }
  return { configFile: configFile ?? null, ...shown };
}

/** The environment variables of the second identity (the security area's customer B). */
export const SECOND_ENV = {
  secondEmail: 'SPEAK_SECOND_EMAIL',
  secondPassword: 'SPEAK_SECOND_PASSWORD',
  secondToken: 'SPEAK_SECOND_TOKEN',
} as const;

/**
 * `--second-email/--second-password` or `--second-token` (flags > env > file), checked as the first
 * identity's are; undefined when none is given.
 */
export function resolveSecondIdentity(
  pick: (key: keyof typeof SECOND_ENV, envName: string) => string | undefined,
): SecondIdentity | undefined {
  const email = pick('secondEmail', SECOND_ENV.secondEmail);
  const password = pick('secondPassword', SECOND_ENV.secondPassword);
  const token = pick('secondToken', SECOND_ENV.secondToken);
  if (token && (email || password)) {
    throw new ConfigError('give either --second-token or --second-email/--second-password, not both.');
  }
  if (!token && (email === undefined) !== (password === undefined)) {
    throw new ConfigError(
      `--second-email and --second-password go together: ${email ? '--second-password' : '--second-email'} is missing.`,
    );
  }
  if (token) return { token };
  if (email && password) return { email, password };
  return undefined;
}

const DEFAULTS = { requestMs: 15_000, readyMs: 60_000, concurrency: 8, maxExpiryWaitS: 20 };

/**
 * Flags > environment > config file (`file`, see config-file.ts) > defaults: each option takes the
 * first layer that gives it a non-empty value.
 */
export function resolveRunConfig(
  flags: RunFlags,
  env: Record<string, string | undefined> = process.env,
  now: Date = new Date(),
  file: RunFlags = {},
): RunConfig {
  type StringKey = Exclude<keyof RunFlags, 'requirement' | 'keep'>;
  const pick = (key: StringKey, envName: string): string | undefined =>
    given(flags[key]) ?? given(env[envName]) ?? given(file[key]);

  const server = resolveTargetFlags(flags, env, file);
  const rawBase = server.baseUrl;
  const target = parseTarget(flags.target ?? file.target ?? (rawBase ? 'remote' : 'embedded'));
  if (target !== 'remote' && rawBase) {
    throw new ConfigError(
      `--target ${target} starts its own server: do not also give --base-url/SPEAK_BASE_URL.`,
    );
  }
  if (target === 'remote' && !rawBase) {
    throw new ConfigError('--target remote needs --base-url (or SPEAK_BASE_URL).');
  }
  const baseUrl = rawBase ?? '';
  const authUrl = server.authUrl ?? baseUrl;
  const { email, password, token } = server;
  if (token && (email || password)) {
    throw new ConfigError('give either --token or --email/--password, not both.');
  }
  if (!token && (email === undefined) !== (password === undefined)) {
    throw new ConfigError(
      `--email and --password go together: ${email ? '--password' : '--email'} is missing.`,
    );
  }
  if (target === 'remote' && !token && !email) {
    throw new ConfigError('a remote server needs credentials: --email and --password, or --token.');
  }

  const webhookRaw = pick('webhookUrl', 'SPEAK_WEBHOOK_URL');
  const profile = parseProfile(pick('profile', 'SPEAK_PROFILE') ?? 'strict');
  const explicitAreas = parseAreas(pick('only', 'SPEAK_ONLY'));
  const requirements = parseRequirementIds(
    pickRequirements(flags.requirement, env.SPEAK_REQUIREMENTS, file.requirement),
  );
  const only = areasFor(explicitAreas, requirements);
  const runId = randomBytes(3).toString('hex');
  const stamp = now
    .toISOString()
    .replace(/[:.]/g, '-')
    .replace(/-\d{3}Z$/, 'Z');

  const config: RunConfig = {
    baseUrl,
    authUrl,
    timeouts: {
      requestMs: parsePositiveInt(
        pick('requestTimeout', 'SPEAK_REQUEST_TIMEOUT_MS'),
        '--request-timeout',
        DEFAULTS.requestMs,
      ),
      readyMs: parsePositiveInt(
        pick('readyTimeout', 'SPEAK_READY_TIMEOUT_MS'),
        '--ready-timeout',
        DEFAULTS.readyMs,
      ),
    },
    expiry: {
      maxWaitS: parsePositiveInt(
        pick('maxExpiryWait', 'SPEAK_MAX_EXPIRY_WAIT'),
        '--max-expiry-wait',
        DEFAULTS.maxExpiryWaitS,
      ),
    },
    profile,
    only,
    requirements,
    concurrency: parsePositiveInt(
      pick('concurrency', 'SPEAK_CONCURRENCY'),
      '--concurrency',
      DEFAULTS.concurrency,
    ),
    keep: flags.keep ?? (given(env.SPEAK_KEEP) === undefined ? (file.keep ?? false) : env.SPEAK_KEEP === '1'),
    reportDir: pick('reportDir', 'SPEAK_REPORT_DIR') ?? join('reports', stamp),
    target,
    ...expectFor(pick('expect', 'SPEAK_EXPECT')),
    runId,
    namePrefix: `speakcheck-${runId}-`,
  };
  if (email) config.email = email;
  if (password) config.password = password;
  const second = resolveSecondIdentity(pick);
  if (second) {
    // Customer B signed in as customer A would find every isolation check "leaking".
    const sameEmail = second.email !== undefined && second.email.toLowerCase() === email?.toLowerCase();
    if (sameEmail || (second.token !== undefined && second.token === token)) {
      throw new ConfigError(
        `the second identity (${sameEmail ? '--second-email' : '--second-token'}) must be another account than the first (${sameEmail ? '--email' : '--token'}).`,
      );
    }
    config.second = second;
  }
  if (token) config.token = token;
  if (server.model) config.model = server.model;
  if (webhookRaw) config.webhookUrl = parseHttpUrl(webhookRaw, '--webhook-url');
  const accessLifetime = pick('accessTokenLifetime', 'SPEAK_ACCESS_TOKEN_LIFETIME');
  if (accessLifetime)
    config.expiry.accessTokenLifetimeS = parsePositiveInt(accessLifetime, '--access-token-lifetime', 0);
  config.expiry.mode = parseExpiryMode(pick('expiry', 'SPEAK_EXPIRY') ?? PROFILE_RULES[profile].expiry);
  const signedLifetime = pick('signedUrlLifetime', 'SPEAK_SIGNED_URL_LIFETIME');
  if (signedLifetime)
    config.expiry.signedUrlLifetimeS = parsePositiveInt(signedLifetime, '--signed-url-lifetime', 0);
  const wsLifetime = pick('wsUrlLifetime', 'SPEAK_WS_URL_LIFETIME');
  if (wsLifetime) config.expiry.wsUrlLifetimeS = parsePositiveInt(wsLifetime, '--ws-url-lifetime', 0);
  const listenRaw = pick('webhookListen', 'SPEAK_WEBHOOK_LISTEN');
  if (listenRaw) config.webhookListen = parseListenAddress(listenRaw, '--webhook-listen');
  const maxRps = pick('maxRps', 'SPEAK_MAX_RPS');
  if (maxRps) config.maxRps = parseMaxRps(maxRps);
  const caFile = pick('caFile', 'SPEAK_CA_FILE');
  if (caFile) config.caFile = parseCaFile(caFile);
  return config;
}

/** `--max-rps`: requests per second, fractions allowed (0.5: one every two seconds). */
export function parseMaxRps(raw: string): number {
  const rps = Number(raw.trim());
  if (!/^\d+(\.\d+)?$/.test(raw.trim()) || !(rps > 0))
    throw new ConfigError(`--max-rps "${raw}" must be a positive number of requests per second (e.g. 10).`);
  return rps;
}

/** `--ca-file`: an absolute path to a readable PEM certificate (an unreadable one is a usage error). */
export function parseCaFile(raw: string): string {
  const path = resolve(raw);
  try {
    readCaFile(path);
  } catch (error) {
    throw new ConfigError(`--ca-file ${raw}: ${(error as Error).message}.`);
  }
  return path;
}

function parseHttpUrl(raw: string, flag: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${flag} "${raw}" is not a URL (expected e.g. http://127.0.0.1:8080).`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(`${flag} "${raw}" must be an http:// or https:// URL.`);
  }
  if (url.search || url.hash) throw new ConfigError(`${flag} "${raw}" must not carry a query or fragment.`);
  if (url.username || url.password) {
    throw new ConfigError(`${flag} must not carry credentials; use --email/--password or --token.`);
  }
  return url.toString().replace(/\/+$/, '');
}

/**
 * `host:port` or `port` (`[::1]:port` for IPv6); port 0 is any free port. `what` names the flag or
 * variable in the message.
 */
export function parseListenAddress(raw: string, what: string): ListenAddress {
  const match = /^(?:(.+):)?(\d+)$/.exec(raw.trim());
  const port = match ? Number(match[2]) : Number.NaN;
  if (!match || port > 65_535) {
    throw new ConfigError(
      `${what} "${raw}" must be HOST:PORT or PORT with a port from 0 to 65535 (e.g. 127.0.0.1:8900).`,
    );
  }
  return match[1] ? { host: match[1].replace(/^\[|\]$/g, ''), port } : { port };
}

function parsePositiveInt(raw: string | undefined, flag: string, fallback: number): number {
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw.trim()) || Number(raw) <= 0) {
    throw new ConfigError(`${flag} "${raw}" must be a positive whole number.`);
  }
  return Number(raw);
}

function parseProfile(raw: string): Profile {
  if ((PROFILES as string[]).includes(raw)) return raw as Profile;
  throw new ConfigError(
    `--profile "${raw}" must be ${PROFILES.slice(0, -1).join(', ')} or ${PROFILES.at(-1)}.`,
  );
}

function parseExpiryMode(raw: string): ExpiryMode {
  if (raw === 'quick' || raw === 'full') return raw;
  throw new ConfigError(`--expiry "${raw}" must be quick or full.`);
}

function parseTarget(raw: string): Target {
  if (raw === 'embedded' || raw === 'remote' || raw === 'container') return raw;
  throw new ConfigError(`--target "${raw}" must be embedded, remote or container.`);
}

function parseAreas(raw: string | undefined): string[] {
  if (!raw) return [];
  const areas = raw
    .split(',')
    .map((a) => a.trim().toLowerCase())
    .filter(Boolean);
  const unknown = areas.filter((a) => !(AREAS as readonly string[]).includes(a));
  if (unknown.length > 0) {
    throw new ConfigError(`--only: unknown area ${unknown.join(', ')} (known: ${AREAS.join(', ')}).`);
  }
  return [...new Set(areas)];
}

/** The flag's values when given (flags override the environment), else SPEAK_REQUIREMENTS, else the file's. */
function pickRequirements(
  flag: string[] | string | undefined,
  env: string | undefined,
  file: string[] | string | undefined,
): string[] {
  const listed = (value: string[] | string | undefined) =>
    (typeof value === 'string' ? [value] : (value ?? [])).filter((v) => v.trim() !== '');
  const fromFlag = listed(flag);
  if (fromFlag.length > 0) return fromFlag;
  if (env && env.trim() !== '') return [env];
  return listed(file);
}

/**
 * The areas to load: --only when given (then every selected requirement must lie in it), else
 * those of the selected requirements, so only their suite files load; [] (all) when neither.
 */
function areasFor(explicit: string[], requirements: string[]): string[] {
  if (requirements.length === 0) return explicit;
  const needed = areasOfRequirements(requirements);
  if (explicit.length === 0) return needed;
  const outside = requirements.filter((id) => !explicit.includes(areasOfRequirements([id])[0]!));
  if (outside.length > 0) {
    throw new ConfigError(
      `--requirement ${outside.join(', ')} ${outside.length > 1 ? 'are' : 'is'} outside --only ${explicit.join(',')} (area ${areasOfRequirements(outside).join(', ')}): add the area to --only or leave --only out.`,
    );
  }
  return explicit;
}

/** The config as the workers receive it: the run fills in the embedded stack's address and user. */
export function encodeRunConfig(config: RunConfig): string {
  return JSON.stringify(config);
}

export function decodeRunConfig(json: string): RunConfig {
  const parsed = JSON.parse(json) as RunConfig;
  if (!parsed || typeof parsed.baseUrl !== 'string' || !parsed.baseUrl) {
    throw new ConfigError('the run configuration handed to the suites has no base url.');
  }
  parsed.requirements ??= [];
  return parsed;
}

/** The expect file, read and checked now (a bad one is exit 2 before anything starts). */
function expectFor(flag: string | undefined): Pick<RunConfig, 'expect'> {
  const file = expectFilePath(flag);
  return file === undefined ? {} : { expect: { file, entries: loadExpectFile(file) } };
}
