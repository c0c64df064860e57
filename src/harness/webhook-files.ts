/**
 * The webhook suite files by name: which use the run's sink, which file settle entries (opened first,
 * src/harness/sequencer.ts; waited for by the judge, src/harness/run-sink.ts) and the end-of-run
 * judge (started last). One place, since the sequencer and the judge's producer count must agree.
 */
/** The suite files that use the sink. */
export const WEBHOOK_FILE = /(^|[\\/])suites[\\/]webhooks[^\\/]*\.spec\.ts$/;
/** The files among them that file settle entries: the end-of-run judge waits until each has finished. */
export const SETTLING_FILE = /(^|[\\/])suites[\\/]webhooks\.spec\.ts$/;
/** The end-of-run judge of the settle entries. */
export const SETTLED_FILE = /(^|[\\/])suites[\\/]webhooks-settled\.spec\.ts$/;
