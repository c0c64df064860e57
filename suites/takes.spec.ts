/**
 * Takes (speak-v1.md Resources → Take, TakeGenerate; Endpoints → Takes; States and transitions;
 * Limits): generation answers waiting with info null and is listed at once; statuses move forward
 * only; info is null before ready and consistent with the wav at ready; prosody bounds, language
 * override and multilingual text; batch, user_data and delete from the wire facts (INFO).
 */
import fc from 'fast-check';
import { propertySeed } from '../fixtures/property-seed.ts';
import { multilingualArb, unicodeArb } from '../fixtures/texts.ts';
import { assertDurationIsSampleCount, assertInfoConsistent, parseWav } from '../src/checks/audio.ts';
import { deleteAnswerUnknowable, RESENT_DELETE_UNKNOWABLE } from '../src/checks/exchange.ts';
import { Finding, show } from '../src/checks/finding.ts';
import { assertStatusOrder, distinctRuns, isDone, PROGRESS_ORDER } from '../src/checks/status.ts';
import {
  cannotObserve,
  check,
  checkStep,
  covers,
  expectJson,
  expectSchema,
  notObserved,
  observe,
  runSequences,
  type SpeakContext,
} from '../src/harness/index.ts';
import { assertEpochMs, assertEqualField } from './support/assertions.ts';
import { fetchAudio } from './support/audio.ts';
import {
  generateTake,
  getItem,
  type ObservedSequence,
  observedSequences,
  type Take,
  waitUntilDone,
} from './support/items.ts';
import { list } from './support/lists.ts';
import { tooFastRemedy } from './support/long-text.ts';
import { once, prefetch, useSharedVoice } from './support/scenarios.ts';
import { listedRightAfterGeneration } from './support/take-listed.ts';
import { sleep } from './support/wait.ts';

/** Reads of a done take, this far apart, that must still show the done status. */
const READS_AFTER_DONE = 4;
const READ_AFTER_DONE_GAP_MS = 250;

/** Several sentences: several parts, so intermediate states have a chance to be seen. */
const MULTI_PART = 'This is the first sentence. Here comes a second one. And a third closes the text.';

/** A plain ready voice to make takes with: the run's shared one. */
const voice = useSharedVoice();

/** The multi-part take: generated once, polled from its creation to ready. */
const generated = once(async (speak: SpeakContext) => {
  const v = await voice(speak);
  const body = { voice_id: v.voice_id, text: MULTI_PART };
  const { take } = await generateTake(speak, body);
  const polled = waitUntilDone<Take>(speak, 'take', take.take_id, { first: take });
  // Callers that only need the creation must not leave the polling promise unhandled.
  polled.catch(() => undefined);
  return { body, take, polled };
});

covers(
  [
    'TAKE-GENERATE-RETURNS-TAKE',
    'TAKE-GENERATE-WAITING',
    'TAKE-GENERATE-INFO-NULL',
    'TAKE-FIELD-TYPES',
    'TAKE-TIMESTAMP-MS',
    'TAKE-ECHOES-REQUEST',
  ],
  'take generation returns a waiting Take with info null',
  async ({ speak }) => {
    // A generation that fails, or a body that breaks the Take schema (TAKE-FIELD-TYPES), stops here.
    const { body, take } = await checkStep(['TAKE-GENERATE-RETURNS-TAKE', 'TAKE-FIELD-TYPES'], () =>
      generated(speak),
    );
    const where = `generated take ${take.take_id.slice(0, 8)}`;
    check('TAKE-GENERATE-WAITING', () => assertEqualField(take.status, 'waiting', `${where} /status`));
    check('TAKE-GENERATE-INFO-NULL', () => assertEqualField(take.info, null, `${where} /info`));
    check('TAKE-ECHOES-REQUEST', () => {
      assertEqualField(take.voice_id, body.voice_id, `${where} /voice_id`);
      assertEqualField(take.text, body.text, `${where} /text`);
      assertEqualField(take.prosody, null, `${where} /prosody (none given)`);
    });
    check('TAKE-TIMESTAMP-MS', () => assertEpochMs(take.timestamp_ms, `${where} /timestamp_ms`));
  },
);

/** TAKE-LISTED-AT-ONCE's scenario: the list read right after generation (support/take-listed.ts). */
const listedAtOnce = once(async (speak: SpeakContext) =>
  listedRightAfterGeneration(speak, await voice(speak)),
);

