/**
 * Voices (speak-v1.md Resources → Voice, VoiceGenerate; Endpoints → Voices; States and
 * transitions): generation, waiting → ready, get and list, default_prosody adopted by takes, the
 * example take's audio; update and delete from the wire facts (INFO).
 */
import fc from 'fast-check';
import { nameTailArb, voiceName } from '../fixtures/names.ts';
import { propertySeed } from '../fixtures/property-seed.ts';
import { seededFaker } from '../fixtures/texts.ts';
import { parseWav } from '../src/checks/audio.ts';
import { deleteAnswerUnknowable, RESENT_DELETE_UNKNOWABLE } from '../src/checks/exchange.ts';
import { Finding, show } from '../src/checks/finding.ts';
import { assertStatusOrder, distinctRuns } from '../src/checks/status.ts';
import {
  cannotObserve,
  check,
  checkStep,
  covers,
  expectJson,
  expectSchema,
  observe,
  type SpeakContext,
} from '../src/harness/index.ts';
import { assertEpochMs, assertEqualField } from './support/assertions.ts';
import { fetchAudio } from './support/audio.ts';
import {
  generateTake,
  generateVoice,
  getItem,
  type Take,
  type Voice,
  waitUntilDone,
} from './support/items.ts';
import { list, listHolding } from './support/lists.ts';
import { once, prefetch } from './support/scenarios.ts';

// Whole simple prosody objects: the contract defines the three fields and says nothing of partial
// objects, so what a server does with one is only reported (VOICE-PARTIAL-PROSODY).
const SLOW = { pace: -10, pitch: 0, expression: 0 };
const FAST = { pace: 10, pitch: 0, expression: 0 };
const NEUTRAL = { pace: 0, pitch: 0, expression: 0 };
/** A partial default_prosody (pace only): echoed, completed or refused, all reported. */
const PARTIAL = { pace: -5 };
const TEXT = 'The weather is calm today. We walk along the river.';
/**
 * pace ±10 against pace 0 must change the duration by at least this factor to count as "clearly": a
 * threshold chosen by speakcheck (the contract gives none), named in VOICE-DEFAULT-PROSODY-ADOPTED.
 */
const CLEAR_RATIO = 1.1;

interface Generated {
  requested: Record<string, unknown>;
  created: Voice;
}

function gender(speak: SpeakContext): string {
  return speak.model.genders[0] ?? 'female';
}

const slowVoice = once(async (speak: SpeakContext): Promise<Generated> => {
  const requested = {
    name: speak.prefix('voice-slow-Zoë'),
    gender: gender(speak),
    model: speak.model.name,
    default_prosody: SLOW,
  };
  return { requested, created: (await generateVoice(speak, requested)).voice };
});
const fastVoice = once(async (speak: SpeakContext): Promise<Generated> => {
  const requested = {
    name: speak.prefix('voice-fast'),
    gender: gender(speak),
    model: speak.model.name,
    default_prosody: FAST,
  };
  return { requested, created: (await generateVoice(speak, requested)).voice };
});
const plainVoice = once(async (speak: SpeakContext): Promise<Generated> => {
  // A seeded faker name with a fast-check tail (ASCII or not): names are carried through unchanged.
  const seed = propertySeed('voices: generated name');
  const [tail] = fc.sample(nameTailArb, { seed, numRuns: 1 });
  const name = voiceName(seededFaker(seed), (n) => speak.prefix(`${n}-${tail}`));
  const requested = { name, gender: gender(speak), model: speak.model.name };
  return { requested, created: (await generateVoice(speak, requested)).voice };
});

const readyVoice = (generated: (speak: SpeakContext) => Promise<Generated>) =>
  once(async (speak: SpeakContext) => {
    const { created } = await generated(speak);
    return waitUntilDone<Voice>(speak, 'voice', created.voice_id, { first: created });
  });
const slowReady = readyVoice(slowVoice);
const fastReady = readyVoice(fastVoice);
const plainReady = readyVoice(plainVoice);

