/**
 * The MUST a route's answer is required by (issue 49): a request that got no answer within its
 * bound, or to a route the run learned does not answer (src/client/route-silence.ts), is evidence
 * against the requirement that says this call returns something; it fails that requirement where
 * the test covers it and blocks the test elsewhere (a 'run-fact', src/harness/disposition.ts), so a
 * hang fails what it breaks and blocks what merely needed the route.
 */
import { WEBSOCKET_UPGRADE_ROUTE } from '../client/route.ts';
import type { RequirementId } from '../requirements/index.ts';

const BY_ROUTE: Readonly<Record<string, RequirementId>> = {
  'GET /v1/speak/version': 'VERSION-NO-TOKEN',
  'GET /v1/speak/models': 'MODELS-LIST',
  'POST /v1/speak/voices/generate': 'VOICE-GENERATE-RETURNS-VOICE',
  'GET /v1/speak/voices/{voice_id}': 'VOICE-GET-OBJECT',
  'POST /v1/speak/takes/generate': 'TAKE-GENERATE-RETURNS-TAKE',
  'GET /v1/speak/takes/{take_id}': 'TAKE-GET-OBJECT',
  'POST /auth/login': 'AUTH-LOGIN-OK',
  // "the upgrade succeeds" (Authentication 9).
  [WEBSOCKET_UPGRADE_ROUTE]: 'WS-CONNECT-NO-BEARER',
};

/** The requirement a route's answer is required by, if the contract names one. */
export function requirementOfRoute(route: string): RequirementId | undefined {
  const known = BY_ROUTE[route];
  if (known) return known;
  // Every signed URL's host: "the signed URL delivers the audio".
  if (route.startsWith('GET (signed URL) ')) return 'AUDIO-SIGNED-NO-AUTH';
  if (/^GET \/v1\/speak\/takes\/\{take_id\}\/(wav|mp3|m4a|flac|webm)$/.test(route)) return 'AUDIO-307';
  return undefined;
}
