/**
 * The models the reference stack offers, named as the vendor's public examples name theirs (they
 * pick voices whose model is `english-gb-v2.1` or `theatrical-v2`): `english-gb-v2.1` is English with
 * styles and two prosody types, `theatrical-v2` multilingual with the simple prosody type only. A
 * voice reports its model's `versionName` (here the same as the name: the contract would allow a
 * more specific one). The earlier names `studio` and `polyglot` (and `studio-2026.11`, the version
 * name voices of older stacks stored) stay accepted as aliases wherever a model is named; they are
 * never listed.
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
  /** Earlier names, still accepted wherever a model is named (never listed). */
  aliases: string[];
  /** The language used when a take gives no override_language. */
  defaultLanguage: string;
}

export const MODELS: readonly ModelEntry[] = [
  {
    name: 'english-gb-v2.1',
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
    versionName: 'english-gb-v2.1',
    aliases: ['studio', 'studio-2026.11'],
    defaultLanguage: 'en-US',
  },
  {
    name: 'theatrical-v2',
    displayname: 'Polyglot (multilingual)',
    flags: ['multilingual'],
    languages: ['en', 'de', 'fr', 'es', 'it', 'nl', 'pt', 'pl', 'sv'],
    genders: ['female', 'male'],
    styles: [],
    prosody_types: ['simple'],
    voice_inputs: ['gender'],
    versionName: 'theatrical-v2',
    aliases: ['polyglot'],
    defaultLanguage: 'en',
  },
];

/** A model by its public name, a version name a voice carries, or an alias. */
export function findModel(name: string): ModelEntry | undefined {
  return MODELS.find((m) => modelNames(m).includes(name));
}

/** Every name a model answers to: the public name, the version name (as a voice reports it), the aliases. */
export function modelNames(m: ModelEntry): string[] {
  return [m.name, m.versionName, versionNameOf(m), ...m.aliases];
}

/**
 * What a voice made for `m` reports as its model; with latitude model-version-names every model
 * answers a more specific version name than the one requested (theatrical-v2 → theatrical-v2-v1.2).
 */
export function versionNameOf(m: ModelEntry): string {
  return latitude.has('model-version-names') && m.versionName === m.name ? `${m.name}-v1.2` : m.versionName;
}

/** The Model resource as the API returns it. */
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

/** The fields of each prosody type (wire-facts: Fields and values). */
export const PROSODY_FIELDS: Record<string, readonly string[]> = {
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
