/**
 * Models (speak-v1.md Resources → Model, Prosody; Endpoints → Models): list and get agree, every
 * field's type, and what a model lists is usable: a voice per gender, a take per language, per
 * prosody type and with a style.
 */

import { prosodyOfType } from '../fixtures/prosody.ts';
import { phraseFor } from '../fixtures/texts.ts';
import { Finding, show } from '../src/checks/finding.ts';
import {
  check,
  checkStep,
  covers,
  expectJson,
  expectSchema,
  isRunFact,
  isStuckWait,
  type Model,
  notApplicable,
  observe,
  type SpeakContext,
} from '../src/harness/index.ts';
import { assertEqualField } from './support/assertions.ts';
import { generateTake, generateVoice, type Take, type Voice, waitUntilDone } from './support/items.ts';
import { once, prefetch } from './support/scenarios.ts';

/** One voice per gender of the model under test, each generated and waited for. */
const voicesByGender = once(async (speak: SpeakContext): Promise<Map<string, Voice>> => {
  const model = speak.model;
  const created = await Promise.all(
    model.genders.map(async (gender) => {
      const { voice } = await generateVoice(speak, {
        name: speak.prefix(`model-${gender}`),
        gender,
        model: model.name,
      });
      assertEqualField(voice.gender, gender, `voice generated with gender ${gender} /gender`);
      const { final } = await waitUntilDone<Voice>(speak, 'voice', voice.voice_id, { first: voice });
      return [gender, final] as const;
    }),
  );
  return new Map(created);
});

async function anyVoice(speak: SpeakContext): Promise<Voice> {
  const voices = await voicesByGender(speak);
  const first = voices.values().next().value;
  if (!first)
    throw new Finding(`model ${speak.model.name} lists no gender: no voice can be generated`, {
      actual: speak.model.genders,
    });
  return first;
}

/**
 * Generates takes (all at once) and waits until every one is ready; names each failure. A take that
 * never got done is the ready bound's failure, not this requirement's: unless another take failed
 * outright, it blocks (its error passes through unwrapped).
 */
async function takesReady(
  speak: SpeakContext,
  label: string,
  bodies: Array<{ what: string; body: Record<string, unknown> }>,
): Promise<Take[]> {
  const results = await Promise.allSettled(
    bodies.map(async ({ what, body }) => {
      try {
        const { take } = await generateTake(speak, body);
        const { final } = await waitUntilDone<Take>(speak, 'take', take.take_id, { first: take });
        return final;
      } catch (error) {
        if (isStuckWait(error) || isRunFact(error)) throw error;
        throw new Error(`${what}: ${(error as Error).message}`);
      }
    }),
  );
  const rejected = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as Error] : []));
  const failures = rejected
    .filter((error) => !isStuckWait(error) && !isRunFact(error))
    .map((error) => error.message);
  if (failures.length)
    throw new Finding(`${label}: ${failures.length} of ${bodies.length} failed: ${failures.join(' | ')}`);
  if (rejected[0]) throw rejected[0];
  return results.map((r) => (r as PromiseFulfilledResult<Take>).value);
}

covers(
  ['MODELS-LIST', 'MODELS-AT-LEAST-ONE', 'MODEL-FIELD-TYPES'],
  'the model list is a non-empty array of well-typed models',
  async ({ speak }) => {
    const json = await checkStep('MODELS-LIST', async () => {
      const answer = expectJson(await speak.api.get('/v1/speak/models'), 'GET /v1/speak/models');
      if (!Array.isArray(answer))
        throw new Finding(`GET /v1/speak/models answered ${show(answer)}, expected an array`);
      return answer as Model[];
    });
    check('MODEL-FIELD-TYPES', () => expectSchema('ModelList', json, 'the model list'));
    check('MODELS-AT-LEAST-ONE', () => {
      if (json.length === 0)
        throw new Finding('GET /v1/speak/models answered an empty array: the user has no model');
    });
    observe('models.names', 'models: {names}', { values: { names: json.map((m) => m?.name).join(', ') } });
  },
);

covers(
  ['MODELS-GET', 'MODELS-LIST-GET-AGREE', 'MODEL-FIELD-TYPES'],
  'each model fetched by name equals its list entry',
  async ({ speak }) => {
    for (const listed of speak.models) {
      const exchange = await speak.api.get(`/v1/speak/models/${encodeURIComponent(listed.name)}`);
      const got = check('MODELS-GET', () => {
        if (exchange.status !== 200)
          throw new Finding(
            `GET /v1/speak/models/${listed.name} answered ${exchange.status} ${show(exchange.text, 200)}, expected 200 with the Model`,
            { expected: 200, actual: exchange.status },
          );
        const json = expectJson(exchange, `GET /v1/speak/models/${listed.name}`);
        if (Array.isArray(json))
          throw new Finding(`GET /v1/speak/models/${listed.name} answered an array, expected one Model`);
      });
      if (!got) continue;
      check('MODEL-FIELD-TYPES', () => expectSchema('Model', exchange.json, `model ${listed.name}`));
      check('MODELS-LIST-GET-AGREE', () =>
        assertEqualField(exchange.json, listed, `GET /v1/speak/models/${listed.name} vs the list entry`),
      );
    }
  },
);

