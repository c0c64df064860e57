/**
 * Rules a generation body must follow beyond its JSON Schema, all depending on the model:
 * prosody of a type the model offers, styles from the model's styles, override_language among the
 * model's languages, gender among its genders, and text that has something to speak.
 * Each violation is a 422 naming the field.
 */
import { type ModelEntry, modelStyles, prosodyTypeFor } from '../models/catalogue.ts';
import { splitIntoParts } from '../synth/index.ts';
import { ApiError } from './errors.ts';

export function checkProsody(model: ModelEntry, prosody: unknown, field: string): void {
  if (prosody === undefined || prosody === null) return;
  if (prosodyTypeFor(model, prosody as Record<string, unknown>) === undefined) {
    throw new ApiError(
      422,
      `${field}: fields ${Object.keys(prosody as object).join(', ')} do not form a prosody type of model ${model.name} (allowed: ${model.prosody_types.join(', ')})`,
    );
  }
}

export function checkStyle(model: ModelEntry, style: unknown, field: string): void {
  if (style === undefined || style === null) return;
  const known = modelStyles(model);
  for (const name of style as string[]) {
    if (!known.has(name)) {
      throw new ApiError(
        422,
        known.size === 0
          ? `${field}: model ${model.name} has no styles (got ${JSON.stringify(name)})`
          : `${field}: unknown style ${JSON.stringify(name)} for model ${model.name} (allowed: ${[...known].join(', ')})`,
      );
    }
  }
}

export function checkLanguage(model: ModelEntry, language: unknown, field: string): void {
  if (language === undefined || language === null) return;
  if (!model.languages.includes(language as string)) {
    throw new ApiError(
      422,
      `${field}: ${JSON.stringify(language)} is not a language of model ${model.name} (allowed: ${model.languages.join(', ')})`,
    );
  }
}

export function checkGender(model: ModelEntry, gender: string, field: string): void {
  if (!(model.genders as string[]).includes(gender)) {
    throw new ApiError(
      422,
      `${field}: ${JSON.stringify(gender)} is not a gender of model ${model.name} (allowed: ${model.genders.join(', ')})`,
    );
  }
}

/**
 * What checkText accepts, as a JSON Schema pattern (ECMA and Python regex alike) for the OpenAPI
 * document: at least one character that is neither whitespace nor invisible (synth/split.ts drops
 * those before it looks for parts).
 */
export const SPEAKABLE_TEXT_PATTERN =
  '[^\\s\\u0000-\\u001f\\u007f-\\u009f\\u00a0\\u00ad\\u1680\\u2000-\\u200b\\u2028\\u2029\\u202f\\u205f\\u2060\\u3000\\ufeff]';

export function checkText(text: string, field: string): string[] {
  const parts = splitIntoParts(text);
  if (parts.length === 0) throw new ApiError(422, `${field}: has nothing to speak`);
  return parts;
}
