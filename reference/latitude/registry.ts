/**
 * The named latitude switches of the reference stack (`speakcheck serve --latitude NAME`), the dual
 * of reference/defects/: each makes one choice the contract leaves open the other way from our
 * default, at the exact spot with `latitude.has('name')`, and quotes verbatim the sentence of
 * speak-v1.md that leaves it open. They exist to prove the harness is fair
 * (test/reference/latitude/latitude-matrix.int.test.ts): the whole harness against a stack with a switch on must
 * still say CONFORMS. A switch whose run fails is either a harness over-fit (fix the check, keep it
 * sharp) or a choice the contract forbids (then it is not here: see the notes at the end).
 */
import type { RequirementId } from '../../schemas/requirement-ids.ts';

export interface LatitudeSpec {
  name: string;
  /** The requirement area (src/requirements/catalogue/<area>.ts) whose freedom the switch uses. */
  area: string;
  /** The sentence (or table row) of speak-v1.md that leaves the choice open, verbatim. */
  quote: string;
  description: string;
  /** Switches that cannot be on together with this one (declared on one side is enough). */
  incompatible?: readonly string[];
  /**
   * SHOULD requirements this choice departs from on purpose: the alternative their MUST allows
   * (e.g. clamping where refusal is the SHOULD). The matrix runs such a switch in the lenient
   * profile (only MUST gates) and asserts that the SHOULDs it fails are exactly among these.
   */
  departsFrom?: readonly RequirementId[];
}

const l = <N extends string>(
  name: N,
  area: string,
  quote: string,
  description: string,
  incompatible: readonly string[] = [],
  departsFrom: readonly RequirementId[] = [],
) => ({ name, area, quote, description, incompatible, departsFrom }) as const;

