import type { RequirementDeclaration } from '../types.ts';
import { requirementsIn } from './requirement.ts';

const r = requirementsIn('websocket');

/**
 * speak-v1.md: Endpoints → Websocket address; Events → Websocket stream; Authentication 9; Limits.
 * wire-facts.md: Paths and defaults (SDK address form); Websocket protocol.
 */
export const requirements: RequirementDeclaration[] = [
  // --- Address -----------------------------------------------------------------------------------
  r(
    'WS-URL-ENDPOINT',
    'Endpoints: Websocket address',
    'MUST',
    'GET /v1/speak/websocket?model=M (bearer) answers a JSON object with `websocket_url` (a string, ws:// or wss://).',
    {
      quote:
        '| GET | /v1/speak/websocket | `model` (string, required; a model name) | JSON object with `websocket_url` (string) |',
    },
  ),
  r(
    'WS-URL-SDK-FORM',
    'Paths and defaults',
    'INFO',
    'GET /v1/speak/websocket/{model} (the SDK form) answers a JSON object with `worker_websocket_url`. (INFO: the path form /v1/speak/websocket/{model} is only in wire-facts.md.)',
    {
      source: 'wire-facts',
      sdkQuote: 'the SDK calls `GET /v1/speak/websocket/{model}` and reads `worker_websocket_url`.',
    },
  ),
  r(
    'WS-URL-MODEL-HELD',
    'Endpoints: Websocket address',
    'MUST',
    'The URL addresses a worker node that holds the requested model: takes with a voice of that model are synthesized over it.',
    {
      quote: 'The URL addresses a worker node that holds the requested model.',
    },
  ),
  r(
    'WS-URL-UNKNOWN-MODEL',
    'Endpoints: Websocket address',
    'INFO',
    'What the address endpoint answers for a missing or unknown `model` (not shown; a 4xx JSON with `detail` is expected of a careful server).',
  ),
  r(
    'WS-URL-SECRET-NOT-TOKEN',
    'Endpoints: Websocket address; Authentication 9',
    'MUST',
    'The URL contains a secret distinct from the access token: the access token does not appear in the URL.',
    {
      quote: 'The URL contains a secret with a limited lifetime, distinct from the access token.',
    },
  ),
  r(
    'WS-URL-TAMPERED-REFUSED',
    'Authentication 9',
    'MUST',
    'The connection is authorised by the secret inside the URL: the URL with its secret part (what differs between two issued URLs) removed, or altered at the same length in the same alphabet, is refused at the upgrade: not upgraded (any answer but 101, or the connection closed before an answer: RFC 6455 §4.2.2; the status of a refusal is not shown, and is observed), while a URL as issued opens.',
    {
      quote:
        'The websocket connection is authorised by the secret inside the websocket URL and not by the bearer header.',
    },
  ),
  r(
    'WS-URL-SECRET-VARIES',
    'Endpoints: Websocket address',
    'MUST',
    'Two URLs issued one after the other differ in a part (a query value or a path segment): the secret with a limited lifetime that each carries.',
    {
      quote: 'The URL contains a secret with a limited lifetime, distinct from the access token.',
    },
  ),
  r(
    'WS-URL-LIFETIME',
    'Events: Websocket stream; Limits',
    'INFO',
    'The URL from the websocket address endpoint expires after 1 hour (the lifetime, where the URL shows it).',
  ),
  r(
    'WS-URL-EXPIRED-REFUSED',
    'Events: Websocket stream; Limits',
    'MUST',
    'A URL past its lifetime is refused at the upgrade (not upgraded: any answer but 101, or the connection closed before an answer; the status is observed), and one still within it is accepted; the lifetime is the 1 hour of the contract (or --ws-url-lifetime, or the expiry the URL shows). Judged where the run waits it out: up to --max-expiry-wait, or the real hour with --expiry full (the acceptance profile).',
    {
      quote: 'The URL from the websocket address endpoint expires after 1 hour.',
    },
  ),
  r(
    'WS-URL-NEW-PER-CONNECTION',
    'Events: Websocket stream',
    'INFO',
    'A new connection needs a new URL (whether a URL already used is accepted again is recorded).',
  ),
  r(
    'WS-OPEN-PAST-EXPIRY',
    'Events: Websocket stream',
    'INFO',
    'An open connection may stay open longer than the URL lifetime.',
  ),
  // --- Connection --------------------------------------------------------------------------------
  r(
    'WS-CONNECT-NO-BEARER',
    'Authentication 9',
    'MUST',
    'A client connects to the URL without any Authorization header; the upgrade succeeds.',
    {
      quote:
        'The websocket connection is authorised by the secret inside the websocket URL and not by the bearer header.',
    },
  ),
  r(
    'WS-CONNECTION-MESSAGE',
    'Websocket protocol',
    'INFO',
    'Connection-level messages `{"status": "ready"|"error", "message", "model"?}` (e.g. a greeting on connect) are recorded.',
    {
      source: 'wire-facts',
    },
  ),
  r(
    'WS-COMMAND-SINGULAR',
    "Facts from the vendor's public example clients",
    'INFO',
    'The worker accepts `"command": "/take/generate"` (singular, what the vendor\'s browser client sends) like `/takes/generate`: recorded whether it streams the take or answers an error.',
    {
      source: 'wire-facts',
      sdkQuote: 'The vendor\'s browser websocket client sends `"command": "/take/generate"` (singular)',
    },
  ),
  r(
    'WS-REQUEST-FORMAT',
    'Websocket protocol',
    'INFO',
    'The worker accepts `{"command": "/takes/generate", "request_id": R, "stream": {"mode": "parts"|"chunks"}, "data": TakeGenerate}`, R an integer or a string chosen by the client. (INFO: speak-v1.md: "Format of the request message sent to the worker: not shown"; the harness speaks the wire-facts format.)',
    {
      source: 'wire-facts',
    },
  ),
  r(
    'WS-REQUEST-ID-ECHO',
    'Websocket protocol',
    'INFO',
    "Every message about a request carries that request's `request_id`, with the JSON type it was sent with. (INFO: request_id exists only in wire-facts.md (the request format is not shown).)",
    {
      source: 'wire-facts',
    },
  ),
  r(
    'WS-SAME-CONNECTION',
    'Events: Websocket stream',
    'MUST',
    'The node streams the audio of a request back over the connection that submitted it (several connections at once each receive only their own).',
    {
      quote: 'The same node streams back the audio over that connection.',
    },
  ),
  r(
    'WS-NO-DISCONNECT-MID-REQUEST',
    'Events: Websocket stream',
    'MUST',
    'A disconnect does not happen while a request is being processed.',
    {
      quote: 'A disconnect does not happen while a request is being processed.',
    },
  ),
  r(
    'WS-SERIALIZED',
    'Events: Websocket stream; Limits',
    'MUST',
    "Requests over one websocket are handled one after another: of requests sent back-to-back (two, or three in mixed modes), request N+1 shows no audio frame and no status past `waiting` before request N's end-of-take frame.",
    {
      quote: 'Because one connection is shared, requests over one websocket are handled one after another.',
    },
  ),
  r(
    'WS-VOICES-GENERATE',
    'Websocket protocol',
    'INFO',
    'The `/voices/generate` command answers with Voice text frames (the example take carries the audio).',
    {
      source: 'wire-facts',
    },
  ),
  // --- Text messages -----------------------------------------------------------------------------
  r(
    'WS-TEXT-TAKE',
    'Events: Websocket stream',
    'MUST',
    'Text messages carry the whole Take structure (`{"request_id": R, "data": Take}`), sent whenever the take status changes; the last one is the done Take.',
    {
      quote: "**Text messages** carry the whole Take structure, sent whenever the take's `status` changes.",
    },
  ),
  r(
    'WS-MULTIPART-PROGRESS',
    'States and transitions',
    'SHOULD',
    'A take of several parts shows `started`, then `progress_50`, before `ready` in its websocket text messages ("started → progress_50: appears for multi-part text").',
    {
      quote: '| started | worker progress | same | progress_50 | Appears for multi-part text. |',
    },
  ),
  r(
    'WS-STATUS-ORDER',
    'States and transitions; Events: Websocket stream',
    'MUST',
    'The statuses of the text messages follow the order waiting < started < progress_* < ready and never go back.',
    {
      quote:
        '| waiting | worker progress | shown only as the order of status messages on a websocket | started | A status message is sent. |',
    },
  ),
  r(
    'WS-READY-INFO',
    'Resources: Take (info); Events: Websocket stream',
    'MUST',
    'The ready Take sent over the websocket carries `info` (duration, audio_rate, normalized_text).',
    {
      quote:
        '| progress_50 | worker progress | same | ready | `info` is filled. The done webhook is called. |',
    },
  ),
  // --- Binary messages ---------------------------------------------------------------------------
  r(
    'WS-FRAME-FORMAT',
    'Websocket protocol',
    'INFO',
    'A binary message is the 4 bytes `JSON`, a u32 little-endian length L, L bytes of UTF-8 JSON metadata, then the audio bytes. (INFO: the binary framing is only in wire-facts.md.)',
    {
      source: 'wire-facts',
    },
  ),
  r(
    'WS-FRAME-METADATA',
    'Events: Websocket stream; Websocket protocol',
    'MUST',
    'The metadata is `{take_id, request_id, part_id, chunk_id?}`: every audio message carries an integer `part_id`; in chunks mode also an integer `chunk_id` counting from 0 within the part. (Parts mode: the contract neither asks for nor forbids a chunk_id; what the server sends is reported.)',
    {
      quote:
        'Every audio message carries a `part_id` (integer), and in chunks mode also a `chunk_id` (integer).',
    },
  ),
  r(
    'WS-FRAME-IDS-COMPLETE',
    'Events: Websocket stream',
    'MUST',
    'Order is rebuilt from part_id and chunk_id: each (part_id, chunk_id) is sent exactly once and none is missing.',
    {
      quote:
        'Message order on the wire is not guaranteed. The receiver rebuilds the order from `part_id` and `chunk_id`.',
    },
  ),
  r(
    'WS-MODE-PARTS',
    'Events: Websocket stream',
    'MUST',
    'Parts mode: each part is one binary message holding a complete WAV file (`RIFF....WAVE`) whose header sizes match its bytes.',
    {
      quote:
        '| parts (default) | Each part is one binary message holding a complete wav file with its header. |',
    },
  ),
  r(
    'WS-MODE-PARTS-DEFAULT',
    'Events: Websocket stream; Websocket protocol',
    'MUST',
    'Parts mode is the default: a request without `stream` is answered in parts mode.',
    {
      quote:
        '| parts (default) | Each part is one binary message holding a complete wav file with its header. |',
    },
  ),
  r(
    'WS-MODE-CHUNKS',
    'Events: Websocket stream',
    'MUST',
    "Chunks mode: only chunk 0 of a part carries the WAV header, whose sizes cover the whole part; the part's chunks concatenated form a complete WAV file.",
    {
      quote:
        '| chunks | Each part is sent as small chunks. Only the first chunk of a part has the wav header, whose length covers the whole part. The chunks are concatenated on reception. Latency is lower. |',
    },
  ),
  r(
    'WS-CHUNK0-SENT-FIRST',
    'Events: Websocket stream',
    'INFO',
    'Chunks mode: chunk 0 (the WAV header) is sent before the other chunks of its part, so a player can start at once (order is not guaranteed; recorded with the time from first audio to first playable audio).',
  ),
  r(
    'WS-CHUNK0-BEFORE-PART-END',
    'Events: Websocket stream',
    'SHOULD',
    'Chunks mode ("Latency is lower"): a part\'s chunk 0 (the WAV header) arrives before the part\'s last audio chunk, so a client can start playback before the part is complete.',
    {
      // Lower latency only holds when a player can start a part before it is complete: chunk 0 first.
      quote:
        'Only the first chunk of a part has the wav header, whose length covers the whole part. The chunks are concatenated on reception. Latency is lower.',
    },
  ),
  r(
    'WS-CHUNK-END-MARKER',
    'Events: Websocket stream',
    'MUST',
    'Chunks mode: an empty chunk ends each part.',
    {
      quote: 'In chunks mode an empty chunk ends each part.',
    },
  ),
  r(
    'WS-END-OF-TAKE',
    'Events: Websocket stream',
    'MUST',
    "The take's stream ends with an audio message without audio whose part_id is one past the last audio part; nothing of the take follows it.",
    {
      quote: 'The end of the stream for a take is an audio message with no audio data.',
    },
  ),
  r(
    'WS-PARTS-ARE-SENTENCES',
    'Events: Websocket stream',
    'INFO',
    "A part is usually one sentence and ends in silence (the part count against info.normalized_text, each part's trailing level).",
  ),
  r(
    'WS-CHUNKS-LOWER-LATENCY',
    'Events: Websocket stream',
    'INFO',
    'Chunks mode has lower latency than parts mode (time to first audio of each mode, same text, same connection).',
    { racesTimings: true },
  ),
  // --- Audio against REST ------------------------------------------------------------------------
  r(
    'WS-TAKE-IN-REST',
    'What the service does; Events: Websocket stream',
    'MUST',
    "A take made over the websocket is a take: it appears in the REST take list and GET /v1/speak/takes/{id} returns it ready with the websocket's info.",
    {
      quote: 'A **take** is one text-to-speech job made with a voice.',
    },
  ),
  r(
    'WS-AUDIO-MATCHES-REST',
    'What the service does; Endpoints: Takes (audio rules)',
    'MUST',
    "The audio reassembled from the stream is the take's REST wav (fetched through the 307): the same sample rate, and the same duration within one chunk of the stream (chunks mode: its longest audio chunk), never less than 20 ms (tolerance chosen by speakcheck).",
    {
      quote:
        'Audio can be downloaded over HTTP through a redirect, or streamed over a websocket connected directly to a worker.',
    },
  ),
  r(
    'WS-PCM-MATCHES-REST',
    'What the service does; Endpoints: Takes (audio rules)',
    'SHOULD',
    "The PCM reassembled from the stream is byte-identical to the samples of the take's REST wav. (SHOULD: the contract speaks of one audio, downloaded or streamed, but a stream re-encoded on its way, or a stored file rendered again, breaks no sentence.)",
    {
      quote:
        'Audio can be downloaded over HTTP through a redirect, or streamed over a websocket connected directly to a worker.',
    },
  ),
  r(
    'WS-DURATION-SAMPLES',
    'Fields and values',
    'INFO',
    'The reassembled stream\'s sample count equals `info.duration`, and its sample rate equals `info.audio_rate`. (INFO: speak-v1.md: "Unit of `duration`: not shown".)',
    {
      source: 'wire-facts',
    },
  ),
  // --- Errors ------------------------------------------------------------------------------------
  r(
    'WS-ERROR-SHAPE',
    'Websocket protocol',
    'INFO',
    'A failed take request is answered by `{"status": "error", "message": "...", "request_id": R}`. (INFO: speak-v1.md: "Shape of a websocket error message for a failed take request: not shown".)',
    {
      source: 'wire-facts',
    },
  ),
  r(
    'WS-ERROR-MALFORMED-JSON',
    'Websocket protocol',
    'INFO',
    'A text frame that is not JSON is answered by an error message and the connection stays usable. (INFO: websocket error messages are not shown in speak-v1.md (wire facts).)',
    {
      source: 'wire-facts',
    },
  ),
  r(
    'WS-ERROR-UNKNOWN-COMMAND',
    'Websocket protocol',
    'INFO',
    'An unknown `command` is answered by an error message naming the request_id and the connection stays usable. (INFO: websocket error messages are not shown in speak-v1.md (wire facts).)',
    {
      source: 'wire-facts',
    },
  ),
  r(
    'WS-ERROR-INVALID-DATA',
    'Websocket protocol',
    'INFO',
    'A `/takes/generate` with invalid data (missing text, unknown voice) is answered by an error message naming the request_id and the connection stays usable. (INFO: websocket error messages are not shown in speak-v1.md (wire facts).)',
    {
      source: 'wire-facts',
    },
  ),
  r(
    'WS-RANDOM-TEXTS',
    'Events: Websocket stream',
    'MUST',
    "For any valid text, in both modes, the stream reassembles without findings into audio at the ready take's `info.audio_rate`.",
    {
      quote: 'The text is split into parts.',
    },
  ),
];
