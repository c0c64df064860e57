/**
 * Which suite files a run loads. A leaf module: the run, `run --list` and the sequencer share it
 * without loading vitest.
 */

/**
 * The expiry waits (suites/expiry.spec.ts): the sequencer starts it first, so the longest lifetime
 * is waited out beside every other file instead of after them.
 */
export const EXPIRY_FILE = /(^|[\\/])suites[\\/]expiry\.spec\.ts$/;
/**
 * The longest files against a server that takes its time: websocket streams run one after another on
 * purpose (one connection serializes requests), so against hosted latencies they bound the whole run
 * unless they start first (websocket 45 s of a 55 s run when it started tenth). The area is four
 * files (suites/websocket*.spec.ts) so that their chains of waits run side by side.
 */
export const LONGEST_FILE = /(^|[\\/])suites[\\/]websocket(-[a-z]+)?\.spec\.ts$/;
/** The areas whose requirements the expiry file judges: it loads when the run selects one of them. */
export const EXPIRY_AREAS: readonly string[] = ['auth', 'audio', 'websocket'];

/** The file filters of the selected areas (none: every file); the expiry file goes with its areas. */
export function suiteFilters(only: readonly string[]): string[] {
  const filters = only.map((area) => `suites/${area}`);
  if (only.length > 0 && runsExpiryFile(only)) filters.push('suites/expiry');
  return filters;
}

/** Whether a run of these areas (none: every area) loads the expiry file. */
export function runsExpiryFile(only: readonly string[]): boolean {
  return only.length === 0 || only.some((area) => EXPIRY_AREAS.includes(area));
}
