/**
 * The option table (options.ts) applied: each option takes the first layer that gives it a
 * non-empty value, flags > environment > config file > the entry's default, and is parsed by the
 * entry's parser. Generic over the table, so a new entry is resolved, shown and documented without
 * code of its own.
 */
import { REDACTED } from '../evidence/redact.ts';
import { flagName, type OptionSpec, type OptionTable, type OptionValues } from './options.ts';

export type Env = Record<string, string | undefined>;

const given = (value: unknown): string | undefined =>
  value === undefined || value === null || value === '' ? undefined : String(value);

/** A list option's values as handed over (commander: an array; a caller or the environment: one string). */
function listed(value: unknown): string[] {
  const values = Array.isArray(value) ? value : value === undefined ? [] : [value];
  return values.map(String).filter((v) => v.trim() !== '');
}

/** The raw text of one option from the first layer that gives it, before parsing. */
function rawValue(spec: OptionSpec<unknown>, flag: unknown, env: Env, fromFile: unknown): unknown {
  const fromEnv = spec.env === undefined ? undefined : given(env[spec.env]);
  switch (spec.kind ?? 'value') {
    case 'switch':
      if (typeof flag === 'boolean') return flag;
      if (fromEnv !== undefined) return fromEnv === '1';
      return typeof fromFile === 'boolean' ? fromFile : undefined;
    case 'list': {
      const fromFlag = listed(flag);
      if (fromFlag.length > 0) return fromFlag.join(',');
      if (fromEnv !== undefined && fromEnv.trim() !== '') return fromEnv;
      const inFile = listed(fromFile);
      return inFile.length > 0 ? inFile.join(',') : undefined;
    }
    default:
      return given(flag) ?? fromEnv ?? given(fromFile);
  }
}

/** One option: flags > environment > file > default, parsed (the parser's errors name the flag). */
export function resolveOption<T>(
  spec: OptionSpec<T>,
  flag: unknown,
  env: Env,
  fromFile: unknown,
): T | undefined {
  const raw = rawValue(spec as OptionSpec<unknown>, flag, env, fromFile);
  if (raw === undefined) return spec.default;
  if (typeof raw === 'boolean') return raw as T;
  const text = raw as string;
  if (spec.parse) return spec.parse(text, flagName(spec as OptionSpec<unknown>));
  return (spec.kind === 'list' ? text.split(',').map((v) => v.trim()) : text) as T;
}

/**
 * The layer a value-kind option takes its value from, in words for a report: `flag --slo`,
 * `env SPEAK_LOAD_SLO`, `config file <path> (slo)`; undefined when none gives one (the default).
 */
export function optionSource(
  spec: OptionSpec<unknown>,
  flag: unknown,
  env: Env,
  fromFile: unknown,
  configFile: string | undefined,
): string | undefined {
  if (given(flag) !== undefined) return `flag ${flagName(spec)}`;
  if (spec.env !== undefined && given(env[spec.env]) !== undefined) return `env ${spec.env}`;
  if (given(fromFile) !== undefined)
    return `config file ${configFile ?? ''} (${spec.configKey})`.replace('  ', ' ');
  return undefined;
}

/** Every option of a table from flags, environment and config file (keys as in the table). */
export function resolveOptions<Table extends OptionTable>(
  table: Table,
  flags: Readonly<Record<string, unknown>>,
  env: Env,
  file: Readonly<Record<string, unknown>> = {},
): OptionValues<Table> {
  const out: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(table)) {
    const fromFile = spec.configKey === undefined ? undefined : file[spec.configKey];
    const value = resolveOption(spec, flags[name], env, fromFile);
    if (value !== undefined) out[name] = value;
  }
  return out as OptionValues<Table>;
}

/**
 * An option from its environment variable alone, for a module that was handed a config not made by
 * the resolution (the variable is named in a parse error).
 */
export function envValue<T>(spec: OptionSpec<T>, env: Env): T | undefined {
  const raw = spec.env === undefined ? undefined : given(env[spec.env]);
  if (raw === undefined) return undefined;
  return spec.parse ? spec.parse(raw, spec.env!) : (raw as T);
}

/**
 * Resolved options as `--print-config` shows them (every command): the config-file keys with their
 * values, secrets redacted, and which file was read. Options of the command line only (--list, …)
 * are left out.
 */
export function printableValues(
  table: OptionTable,
  values: Readonly<Record<string, unknown>>,
  configFile: string | undefined,
): Record<string, unknown> {
  const shown: Record<string, unknown> = { configFile: configFile ?? null };
  for (const [name, spec] of Object.entries(table)) {
    const value = values[name];
    if (spec.configKey === undefined || value === undefined) continue;
    shown[spec.configKey] = spec.secret ? REDACTED : value;
  }
  return shown;
}
