/**
 * The value parsers of every option (the option table in options.ts names one per option): each
 * takes the raw text as typed on the command line, in the environment or in the config file, and
 * `what` (the flag, or the variable that gave the value), and returns the typed value or throws a
 * ConfigError whose message names `what` and says what is wrong. One module, in the config layer,
 * so no flag's parsing lives in a command and no command's module is imported back by the config.
 */
import { resolve } from 'node:path';
import { AREAS } from '../requirements/types.ts';
import { readCaFile } from './ca-file.ts';
import { ConfigError } from './errors.ts';
import { type ExpiryMode, type ListenAddress, PROFILES, type Profile, type Target } from './types.ts';

/** A parser of the option table: raw text → value, or a ConfigError naming `what`. */
export type OptionParser<T> = (raw: string, what: string) => T;

/** A whole number above 0 (`--concurrency 8`, `--request-timeout 15000`). */
export const parsePositiveInt: OptionParser<number> = (raw, what) => {
  if (!/^\d+$/.test(raw.trim()) || Number(raw) <= 0) {
    throw new ConfigError(`${what} "${raw}" must be a positive whole number.`);
  }
  return Number(raw);
};

/** A whole number, 0 or more (`--expiry-leeway 0`). */
export const parseNonNegativeInt: OptionParser<number> = (raw, what) => {
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(`${what} "${raw}" must be a whole number, 0 or more.`);
  return Number(raw);
};

/** `--max-time`: seconds, fractions allowed (the run's budget: runBudgetMs turns it into ms). */
export const parseMaxTime: OptionParser<number> = (raw, what) => {
  const seconds = Number(raw);
  if (!Number.isFinite(seconds) || seconds <= 0)
    throw new ConfigError(`${what} "${raw}" is not a positive number of seconds (e.g. 300).`);
  return seconds;
};

/** `--max-rps`: requests per second, fractions allowed (0.5: one every two seconds). */
export const parseMaxRps: OptionParser<number> = (raw, what) => {
  const rps = Number(raw.trim());
  if (!/^\d+(\.\d+)?$/.test(raw.trim()) || !(rps > 0))
    throw new ConfigError(`${what} "${raw}" must be a positive number of requests per second (e.g. 10).`);
  return rps;
};

/** `--ca-file`: an absolute path to a readable PEM certificate (an unreadable one is a usage error). */
export const parseCaFile: OptionParser<string> = (raw, what) => {
  const path = resolve(raw);
  try {
    readCaFile(path);
  } catch (error) {
    throw new ConfigError(`${what} ${raw}: ${(error as Error).message}.`);
  }
  return path;
};

/** An http(s) URL without query, fragment or credentials; returned without a trailing slash. */
export const parseHttpUrl: OptionParser<string> = (raw, what) => {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${what} "${raw}" is not a URL (expected e.g. http://127.0.0.1:8080).`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(`${what} "${raw}" must be an http:// or https:// URL.`);
  }
  if (url.search || url.hash) throw new ConfigError(`${what} "${raw}" must not carry a query or fragment.`);
  if (url.username || url.password) {
    throw new ConfigError(`${what} must not carry credentials; use --email/--password or --token.`);
  }
  return url.toString().replace(/\/+$/, '');
};

/** `host:port` or `port` (`[::1]:port` for IPv6); port 0 is any free port. */
export const parseListenAddress: OptionParser<ListenAddress> = (raw, what) => {
  const match = /^(?:(.+):)?(\d+)$/.exec(raw.trim());
  const port = match ? Number(match[2]) : Number.NaN;
  if (!match || port > 65_535) {
    throw new ConfigError(
      `${what} "${raw}" must be HOST:PORT or PORT with a port from 0 to 65535 (e.g. 127.0.0.1:8900).`,
    );
  }
  return match[1] ? { host: match[1].replace(/^\[|\]$/g, ''), port } : { port };
};

export const parseProfile: OptionParser<Profile> = (raw, what) => {
  if ((PROFILES as string[]).includes(raw)) return raw as Profile;
  throw new ConfigError(
    `${what} "${raw}" must be ${PROFILES.slice(0, -1).join(', ')} or ${PROFILES.at(-1)}.`,
  );
};

export const parseExpiryMode: OptionParser<ExpiryMode> = (raw, what) => {
  if (raw === 'quick' || raw === 'full') return raw;
  throw new ConfigError(`${what} "${raw}" must be quick or full.`);
};

export const parseTarget: OptionParser<Target> = (raw, what) => {
  if (raw === 'embedded' || raw === 'remote' || raw === 'container') return raw;
  throw new ConfigError(`${what} "${raw}" must be embedded, remote or container.`);
};

/** `--only auth,takes`: known areas, lower-cased, each once. */
export const parseAreas: OptionParser<string[]> = (raw, what) => {
  const areas = raw
    .split(',')
    .map((a) => a.trim().toLowerCase())
    .filter(Boolean);
  const unknown = areas.filter((a) => !(AREAS as readonly string[]).includes(a));
  if (unknown.length > 0) {
    throw new ConfigError(`${what}: unknown area ${unknown.join(', ')} (known: ${AREAS.join(', ')}).`);
  }
  return [...new Set(areas)];
};
