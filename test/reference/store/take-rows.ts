/** Take rows for tests that seed the store directly: user us_1, English, no prosody, style or hooks. */
import type { insertTake } from '../../../reference/store/takes.ts';

type TakeRow = Parameters<typeof insertTake>[1];

export function plainTakeRow(o: {
  takeId: string;
  voiceId: string;
  text: string;
  exampleOf?: string | null;
}): TakeRow {
  return {
    take_id: o.takeId,
    user_id: 'us_1',
    voice_id: o.voiceId,
    text: o.text,
    override_language: null,
    style: null,
    prosody: null,
    rendering: { language: 'en-US', gender: 'female', prosody: null, style: null, seed: o.voiceId },
    status_webhook: null,
    done_webhook: null,
    user_data: null,
    timestamp_ms: Date.now(),
    example_of: o.exampleOf ?? null,
  };
}
