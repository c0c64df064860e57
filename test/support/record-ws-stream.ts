/**
 * Records real websocket streams from the reference stack into fixtures/ws-streams/*.json (one
 * three-sentence take per mode, every binary message as received, base64), for the reassembler's
 * permutation property. Not a test: run by hand when the stream format changes.
 *   node --import tsx test/support/record-ws-stream.ts            (embedded stack, frames in order)
 *   SPEAK_BASE_URL=... SPEAK_EMAIL=... SPEAK_PASSWORD=... RECORD_LABEL=shuffled \
 *     node --import tsx test/support/record-ws-stream.ts          (a running stack, e.g. --ws-shuffle-window 8)
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RECORDED_STREAM_DIR, type RecordedStreamFile } from '../../fixtures/ws-streams/recorded.ts';
import { closeHttp } from '../../src/client/http.ts';
import { HttpSpeakClient } from '../../src/client/speak-client.ts';
import { fetchWebsocketUrl, SpeakStreamConnection } from '../../src/client/ws-stream.ts';
import { startEmbeddedStack } from '../../src/stack/embedded.ts';

const TEXT = 'The first sentence is short. A second one follows it. And a third one ends the text.';

const given = process.env.SPEAK_BASE_URL;
const stack = given
  ? {
      baseUrl: given,
      email: process.env.SPEAK_EMAIL ?? '',
      password: process.env.SPEAK_PASSWORD ?? '',
      stop: async () => {},
    }
  : await startEmbeddedStack();
const label = process.env.RECORD_LABEL ?? 'in-order';
try {
  const settings = { baseUrl: stack.baseUrl, authUrl: stack.baseUrl, requestTimeoutMs: 15_000 };
  const api = await HttpSpeakClient.login(settings, { email: stack.email, password: stack.password });
  const models = (await api.get('/v1/speak/models')).json as Array<{ name: string; genders: string[] }>;
  const model = models[0]!;
  const voice = (
    await api.post('/v1/speak/voices/generate', {
      name: 'recorder',
      gender: model.genders[0],
      model: model.name,
    })
  ).json as { voice_id: string };
  for (let i = 0; i < 300; i++) {
    const v = (await api.get(`/v1/speak/voices/${voice.voice_id}`)).json as { status: string };
    if (v.status === 'ready') break;
    await new Promise((r) => setTimeout(r, 200));
  }
  for (const mode of ['parts', 'chunks'] as const) {
    const url = await fetchWebsocketUrl(api, model.name);
    const conn = await SpeakStreamConnection.connect(url, { timeoutMs: 10_000, keepRaw: true });
    const r = await conn.generate({ text: TEXT, voice_id: voice.voice_id }, { requestId: 1, mode });
    await conn.close();
    if (r.outcome !== 'ended' || r.reassembly.findings.length > 0 || !r.takeId) {
      throw new Error(
        `${mode}: not a clean stream (${r.outcome}, ${r.diagnostic ?? ''}, ${r.reassembly.findings.map((f) => f.message).join('; ')})`,
      );
    }
    const file: RecordedStreamFile = {
      recorded_at: new Date().toISOString(),
      server: `speakcheck reference stack (${label})`,
      mode,
      request_id: 1,
      take_id: r.takeId,
      text: TEXT,
      frames_base64: conn.rawBinary.map((f) => f.bytes.toString('base64')),
    };
    const path = join(RECORDED_STREAM_DIR, `reference-${label}-${mode}-three-sentences.json`);
    writeFileSync(path, `${JSON.stringify(file, null, 1)}\n`);
    console.log(`${path}: ${file.frames_base64.length} frames, ${r.reassembly.totalSamples} samples`);
  }
} finally {
  await closeHttp();
  await stack.stop();
}
