/**
 * Errors (speak-v1.md Errors, Limits, the request tables): JSON `detail` on every 4xx (the raw
 * text a client would fall back to is quoted when it is not), fast-check invalid generation bodies
 * refused with a 4xx and creating nothing, unknown identifiers, malformed JSON.
 */
import fc from 'fast-check';
import { type InvalidCase, invalidBodyArb, oneOfEveryKind } from '../fixtures/invalid-bodies.ts';
import { assertProperty } from '../fixtures/property.ts';
import type { ItemKind } from '../schemas/item-kind.ts';
import type { Gender } from '../schemas/types.ts';
import { assertClientError, assertErrorBody } from '../src/checks/errors.ts';
import { Finding, show } from '../src/checks/finding.ts';
import {
  against,
  check,
  covers,
  type Exchange,
  expectSchema,
  notObserved,
  observe,
  rateLimitObservation,
  runThrottle,
  type SpeakContext,
} from '../src/harness/index.ts';
import { acceptedItem, outOfBounds } from './support/accepted-body.ts';
import type { Take, Voice } from './support/items.ts';
import { list } from './support/lists.ts';
import { prefetch, useSharedVoice } from './support/scenarios.ts';

const NUM_RUNS = 40;
const UNKNOWN = 'speakcheck-unknown-id';

/** Every error answer this file saw, for the content-type and code reports. */
const errorsSeen: Array<{ label: string; exchange: Exchange }> = [];
const codesByReason = new Map<string, Set<number>>();

/** A plain ready voice to make takes with: the run's shared one. */
const voice = useSharedVoice();

prefetch(voice);

/** Marks what a wrongly accepted invalid body would create, so "nothing created" can be checked. */
function marker(speak: SpeakContext): string {
  return speak.prefix('invalid');
}

/** Ids the server accepted (2xx): judged by what they were accepted as, not by ERR-NOTHING-CREATED. */
const acceptedIds = new Set<string>();

async function trackAccidental(speak: SpeakContext, exchange: Exchange): Promise<void> {
  if (exchange.status < 200 || exchange.status >= 300) return;
  const json = exchange.json as { take_id?: unknown; voice_id?: unknown } | undefined;
  if (typeof json?.take_id === 'string') {
    speak.track('take', json.take_id);
    acceptedIds.add(json.take_id);
  } else if (typeof json?.voice_id === 'string') {
    speak.track('voice', json.voice_id);
    acceptedIds.add(json.voice_id);
  }
}

/** Out-of-range prosodies the server accepted (clamped) instead of refusing: ERR-PROSODY-REFUSED. */
const prosodyAccepted: string[] = [];
/** How many it refused with a 4xx: with none accepted, what ERR-PROSODY-REFUSED saw hold. */
let prosodyRefused = 0;

/** Invalid bodies the server accepted instead of refusing: ERR-INVALID-BODY-ACCEPTED (reported). */
const invalidAccepted: string[] = [];

const kindOf = (endpoint: InvalidCase['endpoint']): ItemKind =>
  endpoint === '/v1/speak/takes/generate' ? 'take' : 'voice';

/**
 * ERR-PROSODY-OUT-OF-RANGE on one answer to a prosody number out of bounds or not an integer: a
 * refusal is a 4xx with a detail; an acceptance must show the prosody within bounds, in the answer
 * and in a later GET (clamped: never stored out of bounds). A 5xx is neither.
 */
async function judgeOutOfRangeProsody(
  speak: SpeakContext,
  exchange: Exchange,
  where: string,
  kind: ItemKind,
): Promise<void> {
  if (exchange.status >= 400 && exchange.status < 500) {
    prosodyRefused++;
    against('ERR-JSON-DETAIL', () => assertErrorBody(exchange));
    return;
  }
  if (exchange.status >= 500 || exchange.status < 200 || exchange.status >= 300) {
    throw new Finding(
      `${where}: ${exchange.status} instead of a 4xx refusal or an acceptance with the prosody clamped: ${show(exchange.text, 200)}`,
      {
        requirement: 'ERR-PROSODY-OUT-OF-RANGE',
        expected: '4xx, or 2xx with the prosody clamped',
        actual: exchange.status,
      },
    );
  }
  prosodyAccepted.push(where);
  const field = kind === 'take' ? 'prosody' : 'default_prosody';
  for (const { as, item } of await acceptedItem(speak, exchange, kind)) {
    const bad = outOfBounds(item?.[field]);
    if (bad.length) {
      throw new Finding(
        `${where}: accepted, and ${as} shows ${field} out of bounds (${bad.join(', ')}): stored as sent instead of refused or clamped into -10..10`,
        {
          requirement: 'ERR-PROSODY-OUT-OF-RANGE',
          expected: 'integers within -10..10',
          actual: item?.[field],
        },
      );
    }
  }
}