export const LATITUDES = [
  // auth
  l(
    'opaque-access-tokens',
    'auth',
    'Lifetime of an access token: not shown.',
    'access tokens are opaque random strings (not JWTs) that live 20 s: the run refreshes on 401',
  ),
  l('logout-204', 'auth', 'Response body of logout: not shown.', 'logout answers 204 with no body'),
  l(
    'expiry-leeway',
    'auth',
    'Lifetime of an access token: not shown.',
    'access tokens, signed audio URLs and websocket URLs are still accepted up to 20 s past their lifetime (the leeway for clock skew RFC 7519 §4.1.4 lets a server allow; jose clockTolerance, 60 s in Spring, 5 min in ASP.NET)',
  ),
  l(
    'logout-everywhere',
    'auth',
    'Logout: POST `/auth/logout` with `refresh_token` revokes that refresh token. Afterwards no new access token can be obtained with it.',
    "logout revokes every refresh token of that user (every session, other clients' included), not only the one given; access tokens already issued live on until they expire (the contract asks only that the given token be revoked, and names no other token that must survive: the most hostile reading it allows)",
  ),
  // models
  l(
    'model-extra-fields',
    'models',
    'Values of `flags`: not shown.',
    'models carry extra fields (description, max_text_length) and a non-empty flags list',
  ),
  // voices
  l(
    'model-version-names',
    'voices',
    'The returned value may be a more specific model version name than the one requested.',
    "a voice's model is the requested name plus a version suffix (polyglot → polyglot-v1.2)",
  ),
  l(
    'prosody-as-sent',
    'voices',
    "| prosody | prosody object or null | When null, the voice's default prosody applies. |",
    'a prosody object missing some fields of its type ({"pace": 3}, {}) is stored and returned as sent, not completed with 0 (as a server that keeps what it was given; the SDK then fails to parse it)',
  ),
  l(
    'default-style-empty',
    'voices',
    'Returned as an empty array or null when not set.',
    'a voice generated without default_style shows [] instead of null',
  ),
  l(
    'ids-uuid',
    'takes',
    '| take_id | string | Assigned by the service. |',
    'ids in another style: plain UUIDs instead of tk_/vc_ prefixed hex',
  ),
  // takes
  l(
    'example-takes-hidden',
    'takes',
    "Identifier of an example take of the voice. Its audio is fetched like any take's audio.",
    "voices' example takes are not listed among the user's takes (GET by id still finds them)",
  ),
  l(
    'statuses-as-shown',
    'takes',
    'Take `status` values seen: `waiting`, `started`, `progress_50`, `ready`.',
    'only the statuses the contract shows: no progress_25 / progress_75',
  ),
  l(
    'no-delete',
    'sequences',
    'The HTTP methods, paths and payloads of these operations: not shown.',
    'no DELETE of a take: DELETE /v1/speak/takes/{id} is answered as an unknown route (404 "no such route"), as by a server that offers no delete (delete is a wire fact)',
  ),
  l(
    'no-update',
    'sequences',
    'The HTTP methods, paths and payloads of these operations: not shown.',
    'no voice update: POST /v1/speak/voices/{id} is answered as an unknown route (404 "no such route"), as by a server that offers no update (update is a wire fact)',
  ),
  l(
    'voice-waiting-after-update',
    'sequences',
    'Transitions of a voice: not shown.',
    'a voice updated (POST /v1/speak/voices/{id}, a wire fact) is shown `waiting` by GET and the list for 2 s, as by a server that re-processes a changed voice, then `ready` again',
  ),
  l(
    'no-batch',
    'sequences',
    '| POST | /v1/speak/takes/generate | TakeGenerate | Take, normally with status `waiting` and `info` null |',
    'no batch generation: an array on POST /v1/speak/takes/generate is refused as a body that is not one TakeGenerate (422, as the schema refuses it), as by a server that offers no batch (batch is a wire fact)',
  ),
  // lists
  l(
    'pages-from-0',
    'lists',
    'Default page size, ordering, and whether pages are counted from 0 or 1: not shown.',
    'page counts from 0 (and defaults to 0)',
  ),
  l(
    'default-page-length',
    'lists',
    'Default page size, ordering, and whether pages are counted from 0 or 1: not shown.',
    'without length a list answers at most 5 items (page size 5)',
  ),
  l(
    'default-page-length-1',
    'lists',
    'Default page size, ordering, and whether pages are counted from 0 or 1: not shown.',
    'without length a list answers at most 1 item (page size 1, the smallest a server may choose)',
    ['default-page-length'],
  ),
  l(
    'bounds-exclusive',
    'lists',
    'Restricts results to older items.',
    'older/newer are exclusive bounds (< and >)',
  ),
  l(
    'oldest-first',
    'lists',
    'Default page size, ordering, and whether pages are counted from 0 or 1: not shown.',
    'lists are ordered oldest first',
  ),
  // audio
  l(
    'redirect-before-ready',
    'audio',
    'The audio endpoints answer with HTTP 307.',
    'every format answers 307 before ready; the signed URL of a format other than wav refuses (409) until the take is ready',
  ),
  l(
    'signed-url-same-origin',
    'audio',
    'The `Location` header holds a time-limited signed URL from which the audio is streamed or stored.',
    "signed audio URLs on the API's own origin (no blob-store listener; as `serve --blob-url same-origin`): the client must drop Authorization itself",
  ),
  l(
    'signed-url-ignores-auth',
    'audio',
    'A client that sends the `Authorization` header to the signed URL must drop it for that request.',
    'the signed URL ignores an Authorization header instead of refusing it',
  ),
  l(
    'sample-rate-44100',
    'audio',
    '| audio_rate | integer (sample rate in Hz) |',
    'audio at 44100 Hz (each sample doubled), info.duration counted in samples at that rate',
  ),
  // errors
  l(
    'status-400',
    'errors',
    'Other status codes, codes per condition, and the error for unknown identifiers or invalid bodies: not shown.',
    'a body or query that breaks the schema answers 400 instead of 422',
  ),
  l(
    'detail-list',
    'errors',
    'Error responses are JSON with a `detail` field.',
    "validation errors carry detail as a list of error objects ({loc, msg, type}, FastAPI's shape)",
  ),
  l(
    'any-content-type-parsed',
    'errors',
    'Request bodies are JSON with `content-type: application/json`.',
    'a body of any content type (text/plain, a form) is read as JSON',
  ),
  // docs
  l(
    'templated-audio-path',
    'docs',
    'An interactive reference and a machine-readable definition are published at `{base_url}/v1/speak/docs`, `{base_url}/v1/speak/redoc` and `{base_url}/v1/speak/openapi.json`.',
    'openapi.json declares the audio as one /v1/speak/takes/{take_id}/{format} with an enum of the five formats',
  ),
  l(
    'docs-need-token',
    'docs',
    'Every request needs `Authorization: Bearer <ACCESS_TOKEN>`, except the `/version` endpoint.',
    '/v1/speak/docs, /redoc and /openapi.json want the bearer token too',
  ),
  // version
  l(
    'version-extra-fields',
    'version',
    'Its full path and response shape: not shown.',
    '/v1/speak/version also carries build and commit fields',
  ),
  l(
    'version-at-root',
    'version',
    'A `/version` endpoint exists and needs no access token.',
    'the version endpoint is {base_url}/version, not /v1/speak/version',
  ),
  l(
    'version-major-minor-names',
    'version',
    'The `/version` endpoint reports a major and a minor version number and needs no token.',
    'the version body is {"major": 1, "minor": 0}',
  ),
  // websocket
  l(
    'ws-merge-short-sentences',
    'websocket',
    'A part is usually one sentence and ends in silence.',
    'sentences of fewer than 40 characters are merged with the next into one part',
  ),
  l(
    'ready-before-last-frame',
    'websocket',
    'Message order on the wire is not guaranteed.',
    'the ready Take is sent before the last audio frames and the end marker',
  ),
  l(
    'ws-idle-close',
    'websocket',
    'An open connection may stay open longer. A new connection needs a new URL. A disconnect does not happen while a request is being processed.',
    'the worker closes a websocket connection (1000 "idle timeout") once it has had no request in progress for 2 s, from its opening or the end of its last request: a client that keeps a connection between requests must open a new one',
  ),
  l(
    'ws-secret-in-path',
    'websocket',
    'The URL contains a secret with a limited lifetime, distinct from the access token.',
    'the websocket secret is a path segment, not a query parameter',
  ),
  // webhooks
  l(
    'webhooks-late-no-retry',
    'webhooks',
    'Delivery details of webhooks (retries, signatures, authentication, timeouts): not shown.',
    'webhook calls leave 1 s late and a failed call is never retried',
  ),
  l(
    'status-webhook-no-waiting',
    'webhooks',
    "It is called by POST, with the Take structure in the body, each time the take's progress changes.",
    'the status webhook is not called for the creation (waiting), only for later changes',
  ),
  // a hosted service (issue 32): its latency, its rate limit, its load shedding
  l(
    'slow-first-byte',
    'audio',
    'The `Location` header holds a time-limited signed URL from which the audio is streamed or stored.',
    'the storage host answers a full download of a ready take (its 4th, then every 8th per process) with its headers at once and the first byte of the body 10.5 s later (a cold read), after downloads that were fast: latency the harness must wait, never a hang',
  ),
  l(
    'hosted-latency',
    'voices',
    'After a few seconds a fetch by `voice_id` returns `ready`.',
    "a hosted neural TTS's latencies (reference/latitude/hosted-latency.ts): voices waiting 2–4 s and ready after 5 s, takes queued 0.3–0.8 s then 0.5–0.7 s per part, websocket first audio 0.25 s after a part starts then a 200 ms chunk every 0.10 s, webhooks 0.2–0.5 s late, login and refresh 0.15 s, other requests 30–80 ms",
  ),
  l(
    'rate-limit',
    'errors',
    'Rate limits, maximum text length, and maximum number of voices or takes: not shown.',
    'a token bucket per bearer token (per client address without one) on the API: past it, 429 with Retry-After and {"detail":"Rate limit exceeded, retry later"}, the request not processed (serve --rate-limit-rps, --rate-limit-burst)',
  ),
  l(
    'transient-503',
    'errors',
    'Other status codes, codes per condition, and the error for unknown identifiers or invalid bodies: not shown.',
    'every 20th API request is answered 503 with Retry-After: 1 and a JSON detail, not processed (a hosted service shedding load)',
  ),
  l(
    'rate-limit-no-retry-after',
    'errors',
    'Rate limits, maximum text length, and maximum number of voices or takes: not shown.',
    'the token bucket of rate-limit, its 429 without a Retry-After header: the client has to back off on its own',
    // One form of Retry-After at a time.
    ['retry-after-date'],
  ),
  l(
    'retry-after-date',
    'errors',
    'Rate limits, maximum text length, and maximum number of voices or takes: not shown.',
    "the token bucket of rate-limit, its 429's Retry-After an HTTP-date (RFC 9110 §10.2.3) instead of delay-seconds",
    ['rate-limit-no-retry-after'],
  ),
  l(
    'ws-upgrade-warmup-503',
    'websocket',
    'Other status codes, codes per condition, and the error for unknown identifiers or invalid bodies: not shown.',
    'a worker node refuses its first 3 websocket upgrades with 503 + Retry-After: 1 and a JSON detail while it warms up, then accepts them (reference/latitude/ws-warmup.ts)',
  ),
  // issue 39: a router in front of the worker nodes (reference/latitude/ws-router.ts)
  l(
    'ws-router-node-param',
    'websocket',
    'The URL addresses a worker node that holds the requested model.',
    'the worker URL also names its node for a router in front of the nodes (query parameter __up, an opaque token fresh for each URL); an upgrade whose node parameter is missing or names no node is answered 502 Bad Gateway by the router',
    ['ws-router-node-param-close'],
  ),
  l(
    'ws-router-node-param-close',
    'websocket',
    'The URL addresses a worker node that holds the requested model.',
    'as ws-router-node-param, but the router closes the connection without an answer when the node parameter is missing or names no node',
    ['ws-router-node-param'],
  ),
  // issue 31: what the contract's own words allow, where the catalogue used to demand more
  l(
    'prosody-clamped',
    'errors',
    '| pace, pitch, expression (simple prosody) | integers from -10 to 10 |',
    'an integer prosody field outside -10..10 is clamped into it, stored and shown clamped (a fraction is still refused)',
    [],
    ['ERR-PROSODY-REFUSED'],
  ),
  l(
    'coerced-types',
    'errors',
    'Other status codes, codes per condition, and the error for unknown identifiers or invalid bodies: not shown.',
    'a generation body field of the wrong JSON type is coerced to the type its table gives when it can be (42 or true → "42" / "true" for a string, "5" → 5 for an integer), stored and shown so, as by pydantic\'s lax mode; what cannot be coerced is refused',
  ),
  l(
    'ws-stream-reencoded',
    'websocket',
    'Audio can be downloaded over HTTP through a redirect, or streamed over a websocket connected directly to a worker.',
    'the websocket stream is re-encoded on its way: the same samples at the same rate and duration, each with its lowest bit flipped (a ±1 dither), so its PCM differs from the stored wav',
    [],
    ['WS-PCM-MATCHES-REST'],
  ),
  l(
    'unknown-id-400',
    'errors',
    'Other status codes, codes per condition, and the error for unknown identifiers or invalid bodies: not shown.',
    'an unknown model name, voice_id or take_id answers 400 instead of 404',
  ),
  l(
    'strict-request-fields',
    'errors',
    'Whether `default_style` and `status_webhook` may be sent on generation is not shown as a request rule.',
    'a request body field the contract\'s tables do not list (VoiceGenerate, TakeGenerate, the authentication bodies) is refused: 422 {"detail": "body/<field>: unknown field"}',
  ),
  // security
  l(
    'foreign-items-403',
    'security',
    'Other status codes, codes per condition, and the error for unknown identifiers or invalid bodies: not shown.',
    "another user's take or voice (GET, audio, update, delete, a take with its voice_id) is refused with 403 instead of 404 (reference/api/ownership.ts)",
  ),
] as const satisfies readonly LatitudeSpec[];