covers(
  ['TAKE-LISTED-AT-ONCE'],
  'a take still in progress appears in the take list at once',
  async ({ speak }) => {
    const { observed } = await listedAtOnce(speak);
    // Absent from the list after it was accepted is a failure whatever its state; listed counts
    // only when it was listed while in progress, the state the requirement speaks of.
    if (observed.kind === 'not-observable')
      return notObserved('TAKE-LISTED-AT-ONCE', observed.reason, tooFastRemedy('takes'));
    check('TAKE-LISTED-AT-ONCE', () => {
      if (observed.kind === 'missing') throw new Finding(observed.message);
      observe('takes.listed-at-once', '{message}', { particulars: { message: observed.message } });
    });
  },
);

covers(
  [
    'TAKE-STATUS-ORDER',
    'TAKE-READY-BOUND',
    'TAKE-GET-OBJECT',
    'TAKE-INFO-AT-READY',
    'TAKE-INFO-FIELDS',
    'TAKE-INFO-AUDIO-RATE',
  ],
  'statuses move forward to ready; info matches the wav at ready',
  async ({ speak }) => {
    const { take } = await generated(speak);
    // GETs answering an array (TAKE-GET-OBJECT) are attributed wherever the wait meets them.
    const polled = await checkStep(
      ['TAKE-READY-BOUND', 'TAKE-GET-OBJECT'],
      async () => (await generated(speak)).polled,
    );
    const where = `take ${take.take_id.slice(0, 8)}`;
    // The wav is fetched while the reads below wait out their gaps.
    const wavFetch = fetchAudio(speak, take.take_id, 'wav');
    wavFetch.catch(() => undefined); // awaited below; not unhandled if a step fails first
    // Done is final: a few more reads after ready must all still say ready (polling stops at done).
    const after: string[] = [];
    for (let read = 0; read < READS_AFTER_DONE; read++) {
      await sleep(READ_AFTER_DONE_GAP_MS);
      after.push((await getItem<Take>(speak, 'take', take.take_id)).status);
    }
    check('TAKE-STATUS-ORDER', () => {
      assertStatusOrder(
        [...polled.statuses, ...after],
        `${where} (then ${after.length} reads after it was done)`,
      );
      if (!sawInProgress(polled.statuses))
        notObserved(
          'TAKE-STATUS-ORDER',
          `${where} went from waiting to done between two polls (the file's other takes judge the order)`,
          tooFastRemedy('takes'),
        );
    });
    const info = await checkStep('TAKE-INFO-AT-READY', () => {
      const filled = polled.final.info;
      if (!filled) throw new Finding(`${where}: the take is ready but info is ${show(filled ?? null)}`);
      return filled;
    });
    const { audio } = await wavFetch;
    const wav = parseWav(audio.body, `${where} wav`);
    check('TAKE-INFO-AUDIO-RATE', () =>
      assertEqualField(info.audio_rate, wav.sampleRate, `${where} /info/audio_rate (the wav's rate)`),
    );
    check('TAKE-INFO-FIELDS', () => {
      expectSchema('TakeInfo', info, `${where} info at ready`);
      // audio_rate is judged above; here the rest: normalized_text holds the text's parts, the wav samples.
      assertInfoConsistent({ ...info, audio_rate: wav.sampleRate }, wav, where);
    });
    const statuses = distinctRuns(polled.statuses).join(' → ');
    const { ms, snapshots } = polled;
    observe('takes.polled', '{where}: {statuses} in {ms} ms ({polls} polls); normalized_text {normalized}', {
      values: { where, normalized: show(polled.final.info?.normalized_text) },
      particulars: { statuses, ms, polls: snapshots.length },
    });
  },
);

covers(
  ['TAKE-PROGRESS-SEEN', 'TAKE-STATUS-VALUES'],
  'intermediate statuses seen by polling (reported)',
  async ({ speak }) => {
    const polled = await (await generated(speak)).polled;
    const seen = distinctRuns(polled.statuses);
    const progress50 = seen.includes('progress_50') ? 'progress_50 seen' : 'progress_50 not seen';
    const particulars = { seen: seen.join(' → '), progress50, sentences: MULTI_PART.split('. ').length };
    const caught = { particulars, caught: true };
    observe(
      'takes.progress-50',
      'REST polling saw {seen}; {progress50} for a {sentences}-sentence text.',
      caught,
    );
    const known = (status: string) => expectSchema('Status', status, 'an observed status');
    for (const status of seen) check('TAKE-STATUS-VALUES', () => known(status));
  },
);

