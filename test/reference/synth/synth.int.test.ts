import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { espeakSettingsFor, espeakVoiceFor } from '../../../reference/synth/espeak-settings.ts';
import {
  createSynthesizer,
  SAMPLE_RATE,
  splitIntoParts,
  TRAILING_SILENCE_MS,
  type VoiceRendering,
} from '../../../reference/synth/index.ts';

type Engine = Awaited<ReturnType<typeof createSynthesizer>>;
let synth: Engine;

beforeAll(async () => {
  synth = await createSynthesizer();
});
afterAll(async () => {
  await synth?.close();
});

const voice = (over: Partial<VoiceRendering> = {}): VoiceRendering => ({
  language: 'en-US',
  gender: 'female',
  prosody: null,
  style: null,
  seed: 'voice-1',
  ...over,
});

interface Spoken {
  pcm: Int16Array;
  returned: number;
  callbacks: number;
  firstSamplesMs: number;
  totalMs: number;
}

async function speak(text: string, v: VoiceRendering = voice(), engine: Engine = synth): Promise<Spoken> {
  const chunks: Int16Array[] = [];
  const started = performance.now();
  let firstSamplesMs = -1;
  const returned = await engine.synthesizePart(text, v, (pcm) => {
    if (firstSamplesMs < 0) firstSamplesMs = performance.now() - started;
    chunks.push(pcm);
  });
  const totalMs = performance.now() - started;
  const pcm = new Int16Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    pcm.set(c, at);
    at += c.length;
  }
  return { pcm, returned, callbacks: chunks.length, firstSamplesMs, totalMs };
}

const seconds = (pcm: Int16Array) => pcm.length / SAMPLE_RATE;
function rms(pcm: Int16Array): number {
  let sum = 0;
  for (const s of pcm) sum += s * s;
  return Math.sqrt(sum / Math.max(1, pcm.length));
}

/** Median F0 (Hz) over loud 40 ms frames, by normalised autocorrelation (60..450 Hz). */
function medianPitchHz(pcm: Int16Array): number {
  const frame = Math.round(SAMPLE_RATE * 0.04);
  const minLag = Math.floor(SAMPLE_RATE / 450);
  const maxLag = Math.ceil(SAMPLE_RATE / 60);
  const loudness = rms(pcm);
  const estimates: number[] = [];
  for (let start = 0; start + frame + maxLag < pcm.length; start += frame) {
    const x = pcm.subarray(start, start + frame + maxLag);
    if (rms(x.subarray(0, frame)) < loudness) continue; // voiced, loud frames only
    let best = 0;
    let bestLag = 0;
    for (let lag = minLag; lag <= maxLag; lag++) {
      let dot = 0;
      let e1 = 0;
      let e2 = 0;
      for (let i = 0; i < frame; i++) {
        dot += x[i]! * x[i + lag]!;
        e1 += x[i]! * x[i]!;
        e2 += x[i + lag]! * x[i + lag]!;
      }
      const r = dot / Math.sqrt(e1 * e2 + 1);
      if (r > best) [best, bestLag] = [r, lag];
    }
    if (best > 0.6) estimates.push(SAMPLE_RATE / bestLag);
  }
  estimates.sort((a, b) => a - b);
  return estimates[Math.floor(estimates.length / 2)] ?? 0;
}

const SENTENCE = 'The quick brown fox jumps over the lazy dog near the river bank.';

