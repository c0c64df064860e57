/**
 * `speakcheck.config.json|yaml|yml` (in the working directory, or `--config FILE`): the options of
 * `speakcheck run` under the names commander gives the flags (camelCase: `baseUrl`, `reportDir`,
 * `requestTimeout`, …), with `${NAME}` replaced from the environment so secrets stay out of the file.
 * The file is the lowest layer above the defaults: flags > environment > file > defaults
 * (resolveRunConfig). Every problem is a ConfigError naming the file and the key.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { ConfigError } from './errors.ts';
import {
  CONFIG_FILE_OPTIONS,
  configKeys,
  type OptionKind,
  type OptionTable,
  type RawOptions,
} from './options.ts';

export const CONFIG_FILE_NAMES = [
  'speakcheck.config.json',
  'speakcheck.config.yaml',
  'speakcheck.config.yml',
];

/**
 * The keys a config file may set: the config keys of run's and load's options (the flags in
 * camelCase), from the option table. One file serves every command.
 */
export const CONFIG_KEYS: readonly string[] = configKeys(CONFIG_FILE_OPTIONS);

/** A config file's values as commander would hand them over. */
export type FileFlags = RawOptions<typeof CONFIG_FILE_OPTIONS>;

export interface LoadedConfigFile {
  path: string;
  values: FileFlags;
}

/** The file `--config` names, else the first of CONFIG_FILE_NAMES in `cwd`; undefined when none. */
export function findConfigFile(explicit: string | undefined, cwd: string): string | undefined {
  if (explicit !== undefined && explicit !== '') {
    const path = resolve(cwd, explicit);
    if (!existsSync(path)) throw new ConfigError(`--config ${explicit}: no such file.`);
    return path;
  }
  return CONFIG_FILE_NAMES.map((name) => join(cwd, name)).find((path) => existsSync(path));
}

export function loadConfigFile(
  explicit: string | undefined,
  env: Record<string, string | undefined> = process.env,
  cwd: string = process.cwd(),
): LoadedConfigFile | undefined {
  const path = findConfigFile(explicit, cwd);
  if (path === undefined) return undefined;
  return { path, values: parseConfigText(readFileSync(path, 'utf8'), path, env) };
}

/** Parses (JSON for *.json, else YAML), checks the keys and values, interpolates `${NAME}`. */
export function parseConfigText(
  text: string,
  path: string,
  env: Record<string, string | undefined>,
  table: OptionTable = CONFIG_FILE_OPTIONS,
): FileFlags {
  const kinds = new Map(
    Object.values(table).flatMap((spec) => (spec.configKey ? [[spec.configKey, spec.kind ?? 'value']] : [])),
  );
  let parsed: unknown;
  try {
    parsed = path.endsWith('.json') ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    throw new ConfigError(`${path} does not parse: ${(error as Error).message.split('\n')[0]}`);
  }
  if (parsed === null || parsed === undefined) return {};
  if (typeof parsed !== 'object' || Array.isArray(parsed))
    throw new ConfigError(`${path} must hold an object of options (e.g. {"baseUrl": "https://…"}).`);
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(parsed)) {
    const kind = kinds.get(key);
    if (kind === undefined)
      throw new ConfigError(`${path}: unknown key "${key}" (known: ${[...kinds.keys()].join(', ')}).`);
    out[key] = normalize(key, kind, value, path, env);
  }
  return out as FileFlags;
}

/** Values as commander would hand them over: strings, a switch a boolean, a list option a list. */
function normalize(
  key: string,
  kind: OptionKind,
  value: unknown,
  path: string,
  env: Record<string, string | undefined>,
): unknown {
  const where = `${path}: ${key}`;
  if (kind === 'switch') {
    if (typeof value !== 'boolean') throw new ConfigError(`${where} must be true or false.`);
    return value;
  }
  if (Array.isArray(value)) {
    if (kind === 'value') throw new ConfigError(`${where} must be a single value.`);
    const items = value.map((item) => scalar(item, where, env));
    return kind === 'csv' ? items.join(',') : items;
  }
  const text = scalar(value, where, env);
  return kind === 'list' ? [text] : text;
}

function scalar(value: unknown, where: string, env: Record<string, string | undefined>): string {
  if (typeof value === 'number') return String(value);
  if (typeof value !== 'string') throw new ConfigError(`${where} must be a string or a number.`);
  return interpolate(value, where, env);
}

/** `${NAME}` → the environment variable NAME; an unset one is an error (a secret silently empty is not). */
export function interpolate(text: string, where: string, env: Record<string, string | undefined>): string {
  return text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_whole, name: string) => {
    const value = env[name];
    if (value === undefined)
      throw new ConfigError(`${where} uses \${${name}}, which is not set in the environment.`);
    return value;
  });
}
