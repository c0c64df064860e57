/**
 * The models the reference stack offers. `studio` is English with styles and two prosody types; a
 * voice made for it reports the more specific version name (the contract allows it). `polyglot` is
 * multilingual with the simple prosody type only.
 *
 * `synthLanguage` maps each model language onto a code the synthesis library understands (it picks
 * an espeak voice by language tag).
 */
import { latitude } from '../latitude/index.ts';
export interface ModelEntry {
  name: string;
  displayname: string;
  flags: string[];
  languages: string[];
  genders: ('female' | 'male' | 'nonbinary')[];
  styles: string[][];
  prosody_types: string[];
  voice_inputs: string[];
  /** What a voice made for this model reports as its `model`. */
  versionName: string;
  /** The language used when a take gives no override_language. */
  defaultLanguage: string;
}

export const MODELS: readonly ModelEntry[] = [
  {
    name: 'studio',
    displayname: 'Studio (English, expressive)',
    flags: ['styles', 'affect'],
    languages: ['en-US', 'en-GB'],
    genders: ['female', 'male', 'nonbinary'],
    styles: [
      ['neutral', 'cheerful', 'sad', 'angry', 'calm', 'excited'],
      ['narration', 'serious', 'friendly', 'whisper'],
    ],
    prosody_types: ['simple', 'affect'],
    voice_inputs: ['gender', 'description'],
    versionName: 'studio-2026.11',
    defaultLanguage: 'en-US',
  },
  {
    name: 'polyglot',
    displayname: 'Polyglot (multilingual)',
    flags: ['multilingual'],
    languages: ['en', 'de', 'fr', 'es', 'it', 'nl', 'pt', 'pl', 'sv'],
    genders: ['female', 'male'],
    styles: [],
    prosody_types: ['simple'],
    voice_inputs: ['gender'],
    versionName: 'polyglot',
    defaultLanguage: 'en',
  },
];

/** A model by its public name or by a version name a voice carries. */
export function findModel(name: string): ModelEntry | undefined {
  return MODELS.find((m) => m.name === name || m.versionName === name || versionNameOf(m) === name);
}

/** The Model resource as the API returns it. */
/**
 * What a voice made for `m` reports as its model; with latitude model-version-names every model
 * answers a more specific version name than the one requested (polyglot → polyglot-v1.2).
 */
export function versionNameOf(m: ModelEntry): string {
  return latitude.has('model-version-names') && m.versionName === m.name ? `${m.name}-v1.2` : m.versionName;
}

export function modelResource(m: ModelEntry): Record<string, unknown> {
  const extra = latitude.has('model-extra-fields')
    ? { description: `${m.displayname} (speakcheck reference)`, max_text_length: 5000 }
    : {};
  return {
    name: m.name,
    displayname: m.displayname,
    flags: latitude.has('model-extra-fields') ? [...m.flags, 'beta', 'streaming'] : m.flags,
    languages: m.languages,
    genders: m.genders,
    styles: m.styles,
    prosody_types: m.prosody_types,
    voice_inputs: m.voice_inputs,
    ...extra,
  };
}

export function modelStyles(m: ModelEntry): Set<string> {
  return new Set(m.styles.flat());
}

const PROSODY_FIELDS: Record<string, readonly string[]> = {
  simple: ['pace', 'pitch', 'expression'],
  affect: ['pace', 'pitch', 'valence', 'arousal', 'dominance'],
  signal: ['pace', 'pitch', 'tilt', 'pitch_range'],
};

/**
 * Which of the model's prosody types a prosody object fits (its fields all belong to that type), or
 * undefined when none does. `{}` fits simple.
 */
export function prosodyTypeFor(m: ModelEntry, prosody: Record<string, unknown>): string | undefined {
  const keys = Object.keys(prosody);
  return m.prosody_types.find((type) => keys.every((k) => PROSODY_FIELDS[type]?.includes(k)));
}

/** Language for the synthesizer: the override, or the model's default. */
export function synthLanguage(m: ModelEntry, overrideLanguage: string | null): string {
  return overrideLanguage ?? m.defaultLanguage;
}