/** The same text on the slow and the fast voice: without prosody, and with pace 0 to compare. */
const prosodyTakes = once(async (speak: SpeakContext): Promise<Take[]> => {
  const [slow, fast] = await Promise.all([slowReady(speak), fastReady(speak)]);
  const bodies = [
    { voice_id: slow.final.voice_id, text: TEXT },
    { voice_id: slow.final.voice_id, text: TEXT, prosody: NEUTRAL },
    { voice_id: fast.final.voice_id, text: TEXT, prosody: null },
    { voice_id: fast.final.voice_id, text: TEXT, prosody: NEUTRAL },
  ];
  const takes = await Promise.all(
    bodies.map(async (body) => {
      const { take } = await generateTake(speak, body);
      return (await waitUntilDone<Take>(speak, 'take', take.take_id, { first: take })).final;
    }),
  );
  return takes;
});

const partialVoice = once(async (speak: SpeakContext) => {
  const requested = {
    name: speak.prefix('voice-partial-prosody'),
    gender: gender(speak),
    model: speak.model.name,
    default_prosody: PARTIAL,
  };
  const exchange = await speak.api.post('/v1/speak/voices/generate', requested);
  const json = exchange.json as Partial<Voice> | undefined;
  if (typeof json?.voice_id === 'string') speak.track('voice', json.voice_id);
  return exchange;
});

prefetch(slowReady, fastReady, plainReady, prosodyTakes);

covers(
  [
    'VOICE-GENERATE-RETURNS-VOICE',
    'VOICE-GENERATE-WAITING',
    'VOICE-FIELD-TYPES',
    'VOICE-TIMESTAMP-MS',
    'VOICE-ECHOES-REQUEST',
    'VOICE-DEFAULT-STYLE-UNSET',
    'VOICE-DEFAULT-PROSODY-ECHO',
  ],
  'voice generation returns a waiting Voice that carries what was asked',
  async ({ speak }) => {
    for (const generated of [slowVoice, fastVoice, plainVoice]) {
      // A generation that fails (or a body that breaks the Voice schema: VOICE-FIELD-TYPES) stops here.
      const { requested, created } = await checkStep(
        ['VOICE-GENERATE-RETURNS-VOICE', 'VOICE-FIELD-TYPES'],
        () => generated(speak),
      );
      const where = `generated voice ${created.voice_id.slice(0, 8)}`;
      check('VOICE-GENERATE-WAITING', () => assertEqualField(created.status, 'waiting', `${where} /status`));
      check('VOICE-ECHOES-REQUEST', () => {
        assertEqualField(created.name, requested.name, `${where} /name`);
        assertEqualField(created.gender, requested.gender, `${where} /gender`);
      });
      check('VOICE-DEFAULT-PROSODY-ECHO', () =>
        assertEqualField(
          created.default_prosody,
          requested.default_prosody ?? null,
          `${where} /default_prosody`,
        ),
      );
      check('VOICE-DEFAULT-STYLE-UNSET', () => {
        if (
          !(
            created.default_style === null ||
            (Array.isArray(created.default_style) && created.default_style.length === 0)
          )
        ) {
          throw new Finding(
            `${where}: default_style is ${show(created.default_style)} though none was set; expected [] or null`,
          );
        }
      });
      check('VOICE-TIMESTAMP-MS', () => assertEpochMs(created.timestamp_ms, `${where} /timestamp_ms`));
    }
  },
);

