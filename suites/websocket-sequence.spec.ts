import {
  assertFramesWellFormed,
  assertNoStrays,
  assertRequestEnded,
  assertSerialized,
  assertStreamClean,
  assertStreamed,
  inServiceOrder,
} from '../src/checks/websocket.ts';
import { assertDistinctTakes } from '../src/checks/websocket-take.ts';
import { check, covers, observe, type SpeakContext } from '../src/harness/index.ts';
import { generateVoice, waitUntilDone } from './support/items.ts';
import { once, prefetch } from './support/scenarios.ts';
import { ONE_SENTENCE, THREE_SENTENCES, useWebsocketStreams } from './support/websocket-streams.ts';
import { openIssuedConnection } from './support/websocket-url.ts';

const streams = useWebsocketStreams();

// ---------------------------------------------------------------------------------------------
// Serialization and several connections

covers(
  ['WS-SERIALIZED'],
  "a second request's audio comes after the first request's end on one connection",
  async ({ speak }) => {
    const { streamTake, withConnection } = streams(speak);
    await withConnection(async (conn) => {
      const [a, b] = await Promise.all([
        streamTake(conn, THREE_SENTENCES, 'chunks'),
        streamTake(conn, ONE_SENTENCE, 'chunks'),
      ]);
      check('WS-SERIALIZED', () => {
        assertRequestEnded(a);
        assertRequestEnded(b);
        const [first, second] = inServiceOrder([a, b]);
        if (first !== a)
          observe('websocket.second-served-first', 'the worker served the second request first', {
            caught: true,
          });
        assertSerialized(first!, second!);
      });
    });
  },
);

covers(
  ['WS-SERIALIZED'],
  'three requests sent back-to-back in mixed modes are handled one after another',
  async ({ speak }) => {
    const { streamTake, withConnection } = streams(speak);
    await withConnection(async (conn) => {
      // Sent without waiting: each request is on the wire before the worker answers the first.
      // The first one long enough to be still streaming when the others arrive; the others short
      // (against a hosted server every sentence costs time, and the order is judged at their starts).
      const requests = await Promise.all([
        streamTake(conn, THREE_SENTENCES, 'parts'),
        streamTake(conn, ONE_SENTENCE, 'chunks'),
        streamTake(conn, ONE_SENTENCE, undefined),
      ]);
      check('WS-SERIALIZED', () => {
        for (const r of requests) assertRequestEnded(r);
        const served = inServiceOrder(requests);
        for (let i = 1; i < served.length; i++) assertSerialized(served[i - 1]!, served[i]!);
      });
    });
  },
);

covers(
  ['WS-SAME-CONNECTION', 'WS-URL-MODEL-HELD'],
  'three connections at once each receive only their own take',
  async ({ speak }) => {
    const { connectWhenReady, streamTake } = streams(speak);
    const conns = await Promise.all([connectWhenReady(), connectWhenReady(), connectWhenReady()]);
    try {
      const texts = ['One connection speaks.', 'Another connection answers.', 'A third one listens.'];
      const results = await Promise.all(
        conns.map((conn, i) => streamTake(conn, texts[i]!, i === 1 ? 'parts' : 'chunks', `conn-${i}`)),
      );
      // Each connection got its own take, ended, and nothing else (WS-SAME-CONNECTION); the take was
      // synthesized over a URL of the requested model (WS-URL-MODEL-HELD).
      check('WS-URL-MODEL-HELD', () => {
        for (const r of results) assertRequestEnded(r);
      });
      check('WS-SAME-CONNECTION', () => {
        conns.forEach((conn, i) => {
          assertFramesWellFormed(conn);
          assertNoStrays(conn);
          assertStreamClean(results[i]!);
        });
        assertDistinctTakes(results);
      });
    } finally {
      await Promise.all(conns.map((c) => c.close()));
    }
  },
);

/** A ready voice of a second model, when the server offers one (a router that ignores `model` shows there). */
const otherModelVoice = once(
  async (speak: SpeakContext): Promise<{ model: string; voiceId: string } | undefined> => {
    const other = speak.models.find((m) => m.name !== speak.model.name);
    if (!other) return undefined;
    const { voice: created } = await generateVoice(speak, {
      name: speak.prefix('ws-model'),
      gender: other.genders[0],
      model: other.name,
    });
    const { final } = await waitUntilDone<{ status: string; voice_id: string }>(
      speak,
      'voice',
      created.voice_id,
    );
    return { model: other.name, voiceId: final.voice_id };
  },
);
// A voice is ready only after its example take (seconds on a hosted server): made beside the tests before it.
prefetch(otherModelVoice);

covers(
  ['WS-URL-MODEL-HELD'],
  "each model's URL serves a take with a voice of that model (two models where the server has two)",
  async ({ speak }) => {
    const { timeouts, voice } = streams(speak);
    const other = await otherModelVoice(speak);
    if (!other)
      observe('websocket.one-model', 'the server offers one model: its URL was checked for that one only');
    const pairs = [{ model: speak.model.name, voiceId: await voice() }, ...(other ? [other] : [])];
    for (const { model, voiceId } of pairs) {
      const conn = await openIssuedConnection(speak, { model });
      try {
        const r = await conn.generate(
          { text: ONE_SENTENCE, voice_id: voiceId },
          { requestId: `model-${model}`, timeouts: timeouts() },
        );
        if (r.takeId) speak.track('take', r.takeId);
        check('WS-URL-MODEL-HELD', () => {
          assertStreamed(
            r,
            `a take with a voice of model ${model}, over the URL issued for model=${model}, did not stream`,
            `a worker holding ${model}`,
          );
          assertRequestEnded(r);
        });
      } finally {
        await conn.close();
      }
    }
  },
);