/**
 * ERR-INVALID-BODY-4XX on one answer to a body that breaks the request tables: never a 5xx (the
 * client erred, RFC 9110), and a refusal is a 4xx with a detail. How a server handles an invalid
 * body is not shown, so it may accept one (coercing 42 to "42" as pydantic's lax mode does, or
 * failing the item later): then the answer and a later GET must show a valid item, nothing stored
 * against its schema.
 */
async function judgeInvalidBody(speak: SpeakContext, exchange: Exchange, c: InvalidCase): Promise<void> {
  if (exchange.status < 200 || exchange.status >= 300) {
    against('ERR-INVALID-BODY-4XX', () => assertClientError(exchange, c.why));
    against('ERR-JSON-DETAIL', () => assertErrorBody(exchange));
    return;
  }
  invalidAccepted.push(`${c.why} → ${exchange.status}`);
  const kind = kindOf(c.endpoint);
  for (const { as, item } of await acceptedItem(speak, exchange, kind)) {
    against('ERR-INVALID-BODY-4XX', () =>
      expectSchema(
        kind === 'take' ? 'Take' : 'Voice',
        item,
        `${c.why}: accepted (${exchange.status}), and ${as}`,
      ),
    );
  }
}

/** A gender of VoiceGenerate's table (or a model's list) that the model under test does not list. */
function unlistedGender(speak: SpeakContext): { unlistedGender?: string } {
  const known = new Set<Gender>(['female', 'male', ...speak.models.flatMap((m) => m.genders)]);
  const unlisted = [...known].find((g) => !speak.model.genders.includes(g));
  return unlisted === undefined ? {} : { unlistedGender: unlisted };
}

async function post(speak: SpeakContext, c: InvalidCase): Promise<Exchange> {
  const exchange = await speak.api.request('POST', c.endpoint, {
    body: JSON.stringify(c.body),
    headers: { 'content-type': 'application/json' },
  });
  await trackAccidental(speak, exchange);
  return exchange;
}

covers(
  ['ERR-INVALID-BODY-4XX', 'ERR-PROSODY-OUT-OF-RANGE', 'ERR-JSON-DETAIL', 'ERR-NOTHING-CREATED'],
  'property: invalid generation bodies are refused with a 4xx JSON detail (prosody: or clamped) and refused ones create nothing',
  async ({ speak }) => {
    const v = await voice(speak);
    const ctx = {
      voiceId: v.voice_id,
      model: speak.model.name,
      gender: speak.model.genders[0] ?? 'female',
      name: `${marker(speak)}-voice`,
      text: `${marker(speak)} text.`,
      ...unlistedGender(speak),
    };
    // Each case names its requirement (ERR-INVALID-BODY-4XX or ERR-PROSODY-OUT-OF-RANGE); a refusal
    // without a detail is ERR-JSON-DETAIL. The property stops at its first (shrunk) failure.
    await check('ERR-INVALID-BODY-4XX', () =>
      assertProperty(
        'errors: invalid bodies',
        fc.asyncProperty(invalidBodyArb(ctx), async (c) => {
          const exchange = await post(speak, c);
          if (c.requirement === 'ERR-PROSODY-OUT-OF-RANGE')
            await judgeOutOfRangeProsody(speak, exchange, c.why, kindOf(c.endpoint));
          else await judgeInvalidBody(speak, exchange, c);
          if (exchange.status < 400) return;
          errorsSeen.push({ label: c.why, exchange });
          const reason = c.why.replace(/ \(.*\)$/, '');
          codesByReason.set(reason, (codesByReason.get(reason) ?? new Set()).add(exchange.status));
        }),
        // Every kind once, then random ones.
        { numRuns: NUM_RUNS, examples: oneOfEveryKind(ctx).map((c) => [c] as [InvalidCase]) },
      ),
    );
    // "A refused generation creates nothing" speaks of refusals: with every invalid body accepted
    // there was none to look for.
    if (codesByReason.size === 0)
      return notObserved(
        'ERR-NOTHING-CREATED',
        'the server refused none of the invalid bodies (ERR-INVALID-BODY-ACCEPTED lists them)',
        'a server that refuses an invalid generation body',
      );
    const takes = await list<Take>(speak, 'take');
    const voices = await list<Voice>(speak, 'voice');
    check('ERR-NOTHING-CREATED', () => {
      const refused = (id: string) => !acceptedIds.has(id);
      const createdTakes = takes.filter((t) => t.text.includes(marker(speak)) && refused(t.take_id));
      const createdVoices = voices.filter((x) => x.name.startsWith(marker(speak)) && refused(x.voice_id));
      if (createdTakes.length || createdVoices.length) {
        throw new Finding(
          `refused bodies left items behind: takes ${show(createdTakes.map((t) => t.take_id))}, voices ${show(createdVoices.map((x) => x.voice_id))}`,
        );
      }
    });
  },
);

