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
/**
 * The requirements the expiry file judges (its `covers` calls; test/harness/suite-workers.test.ts
 * holds the two equal). A run selecting requirements (--requirement) loads the file only for one of
 * these: loaded for none, it registered no test and cost a thread the harness's modules (issue 52).
 */
export const EXPIRY_REQUIREMENTS: readonly string[] = [
  'AUTH-EXPIRED-TOKEN-401',
  'AUDIO-SIGNED-EXPIRES',
  'WS-URL-EXPIRED-REFUSED',
  'WS-OPEN-PAST-EXPIRY',
];

/** What a run selected: areas (--only; none: every area) and requirements (--requirement; none: all of them). */
export interface SuiteSelection {
  only: readonly string[];
  requirements?: readonly string[];
}

/** The file filters of the selected areas (none: every file); the expiry file goes with its areas. */
export function suiteFilters(selection: SuiteSelection): string[] {
  const filters = selection.only.map((area) => `suites/${area}`);
  if (selection.only.length > 0 && runsExpiryFile(selection)) filters.push('suites/expiry');
  return filters;
}

/** Whether a run of this selection loads the expiry file. */
export function runsExpiryFile({ only, requirements = [] }: SuiteSelection): boolean {
  if (requirements.length > 0) return requirements.some((id) => EXPIRY_REQUIREMENTS.includes(id));
  return only.length === 0 || only.some((area) => EXPIRY_AREAS.includes(area));
}
