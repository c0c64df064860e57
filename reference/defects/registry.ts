/**
 * The named defect switches of the reference stack (`speakcheck serve --defect NAME`): each is one
 * small, realistic deviation from the contract that an implementation could ship, hooked at the exact
 * spot with `defects.has('name')`. They exist to prove the harness catches broken servers
 * (test/reference/defects/defect-matrix.int.test.ts): a run against a stack with a switch on must fail, and fail on
 * at least one of the requirement ids the switch declares. Off by default; see active.ts.
 */
import type { RequirementId } from '../../schemas/requirement-ids.ts';

export interface DefectSpec {
  name: string;
  /** The requirement area (src/requirements/catalogue/<area>.ts) whose suite observes the defect. */
  area: string;
  /**
   * Requirement ids of which at least one must fail when the defect is on; for an outage, each of
   * which must be not concluded.
   */
  requirements: readonly RequirementId[];
  description: string;
  /**
   * 'outage': a part of the server that only ever answers back-pressure (429/503), or the whole
   * server answering nothing at all. Neither is a failure of a requirement, so the honest verdict is
   * "not concluded": caught when the run exits 1 within the bound, the declared requirements are
   * not concluded, and the outage is named once.
   * 'hang': a part that accepts the request and never answers (issue 49): caught when the run
   * exits 1, a declared requirement failed, and the route that does not answer is named once.
   */
  kind?: 'outage' | 'hang';
}

const d = <N extends string>(name: N, area: string, requirements: RequirementId[], description: string) =>
  ({ name, area, requirements, description }) as const;
const hang = <N extends string>(name: N, area: string, requirements: RequirementId[], description: string) =>
  ({ name, area, requirements, description, kind: 'hang' }) as const;
const outage = <N extends string>(
  name: N,
  area: string,
  requirements: RequirementId[],
  description: string,
) => ({ name, area, requirements, description, kind: 'outage' }) as const;