covers(['ERR-INVALID-BODY-CODE'], 'status codes of refused bodies (reported)', () => {
  if (codesByReason.size === 0)
    throw new Finding('no refused body was recorded (the property test did not run)');
  check('ERR-INVALID-BODY-CODE', () => {
    for (const [reason, codes] of codesByReason)
      observe('errors.codes-by-reason', '{reason}: {codes}', {
        values: { reason, codes: [...codes].join(', ') },
      });
  });
});

covers(['ERR-INVALID-BODY-ACCEPTED'], 'invalid bodies accepted instead of refused (reported)', () => {
  if (codesByReason.size === 0 && invalidAccepted.length === 0)
    throw new Finding('no answer to an invalid body was recorded (the property test did not run)');
  check('ERR-INVALID-BODY-ACCEPTED', () =>
    observe('errors.invalid-accepted', 'invalid bodies accepted instead of refused: {count}{which}', {
      values: { accepted: invalidAccepted.length > 0 },
      particulars: {
        count: invalidAccepted.length,
        which: invalidAccepted.length ? `: ${invalidAccepted.slice(0, 8).join('; ')}` : '',
      },
    }),
  );
});

// The property above draws its cases at random; these always run: each field one past either bound,
// and a fraction, on takes and on voices' default prosody.
const PROSODY_FIELDS = ['pace', 'pitch', 'expression'] as const;
const OUT_OF_RANGE = [11, -11, 0.5];

covers(
  ['ERR-PROSODY-OUT-OF-RANGE', 'ERR-PROSODY-REFUSED'],
  'prosody one past either bound, or not an integer, is refused (or clamped) on takes and voices',
  async ({ speak }) => {
    const v = await voice(speak);
    for (const field of PROSODY_FIELDS) {
      for (const value of OUT_OF_RANGE) {
        const prosody = { pace: 0, pitch: 0, expression: 0, [field]: value };
        const label = `${field} ${value}`;
        const cases: Array<Pick<InvalidCase, 'endpoint' | 'body'>> = [
          {
            endpoint: '/v1/speak/takes/generate',
            body: { voice_id: v.voice_id, text: `${marker(speak)} prosody.`, prosody },
          },
          {
            endpoint: '/v1/speak/voices/generate',
            body: {
              name: `${marker(speak)}-prosody`,
              gender: speak.model.genders[0] ?? 'female',
              model: speak.model.name,
              default_prosody: prosody,
            },
          },
        ];
        for (const c of cases) {
          const exchange = await post(speak, {
            ...c,
            why: `prosody ${label}`,
            requirement: 'ERR-PROSODY-OUT-OF-RANGE',
          });
          const where = `${c.endpoint} with prosody ${label}`;
          await check('ERR-PROSODY-OUT-OF-RANGE', () =>
            judgeOutOfRangeProsody(speak, exchange, where, kindOf(c.endpoint)),
          );
          if (exchange.status >= 400) errorsSeen.push({ label: `prosody ${label}`, exchange });
        }
      }
    }
    // Every out-of-range prosody this file sent: these, and the property's when it ran first.
    if (prosodyAccepted.length === 0 && prosodyRefused === 0)
      return notObserved(
        'ERR-PROSODY-REFUSED',
        'no prosody out of range was answered with a 4xx refusal or an acceptance (see ERR-PROSODY-OUT-OF-RANGE)',
        'a server that answers an out-of-range prosody with a 4xx or a 2xx',
      );
    check('ERR-PROSODY-REFUSED', () => {
      if (prosodyAccepted.length === 0) return;
      throw new Finding(
        `${prosodyAccepted.length} prosody value(s) outside -10..10 or not an integer were accepted (clamped) instead of refused with a 4xx: ${prosodyAccepted.slice(0, 5).join('; ')}`,
        { expected: '4xx with a detail', actual: prosodyAccepted },
      );
    });
  },
);