covers(
  [
    'VOICE-READY-BOUND',
    'VOICE-GET-OBJECT',
    'VOICE-FIELD-TYPES',
    'VOICE-ECHOES-REQUEST',
    'VOICE-DEFAULT-PROSODY-ECHO',
  ],
  'a generated voice becomes ready and GET returns one Voice, still carrying what was asked',
  async ({ speak }) => {
    const generated = await Promise.all([slowVoice(speak), fastVoice(speak), plainVoice(speak)]);
    // Each GET answering an array (VOICE-GET-OBJECT) or breaking the schema (VOICE-FIELD-TYPES) is
    // attributed to its requirement wherever the wait meets it; the wait itself proves readiness.
    const polled = await checkStep('VOICE-READY-BOUND', () =>
      Promise.all([slowReady(speak), fastReady(speak), plainReady(speak)]),
    );
    for (const [i, p] of polled.entries()) {
      const id = generated[i]!.created.voice_id;
      // The last GET answered one Voice object, the one asked for, in the documented shape.
      check('VOICE-GET-OBJECT', () => {
        if (p.final === null || typeof p.final !== 'object' || Array.isArray(p.final))
          throw new Finding(
            `GET /v1/speak/voices/${id} answered ${show(p.final, 200)}, expected one Voice object`,
          );
        assertEqualField(p.final.voice_id, id, `GET /v1/speak/voices/${id.slice(0, 8)} /voice_id`);
      });
      check('VOICE-FIELD-TYPES', () => expectSchema('Voice', p.final, `voice ${id.slice(0, 8)} (GET)`));
    }
    for (const [i, p] of polled.entries()) {
      // What GET returns is what is stored: an echo of the request at generation proves less.
      const { requested } = generated[i]!;
      const where = `ready voice ${p.final.voice_id.slice(0, 8)} (GET)`;
      check('VOICE-ECHOES-REQUEST', () => {
        assertEqualField(p.final.name, requested.name, `${where} /name`);
        assertEqualField(p.final.gender, requested.gender, `${where} /gender`);
      });
      check('VOICE-DEFAULT-PROSODY-ECHO', () =>
        assertEqualField(
          p.final.default_prosody,
          requested.default_prosody ?? null,
          `${where} /default_prosody`,
        ),
      );
      // Voice transitions are not shown; a voice that went back (ready → waiting) would still be wrong.
      check('VOICE-READY-BOUND', () =>
        assertStatusOrder(p.statuses, `voice ${p.final.voice_id.slice(0, 8)}`),
      );
      observe('voices.generation-polled', 'voice {voiceId}: {statuses} in {ms} ms ({polls} polls)', {
        particulars: {
          voiceId: p.final.voice_id.slice(0, 8),
          statuses: distinctRuns(p.statuses).join(' → '),
          ms: p.ms,
          polls: p.statuses.length,
        },
      });
    }
  },
);

covers(['VOICE-LIST'], 'the voice list holds the generated voices', async ({ speak }) => {
  const ids = (await Promise.all([slowVoice(speak), fastVoice(speak), plainVoice(speak)])).map(
    (g) => g.created.voice_id,
  );
  // The unfiltered list: no length means no limit (wire facts), and new voices come first anyway.
  const whole = await listHolding<Voice>(speak, 'voice', ids);
  check('VOICE-LIST', () => {
    const missing = ids.filter((id) => !whole.some((v) => v.voice_id === id));
    if (missing.length)
      throw new Finding(
        `GET /v1/speak/voices (${whole.length} voices) does not hold the generated ${missing.join(', ')}`,
      );
  });
});

covers(['VOICE-MODEL-SPECIFIC'], 'the model a voice reports (reported)', async ({ speak }) => {
  const { created } = await plainVoice(speak);
  const { final } = await plainReady(speak);
  const requested = speak.model.name;
  const relation =
    final.model === requested
      ? 'the requested name'
      : final.model.startsWith(requested)
        ? 'a more specific name starting with the requested one'
        : 'a name that does not start with the requested one';
  observe(
    'voices.model',
    'requested model {requested}; generation answered {created}, ready voice reports {final} ({relation}).',
    {
      values: {
        requested: show(requested),
        created: show(created.model),
        final: show(final.model),
        relation,
      },
    },
  );
  check('VOICE-MODEL-SPECIFIC', () => {
    if (!final.model.startsWith(requested) && !requested.startsWith(final.model)) {
      throw new Finding(
        `voice model ${show(final.model)} is not related by prefix to the requested ${show(requested)}`,
      );
    }
  });
});

