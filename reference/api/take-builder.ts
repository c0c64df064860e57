/**
 * From a (schema-valid) TakeGenerate to the row to insert: the model's rules checked, and the
 * rendering synthesis will use fixed (take prosody/style, else the voice's defaults; language =
 * override_language or the model's default; the voice's gender; the voice id as seed).
 */
import { defects } from '../defects/index.ts';
import { latitude } from '../latitude/index.ts';
import { findModel } from '../models/catalogue.ts';
import { newId } from '../store/ids.ts';
import type { NewTake } from '../store/takes.ts';
import { ApiError } from './errors.ts';
import { checkLanguage, checkProsody, checkStyle, checkText } from './generation-rules.ts';

const SIMPLE_FIELDS = ['pace', 'pitch', 'expression'];

/**
 * Latitude prosody-completed: a simple prosody missing some of its three fields is stored (and
 * returned) with them set to 0. Other prosody types pass unchanged.
 */
export function completedProsody<P extends Record<string, unknown> | null | undefined>(prosody: P): P {
  if (!latitude.has('prosody-completed') || !prosody) return prosody;
  if (!Object.keys(prosody).every((key) => SIMPLE_FIELDS.includes(key))) return prosody;
  return { pace: 0, pitch: 0, expression: 0, ...prosody };
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
  checkStyle(model, body.style, `${where}/style`);
  checkLanguage(model, body.override_language, `${where}/override_language`);
  const prosody = completedProsody(body.prosody ?? null);
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
