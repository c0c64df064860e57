/**
 * From a (schema-valid) TakeGenerate to the row to insert: the model's rules checked, and the
 * rendering synthesis will use fixed (take prosody/style, else the voice's defaults; language =
 * override_language or the model's default; the voice's gender; the voice id as seed).
 */
import { defects } from '../defects/index.ts';
import { latitude } from '../latitude/index.ts';
import { findModel, type ModelEntry, PROSODY_FIELDS, prosodyTypeFor } from '../models/catalogue.ts';
import { newId } from '../store/ids.ts';
import type { NewTake } from '../store/takes.ts';
import { ApiError } from './errors.ts';
import { checkLanguage, checkProsody, checkStyle, checkText } from './generation-rules.ts';

/**
 * A prosody missing some fields of its type (the model's first type that holds every field it has:
 * `{"pace": 3}` and `{}` are simple) is stored, and so returned, with them set to 0, the neutral value
 * synthesis already assumes for a missing field. The contract leaves a partial prosody open (refuse
 * or complete); the vendor SDK's prosody models require every field, so one stored as sent would
 * break its get_take/get_takes/get_voices for the whole account. Latitude prosody-as-sent makes the
 * other choice: stored and returned as sent.
 */
export function completedProsody<P extends Record<string, unknown> | null | undefined>(
  model: ModelEntry,
  prosody: P,
): P {
  if (latitude.has('prosody-as-sent') || !prosody) return prosody;
  const type = prosodyTypeFor(model, prosody);
  if (type === undefined) return prosody;
  const zeros = Object.fromEntries((PROSODY_FIELDS[type] ?? []).map((field) => [field, 0]));
  return { ...zeros, ...prosody };
}

export interface VoiceForTake {
  voice_id: string;
  model: string;
  gender: string;
  default_prosody: Record<string, number> | null;
  default_style: string[] | null;
}

export interface TakeGenerateBody {
  text: string;
  voice_id?: string;
  prosody?: Record<string, number> | null;
  style?: string[] | null;
  override_language?: string | null;
  status_webhook?: unknown;
  done_webhook?: unknown;
  user_data?: string | number | null;
}

export function buildTake(
  userId: string,
  voice: VoiceForTake,
  body: TakeGenerateBody,
  where: string,
  o: { timestampMs: number; exampleOf?: string },
): NewTake {
  const model = findModel(voice.model);
  if (!model) throw new ApiError(422, `${where}/voice_id: the voice's model ${voice.model} no longer exists`);
  checkText(body.text, `${where}/text`);
  checkProsody(model, body.prosody, `${where}/prosody`);
  // Defect unknown-style-accepted: the style names are never checked against the model's.
  if (!defects.has('unknown-style-accepted')) checkStyle(model, body.style, `${where}/style`);
  checkLanguage(model, body.override_language, `${where}/override_language`);
  checkForDefects(model, body, where);
  const prosody = completedProsody(model, body.prosody ?? null);
  const style = body.style ?? null;
  const override = body.override_language ?? null;
  return {
    take_id: newId('tk'),
    user_id: userId,
    voice_id: voice.voice_id,
    text: body.text,
    override_language: override,
    style,
    prosody,
    rendering: {
      language: override ?? model.defaultLanguage,
      gender: voice.gender as 'female' | 'male' | 'nonbinary',
      prosody:
        prosody ?? (defects.has('voice-default-prosody-ignored') ? null : voice.default_prosody) ?? null,
      style: style ?? (voice.default_style && voice.default_style.length > 0 ? voice.default_style : null),
      seed: voice.voice_id,
    },
    status_webhook: body.status_webhook ?? null,
    done_webhook: body.done_webhook ?? null,
    user_data: body.user_data ?? null,
    timestamp_ms: o.timestampMs,
    example_of: o.exampleOf ?? null,
  };
}

/** What the defect switches about a take's body (reference/defects) refuse that the contract accepts. */
function checkForDefects(model: ModelEntry, body: TakeGenerateBody, where: string): void {
  // Defect prosody-bounds-exclusive: the range check excludes its bounds (-10 and 10).
  if (body.prosody && defects.has('prosody-bounds-exclusive')) {
    for (const [field, value] of Object.entries(body.prosody))
      if (Math.abs(value) >= 10)
        throw new ApiError(422, `${where}/prosody/${field}: must be greater than -10 and less than 10`);
  }
  // Defect override-language-default-only: the model's other languages are refused.
  const language = body.override_language;
  if (language && language !== model.defaultLanguage && defects.has('override-language-default-only'))
    throw new ApiError(422, `${where}/override_language: ${JSON.stringify(language)} is not available`);
  // Defect styled-take-refused: a take with any style is refused, though the model offers it.
  if (body.style?.length && defects.has('styled-take-refused'))
    throw new ApiError(422, `${where}/style: styles are not supported`);
  // Defect text-ascii-only: a text with a character outside ASCII is refused.
  if (defects.has('text-ascii-only') && [...body.text].some((c) => c.codePointAt(0)! > 0x7f))
    throw new ApiError(422, `${where}/text: must hold ASCII characters only`);
}