covers(
  ['VOICE-EXAMPLE-TAKE-AUDIO'],
  "the example take's audio is fetched like any take's audio",
  async ({ speak }) => {
    const { final } = await plainReady(speak);
    const example = await checkStep('VOICE-EXAMPLE-TAKE-AUDIO', () =>
      waitUntilDone<Take>(speak, 'take', final.example_take_id),
    );
    check('VOICE-EXAMPLE-TAKE-AUDIO', () => {
      if (example.final.voice_id !== final.voice_id) {
        throw new Finding(
          `example take ${final.example_take_id.slice(0, 8)} was spoken by voice ${show(example.final.voice_id)}, not by the voice ${final.voice_id} that names it`,
          { where: 'example take /voice_id', expected: final.voice_id, actual: example.final.voice_id },
        );
      }
    });
    await check('VOICE-EXAMPLE-TAKE-AUDIO', async () => {
      const { audio } = await fetchAudio(speak, final.example_take_id, 'wav');
      const wav = parseWav(audio.body, 'example take wav');
      observe('voices.example-take', 'example take {takeId}: {samples} samples at {rate} Hz, text {text}', {
        values: { rate: wav.sampleRate, text: show(example.final.text) },
        particulars: { takeId: final.example_take_id.slice(0, 8), samples: wav.samples },
      });
    });
  },
);

covers(['VOICE-EXAMPLE-TAKE-NULL'], 'example_take (reported)', async ({ speak }) => {
  const { final } = await plainReady(speak);
  observe('voices.example-take-field', 'example_take is {exampleTake}', {
    values: { present: final.example_take !== null && final.example_take !== undefined },
    particulars: { exampleTake: show(final.example_take) },
  });
  check('VOICE-EXAMPLE-TAKE-NULL', () => {
    if (final.example_take !== null)
      throw new Finding(`example_take is not null: ${show(final.example_take)}`);
  });
});

/** Durations of the same text: slow voice (omitted prosody), fast voice (null prosody), each also with pace 0. */
covers(
  ['VOICE-DEFAULT-PROSODY-ADOPTED'],
  'a take without prosody (omitted or null) adopts the voice default_prosody',
  async ({ speak }) => {
    const takes = await prosodyTakes(speak);
    const seconds = takes.map((t) => (t.info ? t.info.duration / t.info.audio_rate : Number.NaN));
    const [slowOmitted, slowNeutral, fastNull, fastNeutral] = seconds as [number, number, number, number];
    observe(
      'voices.default-prosody-durations',
      'durations (s): slow voice omitted {slowOmitted}, slow voice pace 0 {slowNeutral}, fast voice null {fastNull}, fast voice pace 0 {fastNeutral}',
      {
        particulars: {
          slowOmitted: slowOmitted.toFixed(2),
          slowNeutral: slowNeutral.toFixed(2),
          fastNull: fastNull.toFixed(2),
          fastNeutral: fastNeutral.toFixed(2),
        },
      },
    );
    check('VOICE-DEFAULT-PROSODY-ADOPTED', () => {
      if (!(slowOmitted >= slowNeutral * CLEAR_RATIO)) {
        throw new Finding(
          `a take with prosody omitted on a voice with default pace -10 lasts ${slowOmitted.toFixed(2)} s, not clearly longer than the same text at pace 0 (${slowNeutral.toFixed(2)} s): the default_prosody was not adopted`,
          { expected: `>= ${(slowNeutral * CLEAR_RATIO).toFixed(2)} s`, actual: slowOmitted },
        );
      }
    });
    check('VOICE-DEFAULT-PROSODY-ADOPTED', () => {
      if (!(fastNull * CLEAR_RATIO <= fastNeutral)) {
        throw new Finding(
          `a take with prosody null on a voice with default pace +10 lasts ${fastNull.toFixed(2)} s, not clearly shorter than the same text at pace 0 (${fastNeutral.toFixed(2)} s): the default_prosody was not adopted`,
          { expected: `<= ${(fastNeutral / CLEAR_RATIO).toFixed(2)} s`, actual: fastNull },
        );
      }
    });
  },
);

