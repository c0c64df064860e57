/**
 * Parts espeak-ng has spoken, replayed at the pace it spoke them (issue 52).
 *
 * espeak-ng renders the same text with the same settings to the same samples, and a run asks for the
 * same sentences again and again (a voice's three example sentences for every voice, the suites'
 * fixed texts, the long take's six sentences repeated): in the main job 175 parts, 86 of them
 * different, 56 % of the characters spoken before. A part spoken before is not computed again: its
 * buffers are delivered in the order and at the relative moments espeak delivered them, and the
 * engine is busy for as long as computing the part takes it, so seen from outside nothing changes
 * (the same audio, the same streaming, the engine's pace), only the CPU is not spent.
 *
 * The pace is the engine's, not the moment's: a part's first computation may have been slowed by
 * a busy machine (the same sentence took 171 ms once and 10 ms another time), and replaying that
 * would make every later take of it slower than computing it. A replay lasts what the part would
 * take at the fastest pace the engine has shown (ms per sample of its computed parts), never longer
 * than it took when it was computed.
 *
 * Bounded: the least recently used parts are dropped beyond `maxBytes` of samples.
 */

export interface SpokenPart {
  /** Each buffer espeak delivered, with its time after the call (ms). */
  buffers: { atMs: number; pcm: Int16Array }[];
  /** When the part was done after the call (ms), and its sample count. */
  doneAtMs: number;
  samples: number;
}

/** Samples kept at most: ~6 minutes of 22 kHz speech. */
export const DEFAULT_REPLAY_BYTES = 16 * 1024 * 1024;

/** Parts shorter than this (samples, ~0.5 s at 22 kHz) say little of the engine's pace: its fixed costs dominate. */
const PACE_MIN_SAMPLES = 11_025;

export class PartReplays {
  private readonly parts = new Map<string, SpokenPart>();
  private bytes = 0;
  /** The engine's fastest pace so far, ms per sample. */
  private msPerSample = Number.POSITIVE_INFINITY;

  constructor(private readonly maxBytes = DEFAULT_REPLAY_BYTES) {}

  static key(text: string, settings: unknown): string {
    return `${JSON.stringify(settings)}\n${text}`;
  }

  get(key: string): SpokenPart | undefined {
    const part = this.parts.get(key);
    if (!part) return undefined;
    this.parts.delete(key); // most recently used last
    this.parts.set(key, part);
    return part;
  }

  set(key: string, part: SpokenPart): void {
    if (part.samples >= PACE_MIN_SAMPLES)
      this.msPerSample = Math.min(this.msPerSample, part.doneAtMs / part.samples);
    const size = sizeOf(part);
    if (size > this.maxBytes || this.parts.has(key)) return;
    this.parts.set(key, part);
    this.bytes += size;
    for (const [oldest, old] of this.parts) {
      if (this.bytes <= this.maxBytes) break;
      this.parts.delete(oldest);
      this.bytes -= sizeOf(old);
    }
  }

  get size(): number {
    return this.parts.size;
  }

  /**
   * How long a replay of `part` lasts: at the engine's fastest pace, at most as long as it took. A
   * short part (its fixed costs dominate) and any part before the pace is known: as long as it took.
   */
  replayMs(part: SpokenPart): number {
    if (part.samples < PACE_MIN_SAMPLES || !Number.isFinite(this.msPerSample)) return part.doneAtMs;
    return Math.min(part.doneAtMs, part.samples * this.msPerSample);
  }
}

function sizeOf(part: SpokenPart): number {
  return part.buffers.reduce((sum, b) => sum + b.pcm.byteLength, 0);
}

/** Records a part as espeak delivers it; copies, as the buffers delivered may be transferred on. */
export class PartRecorder {
  private readonly start = performance.now();
  private readonly buffers: SpokenPart['buffers'] = [];

  add(pcm: Int16Array): void {
    this.buffers.push({ atMs: performance.now() - this.start, pcm: pcm.slice() });
  }

  done(samples: number): SpokenPart {
    return { buffers: this.buffers, doneAtMs: performance.now() - this.start, samples };
  }
}

/**
 * Delivers a recorded part over `durationMs`, each buffer at its recorded moment scaled to it (copies
 * again); resolves with its sample count when it ends.
 */
export async function replayPart(
  part: SpokenPart,
  durationMs: number,
  onSamples: (pcm: Int16Array) => void,
): Promise<number> {
  const scale = part.doneAtMs > 0 ? durationMs / part.doneAtMs : 0;
  const start = performance.now();
  for (const buffer of part.buffers) {
    await until(start + buffer.atMs * scale);
    onSamples(buffer.pcm.slice());
  }
  await until(start + durationMs);
  return part.samples;
}

/**
 * Resolves at `at`, and never before the next turn of the event loop: espeak's buffers arrive as
 * messages from its thread, each in a task of its own and never before synthesizePart has returned,
 * and the callers count on that (a websocket part's header goes out before its first samples).
 */
async function until(at: number): Promise<void> {
  let ms = at - performance.now();
  if (ms <= 0) return new Promise((resolve) => setImmediate(resolve));
  // A timer counts whole milliseconds from the loop's cached clock and can fire a little early:
  // waited again until the moment has come (CI saw a buffer 1.4 ms before its moment).
  while (ms > 0) {
    await new Promise((resolve) => setTimeout(resolve, Math.ceil(ms)));
    ms = at - performance.now();
  }
}
