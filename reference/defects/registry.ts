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
  // models
  d(
    'model-get-array',
    'models',
    ['MODELS-GET', 'MODELS-LIST-GET-AGREE'],
    'GET /v1/speak/models/{name} answers an array holding the model',
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
  // errors
  d('invalid-body-500', 'errors', ['ERR-INVALID-BODY-4XX'], 'a body that breaks the schema answers 500'),
  d('error-without-detail', 'errors', ['ERR-JSON-DETAIL'], 'error bodies are {"error": ...} without detail'),
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
