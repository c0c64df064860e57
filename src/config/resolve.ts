/**
 * The one config resolution of every command: flags > environment > config file > defaults, option
 * by option, as the option table (options.ts) declares them. `resolveTargetFlags` layers the options
 * every command that talks to a server shares (run, rerun, load, perf --interleave: base URL, auth
 * URL, credentials, model) under the same environment variables (TARGET_ENV); `resolveRun` resolves
 * every run option and builds the RunConfig, checking what concerns several options at once (the
 * target and the base URL, the credentials, the second identity, the areas of a requirement
 * selection). Every problem is reported as a ConfigError whose message names the flag and says what
 * is wrong with its value.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { type LoadedConfigFile, loadConfigFile } from './config-file.ts';
import { ConfigError } from './errors.ts';
import { expectFilePath, loadExpectFile } from './expect-file.ts';
import {
  DEFAULT_MAX_TIME_S,
  FULL_EXPIRY_MAX_TIME_S,
  LOAD_OPTIONS,
  type OptionTable,
  type OptionValues,
  type RawOptions,
  RUN_OPTIONS,
  TARGET_OPTIONS,
} from './options.ts';
import { areasOfRequirements } from './requirement-selection.ts';
import { type Env, optionSource, printableValues, resolveOption, resolveOptions } from './resolve-options.ts';
import { PROFILE_RULES, type RunConfig, type SecondIdentity, type TargetFlags } from './types.ts';

export { AREAS } from '../requirements/types.ts';
export { ConfigError } from './errors.ts';
export { parseListenAddress } from './parsers.ts';

/** What commander hands over for run and rerun (all strings as typed, switches booleans). */
export type RunFlags = RawOptions<typeof RUN_OPTIONS>;
/** Every run option resolved (flags > env > file > default) and parsed. */
export type RunValues = OptionValues<typeof RUN_OPTIONS>;

/** The environment variable of each target option: the same for every command (from the option table). */
export const TARGET_ENV = Object.fromEntries(
  Object.entries(TARGET_OPTIONS).map(([key, spec]) => [key, spec.env]),
) as { readonly [K in keyof typeof TARGET_OPTIONS]: (typeof TARGET_OPTIONS)[K]['env'] };

/** The defaults of the run's numeric options, as the option table declares them. */
export const DEFAULTS = {
  requestMs: RUN_OPTIONS.requestTimeout.default,
  readyMs: RUN_OPTIONS.readyTimeout.default,
  concurrency: RUN_OPTIONS.concurrency.default,
  maxExpiryWaitS: RUN_OPTIONS.maxExpiryWait.default,
  expiryLeewayS: RUN_OPTIONS.expiryLeeway.default,
} as const;

/**
 * Where the server is and how to sign in, each option from the first layer that gives it (flags >
 * TARGET_ENV > file); URLs checked and without a trailing slash. No defaults: each command decides
 * what an absent base URL means (run and load start the embedded stack).
 */
export function resolveTargetFlags(
  flags: TargetFlags,
  env: Env = process.env,
  file: TargetFlags = {},
): TargetFlags {
  return resolveOptions(TARGET_OPTIONS, { ...flags }, env, { ...file }) as TargetFlags;
}

/**
 * For the commands besides run (load, perf --interleave): the config file (`--config`, else
 * speakcheck.config.* in the working directory) read as run reads it, then resolveTargetFlags.
 */
export function resolveCommandTarget(
  flags: TargetFlags & { config?: string },
  env: Env = process.env,
  cwd: string = process.cwd(),
): { target: TargetFlags; file: LoadedConfigFile | undefined } {
  const file = loadConfigFile(flags.config, env, cwd);
  return { target: resolveTargetFlags(flags, env, file?.values), file };
}

/** An option's value and the layer it came from, in words (`--slo`, `SPEAK_LOAD_SLO`, `config file … (slo)`). */
export interface SourcedValue {
  text: string;
  source: string;
}

/** `load`'s options of the table (its SLO), flags > environment > config file, with where each came from. */
export function resolveLoadOptions(
  flags: { slo?: string },
  env: Env = process.env,
  file: LoadedConfigFile | undefined = undefined,
): { slo?: SourcedValue } {
  const spec = LOAD_OPTIONS.slo;
  const fromFile = file?.values.slo;
  const text = resolveOption<string>(spec, flags.slo, env, fromFile);
  const source = optionSource(spec, flags.slo, env, fromFile, file?.path);
  return text === undefined || source === undefined ? {} : { slo: { text, source } };
}