covers(
  ['TAKE-INFO-DURATION-SAMPLES'],
  'info.duration is the sample count of the wav (reported)',
  async ({ speak }) => {
    const { take } = await generated(speak);
    const polled = await (await generated(speak)).polled;
    const { audio } = await fetchAudio(speak, take.take_id, 'wav');
    const wav = parseWav(audio.body, 'wav');
    const { audio_rate: rate = null, duration = null } = polled.final.info ?? {};
    const figures = { values: { rate }, particulars: { duration, samples: wav.samples } };
    observe('takes.duration', 'info.duration {duration}, wav samples {samples}, audio_rate {rate}', figures);
    const subject = `take ${take.take_id.slice(0, 8)}`;
    check('TAKE-INFO-DURATION-SAMPLES', () => assertDurationIsSampleCount(polled.final.info!, wav, subject));
  },
);

const BOUNDS = [
  { pace: -10, pitch: 10, expression: -10 },
  { pace: 10, pitch: -10, expression: 10 },
];

/** Each scenario below is started at once (prefetch): their syntheses overlap. */
const atBounds = once(async (speak: SpeakContext) => {
  const v = await voice(speak);
  // The first also carries a style, where the model offers any: the echo covers style too.
  const style = speak.model.styles[0]?.[0];
  return Promise.all(
    BOUNDS.map(async (prosody, i) => {
      const requested = { prosody, style: i === 0 && style !== undefined ? [style] : null };
      const { take } = await generateTake(speak, {
        voice_id: v.voice_id,
        text: 'Bounds.',
        prosody,
        ...(requested.style ? { style: requested.style } : {}),
      });
      assertEqualField(
        take.prosody,
        prosody,
        `take with prosody ${show(prosody)} /prosody`,
        'TAKE-ECHOES-REQUEST',
      );
      return { requested, polled: await waitUntilDone<Take>(speak, 'take', take.take_id, { first: take }) };
    }),
  );
});

const withLanguage = once(async (speak: SpeakContext) => {
  const v = await voice(speak);
  const language = speak.model.languages[0];
  if (!language) throw new Finding(`model ${speak.model.name} lists no language`);
  const { take } = await generateTake(speak, {
    voice_id: v.voice_id,
    text: 'Language check.',
    override_language: language,
  });
  assertEqualField(take.override_language, language, 'take /override_language', 'TAKE-ECHOES-REQUEST');
  return waitUntilDone<Take>(speak, 'take', take.take_id, { first: take });
});

const multilingual = once(async (speak: SpeakContext) => {
  const v = await voice(speak);
  const seed = propertySeed('takes: multilingual text');
  const [mixed] = fc.sample(multilingualArb, { seed, numRuns: 1 });
  const [unicode] = fc.sample(unicodeArb, { seed, numRuns: 1 });
  const text = `${mixed} ${unicode}`;
  // override_language left out, not sent as null: TakeGenerate's table types it string, and a MUST
  // test sends only what the tables list (left out, the Take shows it null: "When null, the service
  // pronounces each word in its own language").
  const { take } = await generateTake(speak, { voice_id: v.voice_id, text });
  assertEqualField(take.text, text, 'take /text', 'TAKE-ECHOES-REQUEST');
  return { text, polled: await waitUntilDone<Take>(speak, 'take', take.take_id, { first: take }) };
});

const toDelete = once(async (speak: SpeakContext) => {
  const v = await voice(speak);
  const { take } = await generateTake(speak, { voice_id: v.voice_id, text: 'Delete me.' });
  return waitUntilDone<Take>(speak, 'take', take.take_id, { first: take });
});

prefetch(generated, atBounds, withLanguage, multilingual, toDelete);

