/**
 * When two runs observed the same thing. An observation quotes the run's own particulars: ids the
 * server made, its origin and port, timings, sizes, sample counts, timestamps, and the in-progress
 * statuses a poll happened to see. Two clean runs of the same server differ in every one of those
 * (measured: whole runs of the reference stack, 2026-11-26), so they are masked before comparing
 * (or, for what a poll happened to see, left out), and the lines' order (tests run concurrently)
 * does not count. What is left is what the server
 * chose: a page base, a refusal status, a response shape, a header.
 *
 * Only an INFO requirement's observations are compared: there the observation is the verdict. A
 * judged requirement's verdict is the comparison; its observations (timings of the exchanges behind
 * a pass) stay in the finding, shown on expand.
 */
import type { RequirementLevel } from '../requirements/types.ts';

const UNIT = String.raw`(ms|s|bytes|samples|Hz|kHz|characters|chars|requests|polls|snapshots|part\(s\)|parts?|items?|calls?|takes?|frames?|chunks?|KB|MB|kB|%)`;

const MASKS: Array<[RegExp, string]> = [
  // The run's own random seed (fast-check property tests), not the server's.
  [/\b(seed|SPEAKCHECK_SEED)([ =])\d+/g, '$1$2#'],
  // An origin: scheme, host and the port the run happened to get.
  [/\b[a-z][a-z0-9+.-]*:\/\/[^/\s"'<>]+/gi, '<origin>'],
  [/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, '<id>'],
  // Ids the server made (tk_c8e3d…, vc_66de5…; not done_webhook) and the sink's random hook paths.
  [/\b[a-z]{2,4}_(?=[0-9a-z]*\d)[0-9a-z]{5,}\b/gi, '<id>'],
  [/\/hooks\/[^/\s"']+/g, '/hooks/<id>'],
  // A figure with its unit: a timing, a size, a count of requests or polls.
  [new RegExp(String.raw`[+-]*\d+(?:\.\d+)?\s?${UNIT}(?![\w(])`, 'g'), '#$1'],
  // Timestamps and sample counts: no small number a server chooses has four digits or more.
  [/\d{4,}/g, '#'],
];

/**
 * Lines that say what one run happened to catch, not what the server chose, left out: a conclusion
 * drawn from two timings (chunks mode was not faster; a stream that ended N ms before the take was
 * done), the harness trying again after a take too quick to observe, a snapshot of what had happened
 * "so far", and which in-progress statuses a poll or a
 * stream saw on its way to ready (waiting → progress_25 → ready one run, started → ready the next;
 * measured over whole runs of the same reference stack).
 */
const RACE = [
  /\b(?:faster|slower|sooner)\b/i,
  // One timing against another: "the wav stream ended N ms before the take was done".
  /\d\s?m?s (?:before|after)\b/,
  /\b(?:waiting|started|progress_\d+)\b/,
  // The harness trying again because a take was too quick to observe.
  /\btrying (?:a|another|again)\b/i,
  // A snapshot while something is still under way: "done calls so far answered [500]".
  /\bso far\b/i,
];

/** One observation with the run's particulars masked. */
export function maskObservation(line: string): string {
  return MASKS.reduce((text, [pattern, mask]) => text.replace(pattern, mask), line);
}

/** The observations as compared: masked, timing conclusions left out, in a fixed order. */
export function comparableObservations(lines: readonly string[]): string[] {
  return lines
    .filter((line) => !RACE.some((race) => race.test(line)))
    .map(maskObservation)
    .sort();
}

/** Whether the observations of a requirement at `level` are compared at all (INFO only, see above). */
export function observationsCompared(level: RequirementLevel): boolean {
  return level === 'INFO';
}