/*
 * Notes on the examples issue 14 gave:
 * - None was dropped as forbidden: every run of the matrix says CONFORMS.
 * - Where an example was already the reference's own default, the switch is its opposite: example
 *   takes are listed by default (example-takes-hidden), the status webhook is called for waiting by
 *   default (status-webhook-no-waiting), a one-part take shows no progress_* by default (so "no
 *   progress_50 for short texts" needs no switch), ids are prefixed by default (ids-uuid),
 *   default_style is null by default (default-style-empty), detail is a string by default
 *   (detail-list).
 * - "duration counted in samples at that rate" is part of sample-rate-44100.
 * - Signed URLs on the API's own origin are left to the change that moves them to their own origin.
 */

export type LatitudeName = (typeof LATITUDES)[number]['name'];

export function findLatitude(name: string): LatitudeSpec | undefined {
  return LATITUDES.find((latitude) => latitude.name === name);
}

/** Whether two switches may be on together (an incompatibility declared on either side counts). */
export function compatible(a: LatitudeSpec, b: LatitudeSpec): boolean {
  return !a.incompatible?.includes(b.name) && !b.incompatible?.includes(a.name);
}

/** The largest set of switches that may be on together, in registry order (greedy). */
export function compatibleLatitudes(all: readonly LatitudeSpec[] = LATITUDES): LatitudeSpec[] {
  const set: LatitudeSpec[] = [];
  for (const candidate of all) if (set.every((other) => compatible(candidate, other))) set.push(candidate);
  return set;
}