describe('synthesizePart', () => {
  it('speaks real, audible speech of a plausible duration, ending in silence', async () => {
    const { pcm, returned } = await speak(SENTENCE);
    expect(returned).toBe(pcm.length);
    // 13 words at espeak's default 175 words per minute: about 4.5 s; allow a wide band.
    expect(seconds(pcm)).toBeGreaterThan(2);
    expect(seconds(pcm)).toBeLessThan(9);
    expect(rms(pcm)).toBeGreaterThan(500);
    const tail = pcm.subarray(pcm.length - Math.round((SAMPLE_RATE * TRAILING_SILENCE_MS) / 1000));
    expect(tail.every((s) => s === 0)).toBe(true);
  });

  it('streams: a long sentence arrives in several callbacks, the first long before the part ends', async () => {
    const long = `${SENTENCE} And then, after a short rest, it jumps back over the same dog again and again.`;
    const { callbacks, firstSamplesMs, totalMs } = await speak(long);
    expect(callbacks).toBeGreaterThanOrEqual(10);
    expect(firstSamplesMs).toBeGreaterThanOrEqual(0);
    expect(firstSamplesMs).toBeLessThan(totalMs / 2);
  });

  it('pace changes duration monotonically', async () => {
    const durations: number[] = [];
    for (const pace of [-10, -5, 0, 5, 10]) {
      durations.push(
        seconds((await speak(SENTENCE, voice({ prosody: { pace, pitch: 0, expression: 0 } }))).pcm),
      );
    }
    for (let i = 1; i < durations.length; i++) expect(durations[i]!).toBeLessThan(durations[i - 1]!);
    expect(durations[0]! / durations.at(-1)!).toBeGreaterThan(2);
  });

  it('pitch moves the measured fundamental frequency', async () => {
    const low = medianPitchHz((await speak(SENTENCE, voice({ prosody: { pitch: -10 } }))).pcm);
    const high = medianPitchHz((await speak(SENTENCE, voice({ prosody: { pitch: 10 } }))).pcm);
    expect(low).toBeGreaterThan(0);
    expect(high).toBeGreaterThan(low * 1.3);
  });

  it.each([
    ['de', 'Guten Tag, wie geht es Ihnen heute?'],
    ['fr', 'Bonjour, comment allez-vous aujourd’hui ?'],
    ['es', '¿Hola, cómo estás hoy?'],
    ['en-GB', 'Good afternoon, how are you today?'],
  ])('speaks %s', async (language, text) => {
    const { pcm } = await speak(text, voice({ language }));
    expect(seconds(pcm)).toBeGreaterThan(1);
    expect(rms(pcm)).toBeGreaterThan(500);
  });

  it('serialises concurrent calls: one part at a time, in call order', async () => {
    const order: string[] = [];
    const results = await Promise.all(
      ['a', 'b', 'c'].map((name) =>
        synth.synthesizePart(`Part ${name}, spoken on its own.`, voice(), () => {
          if (order.at(-1) !== name) order.push(name);
        }),
      ),
    );
    expect(order).toEqual(['a', 'b', 'c']);
    for (const n of results) expect(n).toBeGreaterThan(SAMPLE_RATE / 2);
  });

  it('reports a failing callback and stays usable', async () => {
    await expect(
      synth.synthesizePart('This callback throws.', voice(), () => {
        throw new Error('consumer broke');
      }),
    ).rejects.toThrow('consumer broke');
    expect((await speak('Still working.')).pcm.length).toBeGreaterThan(SAMPLE_RATE / 2);
  });

  it('kills a part that exceeds its timeout and recovers with a new engine thread', async () => {
    // Two hours of speech cannot be made in 2 s (a warm espeak makes ~700 audio s a second on an idle
    // core: `synth-bench.ts --variants`); "Ok." can.
    const strict = await createSynthesizer({ partTimeoutMs: 2_000 });
    try {
      const long = Array.from(
        { length: 3000 },
        (_, i) => `This is sentence number ${i} of a long text.`,
      ).join(' ');
      await expect(strict.synthesizePart(long, voice(), () => {})).rejects.toThrow(
        /did not answer within 2000 ms/,
      );
      // The next part gets a fresh thread (its start-up is not counted against the part's timeout).
      const samples: number[] = [];
      await expect(
        strict.synthesizePart('Ok.', voice(), (pcm) => samples.push(pcm.length)),
      ).resolves.toBeGreaterThan(0);
    } finally {
      await strict.close();
    }
  });

  it('is reusable across many parts without growing its engine heap', async () => {
    for (let i = 0; i < 5; i++) await speak(`Warm up number ${i}.`, voice({ seed: `s${i}` }));
    const before = await synth.wasmHeapBytes();
    for (let i = 0; i < 60; i++)
      await speak(`Sentence number ${i}, in voice ${i % 5}.`, voice({ seed: `s${i % 5}` }));
    expect(await synth.wasmHeapBytes()).toBe(before);
  });
});

