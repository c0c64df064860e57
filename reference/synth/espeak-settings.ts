/**
 * VoiceRendering → espeak-ng settings. Pure: the espeak voice catalogue is passed in, so the mapping
 * can be tested without the synthesizer.
 *
 * Everything is first summed in the contract's units (-10..10 per field), then mapped once onto
 * espeak's scales, so a style and a prosody value add up instead of overwriting each other.
 */
import type { VoiceRendering } from './voice-rendering.ts';

export interface EspeakVoiceEntry {
  identifier: string; // e.g. 'gmw/en-US'
  languages: { name: string; priority: number }[]; // e.g. [{ name: 'en-us', priority: 2 }]
}

export interface EspeakSettings {
  /** Name for set_voice: '<identifier>+<variant>', e.g. 'gmw/en-US+f3'. */
  voice: string;
  rate: number; // words per minute, espeak default 175 (80..450)
  pitch: number; // 0..99, default 50
  range: number; // 0..100, default 50 (intonation width)
  volume: number; // 0..200, default 100
  /** True when the language is unknown to espeak and the fallback voice is used. */
  languageFallback: boolean;
}

export const FALLBACK_ESPEAK_VOICE = 'gmw/en-US';

/**
 * Only variants that cost about the same to speak. espeak's f2, f3 and f5 add breath (noise filtered
 * through the formant resonators, sample by sample): about twice the CPU per audio second. Measured
 * 2026-11-26 with `node --import tsx reference/bench/synth-bench.ts --variants` (one warm thread,
 * audio s per wall s): f1 701, f4 671, f2 357, f3 357, f5 370; m1–m7 516–676. The variant is drawn
 * from the voice id, so with them each new voice was a coin flip between two costs: a load run's
 * capacity moved by a third with the voice its setup happened to create, and two runs of one build
 * did not agree (load/README.md, "Capacity").
 */
export const FEMALE_VARIANTS = ['f1', 'f4'];
export const MALE_VARIANTS = ['m1', 'm2', 'm3', 'm4', 'm5', 'm6', 'm7'];
// espeak has no neutral variants; a nonbinary voice draws from both sets (stable per seed).
const NONBINARY_VARIANTS = [...FEMALE_VARIANTS, ...MALE_VARIANTS];

interface Levels {
  pace: number;
  pitch: number;
  range: number;
  volume: number;
}

/** What each known style adds, in -10..10 units. Unknown styles change nothing. */
const STYLE_LEVELS: Record<string, Partial<Levels>> = {
  cheerful: { pitch: 3, range: 4, pace: 1 },
  happy: { pitch: 3, range: 4, pace: 1 },
  excited: { pitch: 4, range: 6, pace: 2, volume: 2 },
  friendly: { pitch: 2, range: 2 },
  sad: { pitch: -3, range: -5, pace: -2, volume: -2 },
  angry: { pitch: 1, range: 4, pace: 1, volume: 4 },
  shouting: { pitch: 3, range: 3, volume: 8 },
  calm: { range: -3, pace: -1, volume: -1 },
  serious: { pitch: -1, range: -2 },
  narration: { pace: -1 },
  whisper: { volume: -2 },
};

const WHISPER_STYLES = new Set(['whisper', 'whispering']);

/** FNV-1a: a small, stable hash so the same seed always picks the same variant. */
function stableHash(seed: string): number {
  let hash = 0x811c9dc5;
  for (const char of seed) {
    hash ^= char.codePointAt(0)!;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

const clamp = (value: number, low: number, high: number) => Math.min(high, Math.max(low, value));
const field = (prosody: Record<string, number> | null, name: string) => {
  const value = prosody?.[name];
  return typeof value === 'number' && Number.isFinite(value) ? clamp(value, -10, 10) : 0;
};

/** Picks the espeak voice for a language code: exact tag first, then shorter tags, then English. */
export function espeakVoiceFor(
  language: string,
  catalogue: readonly EspeakVoiceEntry[],
): { identifier: string; fallback: boolean } {
  let tag = language.trim().toLowerCase().replaceAll('_', '-');
  while (tag !== '') {
    const matches = catalogue
      .flatMap((voice) =>
        voice.languages
          .filter((l) => l.name === tag)
          .map((l) => ({ identifier: voice.identifier, priority: l.priority })),
      )
      // A voice named after the tag itself ('gmw/en' for 'en') beats one that merely lists it.
      .map((m) => ({ ...m, own: m.identifier.toLowerCase().split('/').at(-1) === tag ? 0 : 1 }))
      .sort((a, b) => a.own - b.own || a.priority - b.priority);
    if (matches[0]) return { identifier: matches[0].identifier, fallback: false };
    tag = tag.includes('-') ? tag.slice(0, tag.lastIndexOf('-')) : '';
  }
  return { identifier: FALLBACK_ESPEAK_VOICE, fallback: true };
}

/** The -10..10 levels a rendering asks for: prosody of any type plus styles. */
export function levelsFor(voice: Pick<VoiceRendering, 'prosody' | 'style'>): Levels {
  const p = voice.prosody;
  const levels: Levels = {
    pace: field(p, 'pace') + 0.2 * field(p, 'arousal'),
    // affect: pleasant speech sits a little higher, dominant speech a little lower.
    pitch: field(p, 'pitch') + 0.3 * field(p, 'valence') - 0.3 * field(p, 'dominance'),
    // simple: expression; signal: pitch_range; affect: arousal widens intonation, valence a little.
    range:
      field(p, 'expression') +
      field(p, 'pitch_range') +
      0.6 * field(p, 'arousal') +
      0.2 * field(p, 'valence'),
    // signal: a raised spectral tilt (brighter voice) is rendered as a louder voice; espeak has no tilt.
    volume: 0.5 * field(p, 'tilt') + 0.4 * field(p, 'dominance'),
  };
  for (const style of voice.style ?? []) {
    const add = STYLE_LEVELS[style.trim().toLowerCase()];
    if (!add) continue;
    levels.pace += add.pace ?? 0;
    levels.pitch += add.pitch ?? 0;
    levels.range += add.range ?? 0;
    levels.volume += add.volume ?? 0;
  }
  return levels;
}

export function espeakSettingsFor(
  voice: VoiceRendering,
  catalogue: readonly EspeakVoiceEntry[],
): EspeakSettings {
  const { identifier, fallback } = espeakVoiceFor(voice.language, catalogue);
  const whisper = (voice.style ?? []).some((s) => WHISPER_STYLES.has(s.trim().toLowerCase()));
  let variant: string;
  if (whisper) variant = voice.gender === 'male' ? 'whisper' : 'whisperf';
  else {
    const pool =
      voice.gender === 'female'
        ? FEMALE_VARIANTS
        : voice.gender === 'male'
          ? MALE_VARIANTS
          : NONBINARY_VARIANTS;
    variant = pool[stableHash(voice.seed) % pool.length]!;
  }
  const levels = levelsFor(voice);
  const pace = clamp(levels.pace, -10, 10);
  return {
    voice: `${identifier}+${variant}`,
    // Doubling/halving at the ends: pace -10 → ~88 wpm, 0 → 175, +10 → 350.
    rate: Math.round(clamp(175 * 2 ** (pace / 10), 80, 450)),
    pitch: Math.round(clamp(50 + 4.5 * clamp(levels.pitch, -10, 10), 0, 99)),
    range: Math.round(clamp(50 + 5 * clamp(levels.range, -10, 10), 0, 100)),
    volume: Math.round(clamp(100 + 8 * clamp(levels.volume, -10, 10), 20, 200)),
    languageFallback: fallback,
  };
}
