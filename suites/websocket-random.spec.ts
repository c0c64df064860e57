/**
 * Websocket property (speak-v1.md Events → Websocket stream): random texts in both modes stream
 * valid audio matching the take's info. A file of its own: against a slow server its five streams
 * are the longest chain of the websocket area.
 */
import fc from 'fast-check';
import { assertProperty } from '../fixtures/property.ts';
import { oneSentenceArb, textArb } from '../fixtures/texts.ts';
import { show } from '../src/checks/finding.ts';
import { assertRequestEnded, assertStreamClean } from '../src/checks/websocket.ts';
import { assertReadyTake, assertSampleRateOfInfo, type TakeAudioInfo } from '../src/checks/websocket-take.ts';
import { check, covers, type StreamMode } from '../src/harness/index.ts';
import { useWebsocketStreams } from './support/websocket-streams.ts';

const streams = useWebsocketStreams();

// ---------------------------------------------------------------------------------------------
// Property (3): random texts × both modes against the server

covers(
  ['WS-RANDOM-TEXTS'],
  'random texts in both modes stream valid audio matching info (5 runs)',
  async ({ speak }) => {
    const { streamTake, voice, withConnection } = streams(speak);
    // A setup step, not part of the property: a voice that never gets ready is no counterexample.
    await voice();
    // The property is the check: a body that ended before it would conclude nothing.
    await check('WS-RANDOM-TEXTS', () =>
      withConnection(async (conn) => {
        let n = 0;
        await assertProperty(
          'websocket random texts × modes',
          fc.asyncProperty(
            fc.oneof(textArb, oneSentenceArb),
            fc.constantFrom<StreamMode>('parts', 'chunks'),
            async (text, mode) => {
              const r = await streamTake(conn, text, mode, `prop-${++n}`);
              assertRequestEnded(r);
              assertStreamClean(r);
              const info = assertReadyTake(r).info as TakeAudioInfo;
              // The unit of info.duration is not shown (WS-DURATION-SAMPLES, INFO, judges it apart):
              // the audio matches info by its sample rate.
              assertSampleRateOfInfo(r.reassembly.sampleRate, info, `${show(text)} (${mode})`);
            },
          ),
          { numRuns: 5, interruptAfterTimeLimit: speak.config.timeouts.readyMs * 2 },
        );
      }),
    );
  },
);