covers(
  ['MODEL-GENDER-VALUES', 'MODEL-PROSODY-TYPE-NAMES', 'MODEL-VOICE-INPUTS'],
  'genders, prosody types and voice_inputs (reported)',
  ({ speak }) => {
    const { models } = speak;
    // What each model lists is the observation MODEL-VOICE-INPUTS reports (the two checks below judge).
    check('MODEL-VOICE-INPUTS', () => {
      for (const m of models) {
        observe(
          'models.model',
          '{name}: genders {genders}, languages {languages}, prosody_types {prosodyTypes}, styles {styles}, flags {flags}, voice_inputs {voiceInputs}',
          {
            values: {
              name: m.name,
              genders: show(m.genders),
              languages: show(m.languages),
              prosodyTypes: show(m.prosody_types),
              styles: show(m.styles),
              flags: show(m.flags),
              voiceInputs: show(m.voice_inputs ?? null),
            },
          },
        );
      }
    });
    const unknownGenders = speak.models.flatMap((m) =>
      m.genders.filter((g) => !['male', 'female', 'nonbinary'].includes(g)),
    );
    const unknownTypes = speak.models.flatMap((m) => m.prosody_types.filter((t) => !prosodyOfType(t)));
    check('MODEL-GENDER-VALUES', () => {
      if (unknownGenders.length)
        throw new Finding(`genders outside the wire facts: ${show(unknownGenders)}`, {
          actual: unknownGenders,
        });
    });
    check('MODEL-PROSODY-TYPE-NAMES', () => {
      if (unknownTypes.length)
        throw new Finding(`prosody types outside the wire facts: ${show(unknownTypes)}`, {
          actual: unknownTypes,
        });
    });
  },
);

covers(
  ['MODEL-GENDERS-USABLE'],
  'a voice can be generated with each gender of the model',
  async ({ speak }) => {
    if (speak.model.genders.length === 0)
      return notApplicable(
        'MODEL-GENDERS-USABLE',
        `model ${speak.model.name} lists no gender: no voice to generate with one`,
        'a model that lists its genders (--model NAME)',
      );
    // Generating one voice per gender, each done with the gender asked for, is the requirement itself.
    const voices = await checkStep('MODEL-GENDERS-USABLE', () => voicesByGender(speak));
    observe('models.voices-by-gender', 'voices ready for genders {genders} (models: {models})', {
      values: {
        genders: [...voices.keys()].join(', '),
        models: show([...voices.values()].map((v) => v.model)),
      },
    });
  },
);

/** Started at once (prefetch), so these takes synthesize side by side. */
/** Polite to vendors with many languages: at most this many takes, spread over the list. */
const MAX_LANGUAGES = 12;

function exercisedLanguages(speak: SpeakContext): string[] {
  const all = speak.model.languages;
  if (all.length <= MAX_LANGUAGES) return [...all];
  const step = all.length / MAX_LANGUAGES;
  return Array.from({ length: MAX_LANGUAGES }, (_, i) => all[Math.floor(i * step)]!);
}

const languageTakes = once(async (speak: SpeakContext) => {
  const voice = await anyVoice(speak);
  return takesReady(
    speak,
    'takes per language',
    exercisedLanguages(speak).map((language) => ({
      what: `override_language ${language}`,
      body: { voice_id: voice.voice_id, text: phraseFor(language), override_language: language },
    })),
  );
});

/** The types beyond simple whose fields the harness knows (from the wire facts: reported only). */
const knownProsodyTypes = (speak: SpeakContext) =>
  speak.model.prosody_types.filter((type) => type !== 'simple' && prosodyOfType(type));

/** Simple prosody: the one type the contract defines, with its own fields. */
const simpleProsodyTake = once(async (speak: SpeakContext) => {
  const voice = await anyVoice(speak);
  const [take] = await takesReady(speak, 'take with a simple prosody', [
    {
      what: 'prosody type simple',
      body: { voice_id: voice.voice_id, text: 'Prosody check.', prosody: prosodyOfType('simple', 3) },
    },
  ]);
  return take!;
});

const prosodyTypeTakes = once(async (speak: SpeakContext) => {
  const voice = await anyVoice(speak);
  return takesReady(
    speak,
    'takes per prosody type',
    knownProsodyTypes(speak).map((type) => ({
      what: `prosody type ${type}`,
      body: { voice_id: voice.voice_id, text: 'Prosody check.', prosody: prosodyOfType(type, 3) },
    })),
  );
});

