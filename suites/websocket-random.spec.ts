/**
 * Websocket property (speak-v1.md Events → Websocket stream): random texts in both modes stream
 * valid audio matching the take's info. A file of its own: against a slow server its five streams
 * are the longest chain of the websocket area.
 */
import fc from 'fast-check';
import { assertProperty, cutOff, type PropertyCases } from '../fixtures/property.ts';
import { oneSentenceArb, textArb } from '../fixtures/texts.ts';
import { show } from '../src/checks/finding.ts';
import { assertRequestEnded, assertStreamClean } from '../src/checks/websocket.ts';
import { assertReadyTake, assertSampleRateOfInfo, type TakeAudioInfo } from '../src/checks/websocket-take.ts';
import { check, covers, notConcluded, notObserved, type StreamMode } from '../src/harness/index.ts';
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
    const cases: PropertyCases = { started: 0, completed: 0 };
    const limitMs = speak.config.timeouts.readyMs * 2;
    // A failure of the property (or of the connection it runs on) is judged below; the cases it ran
    // say first whether there is anything to judge.
    const failure = await withConnection(async (conn) => {
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
        { numRuns: 5, interruptAfterTimeLimit: limitMs, cases },
      );
    }).then(
      () => undefined,
      (error: unknown) => error,
    );
    judgeRandomTexts(failure, cases, limitMs);
  },
);

/** What would let every case of the property run to its end within the time limit. */
const TIME_LIMIT_REMEDY =
  'a larger --ready-timeout (the property may run for twice the ready bound) or a faster server';

/**
 * WS-RANDOM-TEXTS from how the property ended. fast-check passes a run its time limit interrupted and
 * drops the case in flight, so a pass needs every started case to have ended: one cut off leaves the
 * requirement not concluded (the harness's limit, not the server's failure), none at all unobserved.
 */
function judgeRandomTexts(failure: unknown, cases: PropertyCases, limitMs: number): void {
  const ran = `${cases.completed} of ${cases.started} case(s) ran to their end`;
  const limit = `the property's time limit of ${Math.round(limitMs / 1000)} s (twice --ready-timeout)`;
  if (failure === undefined && cutOff(cases))
    notConcluded('WS-RANDOM-TEXTS', `${limit} cut a case off: ${ran}`, TIME_LIMIT_REMEDY, 'timeout');
  else if (failure === undefined && cases.completed === 0)
    notObserved(
      'WS-RANDOM-TEXTS',
      `no case of the property ran to its end within ${limit}`,
      TIME_LIMIT_REMEDY,
    );
  // The property is the check: its failure (a counterexample, a lost connection) fails it, else it held.
  else
    check('WS-RANDOM-TEXTS', () => {
      if (failure !== undefined) throw failure;
    });
}
