/**
 * How many sequences a run explores, how long they may be, and the bound on exploring and shrinking
 * together. The main job runs few (sized to add at most a tenth to its time: docs/stateful.md has the
 * measurement); `--sequences N` and the acceptance profile run many more, with a progress line.
 * `--seed` and `--replay-path` replay a shrunk sequence exactly.
 */
import type { RunPlan } from '../../src/harness/index.ts';

/** Sequences of the main job (measured: docs/stateful.md, "Time"). */
export const DEFAULT_SEQUENCES = 4;
/** Sequences of the acceptance profile. */
export const ACCEPTANCE_SEQUENCES = 200;
const MAX_COMMANDS = 24;
/** The longest a run explores (the test's own bound is this plus a margin: suites/sequences.spec.ts). */
export const MAX_TIME_LIMIT_MS = 600_000;

export interface SequenceBudget {
  /** The run's share of random sequences (the witness follows when they left a judged id unobserved). */
  sequences: number;
  maxCommands: number;
  /** Shrinking stops this long after the first failing sequence: the verdict comes within a minute. */
  shrinkMs: number;
  /** Exploring and shrinking together stop here (a failure found by then is still reported, shrunk so far). */
  timeLimitMs: number;
  /** fast-check's path of a shrunk sequence: `--replay-path`. */
  path?: string;
  replayPath?: string;
  /** Called after each sequence: a progress line when the run explores many. */
  progress(done: number, ms: number): void;
}

export function sequenceBudget(config: RunPlan): SequenceBudget {
  const sequences =
    config.sequences ?? (config.profile === 'acceptance' ? ACCEPTANCE_SEQUENCES : DEFAULT_SEQUENCES);
  const many = sequences > DEFAULT_SEQUENCES;
  const [path, replayPath] = (config.replayPath ?? '').split('@');
  const started = Date.now();
  return {
    sequences,
    maxCommands: MAX_COMMANDS,
    shrinkMs: 12_000,
    // Each sequence takes well under a second against the reference; a hosted server is slower.
    timeLimitMs: many ? Math.min(MAX_TIME_LIMIT_MS, Math.max(60_000, sequences * 3_000)) : 30_000,
    ...(path ? { path } : {}),
    ...(replayPath ? { replayPath } : {}),
    progress(done) {
      if (!many || (done % 10 !== 0 && done !== sequences)) return;
      const s = Math.round((Date.now() - started) / 1000);
      process.stderr.write(`[speakcheck] sequences: ${done}/${sequences} explored in ${s} s\n`);
    },
  };
}

/** What the run's sequences came to: the summary line's particulars. */
export interface SequencesRan {
  /** Every sequence run: the random ones, the witness, and those tried while shrinking. */
  count: number;
  longestMs: number;
  longestSteps: number;
  seed: number;
  witnessed: boolean;
  shrunk: boolean;
}

/**
 * The line the run's output names the sequences with (issue 50: "its output names how many
 * sequences ran and how long the longest was"), on stderr whatever the reporter.
 */
export function sequencesLine(o: SequencesRan): string {
  return (
    `[speakcheck] sequences: ${o.count} sequence(s) ran, the longest ${Math.round(o.longestMs)} ms ` +
    `(${o.longestSteps} steps); seed ${o.seed}` +
    `${o.witnessed ? ', then the witness sequence' : ''}${o.shrunk ? ' (a failing one was shrunk)' : ''}`
  );
}