const styleTake = once(async (speak: SpeakContext) => {
  const offered = speak.model.styles.find((group) => group.length > 0);
  if (!offered) return undefined;
  const voice = await anyVoice(speak);
  const style = [offered[0]!];
  const [take] = await takesReady(speak, 'take with a style', [
    { what: `style ${show(style)}`, body: { voice_id: voice.voice_id, text: 'Style check.', style } },
  ]);
  return { style, take: take! };
});

prefetch(voicesByGender, languageTakes, simpleProsodyTake, prosodyTypeTakes, styleTake);

covers(
  ['MODEL-LANGUAGES-USABLE'],
  'a take is accepted and ready with each language of the model as override_language',
  async ({ speak }) => {
    if (exercisedLanguages(speak).length === 0)
      return notApplicable(
        'MODEL-LANGUAGES-USABLE',
        `model ${speak.model.name} lists no language: no take to make with one as override_language`,
        'a model that lists its languages (--model NAME)',
      );
    await anyVoice(speak); // the voice is setup: its failure blocks, the takes' failure fails
    const takes = await checkStep('MODEL-LANGUAGES-USABLE', () => languageTakes(speak));
    takes.forEach((take, i) => {
      check('MODEL-LANGUAGES-USABLE', () =>
        assertEqualField(
          take.override_language,
          exercisedLanguages(speak)[i],
          `take ${take.take_id} /override_language`,
        ),
      );
    });
    observe(
      'models.override-language',
      'ready with override_language {languages} ({count} of {all} languages)',
      {
        values: {
          languages: exercisedLanguages(speak).join(', '),
          count: exercisedLanguages(speak).length,
          all: speak.model.languages.length,
        },
      },
    );
  },
);

covers(
  ['MODEL-SIMPLE-PROSODY'],
  'every model lists the simple prosody type, and a take with a simple prosody is accepted and ready',
  async ({ speak }) => {
    check('MODEL-SIMPLE-PROSODY', () => {
      const missingSimple = speak.models
        .filter((m) => !m.prosody_types.includes('simple'))
        .map((m) => m.name);
      if (missingSimple.length) {
        throw new Finding(`models whose prosody_types lack "simple": ${missingSimple.join(', ')}`);
      }
    });
    await anyVoice(speak); // the voice is setup: its failure blocks, the take's failure fails
    const take = await checkStep('MODEL-SIMPLE-PROSODY', () => simpleProsodyTake(speak));
    check('MODEL-SIMPLE-PROSODY', () =>
      assertEqualField(take.prosody, prosodyOfType('simple', 3), `take ${take.take_id} /prosody`),
    );
  },
);

// speak-v1.md: "Fields of the `affect` prosody type: not shown." The other types are sent with the
// wire facts' fields, so what the server does with them is reported, never judged.
covers(
  ['MODEL-PROSODY-TYPES-USABLE'],
  'a take with each other prosody type the model lists (wire-facts fields) (reported)',
  async ({ speak }) => {
    const unknown = speak.model.prosody_types.filter((type) => type !== 'simple' && !prosodyOfType(type));
    if (unknown.length) {
      observe(
        'models.unknown-prosody-types',
        'prosody types with fields the harness does not know (not exercised): {unknown}',
        { values: { unknown: unknown.join(', ') } },
      );
    }
    const known = knownProsodyTypes(speak);
    if (known.length === 0) {
      observe(
        'models.no-known-prosody-type',
        'model {model} lists no prosody type beyond simple that the harness knows',
        {
          values: { model: speak.model.name },
        },
      );
      return;
    }
    const takes = await prosodyTypeTakes(speak);
    takes.forEach((take, i) => {
      check('MODEL-PROSODY-TYPES-USABLE', () =>
        assertEqualField(take.prosody, prosodyOfType(known[i]!, 3), `take ${take.take_id} /prosody`),
      );
    });
    observe('models.prosody-types', 'ready with prosody types {types}', {
      values: { types: known.join(', ') },
    });
  },
);

covers(
  ['MODEL-STYLES-USABLE'],
  'a take is accepted and ready with a style the model offers',
  async ({ speak }) => {
    await anyVoice(speak); // the voice is setup: its failure blocks, the take's refusal fails
    const result = await checkStep('MODEL-STYLES-USABLE', () => styleTake(speak));
    if (!result)
      return notApplicable(
        'MODEL-STYLES-USABLE',
        `model ${speak.model.name} offers no style`,
        'a model that offers styles (--model NAME)',
      );
    check('MODEL-STYLES-USABLE', () => {
      assertEqualField(result.take.style, result.style, `take ${result.take.take_id} /style`);
      observe('models.style', 'ready with style {style}', { values: { style: show(result.style) } });
    });
  },
);
