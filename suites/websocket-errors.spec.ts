import { assertRequestEnded, assertStreamClean, assertStreamed } from '../src/checks/websocket.ts';
import { assertErrorNamesRequest, assertStillOpen } from '../src/checks/websocket-take.ts';
import {
  check,
  covers,
  expectSchema,
  observe,
  type RequirementId,
  type SpeakContext,
  type SpeakStreamConnection,
} from '../src/harness/index.ts';
import { field } from './support/values.ts';
import { ONE_SENTENCE, useWebsocketStreams } from './support/websocket-streams.ts';

const streams = useWebsocketStreams();

// ---------------------------------------------------------------------------------------------
// Errors: an error message, and the connection stays usable

async function stillUsable(speak: SpeakContext, conn: SpeakStreamConnection, after: string): Promise<void> {
  assertStillOpen(conn, after);
  const r = await streams(speak).streamTake(conn, ONE_SENTENCE, 'parts');
  assertRequestEnded(r);
}

/**
 * The answer to a bad request: an error status naming the request (`id`, the MUST of the test), in
 * the documented shape (WS-ERROR-SHAPE, SHOULD), each judged on its own.
 */
function assertErrorFor(
  id: RequirementId,
  m: { json: unknown; text: string },
  requestId: string | undefined,
  what: string,
): void {
  check('WS-ERROR-SHAPE', () => expectSchema('WsStatusMessage', m.json, `the error message for ${what}`));
  check(id, () => assertErrorNamesRequest(m, requestId, what));
}

covers(
  ['WS-ERROR-MALFORMED-JSON', 'WS-ERROR-SHAPE'],
  'a text frame that is not JSON: error message, connection usable',
  async ({ speak }) => {
    const { withConnection } = streams(speak);
    await withConnection(async (conn) => {
      conn.sendText('{"command": "/takes/generate", "request_id": ');
      const m = await conn.waitForText(
        (x) => field(x.json, 'status') === 'error',
        speak.config.timeouts.requestMs,
        'error message for malformed JSON',
      );
      assertErrorFor('WS-ERROR-MALFORMED-JSON', m, undefined, 'malformed JSON');
      await check('WS-ERROR-MALFORMED-JSON', () => stillUsable(speak, conn, 'malformed JSON'));
    });
  },
);

covers(
  ['WS-ERROR-UNKNOWN-COMMAND', 'WS-ERROR-SHAPE'],
  'an unknown command: error message with request_id, connection usable',
  async ({ speak }) => {
    const { withConnection } = streams(speak);
    await withConnection(async (conn) => {
      conn.sendText(JSON.stringify({ command: '/takes/explode', request_id: 'bad-command', data: {} }));
      const m = await conn.waitForText(
        (x) => field(x.json, 'request_id') === 'bad-command',
        speak.config.timeouts.requestMs,
        'answer to an unknown command',
      );
      assertErrorFor('WS-ERROR-UNKNOWN-COMMAND', m, 'bad-command', 'unknown command');
      await check('WS-ERROR-UNKNOWN-COMMAND', () => stillUsable(speak, conn, 'an unknown command'));
    });
  },
);

covers(
  ['WS-ERROR-INVALID-DATA', 'WS-ERROR-SHAPE'],
  'invalid take data: error message with request_id, connection usable',
  async ({ speak }) => {
    const { voice, withConnection } = streams(speak);
    await withConnection(async (conn) => {
      conn.sendText(
        JSON.stringify({
          command: '/takes/generate',
          request_id: 'no-text',
          data: { voice_id: await voice() },
        }),
      );
      const noText = await conn.waitForText(
        (x) => field(x.json, 'request_id') === 'no-text',
        speak.config.timeouts.requestMs,
        'answer to a take without text',
      );
      assertErrorFor('WS-ERROR-INVALID-DATA', noText, 'no-text', 'a take without text');
      conn.sendText(
        JSON.stringify({
          command: '/takes/generate',
          request_id: 'no-voice',
          data: { text: ONE_SENTENCE, voice_id: 'speakcheck-no-such-voice' },
        }),
      );
      const noVoice = await conn.waitForText(
        (x) => field(x.json, 'request_id') === 'no-voice',
        speak.config.timeouts.requestMs,
        'answer to an unknown voice',
      );
      assertErrorFor('WS-ERROR-INVALID-DATA', noVoice, 'no-voice', 'an unknown voice');
      await check('WS-ERROR-INVALID-DATA', () => stillUsable(speak, conn, 'invalid take data'));
    });
  },
);

