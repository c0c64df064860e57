/**
 * The sdk profile (`speakcheck run --profile sdk`): strict, plus the wire facts the vendor's SDK and
 * example clients rely on, judged as SHOULD. speak-v1.md leaves these open, so elsewhere they are
 * INFO ("Observed (not judged, INFO): …"); a server that wants the vendor's SDK and clients to work
 * against it unchanged gates on them here. Each id carries the sentence of wire-facts.md it rests on,
 * verbatim (test/requirements/sdk-profile.test.ts finds each in spec/wire-facts.md).
 */
import type { Profile } from '../config/types.ts';
import type { Requirement, RequirementLevel } from '../requirements/types.ts';

export const SDK_WIRE_FACTS: Readonly<Record<string, string>> = {
  'TAKE-BATCH':
    '`POST /v1/speak/takes/generate` also accepts a JSON array of TakeGenerate bodies (batch) and then answers with an array of Takes, in the same order.',
  'TAKE-DELETE':
    'Delete: `DELETE /v1/speak/voices/{voice_id}` and `DELETE /v1/speak/takes/{take_id}`; response body `true`; 404 when unknown. A deleted item no longer appears in lists.',
  'VOICE-DELETE':
    'Delete: `DELETE /v1/speak/voices/{voice_id}` and `DELETE /v1/speak/takes/{take_id}`; response body `true`; 404 when unknown. A deleted item no longer appears in lists.',
  'VOICE-UPDATE':
    'Update a voice: `POST /v1/speak/voices/{voice_id}` with a partial body (any of `name`, `gender`, `description`, `default_style`, `default_prosody`); the response body is the JSON literal `true`.',
  'LIST-PAGE-BASE': '`length` absent means unlimited; `page` counts from 1 and defaults to 1.',
  'LIST-BOUNDS-INCLUSIVE':
    '`older` and `newer` are inclusive: "older than or equal to", "newer than or equal to" the given timestamp_ms.',
  'TAKE-STATUS-VALUES':
    'Status values: `waiting`, `started`, `progress_25`, `progress_50`, `progress_75`, `ready`, `error`, `timeout`.',
  'WEBHOOK-POST-URL-FORM': 'The SDK sends webhooks as objects `{"post_url": URL}`',
  'WEBHOOK-LAST-CALL-RECORD':
    'responses may carry `{"post_url", "timestamp_ms", "status_code"}` (last call time and the HTTP status the hook answered).',
  'WS-COMMAND-SINGULAR':
    'The vendor\'s browser websocket client sends `"command": "/take/generate"` (singular)',
  'WS-URL-SDK-FORM': 'the SDK calls `GET /v1/speak/websocket/{model}` and reads `worker_websocket_url`.',
};

/** Whether `profile` judges the wire facts (as SHOULD). */
export function judgesWireFacts(profile: Profile | undefined): boolean {
  return profile === 'sdk';
}

/** A requirement as `profile` judges it: in the sdk profile the SDK's wire facts are SHOULD, with their quote. */
export function inProfile(requirement: Requirement, profile: Profile | undefined): Requirement {
  const quote = SDK_WIRE_FACTS[requirement.id];
  if (!judgesWireFacts(profile) || quote === undefined || requirement.level !== 'INFO') return requirement;
  return { ...requirement, level: 'SHOULD', quote };
}

/** The level `profile` judges `requirement` at. */
export function levelIn(requirement: Requirement, profile: Profile | undefined): RequirementLevel {
  return inProfile(requirement, profile).level;
}