/** The target options as `load --print-config` shows them: secrets redacted, the file read. */
export function printableOptions(
  target: TargetFlags,
  configFile: string | undefined,
  load: { slo?: SourcedValue } = {},
): Record<string, unknown> {
  return printableValues(
    { ...TARGET_OPTIONS, ...LOAD_OPTIONS },
    { ...target, slo: load.slo?.text },
    configFile,
  );
}

/**
 * `--second-email/--second-password` or `--second-token` (flags > env > file), checked as the first
 * identity's are; undefined when none is given.
 */
export function resolveSecondIdentity(values: {
  secondEmail?: string | undefined;
  secondPassword?: string | undefined;
  secondToken?: string | undefined;
}): SecondIdentity | undefined {
  const { secondEmail: email, secondPassword: password, secondToken: token } = values;
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

/** What the run resolved: the options as given (for --print-config) and the RunConfig built from them. */
export interface ResolvedRun {
  values: RunValues;
  config: RunConfig;
  /** The run's budget (`--max-time`, else the default of its expiry mode). */
  maxTimeMs: number;
}

export interface ResolveRunOptions {
  /** The option table (default RUN_OPTIONS; a test adds an entry to see it travel). */
  table?: OptionTable & typeof RUN_OPTIONS;
  /**
   * `required` (a run): a remote server without credentials is a usage error. `optional`: what only
   * lists or prints the options (`run --list`, `--print-config`), contacting nothing, needs none.
   */
  credentials?: 'required' | 'optional';
}

/**
 * Flags > environment > config file (`file`, see config-file.ts) > defaults: each option takes the
 * first layer that gives it a non-empty value.
 */
export function resolveRunConfig(
  flags: RunFlags,
  env: Env = process.env,
  now: Date = new Date(),
  file: RunFlags = {},
  options: ResolveRunOptions = {},
): RunConfig {
  return resolveRun(flags, env, now, file, options).config;
}

/** resolveRunConfig, with the resolved values and the run's budget. */
export function resolveRun(
  flags: RunFlags,
  env: Env = process.env,
  now: Date = new Date(),
  file: RunFlags = {},
  options: ResolveRunOptions = {},
): ResolvedRun {
  const values = resolveOptions(options.table ?? RUN_OPTIONS, flags, env, file);
  const target = values.target ?? (values.baseUrl ? 'remote' : 'embedded');
  checkTarget(target, values.baseUrl);
  checkCredentials(values, target, options.credentials ?? 'required');
  const requirements = values.requirement ?? [];
  const profile = values.profile ?? 'strict';
  const runId = randomBytes(3).toString('hex');
  const config: RunConfig = {
    baseUrl: values.baseUrl ?? '',
    authUrl: values.authUrl ?? values.baseUrl ?? '',
    timeouts: {
      requestMs: values.requestTimeout ?? DEFAULTS.requestMs,
      readyMs: values.readyTimeout ?? DEFAULTS.readyMs,
    },
    expiry: {
      maxWaitS: values.maxExpiryWait ?? DEFAULTS.maxExpiryWaitS,
      leewayS: values.expiryLeeway ?? DEFAULTS.expiryLeewayS,
      ...(values.accessTokenLifetime === undefined
        ? {}
        : { accessTokenLifetimeS: values.accessTokenLifetime }),
      ...(values.signedUrlLifetime === undefined ? {} : { signedUrlLifetimeS: values.signedUrlLifetime }),
      ...(values.wsUrlLifetime === undefined ? {} : { wsUrlLifetimeS: values.wsUrlLifetime }),
      mode: values.expiry ?? PROFILE_RULES[profile].expiry,
    },
    profile,
    only: areasFor(values.only ?? [], requirements),
    requirements,
    concurrency: values.concurrency ?? DEFAULTS.concurrency,
    keep: values.keep ?? false,
    reportDir: values.reportDir ?? join('reports', timestampDir(now)),
    target,
    ...expectFor(values.expect),
    runId,
    namePrefix: `speakcheck-${runId}-`,
  };
  if (values.email) config.email = values.email;
  if (values.password) config.password = values.password;
  const second = resolveSecondIdentity(values);
  if (second) {
    checkSecondIsAnother(second, values);
    config.second = second;
  }
  if (values.token) config.token = values.token;
  if (values.model) config.model = values.model;
  if (values.webhookUrl) config.webhookUrl = values.webhookUrl;
  if (values.webhookListen) config.webhookListen = values.webhookListen;
  if (values.maxRps !== undefined) config.maxRps = values.maxRps;
  if (values.sequences !== undefined) config.sequences = values.sequences;
  if (values.seed !== undefined) config.seed = values.seed;
  if (values.replayPath) {
    // The path names a sequence of the seed's exploration: without the seed it names nothing.
    if (values.seed === undefined)
      throw new ConfigError(
        "--replay-path replays a sequence of one seed's exploration: give the --seed the report names with it.",
      );
    config.replayPath = values.replayPath;
  }
  if (values.caFile) config.caFile = values.caFile;
  if (values.cacheDir) config.cacheDir = values.cacheDir;
  return { values, config, maxTimeMs: runBudgetMs(values.maxTime, config) };
}

/** The budget of the run in ms: `--max-time` (seconds), else the default of the run's expiry mode. */
export function runBudgetMs(maxTimeS: number | undefined, config: Pick<RunConfig, 'expiry'>): number {
  const seconds = maxTimeS ?? (config.expiry.mode === 'full' ? FULL_EXPIRY_MAX_TIME_S : DEFAULT_MAX_TIME_S);
  return Math.round(seconds * 1000);
}

/**
 * The resolved run as `--print-config` shows it: every config-file key with the value the run uses
 * (defaults that depend on other options filled in), secrets redacted, and which file was read.
 */
export function printableRun(
  run: ResolvedRun,
  configFile: string | undefined,
  table: OptionTable = RUN_OPTIONS,
): Record<string, unknown> {
  const { config } = run;
  return printableValues(
    table,
    {
      ...run.values,
      target: config.target,
      authUrl: config.authUrl || undefined,
      expiry: config.expiry.mode,
      only: config.only,
      requirement: config.requirements,
      reportDir: config.reportDir,
      expect: config.expect?.file,
      maxTime: run.maxTimeMs / 1000,
    },
    configFile,
  );
}

function checkTarget(target: RunConfig['target'], baseUrl: string | undefined): void {
  if (target !== 'remote' && baseUrl) {
    throw new ConfigError(
      `--target ${target} starts its own server: do not also give --base-url/${TARGET_OPTIONS.baseUrl.env}.`,
    );
  }
  if (target === 'remote' && !baseUrl) {
    throw new ConfigError(`--target remote needs --base-url (or ${TARGET_OPTIONS.baseUrl.env}).`);
  }
}

/** One form of credentials, both halves of email/password; a remote run needs them unless optional. */
function checkCredentials(
  { email, password, token }: RunValues,
  target: RunConfig['target'],
  need: 'required' | 'optional',
): void {
  if (token && (email || password)) {
    throw new ConfigError('give either --token or --email/--password, not both.');
  }
  if (!token && (email === undefined) !== (password === undefined)) {
    throw new ConfigError(
      `--email and --password go together: ${email ? '--password' : '--email'} is missing.`,
    );
  }
  if (need === 'required' && target === 'remote' && !token && !email) {
    throw new ConfigError('a remote server needs credentials: --email and --password, or --token.');
  }
}

/** Customer B signed in as customer A would find every isolation check "leaking". */
function checkSecondIsAnother(second: SecondIdentity, { email, token }: RunValues): void {
  const sameEmail = second.email !== undefined && second.email.toLowerCase() === email?.toLowerCase();
  if (sameEmail || (second.token !== undefined && second.token === token)) {
    throw new ConfigError(
      `the second identity (${sameEmail ? '--second-email' : '--second-token'}) must be another account than the first (${sameEmail ? '--email' : '--token'}).`,
    );
  }
}

/** `2026-11-21T10-20-30Z`: the default report directory's name. */
function timestampDir(now: Date): string {
  return now
    .toISOString()
    .replace(/[:.]/g, '-')
    .replace(/-\d{3}Z$/, 'Z');
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

/** The expect file, read and checked now (a bad one is exit 2 before anything starts). */
function expectFor(flag: string | undefined): Pick<RunConfig, 'expect'> {
  const file = expectFilePath(flag);
  return file === undefined ? {} : { expect: { file, entries: loadExpectFile(file) } };
}