covers(
  ['ERR-UNKNOWN-STYLE'],
  'a take with a style name the model does not offer is refused',
  async ({ speak }) => {
    const v = await voice(speak);
    const exchange = await post(speak, {
      endpoint: '/v1/speak/takes/generate',
      body: { voice_id: v.voice_id, text: `${marker(speak)} style.`, style: ['speakcheck-no-such-style'] },
      why: 'unknown style',
      requirement: 'ERR-INVALID-BODY-4XX',
    });
    check('ERR-UNKNOWN-STYLE', () => {
      assertClientError(exchange, 'a style the model does not offer');
      assertErrorBody(exchange);
    });
    errorsSeen.push({ label: 'unknown style', exchange });
  },
);

covers(
  ['ERR-MALFORMED-JSON', 'ERR-JSON-DETAIL'],
  'a body declared application/json that is not JSON is refused with a 4xx JSON detail',
  async ({ speak }) => {
    const cases = [
      { body: '{"text": "unterminated', why: 'malformed JSON' },
      { body: 'text=hello&voice_id=x', why: 'a form body declared as JSON' },
    ];
    for (const endpoint of ['/v1/speak/takes/generate', '/v1/speak/voices/generate']) {
      for (const c of cases) {
        const exchange = await speak.api.request('POST', endpoint, {
          body: c.body,
          headers: { 'content-type': 'application/json' },
        });
        await trackAccidental(speak, exchange);
        const refused = check('ERR-MALFORMED-JSON', () =>
          assertClientError(exchange, `${endpoint}: ${c.why} (${show(c.body)})`),
        );
        if (refused) check('ERR-JSON-DETAIL', () => assertErrorBody(exchange));
        errorsSeen.push({ label: c.why, exchange });
      }
    }
  },
);

// "Request bodies are JSON with content-type: application/json": what a server does with a body
// under another content type is not shown, so it is only reported (a lenient parser may accept it).
covers(['ERR-OTHER-CONTENT-TYPE'], 'a body under another content type (reported)', async ({ speak }) => {
  const v = await voice(speak);
  const validTake = JSON.stringify({ voice_id: v.voice_id, text: `${marker(speak)} content type.` });
  const cases = [
    { body: validTake, type: 'text/plain', why: 'a JSON body declared as text/plain' },
    {
      body: `voice_id=${encodeURIComponent(v.voice_id)}&text=hello`,
      type: 'application/x-www-form-urlencoded',
      why: 'a form body',
    },
  ];
  const seen: string[] = [];
  const serverErrors: string[] = [];
  for (const c of cases) {
    const exchange = await speak.api.request('POST', '/v1/speak/takes/generate', {
      body: c.body,
      headers: { 'content-type': c.type },
    });
    await trackAccidental(speak, exchange);
    seen.push(`${c.why}: ${exchange.status}`);
    if (exchange.status >= 500) serverErrors.push(`${c.why}: ${exchange.status} ${show(exchange.text, 200)}`);
    else if (exchange.status >= 400) errorsSeen.push({ label: c.why, exchange });
  }
  check('ERR-OTHER-CONTENT-TYPE', () => {
    observe('errors.take-generate-answers', 'POST /v1/speak/takes/generate: {seen}', {
      values: { seen: seen.join('; ') },
    });
    if (serverErrors.length) throw new Finding(`a server error for bad input: ${serverErrors.join('; ')}`);
  });
});

