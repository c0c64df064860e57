/**
 * The expect file (`run --expect FILE`; `speakcheck.expect.yaml` in the working directory when
 * present): a YAML (or JSON, which YAML reads too) list of `{requirement, reason, link?, expires?}`.
 * Read and checked before anything starts: a malformed entry or an unknown id is an invalid option
 * (exit 2) naming the closest known ids, never a run that silently expects nothing.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse, stringify } from 'yaml';
import { catalogue } from '../requirements/index.ts';
import { ConfigError } from './errors.ts';
import { closestIds } from './requirement-selection.ts';
import type { Expectation } from './types.ts';

export const DEFAULT_EXPECT_FILE = 'speakcheck.expect.yaml';

const known = new Set<string>(catalogue.map((r) => r.id));

/** The file to read: the flag, else the default file when it exists in `cwd`, else none. */
export function expectFilePath(flag: string | undefined, cwd: string = process.cwd()): string | undefined {
  if (flag !== undefined && flag !== '') return resolve(cwd, flag);
  const fallback = resolve(cwd, DEFAULT_EXPECT_FILE);
  return existsSync(fallback) ? fallback : undefined;
}

export function loadExpectFile(path: string): Expectation[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new ConfigError(`--expect: cannot read ${path}: ${(e as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = parse(text);
  } catch (e) {
    throw new ConfigError(
      `--expect: ${path} is not valid YAML or JSON: ${(e as Error).message.split('\n')[0]}`,
    );
  }
  return parseExpectations(parsed ?? [], path);
}

/** Checks the parsed document: a list of entries with known ids, a reason each, valid dates. */
export function parseExpectations(doc: unknown, where: string): Expectation[] {
  if (!Array.isArray(doc))
    throw new ConfigError(
      `--expect: ${where} must be a list of {requirement, reason, link?, expires?} entries.`,
    );
  const entries = doc.map((raw, i) => parseEntry(raw, `${where} entry ${i + 1}`));
  const unknown = entries.filter((e) => !known.has(e.requirement));
  if (unknown.length > 0) {
    const lines = unknown.map(({ requirement: id }) => {
      const near = closestIds(id);
      return `${id}${near.length ? ` (did you mean ${near.join(', ')}?)` : ''}`;
    });
    throw new ConfigError(
      `--expect: ${where}: unknown requirement id${unknown.length > 1 ? 's' : ''} ${lines.join('; ')}.`,
    );
  }
  const seen = new Set<string>();
  for (const e of entries) {
    if (seen.has(e.requirement))
      throw new ConfigError(`--expect: ${where}: ${e.requirement} is listed twice.`);
    seen.add(e.requirement);
  }
  return entries;
}

function parseEntry(raw: unknown, where: string): Expectation {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw new ConfigError(`--expect: ${where} is not an object {requirement, reason, link?, expires?}.`);
  const { requirement, reason, link, expires, ...rest } = raw as Record<string, unknown>;
  const extra = Object.keys(rest);
  if (extra.length > 0)
    throw new ConfigError(
      `--expect: ${where}: unknown field${extra.length > 1 ? 's' : ''} ${extra.join(', ')} (known: requirement, reason, link, expires).`,
    );
  if (typeof requirement !== 'string' || requirement.trim() === '')
    throw new ConfigError(`--expect: ${where}: "requirement" must be a requirement id.`);
  if (typeof reason !== 'string' || reason.trim() === '')
    throw new ConfigError(
      `--expect: ${where} (${requirement}): "reason" must say why the failure is expected.`,
    );
  if (link !== undefined && typeof link !== 'string')
    throw new ConfigError(`--expect: ${where} (${requirement}): "link" must be a string (a URL).`);
  const day = expiresDay(expires, `${where} (${requirement})`);
  return {
    requirement: requirement.trim().toUpperCase(),
    reason: reason.trim(),
    ...(link === undefined ? {} : { link }),
    ...(day === undefined ? {} : { expires: day }),
  };
}

/** `expires` as `YYYY-MM-DD` (a YAML timestamp or a string of that form). */
function expiresDay(value: unknown, where: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (value instanceof Date && !Number.isNaN(value.getTime())) return value.toISOString().slice(0, 10);
  if (typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(Date.parse(value)))
    return value;
  throw new ConfigError(
    `--expect: ${where}: "expires" must be a date YYYY-MM-DD, got ${JSON.stringify(value)}.`,
  );
}

/** The file text `speakcheck expect --from` writes: YAML, one entry per requirement. */
export function renderExpectFile(entries: readonly Expectation[], header: string): string {
  const comment = header
    .split('\n')
    .map((line) => `# ${line}`.trimEnd())
    .join('\n');
  return `${comment}\n${entries.length === 0 ? '[]\n' : stringify(entries, { lineWidth: 0 })}`;
}
