import type { Status, Voice } from '../../schemas/types.ts';

/** A Voice body as GET answers it (schema-valid), for tests that play a server's answers. */
export const voiceBody = (voiceId: string, status: Status = 'waiting'): Voice => ({
  voice_id: voiceId,
  name: 'speakcheck-x',
  model: 'm1',
  gender: 'female',
  default_style: null,
  default_prosody: null,
  example_take_id: 'tk_example',
  example_take: null,
  status_webhook: null,
  done_webhook: null,
  status,
  timestamp_ms: Date.now(),
  description: null,
});