describe('a part spoken before (replaySpokenParts, the reference workers)', () => {
  it('is the same audio, streamed in the same buffers', async () => {
    const replaying = await createSynthesizer({ replaySpokenParts: true });
    try {
      const long = `${SENTENCE} And then, after a short rest, it jumps back over the same dog again and again.`;
      const first = await speak(long, voice(), replaying);
      const again = await speak(long, voice(), replaying);
      expect(again.returned).toBe(first.returned);
      expect(again.callbacks).toBe(first.callbacks);
      expect(Buffer.from(again.pcm.buffer).equals(Buffer.from(first.pcm.buffer))).toBe(true);
      // Still streamed: the first buffer comes before the part ends.
      expect(again.firstSamplesMs).toBeLessThan(again.totalMs / 2);
      // Another voice is another part: computed, and different audio.
      const other = await speak(long, voice({ gender: 'male' }), replaying);
      expect(Buffer.from(other.pcm.buffer).equals(Buffer.from(first.pcm.buffer))).toBe(false);
    } finally {
      await replaying.close();
    }
  });
});

describe('VoiceRendering → espeak settings', () => {
  it('maps language codes onto espeak voices, falling back to English', () => {
    const catalogue = synth.catalogue;
    expect(espeakVoiceFor('en-US', catalogue)).toEqual({ identifier: 'gmw/en-US', fallback: false });
    expect(espeakVoiceFor('en-GB', catalogue)).toEqual({ identifier: 'gmw/en', fallback: false });
    expect(espeakVoiceFor('de', catalogue).identifier).toBe('gmw/de');
    expect(espeakVoiceFor('de-AT', catalogue).identifier).toBe('gmw/de');
    expect(espeakVoiceFor('pt_BR', catalogue).identifier).toBe('roa/pt-BR');
    expect(espeakVoiceFor('fr', catalogue).identifier).toBe('roa/fr');
    expect(espeakVoiceFor('zz-ZZ', catalogue)).toEqual({ identifier: 'gmw/en-US', fallback: true });
  });

  it('picks a stable variant per seed within the gender', () => {
    const catalogue = synth.catalogue;
    const seeds = Array.from({ length: 20 }, (_, i) => `voice-${i}`);
    const female = seeds.map((seed) => espeakSettingsFor(voice({ seed }), catalogue).voice);
    const male = seeds.map((seed) => espeakSettingsFor(voice({ seed, gender: 'male' }), catalogue).voice);
    // Never a breath variant (f2, f3, f5): they cost twice the CPU (espeak-settings.ts).
    for (const v of female) expect(v).toMatch(/^gmw\/en-US\+f[14]$/);
    for (const v of male) expect(v).toMatch(/^gmw\/en-US\+m[1-7]$/);
    expect(new Set(female).size).toBeGreaterThan(1);
    expect(espeakSettingsFor(voice({ seed: 'voice-3' }), catalogue)).toEqual(
      espeakSettingsFor(voice({ seed: 'voice-3' }), catalogue),
    );
  });

  it('maps prosody of every type and styles onto espeak controls', () => {
    const c = synth.catalogue;
    const neutral = espeakSettingsFor(voice(), c);
    expect(neutral).toMatchObject({ rate: 175, pitch: 50, range: 50, volume: 100 });
    expect(espeakSettingsFor(voice({ prosody: { expression: 10 } }), c).range).toBe(100);
    expect(espeakSettingsFor(voice({ prosody: { pitch_range: -10 } }), c).range).toBe(0);
    const aroused = espeakSettingsFor(voice({ prosody: { arousal: 10 } }), c);
    expect(aroused.range).toBeGreaterThan(neutral.range);
    expect(aroused.rate).toBeGreaterThan(neutral.rate);
    expect(espeakSettingsFor(voice({ prosody: { tilt: 10 } }), c).volume).toBeGreaterThan(neutral.volume);
    const cheerful = espeakSettingsFor(voice({ style: ['cheerful'] }), c);
    expect(cheerful.pitch).toBeGreaterThan(neutral.pitch);
    expect(cheerful.range).toBeGreaterThan(neutral.range);
    expect(espeakSettingsFor(voice({ style: ['whisper'] }), c).voice).toBe('gmw/en-US+whisperf');
    expect(espeakSettingsFor(voice({ style: ['whisper'], gender: 'male' }), c).voice).toBe(
      'gmw/en-US+whisper',
    );
    // Out-of-range input is clamped, never passed to espeak as is.
    expect(espeakSettingsFor(voice({ prosody: { pace: 99, pitch: -99 } }), c)).toMatchObject({
      rate: 350,
      pitch: 5,
    });
    // A style adds to the (clamped) prosody; the sum is clamped again.
    const excited = espeakSettingsFor(voice({ prosody: { pace: 10, pitch: -10 }, style: ['excited'] }), c);
    expect(excited).toMatchObject({ rate: 350, pitch: 23 });
  });

  it('a whispered part is audible but quieter-voiced speech', async () => {
    const { pcm } = await speak('This is whispered.', voice({ style: ['whisper'] }));
    expect(seconds(pcm)).toBeGreaterThan(0.8);
    expect(rms(pcm)).toBeGreaterThan(100);
  });
});