covers(['VOICE-PARTIAL-PROSODY'], 'a partial default_prosody (reported)', async ({ speak }) => {
  const exchange = await partialVoice(speak);
  const json = exchange.json as Partial<Voice> | undefined;
  const outcome =
    exchange.status >= 200 && exchange.status < 300
      ? `accepted (${exchange.status}); default_prosody answered ${show(json?.default_prosody)}`
      : `refused with ${exchange.status} ${show(exchange.text, 200)}`;
  observe('voices.partial-prosody', 'voice generation with default_prosody {prosody}: {outcome}', {
    values: { prosody: show(PARTIAL), status: exchange.status },
    particulars: { outcome },
  });
  check('VOICE-PARTIAL-PROSODY', () => {
    if (exchange.status >= 500)
      throw new Finding(`a partial default_prosody answered a server error ${exchange.status}`);
  });
});

covers(
  ['VOICE-UPDATE', 'VOICE-DESCRIPTION'],
  'update a voice with POST /v1/speak/voices/{id} (reported)',
  async ({ speak }) => {
    const { final } = await plainReady(speak);
    const name = speak.prefix('voice-renamed');
    const description = 'Renamed by speakcheck.';
    const exchange = await speak.api.post(`/v1/speak/voices/${encodeURIComponent(final.voice_id)}`, {
      name,
      description,
    });
    observe('voices.update-answer', 'POST /v1/speak/voices/{id} answered {status} {body}', {
      values: { status: exchange.status },
      particulars: { body: show(exchange.text) },
    });
    await checkStep('VOICE-UPDATE', () => {
      if (expectJson(exchange, 'voice update') !== true)
        throw new Finding(`voice update answered ${show(exchange.text)}, expected true`);
    });
    const after = await getItem<Voice>(speak, 'voice', final.voice_id);
    check('VOICE-UPDATE', () => assertEqualField(after.name, name, 'voice after update /name'));
    check('VOICE-DESCRIPTION', () =>
      assertEqualField(after.description, description, 'voice after update /description'),
    );
  },
);

covers(['VOICE-DELETE'], 'delete a voice with DELETE /v1/speak/voices/{id} (reported)', async ({ speak }) => {
  const { final } = await plainReady(speak);
  // Its example take outlives it on a server that keeps it (the reference does): the file deletes it.
  if (typeof final.example_take_id === 'string') speak.track('take', final.example_take_id);
  const exchange = await speak.api.delete(`/v1/speak/voices/${encodeURIComponent(final.voice_id)}`);
  observe('voices.delete-answer', 'DELETE /v1/speak/voices/{id} answered {status} {body}', {
    values: { status: exchange.status },
    particulars: { body: show(exchange.text) },
  });
  if (deleteAnswerUnknowable(exchange))
    cannotObserve(RESENT_DELETE_UNKNOWABLE.reason, RESENT_DELETE_UNKNOWABLE.wouldJudge);
  await checkStep('VOICE-DELETE', () => {
    if (expectJson(exchange, 'voice delete') !== true)
      throw new Finding(`voice delete answered ${show(exchange.text)}, expected true`);
  });
  const get = await speak.api.get(`/v1/speak/voices/${encodeURIComponent(final.voice_id)}`);
  check('VOICE-DELETE', () => {
    if (get.status !== 404)
      throw new Finding(`GET of the deleted voice answered ${get.status}, expected 404`);
  });
  const again = await speak.api.delete(`/v1/speak/voices/${encodeURIComponent(final.voice_id)}`);
  check('VOICE-DELETE', () => {
    if (again.status !== 404)
      throw new Finding(`DELETE of an unknown (deleted) voice answered ${again.status}, expected 404`);
  });
  // Last: a whole list too long to read (a CannotObserve) ends the test with every other check of
  // it concluded.
  await check('VOICE-DELETE', async () => {
    const listed = await list<Voice>(speak, 'voice');
    if (listed.some((v) => v.voice_id === final.voice_id))
      throw new Finding('the deleted voice still appears in GET /v1/speak/voices');
  });
});
