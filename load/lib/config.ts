/**
 * Run settings from the environment (`k6 run -e NAME=value`, or the process environment, which
 * `speakcheck load` uses for secrets so they never appear in a command line).
 */

function env(name: string): string | undefined {
  const value = __ENV[name];
  return value === undefined || value === '' ? undefined : value;
}

export function envString(name: string, fallback: string): string {
  return env(name) ?? fallback;
}

export function envNumber(name: string, fallback: number): number {
  const raw = env(name);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value)) throw new Error(`${name}=${raw} is not a number`);
  return value;
}

export function envList(name: string, fallback: number[]): number[] {
  const raw = env(name);
  return raw === undefined ? fallback : raw.split(',').map((part) => Number(part.trim()));
}

export interface Target {
  baseUrl: string;
  authUrl: string;
  email?: string;
  password?: string;
  /** A permanent token: used as is, never refreshed. */
  token?: string;
  /** The model under test; undefined means the first model the server lists. */
  model?: string;
}

export function target(): Target {
  const baseUrl = envString('BASE_URL', envString('SPEAK_BASE_URL', 'http://127.0.0.1:8080')).replace(
    /\/$/,
    '',
  );
  return {
    baseUrl,
    authUrl: envString('AUTH_URL', baseUrl).replace(/\/$/, ''),
    email: env('SPEAK_EMAIL'),
    password: env('SPEAK_PASSWORD'),
    token: env('SPEAK_TOKEN'),
    model: env('MODEL'),
  };
}

/** Percentiles every Trend reports in the summary (and so in summary.json for `perf compare`). */
export const SUMMARY_TREND_STATS = ['avg', 'min', 'med', 'max', 'p(90)', 'p(95)', 'p(99)', 'count'];
