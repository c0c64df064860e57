/**
 * When two runs observed the same thing. An observation quotes the run's own particulars: ids the
 * server made, its origin and port, timings, sizes, sample counts, timestamps, and the in-progress
 * statuses a poll happened to see. Two clean runs of the same server differ in every one of those
 * (measured: two runs of the embedded reference, 2026-11-26), so they are masked before comparing,
 * and the lines' order (tests run concurrently) does not count. What is left is what the server
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
  // Ids the server made (tk_…, vc_…) and the sink's random hook paths.
  [/\b[a-z]{2,4}_[0-9a-z]{5,}\b/gi, '<id>'],
  [/\/hooks\/[^/\s"']+/g, '/hooks/<id>'],
  // A figure with its unit: a timing, a size, a count of requests or polls.
  [new RegExp(String.raw`[+-]*\d+(?:\.\d+)?\s?${UNIT}(?![\w(])`, 'g'), '#$1'],
  // Timestamps and sample counts: no small number a server chooses has four digits or more.
  [/\d{4,}/g, '#'],
  // Which in-progress status a poll saw is a race: waiting → progress_25 → ready is waiting → ready.
  [/\b(?:waiting|started|progress_\d+)\b/g, '<in progress>'],
  [/<in progress>(?:(?:\s*(?:→|->|,)\s*)<in progress>)+/g, '<in progress>'],
];

/** A conclusion drawn from two timings of one run (chunks mode was not faster): it flips run to run. */
const TIMING_CONCLUSION = /\b(?:faster|slower|sooner)\b/i;

/** One observation with the run's particulars masked. */
export function maskObservation(line: string): string {
  return MASKS.reduce((text, [pattern, mask]) => text.replace(pattern, mask), line);
}

/** The observations as compared: masked, timing conclusions left out, in a fixed order. */
export function comparableObservations(lines: readonly string[]): string[] {
  return lines
    .filter((line) => !TIMING_CONCLUSION.test(line))
    .map(maskObservation)
    .sort();
}

/** Whether the observations of a requirement at `level` are compared at all (INFO only, see above). */
export function observationsCompared(level: RequirementLevel): boolean {
  return level === 'INFO';
}