/** Every take sequence this file polled, once the scenarios that poll one have ended. */
async function polledTakeSequences(speak: SpeakContext): Promise<readonly ObservedSequence[]> {
  await Promise.allSettled([
    (await generated(speak)).polled,
    atBounds(speak),
    withLanguage(speak),
    multilingual(speak),
    toDelete(speak),
    listedAtOnce(speak).then(({ polled }) => polled),
  ]);
  const takes = observedSequences(speak).filter((sequence) => sequence.kind === 'take');
  if (takes.length < 5)
    throw new Finding(`only ${takes.length} take sequences were observed; the scenarios did not run`);
  // And every take the run's other files polled so far (issue 49: not one sample per requirement).
  return [...takes, ...runSequences('take', takes)];
}

/** The statuses between waiting and done whose place in the order is known. */
const IN_PROGRESS = new Set<string>(
  PROGRESS_ORDER.filter((status) => status !== 'waiting' && !isDone(status)),
);

/**
 * Whether polling caught the take in a state between waiting and done whose place in the order is
 * known: a status of no known rank (a server's own "processing") is left out of the order
 * (assertStatusOrder), so a sequence through it alone shows no order to judge. Where "moves forward"
 * can be seen.
 */
function sawInProgress(statuses: readonly string[]): boolean {
  return statuses.some((status) => IN_PROGRESS.has(status));
}

covers(
  ['TAKE-STATUS-ORDER'],
  'every status sequence polled in the run (this file and the others so far) moves forward',
  async ({ speak }) => {
    const takes = await polledTakeSequences(speak);
    check('TAKE-STATUS-ORDER', () => {
      for (const { id, snapshots } of takes)
        assertStatusOrder(
          snapshots.map((x) => x.status),
          `take ${id.slice(0, 8)}`,
        );
      // A pass is an observation: "moves forward" is seen only where polling caught a take in progress.
      if (!takes.some(({ snapshots }) => sawInProgress(snapshots.map((x) => x.status))))
        notObserved(
          'TAKE-STATUS-ORDER',
          `none of the ${takes.length} takes polled (a long one among them) was seen in started or progress_*: each went from waiting to done between two polls`,
          tooFastRemedy('takes'),
        );
    });
    const sequences = takes.map((t) => distinctRuns(t.snapshots.map((x) => x.status)).join('→')).join('; ');
    const seenInAll = { particulars: { count: takes.length, sequences } };
    observe('takes.status-sequences', '{count} take sequences: {sequences}', seenInAll);
  },
);

covers(
  ['TAKE-INFO-NULL-BEFORE-READY'],
  'info is null in every state before ready that polling saw, the worker states included',
  async ({ speak }) => {
    const takes = await polledTakeSequences(speak);
    check('TAKE-INFO-NULL-BEFORE-READY', () => {
      let inWorker = 0;
      for (const { id, snapshots } of takes) {
        (snapshots as Take[]).forEach((snapshot, i) => {
          if (snapshot.status === 'ready') return;
          if (snapshot.status !== 'waiting' && !isDone(snapshot.status)) inWorker++;
          if (snapshot.info !== null) {
            throw new Finding(
              `take ${id.slice(0, 8)}: info is ${show(snapshot.info)} while the status is ${snapshot.status} (observation ${i}); expected null until ready`,
            );
          }
        });
      }
      // "Until ready" is more than the waiting answer of generation (TAKE-GENERATE-INFO-NULL judges
      // that): a server may fill info when its worker starts. Passed only when a take was seen there.
      if (inWorker === 0)
        return notObserved(
          'TAKE-INFO-NULL-BEFORE-READY',
          `no take of the ${takes.length} polled (a long one among them) was seen in started or progress_*: each went from waiting to done between two polls, so info before ready was seen only in waiting`,
          tooFastRemedy('takes'),
        );
      const said = 'info was null in all {snapshots} snapshots polling saw in started or progress_*';
      observe('takes.info-null', said, { particulars: { snapshots: inWorker } });
    });
  },
);

covers(
  ['TAKE-PROSODY-ACCEPTED', 'TAKE-ECHOES-REQUEST'],
  'a simple prosody at the bounds (-10 and 10), and a style, are accepted, kept and synthesized',
  async ({ speak }) => {
    // Accepted and synthesized: generation answered a Take and it reached ready.
    const takes = await checkStep('TAKE-PROSODY-ACCEPTED', () => atBounds(speak));
    for (const { requested, polled } of takes) {
      // What GET shows once the take is ready: what was stored, not an echo of the request.
      const where = `ready take ${polled.final.take_id.slice(0, 8)} (GET)`;
      check('TAKE-ECHOES-REQUEST', () => {
        assertEqualField(polled.final.prosody, requested.prosody, `${where} /prosody`);
        if (requested.style) assertEqualField(polled.final.style, requested.style, `${where} /style`);
      });
    }
  },
);