covers(
  ['WS-COMMAND-SINGULAR'],
  'the singular command /take/generate (the vendor browser client): accepted or refused',
  async ({ speak }) => {
    const { timeouts, voice, withConnection } = streams(speak);
    await withConnection(async (conn) => {
      const r = await conn.generate(
        { text: ONE_SENTENCE, voice_id: await voice() },
        { requestId: 'singular-1', command: '/take/generate', mode: 'chunks', timeouts: timeouts() },
      );
      if (r.takeId) speak.track('take', r.takeId);
      observe(
        'websocket-errors.take-generate',
        '"/take/generate": {outcome}{diagnostic}; {parts} audio part(s)',
        {
          values: { outcome: r.outcome },
          particulars: {
            diagnostic: r.diagnostic ? ` (${r.diagnostic})` : '',
            parts: r.reassembly.parts.length,
          },
        },
      );
      check('WS-COMMAND-SINGULAR', () => {
        assertStreamed(
          r,
          `the worker does not accept "/take/generate" (the vendor's browser client's command)`,
          'the take streamed as for /takes/generate',
        );
        assertRequestEnded(r);
        assertStreamClean(r);
      });
      await check('WS-COMMAND-SINGULAR', () => stillUsable(speak, conn, 'the singular command'));
    });
  },
);

covers(
  ['WS-VOICES-GENERATE'],
  'the /voices/generate command: Voice messages and the example take audio',
  async ({ speak }) => {
    const { timeouts, withConnection } = streams(speak);
    await withConnection(
      async (conn) => {
        const body = {
          name: speak.prefix('websocket-voice'),
          gender: speak.model.genders[0] ?? 'female',
          model: speak.model.name,
        };
        const r = await conn.generate(body, {
          requestId: 'voice-1',
          command: '/voices/generate',
          mode: 'chunks',
          timeouts: timeouts(),
        });
        const voiceId = r.takeMessages.map((m) => m.data.voice_id).find((v) => typeof v === 'string');
        if (typeof voiceId === 'string') speak.track('voice', voiceId);
        const exampleTake = r.reassembly.takeId;
        if (exampleTake) speak.track('take', exampleTake);
        observe(
          'websocket-errors.voices-generate',
          '/voices/generate: {outcome}{diagnostic}; Voice statuses {statuses}; example take {exampleTake}: {parts} part(s), {samples} samples, {findings} stream finding(s)',
          {
            values: { outcome: r.outcome },
            particulars: {
              diagnostic: r.diagnostic ? ` (${r.diagnostic})` : '',
              statuses: r.takeMessages.map((m) => String(m.data.status)).join(' → ') || 'none',
              exampleTake: exampleTake ?? 'none',
              parts: r.reassembly.parts.length,
              samples: r.reassembly.totalSamples,
              findings: r.reassembly.findings.length,
            },
          },
        );
        check('WS-VOICES-GENERATE', () => {
          for (const m of r.takeMessages) expectSchema('WsItemMessage', m.raw, `Voice message #${m.seq}`);
          for (const m of r.takeMessages) expectSchema('Voice', m.data, `the Voice of message #${m.seq}`);
          assertRequestEnded(r);
          assertStreamClean(r);
        });
      },
      { needsVoice: false },
    );
  },
);