export const DEFECTS = [
  // auth
  d('login-fail-403', 'auth', ['AUTH-LOGIN-FAIL-401'], 'a failed login answers 403 instead of 401'),
  d('login-fail-200', 'auth', ['AUTH-LOGIN-FAIL-401'], 'a failed login answers 200 with an empty token pair'),
  d(
    'refresh-no-rotate',
    'auth',
    ['AUTH-REFRESH-ROTATES', 'AUTH-REFRESH-CHAIN', 'AUTH-REFRESH-PAIR'],
    'refresh answers the used refresh token instead of a new one',
  ),
  d(
    'refresh-reuses-access',
    'auth',
    ['AUTH-REFRESH-ROTATES'],
    'refresh rotates the refresh token but answers the access token the session already had',
  ),
  d(
    'logout-no-revoke',
    'auth',
    ['AUTH-LOGOUT-REVOKES'],
    'logout answers success but the refresh token keeps working',
  ),
  d(
    'expired-token-accepted',
    'auth',
    ['AUTH-EXPIRED-TOKEN-401', 'AUTH-INVALID-TOKEN-401'],
    'a bearer token that fails verification is accepted as the demo user',
  ),
  d(
    'refresh-refuses-stale-bearer',
    'auth',
    ['AUTH-REFRESH-WITH-BEARER'],
    'refresh with a valid refresh token is refused (401) when its bearer header carries an access token the server no longer accepts',
  ),
  d(
    'refresh-token-camelcase',
    'auth',
    ['AUTH-TOKEN-PAIR-SHAPE'],
    'refresh answers the new pair as {"access_token": ..., "refreshToken": ...}: the refresh token under a camelCase name',
  ),
  d(
    'no-token-401-empty',
    'auth',
    ['AUTH-ERROR-DETAIL'],
    'a protected route called without Authorization answers 401 with an empty body (only WWW-Authenticate: Bearer, as an auth proxy does): no JSON detail',
  ),
  d(
    'no-token-403',
    'auth',
    ['AUTH-BEARER-REQUIRED'],
    "a protected route called without Authorization answers 403 with the detail Not authenticated (FastAPI HTTPBearer's default) instead of 401",
  ),
  d(
    'login-token-stale-key',
    'auth',
    ['AUTH-ACCESS-TOKEN-WORKS'],
    'the access token a login answers is signed with a retired key the API refuses (401); access tokens from refresh work (a key rotation the login path missed)',
  ),
  d(
    'relogin-needs-token',
    'auth',
    ['AUTH-LOGIN-NO-TOKEN'],
    "a user's first login works; once they have a session, a login without Authorization is refused (401 'already signed in': a session guard demanding the bearer token)",
  ),
  hang(
    'login-hangs',
    'auth',
    ['AUTH-LOGIN-OK'],
    'POST /auth/login (the preflight logs in after /version) accepts the request and never answers',
  ),
  // version
  d(
    'version-needs-token',
    'version',
    ['VERSION-NO-TOKEN'],
    '/v1/speak/version refuses requests without a bearer token',
  ),
  d(
    'version-string',
    'version',
    ['VERSION-MAJOR-MINOR', 'VERSION-WIRE-SHAPE'],
    '/v1/speak/version answers {"version": "1.0"} (a string, no minor)',
  ),
  d(
    'version-major-2',
    'version',
    ['VERSION-MAJOR-MATCHES-PATH'],
    '/v1/speak/version answers {"version": 2, "minor": 0}: the release counter of the service, not the major of the interface its path names',
  ),
  d(
    'auth-under-v1-prefix',
    'version',
    ['VERSION-PATH-PREFIX'],
    'the authentication endpoints are served inside the interface prefix (/v1/speak/auth/login ...): /auth/login answers 404',
  ),
  // docs
  d(
    'docs-placeholder',
    'docs',
    ['DOCS-INTERACTIVE-HTML'],
    '/v1/speak/docs is an HTML placeholder page that renders no API definition',
  ),
  d(
    'openapi-missing-path',
    'docs',
    ['DOCS-OPENAPI-PATHS'],
    'openapi.json lacks the /v1/speak/takes/{take_id} path',
  ),
  d(
    'openapi-format-enum-incomplete',
    'docs',
    ['DOCS-OPENAPI-PATHS'],
    'openapi.json declares the audio as one /v1/speak/takes/{take_id}/{format} whose enum lacks webm',
  ),
  d(
    'redoc-not-served',
    'docs',
    ['DOCS-REDOC-HTML'],
    '/v1/speak/redoc answers 404 as an unknown route: the Redoc page is turned off (only /v1/speak/docs is served)',
  ),
  d(
    'openapi-info-no-version',
    'docs',
    ['DOCS-OPENAPI-VALID'],
    'openapi.json has an info object without its required version (an invalid OpenAPI document)',
  ),
  // models
  d(
    'model-get-array',
    'models',
    ['MODELS-GET', 'MODELS-LIST-GET-AGREE'],
    'GET /v1/speak/models/{name} answers an array holding the model',
  ),
  d(
    'model-get-no-displayname',
    'models',
    ['MODEL-FIELD-TYPES'],
    'GET /v1/speak/models/{name} answers the model without displayname (the list still has it)',
  ),
  d(
    'simple-prosody-unlisted',
    'models',
    ['MODEL-SIMPLE-PROSODY'],
    "a model's prosody_types leaves out simple (it lists only the types the model adds), though a simple prosody is accepted",
  ),
  d(
    'override-language-default-only',
    'models',
    ['MODEL-LANGUAGES-USABLE'],
    "a take's override_language is refused (422) unless it is the model's default language: the model's other languages are listed but not usable",
  ),
  d(
    'nonbinary-refused',
    'models',
    ['MODEL-GENDERS-USABLE'],
    'voice generation refuses gender nonbinary (422: the gender check knows female and male only), though the model lists it',
  ),
  d(
    'styled-take-refused',
    'models',
    ['MODEL-STYLES-USABLE'],
    'a take with any style is refused (422 "styles are not supported"), though the model offers it',
  ),
  // voices
  d(
    'voice-get-array',
    'voices',
    ['VOICE-GET-OBJECT'],
    'GET /v1/speak/voices/{id} answers an array holding the voice',
  ),
  d(
    'voice-default-prosody-ignored',
    'voices',
    ['VOICE-DEFAULT-PROSODY-ADOPTED'],
    "a take without prosody is spoken without the voice's default prosody",
  ),
  d(
    'voice-get-drops-prosody',
    'voices',
    ['VOICE-DEFAULT-PROSODY-ECHO'],
    'GET of one voice shows default_prosody null though generation stored it',
  ),
  d(
    'voice-generate-ready',
    'voices',
    ['VOICE-GENERATE-WAITING'],
    'voice generation answers status ready instead of waiting',
  ),
  d(
    'update-does-nothing',
    'voices',
    ['VOICE-UPDATE'],
    'sdk profile: a voice update answers true and changes nothing',
  ),
  d(
    'voice-timestamp-microseconds',
    'voices',
    ['VOICE-TIMESTAMP-MS'],
    "a voice's timestamp_ms is in microseconds",
  ),
  d(
    'voice-model-embedded',
    'voices',
    ['VOICE-FIELD-TYPES'],
    'a voice\'s model is answered as an object {"name": ...} (the model row joined in) instead of a string',
  ),
  d(
    'voice-list-inner-join',
    'voices',
    ['VOICE-LIST'],
    'GET /v1/speak/voices leaves out voices without a description (an inner join where an outer one belongs)',
  ),
  d(
    'default-style-filled',
    'voices',
    ['VOICE-DEFAULT-STYLE-UNSET'],
    'a voice generated without default_style shows ["default"] instead of [] or null',
  ),
  d(
    'example-take-audio-404',
    'voices',
    ['VOICE-EXAMPLE-TAKE-AUDIO'],
    "the audio endpoints answer 404 for a voice's example take (GET of the take still answers it)",
  ),
  // takes
  d(
    'take-get-array',
    'takes',
    ['TAKE-GET-OBJECT'],
    'GET /v1/speak/takes/{id} answers an array holding the take',
  ),
  d(
    'info-before-ready',
    'takes',
    ['TAKE-INFO-NULL-BEFORE-READY', 'TAKE-GENERATE-INFO-NULL'],
    'info is filled (with a guess) before the take is ready',
  ),
  d(
    'info-while-generating',
    'takes',
    ['TAKE-INFO-NULL-BEFORE-READY'],
    'info is null while the take waits, but filled (with an estimate) once the worker has started it, before ready',
  ),
  d(
    'take-style-dropped',
    'takes',
    ['TAKE-ECHOES-REQUEST'],
    'a take is synthesized with its style but shows style null',
  ),
  d(
    'ready-not-final',
    'takes',
    ['TAKE-STATUS-ORDER'],
    'a ready take shows progress_75 again on every other read (re-queued after it was done)',
  ),
  d(
    'status-goes-backwards',
    'takes',
    ['TAKE-STATUS-ORDER', 'TAKE-STATUS-VALUES'],
    'a take in progress_* is reported as waiting again',
  ),
  d(
    'take-list-ready-only',
    'takes',
    ['TAKE-LISTED-AT-ONCE'],
    'GET /v1/speak/takes lists only takes whose status is ready: a take in progress is left out',
  ),
  d(
    'batch-reversed',
    'takes',
    ['TAKE-BATCH'],
    'sdk profile: a batch generation answers its takes in reverse order (wire facts: "in the same order")',
  ),
  d(
    'delete-does-nothing',
    'takes',
    ['TAKE-DELETE'],
    'sdk profile: DELETE of an existing take answers true and keeps it (GET and lists still show it)',
  ),
  d(
    'take-generate-started',
    'takes',
    ['TAKE-GENERATE-WAITING'],
    'take generation answers status started instead of waiting, though the take is only queued',
  ),
  d(
    'take-generate-500',
    'takes',
    ['TAKE-GENERATE-RETURNS-TAKE'],
    'take generation stores and queues the take, then answers 500 (the answer fails to serialize)',
  ),
  d('take-timestamp-seconds', 'takes', ['TAKE-TIMESTAMP-MS'], "a take's timestamp_ms is in seconds"),
  d(
    'take-timestamp-string',
    'takes',
    ['TAKE-FIELD-TYPES'],
    "a take's timestamp_ms is a string of digits (a 64-bit integer serialized as text)",
  ),
  d(
    'normalized-text-trailing-empty',
    'takes',
    ['TAKE-INFO-FIELDS'],
    'info.normalized_text of a ready take ends in an empty part (the split keeps the piece after the last sentence)',
  ),
  d(
    'info-audio-rate-doubled',
    'takes',
    ['TAKE-INFO-AUDIO-RATE'],
    "info.audio_rate is twice the wav's sample rate (samples of both channels of a stereo stream)",
  ),
  d(
    'prosody-bounds-exclusive',
    'takes',
    ['TAKE-PROSODY-ACCEPTED'],
    'a take prosody value at a bound (-10 or 10) is refused (422): the range check excludes its bounds',
  ),
  d(
    'override-language-fails',
    'takes',
    ['TAKE-OVERRIDE-LANGUAGE'],
    'a take with override_language is accepted but ends in status error (the worker hands the code to espeak as a voice name it does not know)',
  ),
  d(
    'text-ascii-only',
    'takes',
    ['TAKE-MULTILINGUAL-TEXT'],
    'a take text with a character outside ASCII is refused (422)',
  ),
  // lists
  d(
    'paging-off-by-one',
    'lists',
    ['LIST-PAGE-BASE', 'LIST-PAGES-PARTITION', 'LIST-ORACLE'],
    'page N skips N pages instead of N-1 (page 1 is the second page)',
  ),
  // Exclusive bounds on their own are a choice the contract leaves open (latitude bounds-exclusive);
  // bounds whose meaning changes with paging are not consistent.
  d(
    'list-bounds-exclusive-when-paged',
    'lists',
    ['LIST-ORACLE'],
    'older/newer are inclusive, but exclusive when a length is given (two code paths that disagree)',
  ),
  d(
    'take-id-filter-ignored',
    'lists',
    ['LIST-ID-FILTER', 'LIST-ORACLE'],
    'the take_id= list filter is ignored',
  ),
  d('list-newer-ignored', 'lists', ['LIST-NEWER', 'LIST-ORACLE'], 'the newer= list bound is ignored'),
  d('list-older-ignored', 'lists', ['LIST-OLDER'], 'the older= list bound is ignored'),
  d(
    'list-length-first-page-only',
    'lists',
    ['LIST-LENGTH'],
    'length bounds page 1 only: a later page runs from its offset to the end of the list (OFFSET without LIMIT)',
  ),
  // errors
  d('invalid-body-500', 'errors', ['ERR-INVALID-BODY-4XX'], 'a body that breaks the schema answers 500'),
  d('error-without-detail', 'errors', ['ERR-JSON-DETAIL'], 'error bodies are {"error": ...} without detail'),
  d(
    'unknown-style-accepted',
    'errors',
    ['ERR-UNKNOWN-STYLE'],
    "a take's style names are never checked against the model's: an unknown style is accepted",
  ),
  d(
    'refused-take-stored',
    'errors',
    ['ERR-NOTHING-CREATED'],
    'a refused take body whose text and voice_id are usable is stored anyway (a draft row written before validation that the refusal does not roll back)',
  ),
  d(
    'error-text-plain',
    'errors',
    ['ERR-CONTENT-TYPE', 'ERR-UNKNOWN-STYLE'],
    'error answers (4xx, 5xx) are sent with content-type text/plain, the JSON body unchanged (ERR-UNKNOWN-STYLE: the refusal whose answer ERR-CONTENT-TYPE judges)',
  ),
  // Parsing any content type as JSON is a choice the contract leaves open (latitude
  // any-content-type-parsed); a parser error escaping as a 500 is not.
  d(
    'malformed-json-500',
    'errors',
    ['ERR-MALFORMED-JSON'],
    'a body declared application/json that is not JSON answers 500 (the parser error escapes)',
  ),
  d(
    'prosody-out-of-range-accepted',
    'errors',
    ['ERR-PROSODY-OUT-OF-RANGE', 'ERR-PROSODY-REFUSED'],
    'prosody values outside -10..10 are accepted',
  ),
  d(
    'gender-stored-as-sent',
    'errors',
    ['ERR-INVALID-BODY-4XX'],
    'a voice gender outside the allowed values ("robot") is accepted and stored as sent',
  ),
  d(
    'unknown-id-500',
    'errors',
    ['ERR-UNKNOWN-ID-4XX', 'ERR-UNKNOWN-ID-404'],
    'an unknown take or voice id answers 500',
  ),
  // audio
  d('audio-302', 'audio', ['AUDIO-307'], 'audio endpoints redirect with 302 instead of 307'),
  d(
    'location-unsigned',
    'audio',
    ['AUDIO-SIGNED-LOCATION', 'AUDIO-AMZ-SIGNATURE'],
    'Location has no signature query and the signed route serves it anyway',
  ),
  d(
    'signature-not-checked',
    'audio',
    ['AUDIO-TAMPERED-REJECTED'],
    'the signed URL accepts a tampered signature',
  ),
  d('signed-url-needs-bearer', 'audio', ['AUDIO-SIGNED-NO-AUTH'], 'the signed URL demands the bearer token'),
  d(
    'mp3-serves-wav',
    'audio',
    ['AUDIO-CONTAINER', 'AUDIO-CONTENT-TYPE', 'AUDIO-FORMATS-SAME-AUDIO'],
    'the mp3 URL serves the wav bytes (with an audio/mpeg content type)',
  ),
  d(
    'flac-before-ready',
    'audio',
    ['AUDIO-ONLY-WAV-BEFORE-READY'],
    'flac is streamed like wav before the take is ready (its signed URL delivers the partial audio)',
  ),
  outage(
    'flac-always-throttled',
    'audio',
    ['AUDIO-ALL-FORMATS-READY'],
    'GET /v1/speak/takes/{id}/flac always answers 429 with Retry-After: 1 (every other route answers)',
  ),
  d(
    'wav-not-before-ready',
    'audio',
    ['AUDIO-WAV-BEFORE-READY'],
    'wav, like the other formats, is refused (409) until the take is ready: no streaming',
  ),
  ...(['wav', 'mp3', 'm4a', 'flac', 'webm'] as const).map((format) =>
    d(
      `audio-truncated-${format}` as const,
      'audio',
      ['AUDIO-CONTAINER', 'AUDIO-FORMATS-SAME-AUDIO'],
      `the signed ${format} URL of a ready take delivers only the first half of the file (Content-Length matching): a download cut short`,
    ),
  ),
  d(
    'audio-trailing-garbage',
    'audio',
    ['AUDIO-CONTAINER'],
    'every format of a ready take is served with 8000 bytes of noise after the audio',
  ),
  d(
    'wav-held-until-ready',
    'audio',
    ['AUDIO-WAV-BEFORE-READY'],
    'the wav of a take in progress is answered (307, then 200) but its body is sent only once the take is done: not streamed while generated',
  ),
  // websocket
  // The unit of info.duration is not in the contract (the REST areas only report it), but the
  // websocket stream's sample count must equal it.
  d(
    'ws-chunk0-sized-for-chunk',
    'websocket',
    ['WS-MODE-CHUNKS', 'WS-FRAME-IDS-COMPLETE'],
    "chunks mode: chunk 0's wav header is sized for one chunk, not the part",
  ),
  d(
    'ws-chunk0-last',
    'websocket',
    ['WS-CHUNK0-BEFORE-PART-END'],
    'chunks mode: the audio chunks go out as espeak makes them and chunk 0 (the header) after them, when the part is done',
  ),
  d(
    'ws-progress-not-sent',
    'websocket',
    ['WS-TEXT-TAKE', 'WS-MULTIPART-PROGRESS'],
    'the websocket sends the waiting and the ready Take only: no message when the take starts or progresses',
  ),
  d('ws-no-end-marker', 'websocket', ['WS-END-OF-TAKE'], 'no final empty part ends a take'),
  d(
    'ws-chunk-id-from-1',
    'websocket',
    ['WS-MODE-CHUNKS', 'WS-FRAME-IDS-COMPLETE', 'WS-CHUNK0-SENT-FIRST'],
    'chunks mode numbers chunks from 1 (the header chunk is 1)',
  ),
  d(
    'ws-no-take-messages',
    'websocket',
    ['WS-TEXT-TAKE'],
    'the websocket sends no Take text message for a take: only its audio frames and end marker',
  ),
  d(
    'ws-ready-take-not-sent',
    'websocket',
    ['WS-READY-INFO', 'WS-TEXT-TAKE'],
    'the websocket sends the waiting, started and progress Takes and the end marker, but never the ready Take',
  ),
  d(
    'ws-secret-not-verified',
    'websocket',
    ['WS-URL-TAMPERED-REFUSED'],
    "the worker reads the websocket secret's claims without checking its signature",
  ),
  d(
    'ws-stream-trims-silence',
    'websocket',
    ['WS-AUDIO-MATCHES-REST'],
    "the websocket stream leaves out each part's trailing silence (wav headers sized to match) while the stored wav keeps it: the streamed take is shorter than the REST one",
  ),
  d(
    'ws-expired-url-accepted',
    'websocket',
    ['WS-URL-EXPIRED-REFUSED'],
    'an expired websocket URL is still accepted',
  ),
  d(
    'json-as-text-plain',
    'version',
    ['API-JSON-BODIES'],
    'every JSON body of the API is sent with content-type text/plain (the JSON itself unchanged)',
  ),
  d(
    'ws-any-url-accepted',
    'websocket',
    ['WS-URL-TAMPERED-REFUSED'],
    'the worker accepts any URL at the upgrade: a missing, altered or invalid secret (or another path) still connects',
  ),
  d(
    'ws-url-without-secret',
    'websocket',
    ['WS-URL-SECRET-VARIES'],
    'the websocket address is the bare worker URL, the same every time, and the worker accepts it: no secret at all',
  ),
  d(
    'ws-url-ignores-model',
    'websocket',
    ['WS-URL-MODEL-HELD'],
    'the websocket address endpoint ignores `model`: every URL is for the first model',
  ),
  d(
    'ws-requests-concurrent',
    'websocket',
    ['WS-SERIALIZED'],
    'requests on one connection are handled at once: the next request starts while the previous one still streams',
  ),
  d(
    'ws-ignores-later-requests',
    'websocket',
    ['WS-SERIALIZED'],
    'the worker handles only the first take request of a connection: later ones never get a message, the connection stays open',
  ),
  d(
    'ws-url-carries-token',
    'websocket',
    ['WS-URL-SECRET-NOT-TOKEN'],
    "the websocket address carries the caller's access token too (a `token` query parameter beside the secret)",
  ),
  d(
    'ws-url-http-scheme',
    'websocket',
    ['WS-URL-ENDPOINT'],
    "GET /v1/speak/websocket?model=M answers the worker's address as http:// instead of ws:// (the SDK form keeps ws://)",
  ),
  d(
    'ws-chunk-id-on-header-only',
    'websocket',
    ['WS-FRAME-METADATA'],
    "chunks mode: only a part's header chunk and its end chunk carry a chunk_id; its audio chunks carry part_id alone",
  ),
  d(
    'ws-default-mode-chunks',
    'websocket',
    ['WS-MODE-PARTS-DEFAULT'],
    'a take request without `stream` is answered in chunks mode',
  ),
  d(
    'ws-part-size-in-samples',
    'websocket',
    ['WS-MODE-PARTS'],
    "parts mode: each part's WAV header gives its data size in samples, not bytes (the RIFF size likewise)",
  ),
  d(
    'ws-no-part-end-chunk',
    'websocket',
    ['WS-CHUNK-END-MARKER'],
    "chunks mode: no empty chunk ends a part; only the take's end marker follows its last part",
  ),
  d(
    'ws-waiting-after-started',
    'websocket',
    ['WS-STATUS-ORDER'],
    'the websocket sends the waiting Take only after the started one (started, waiting, progress, ready)',
  ),
  d(
    'ws-info-not-stored',
    'websocket',
    ['WS-TAKE-IN-REST'],
    'a websocket take is stored ready without its info: the ready Take the websocket sends has it, GET /v1/speak/takes/{id} shows info null',
  ),
  d(
    'ws-frames-to-latest-connection',
    'websocket',
    ['WS-SAME-CONNECTION'],
    "the worker keeps one audio outlet per user, its latest connection's: with several open, every request's frames go to the last one opened (Take messages to their own)",
  ),
  d(
    'ws-closes-mid-take',
    'websocket',
    ['WS-NO-DISCONNECT-MID-REQUEST'],
    "the worker closes the connection (1011) once a take's first part is sent when more parts follow (the take is still stored)",
  ),
  d(
    'ws-wav-size-16bit',
    'websocket',
    ['WS-RANDOM-TEXTS'],
    "the streamed WAV headers' RIFF and data sizes are written as 16-bit values: a part of more than 64 KiB of audio (about 1.5 s) gets sizes that wrap",
  ),
  d(
    'ws-stored-audio-lossy',
    'websocket',
    ['WS-PCM-MATCHES-REST'],
    "a websocket take's stored wav goes through a lossy path that clears each sample's lowest bit: the REST wav is not the streamed PCM",
  ),
  outage(
    'api-wedges-after-first-take',
    'takes',
    ['TAKE-GET-OBJECT'],
    'once it answered its first take generation, the API accepts every request (its root too) and never answers again: a server wedged mid-run',
  ),
  outage(
    'ws-upgrade-always-503',
    'websocket',
    ['WS-SERIALIZED'],
    'every worker websocket upgrade is answered 503 with Retry-After: 1 (REST answers normally)',
  ),
  // webhooks
  d('webhook-done-twice', 'webhooks', ['WEBHOOK-DONE-ONCE'], 'the done webhook is called twice'),
  d(
    'webhook-done-redelivered',
    'webhooks',
    ['WEBHOOK-DONE-ONCE'],
    'the done webhook is called again 3 s after it was answered (a redelivering queue)',
  ),
  d('webhook-done-never', 'webhooks', ['WEBHOOK-DONE-CALLED'], 'the done webhook is never called'),
  d(
    'webhook-status-missing',
    'webhooks',
    ['WEBHOOK-STATUS-CALLED', 'WEBHOOK-STATUS-AGREES-POLLING'],
    'the status webhook is not called for started',
  ),
  d(
    'webhook-text-plain',
    'webhooks',
    ['WEBHOOK-POST-JSON'],
    "webhook calls are POSTed with content-type text/plain;charset=UTF-8 (fetch's default for a string body; the JSON itself unchanged)",
  ),
  d(
    'formats-encoded-after-done',
    'webhooks',
    ['WEBHOOK-DONE-AUDIO-FETCHABLE'],
    "a ready take's mp3, m4a, flac and webm are encoded on their first request: for 5 s from it that format answers 409, so right after the done call only the wav can be fetched",
  ),
  d(
    'voice-done-stale-body',
    'webhooks',
    ['WEBHOOK-VOICE-DONE'],
    "a voice's done_webhook is called when the voice is ready, with the Voice as it was created (status waiting): a body the queue kept from the first event",
  ),
  d(
    'done-body-without-webhooks',
    'webhooks',
    ['WEBHOOK-DONE-BODY-EQUALS-GET'],
    "a take's done call carries status_webhook and done_webhook null (the sender strips its own targets from what it posts); GET shows them",
  ),
  d(
    'status-webhook-started-late',
    'webhooks',
    ['WEBHOOK-STATUS-ORDERED'],
    "a take's started status call is held until the take is done and goes out after the done status (a retry queue that parked it)",
  ),
  d(
    'ws-progress-not-stored',
    'webhooks',
    ['WEBHOOK-STATUS-AGREES-WEBSOCKET'],
    "a websocket take's progress statuses go out on the socket but are never stored: no status call reports them",
  ),
  // stuck items: one wait per stuck thing (issue 32), each caught by the requirement of its bound
  d(
    'voice-never-ready',
    'voices',
    ['VOICE-READY-BOUND'],
    'voices stay waiting forever (their example take is spoken, the voice never moves on)',
  ),
  d(
    'take-stuck-started',
    'takes',
    ['TAKE-READY-BOUND'],
    "takes reach started and stay there (REST and websocket; voices' example takes still finish)",
  ),
  // security (tenant isolation: another user's items; reference/api/ownership.ts)
  d(
    'leak-take-by-id',
    'security',
    ['SEC-TAKE-GET-ISOLATED'],
    "GET /v1/speak/takes/{take_id} finds the take by its id alone: another user's take is answered",
  ),
  d(
    'leak-voice-by-id',
    'security',
    ['SEC-VOICE-GET-ISOLATED'],
    "GET /v1/speak/voices/{voice_id} finds the voice by its id alone: another user's voice is answered",
  ),
  d(
    'leak-audio',
    'security',
    ['SEC-AUDIO-ISOLATED'],
    "the audio endpoints find the take by its id alone: another user's take gets its 307 to the audio",
  ),
  d(
    'leak-list',
    'security',
    ['SEC-LIST-ISOLATED'],
    "a list's voice_id=/take_id= filter replaces the owner condition: another user's items are listed by id",
  ),
  d(
    'foreign-delete',
    'security',
    ['SEC-DELETE-REFUSED'],
    'DELETE of a take or voice deletes it by its id alone, whoever owns it',
  ),
  d(
    'foreign-update',
    'security',
    ['SEC-UPDATE-REFUSED'],
    "the voice update (POST /v1/speak/voices/{voice_id}) changes another user's voice",
  ),
  d(
    'foreign-voice-usable',
    'security',
    ['SEC-FOREIGN-VOICE-TAKE'],
    "POST /v1/speak/takes/generate accepts another user's voice_id and synthesizes with it",
  ),
  d(
    'ws-foreign-voice-usable',
    'security',
    ['SEC-WS-FOREIGN-VOICE'],
    "the worker websocket accepts a take request with another user's voice_id and streams it",
  ),
  d(
    'refresh-by-email',
    'security',
    ['SEC-REFRESH-OTHER-EMAIL'],
    "a refresh token presented with another user's email yields a token pair of the user that email names",
  ),
  d(
    'logout-revokes-all',
    'security',
    ['SEC-LOGOUT-SCOPED'],
    "one logout revokes every user's refresh tokens, not only the one it was given",
  ),
  // issue 50: bugs that live in sequences of calls, each missed by every fixed scenario and caught by
  // the stateful suite (suites/sequences.spec.ts); sequence-memory.ts holds what they remember.
  d(
    'deleted-take-audio-answers',
    'sequences',
    ['SEQ-DELETED-TAKE-GONE'],
    'sdk profile: a deleted take is gone from GET and lists, but its audio endpoints still answer 307 to a signed URL',
  ),
  d(
    'list-skips-after-delete',
    'sequences',
    ['SEQ-LIST-PAGES-AFTER-CHANGES'],
    'a take list whose take_id= filter names a deleted take skips one item on every page after the first (the deleted id still counts in the offset)',
  ),
  d(
    'deep-logout-ignored',
    'sequences',
    ['SEQ-REFRESH-CHAIN-ANY-DEPTH'],
    'logout of a refresh token issued by the second or a later refresh of its chain answers true and does not revoke it: the chain goes on refreshing (the fixed auth suite logs out after one refresh)',
  ),
  d(
    'seventh-refresh-fails',
    'sequences',
    ['SEQ-REFRESH-CHAIN-ANY-DEPTH'],
    'the seventh refresh of one chain (a login, then refreshes with each new refresh token) answers 401: deeper than any fixed scenario goes',
  ),
  d(
    'ws-fourth-request-ignored',
    'sequences',
    ['SEQ-WS-REQUESTS-ANY-COUNT'],
    'the worker serves three take requests in the default stream mode (no `stream` field) per websocket connection: the fourth and later ones get no message, the connection stays open',
  ),
  d(
    'delete-twice-500',
    'sequences',
    ['SEQ-ERROR-AFTER-CHANGE-4XX'],
    'a DELETE of a take deleted before answers 500 (the store throws on the missing row) instead of a 4xx',
  ),
  d(
    'repeat-generate-same-take',
    'sequences',
    ['SEQ-REPEAT-NEW-TAKE'],
    "a TakeGenerate identical to the customer's previous one answers the previous take again (a dedup cache), no new job",
  ),
  d(
    'second-customer-delete-ignored',
    'sequences',
    ['SEQ-DELETED-TAKE-GONE'],
    'sdk profile: DELETE of a take answers true but keeps it for every customer except the first seeded one (right for one customer, wrong for another)',
  ),
  // issue 50, the wire facts' update and batch: right in the fixed scenarios (update then GET; a batch
  // of two), wrong on the path after them.
  d(
    'voice-list-stale-after-update',
    'sequences',
    ['SEQ-VOICE-UPDATE-EVERY-VIEW'],
    'sdk profile: a voice update shows on GET of the voice, but the voice list keeps answering its name and description as they were before the update (a list cache the update does not invalidate)',
  ),
  d(
    'batch-rotated-past-two',
    'sequences',
    ['SEQ-BATCH-EVERY-TAKE'],
    'sdk profile: a batch of three or more bodies answers its takes rotated by one (the first last); a batch of two is answered in order',
  ),
  d(
    'list-stale-after-delete',
    'sequences',
    ['SEQ-TAKE-LISTED-AFTER-CHANGES'],
    'a take list whose take_id= filter names a deleted take answers the list as it was at that deletion: takes generated after it are left out (a snapshot the delete path cached)',
  ),
  d(
    'get-answers-newest-after-delete',
    'sequences',
    ['SEQ-TAKE-GET-AGREES'],
    "once a customer deleted a take, GET of any of that customer's takes answers their newest take (a per-customer latest-take entry the delete path refills and the GET handler reads first)",
  ),
  // issue 31: lifetimes that never end, caught by waiting them out (--profile acceptance, --expiry full)
  d(
    'access-token-never-expires',
    'auth',
    ['AUTH-EXPIRED-TOKEN-401'],
    'an access token past its exp is still accepted (the JWT carries exp, nobody checks it)',
  ),
  d(
    'signed-url-never-expires',
    'audio',
    ['AUDIO-SIGNED-EXPIRES'],
    'a signed audio URL past X-Amz-Date + X-Amz-Expires still serves the audio',
  ),
  // issue 49: parts that accept the request and never answer, learned once (src/client/route-silence.ts)
  hang(
    'storage-host-hangs',
    'audio',
    ['AUDIO-ALL-FORMATS-READY', 'AUDIO-SIGNED-NO-AUTH', 'AUDIO-CONTENT-TYPE'],
    'the storage host behind every signed audio URL accepts the connection and never answers',
  ),
  hang(
    'voice-generate-hangs',
    'voices',
    ['VOICE-GENERATE-RETURNS-VOICE', 'VOICE-GENERATE-WAITING', 'VOICE-ECHOES-REQUEST'],
    'POST /v1/speak/voices/generate accepts the request and never answers',
  ),
  hang(
    'take-get-hangs-when-ready',
    'takes',
    ['TAKE-READY-BOUND', 'TAKE-GET-OBJECT', 'TAKE-INFO-AT-READY', 'TAKE-STATUS-ORDER'],
    'GET /v1/speak/takes/{take_id} never answers once the take is ready',
  ),
  hang(
    'ws-silent-from-start',
    'websocket',
    ['WS-TEXT-TAKE'],
    'the worker accepts the websocket upgrade and then never answers any request (the connection stays open)',
  ),
  hang(
    'ws-upgrade-hangs',
    'websocket',
    ['WS-CONNECT-NO-BEARER', 'WS-TEXT-TAKE'],
    'the worker reads the websocket upgrade request and never answers it (the connection stays open)',
  ),
  hang(
    'models-hangs',
    'models',
    ['MODELS-LIST', 'MODELS-AT-LEAST-ONE'],
    'GET /v1/speak/models (the preflight asks it) accepts the request and never answers',
  ),
  hang(
    'version-hangs',
    'version',
    ['VERSION-NO-TOKEN'],
    'GET /v1/speak/version (the preflight asks it first) accepts the request and never answers',
  ),
  d(
    'webhook-done-other-take',
    'webhooks',
    ['WEBHOOK-DONE-BODY-TAKE'],
    "every take's done webhook but the first carries the first take's body (a worker mixing up its queue)",
  ),
  d(
    'status-webhook-other-take',
    'webhooks',
    ['WEBHOOK-STATUS-CALLED'],
    "every take's status webhook calls but the first status-hooked take's carry that first take's body at the same status (a worker mixing up its queue)",
  ),
] as const satisfies readonly DefectSpec[];

export type DefectName = (typeof DEFECTS)[number]['name'];

export function findDefect(name: string): DefectSpec | undefined {
  return DEFECTS.find((defect) => defect.name === name);
}