covers(
  ['TAKE-OVERRIDE-LANGUAGE', 'TAKE-ECHOES-REQUEST'],
  'override_language from the model is accepted and returned',
  async ({ speak }) => {
    const { final } = await checkStep('TAKE-OVERRIDE-LANGUAGE', () => withLanguage(speak));
    check('TAKE-ECHOES-REQUEST', () =>
      assertEqualField(final.override_language, speak.model.languages[0], 'ready take /override_language'),
    );
  },
);

covers(
  ['TAKE-MULTILINGUAL-TEXT', 'TAKE-ECHOES-REQUEST'],
  'a multilingual Unicode text is accepted unchanged and reaches ready',
  async ({ speak }) => {
    const { text, polled } = await checkStep('TAKE-MULTILINGUAL-TEXT', () => multilingual(speak));
    check('TAKE-ECHOES-REQUEST', () => assertEqualField(polled.final.text, text, 'ready take /text'));
    const normalized = { values: { text: show(text), normalized: show(polled.final.info?.normalized_text) } };
    observe('takes.normalized-text', 'text {text} → normalized_text {normalized}', normalized);
  },
);

covers(['TAKE-BATCH'], 'batch generation with an array of bodies (reported)', async ({ speak }) => {
  const v = await voice(speak);
  const bodies = ['Batch one.', 'Batch two.'].map((text) => ({ voice_id: v.voice_id, text }));
  const exchange = await speak.api.post('/v1/speak/takes/generate', bodies);
  const answered = { values: { status: exchange.status } };
  observe('takes.batch-answer', 'POST /v1/speak/takes/generate with an array answered {status}', answered);
  const json = await checkStep('TAKE-BATCH', () => expectJson(exchange, 'batch generation'));
  for (const t of Array.isArray(json) ? json : [])
    if (typeof t?.take_id === 'string') speak.track('take', t.take_id);
  check('TAKE-BATCH', () => {
    expectSchema('TakeGenerateResult', json, 'the batch answer');
    if (!Array.isArray(json) || json.length !== 2)
      throw new Finding(`batch answered ${show(json)}, expected an array of 2 takes`);
    const [texts, asked] = [json.map((t: Take) => t.text), bodies.map((b) => b.text)];
    assertEqualField(texts, asked, 'batch answer texts (same order)');
  });
});

covers(
  ['TAKE-USER-DATA'],
  'user_data (string and number) is returned on the take (reported)',
  async ({ speak }) => {
    const v = await voice(speak);
    for (const userData of ['speakcheck-user-data ✓', 42]) {
      const { take } = await generateTake(speak, {
        voice_id: v.voice_id,
        text: 'User data.',
        user_data: userData,
      });
      check('TAKE-USER-DATA', () => assertEqualField(take.user_data, userData, 'take /user_data'));
    }
    observe('takes.user-data-unchanged', 'user_data (a string and a number) came back unchanged.');
  },
);

covers(['TAKE-DELETE'], 'delete a take with DELETE /v1/speak/takes/{id} (reported)', async ({ speak }) => {
  const { final } = await toDelete(speak);
  const path = `/v1/speak/takes/${encodeURIComponent(final.take_id)}`;
  const exchange = await speak.api.delete(path);
  const answer = { values: { status: exchange.status }, particulars: { body: show(exchange.text) } };
  observe('takes.delete-answer', 'DELETE /v1/speak/takes/{id} answered {status} {body}', answer);
  if (deleteAnswerUnknowable(exchange))
    cannotObserve(RESENT_DELETE_UNKNOWABLE.reason, RESENT_DELETE_UNKNOWABLE.wouldJudge);
  await check('TAKE-DELETE', async () => {
    if (expectJson(exchange, 'take delete') !== true)
      throw new Finding(`take delete answered ${show(exchange.text)}, expected true`);
    const get = await speak.api.get(path);
    if (get.status !== 404) throw new Finding(`GET of the deleted take answered ${get.status}, expected 404`);
    if ((await list<Take>(speak, 'take')).some((t) => t.take_id === final.take_id))
      throw new Finding('the deleted take still appears in GET /v1/speak/takes');
  });
});