function unknownRoutes(): Array<{ label: string; method: string; path: string; json?: unknown }> {
  return [
    { label: 'unknown model', method: 'GET', path: `/v1/speak/models/${UNKNOWN}` },
    { label: 'unknown voice', method: 'GET', path: `/v1/speak/voices/${UNKNOWN}` },
    { label: 'unknown take', method: 'GET', path: `/v1/speak/takes/${UNKNOWN}` },
    { label: 'audio of an unknown take', method: 'GET', path: `/v1/speak/takes/${UNKNOWN}/wav` },
    { label: 'audio of an unknown take', method: 'GET', path: `/v1/speak/takes/${UNKNOWN}/mp3` },
  ];
}

covers(
  ['ERR-UNKNOWN-ID-4XX', 'ERR-JSON-DETAIL'],
  'unknown model, voice and take ids are a 4xx with a JSON detail',
  async ({ speak }) => {
    for (const route of unknownRoutes()) {
      const exchange = await speak.api.request(route.method, route.path);
      const refused = check('ERR-UNKNOWN-ID-4XX', () =>
        assertClientError(exchange, `unknown identifier: ${route.label}`),
      );
      if (refused) check('ERR-JSON-DETAIL', () => assertErrorBody(exchange));
      errorsSeen.push({ label: route.label, exchange });
    }
  },
);

covers(
  ['ERR-UNKNOWN-ID-404'],
  'unknown ids answer 404, also for update and delete (reported)',
  async ({ speak }) => {
    const routes = [
      ...unknownRoutes(),
      {
        label: 'update of an unknown voice',
        method: 'POST',
        path: `/v1/speak/voices/${UNKNOWN}`,
        json: { name: 'x' },
      },
      { label: 'delete of an unknown voice', method: 'DELETE', path: `/v1/speak/voices/${UNKNOWN}` },
      { label: 'delete of an unknown take', method: 'DELETE', path: `/v1/speak/takes/${UNKNOWN}` },
    ];
    const codes: string[] = [];
    for (const route of routes) {
      const exchange = await speak.api.request(
        route.method,
        route.path,
        route.json ? { json: route.json } : {},
      );
      codes.push(`${route.label}: ${exchange.status}`);
    }
    check('ERR-UNKNOWN-ID-404', () => {
      observe('errors.codes', '{codes}', { values: { codes: codes.join('; ') } });
      const not404 = codes.filter((c) => !c.endsWith(': 404'));
      if (not404.length) throw new Finding(`not 404: ${not404.join('; ')}`);
    });
  },
);

covers(['ERR-CONTENT-TYPE'], 'error answers declare application/json', () => {
  if (errorsSeen.length === 0)
    return notObserved(
      'ERR-CONTENT-TYPE',
      'no error answer was recorded: the tests of this file that provoke them did not run',
      'a run of the errors area as a whole (not this test alone)',
    );
  const wrong = errorsSeen.filter(
    ({ exchange }) => !/^application\/([\w.+-]+\+)?json/i.test(exchange.headers['content-type'] ?? ''),
  );
  check('ERR-CONTENT-TYPE', () => {
    if (wrong.length) {
      throw new Finding(
        `${wrong.length} of ${errorsSeen.length} error answers are not application/json: ${wrong
          .slice(0, 5)
          .map(
            ({ label, exchange }) =>
              `${label} → ${exchange.status} ${show(exchange.headers['content-type'] ?? 'none')}`,
          )
          .join('; ')}`,
      );
    }
    observe('errors.all-json', '{count} error answers, all application/json', {
      particulars: { count: errorsSeen.length },
    });
  });
});

covers(
  ['ERR-RATE-LIMIT-OBSERVED'],
  "the server's rate limit as the run saw it: 429/503 answers, Retry-After, time waited",
  async ({ speak }) => {
    // The figures are the whole run's (every thread counts into one shared throttle): this request
    // must show in them, and the report adds the run's final totals to this requirement.
    const before = runThrottle().stats().requests;
    await speak.api.get('/v1/speak/models');
    const seen = runThrottle().stats();
    if (seen.requests <= before)
      throw new Error(`the run-wide request count did not count this request (${before} → ${seen.requests})`);
    check('ERR-RATE-LIMIT-OBSERVED', () =>
      observe('rate-limit.test', 'When this test ran: {summary}', {
        values: { limited: seen.answered429 + seen.answered503 > 0 },
        particulars: { summary: rateLimitObservation(seen) },
      }),
    );
  },
);