describe('splitIntoParts', () => {
  it.each<[string, string[]]>([
    ['Hello world. How are you?', ['Hello world.', 'How are you?']],
    [
      'Dr. Smith met Mr. J. R. R. Tolkien. They talked.',
      ['Dr. Smith met Mr. J. R. R. Tolkien.', 'They talked.'],
    ],
    ['Wait... what? Really?! Yes.', ['Wait... what?', 'Really?!', 'Yes.']],
    ['It costs $3.50 today. Version 1.2.3 is out.', ['It costs $3.50 today.', 'Version 1.2.3 is out.']],
    ['  Spaces\tand\u00a0tabs\n  collapse.  ', ['Spaces and tabs collapse.']],
    ['一句话。第二句话！', ['一句话。', '第二句话！']],
    ['«Bonjour !» dit-il. Puis il partit.', ['«Bonjour !» dit-il.', 'Puis il partit.']],
    ['Headline\n\nFirst paragraph.', ['Headline', 'First paragraph.']],
    ['Trailing punctuation. ... !!', ['Trailing punctuation. ... !!']],
    ['No terminal punctuation', ['No terminal punctuation']],
    ['', []],
    [' \n\t ', []],
  ])('%j', (text, parts) => {
    expect(splitIntoParts(text)).toEqual(parts);
  });

  it('never yields empty or untrimmed parts and cuts over-long sentences', () => {
    const long = `${'word, '.repeat(200)}end.`;
    const parts = splitIntoParts(`${long} Next.`);
    expect(parts.length).toBeGreaterThan(3);
    expect(parts.at(-1)).toBe('Next.');
    for (const part of parts) {
      expect(part.length).toBeGreaterThan(0);
      expect(part.length).toBeLessThanOrEqual(300);
      expect(part).toBe(part.trim());
      expect(part).not.toMatch(/\s\s/);
    }
    expect(parts.join(' ')).toBe(`${long} Next.`.trim());
  });
});
