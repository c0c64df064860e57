import type { Requirement, RequirementId, StandardQuote } from '../types.ts';

/**
 * Tenant isolation: customer B (the run's second identity, `--second-email/--second-password` or
 * `--second-token`; the embedded and container stacks seed one) never reaches customer A's items.
 * speak-v1.md does not say this in words, so these are not contract MUSTs: they are SECURITY
 * checks, grounded on a named standard (OWASP API Security Top 10 2023) and, for revocation, on
 * speak-v1.md's logout sentence; reported apart from the MUSTs, gating in the strict profile (and any
 * profile but lenient), reported only (non-strict) in lenient. Any refusal except 401 counts
 * (403 and 404 alike: which one a server answers is its choice, and 401 would tell B its token
 * is bad, which it is not).
 */
const OWASP_2023 = 'OWASP API Security Top 10 2023';
const API1: StandardQuote = {
  name: OWASP_2023,
  clause: 'API1:2023 Broken Object Level Authorization',
  quote:
    'APIs tend to expose endpoints that handle object identifiers, creating a wide attack surface of Object Level Access Control issues. Object level authorization checks should be considered in every function that accesses a data source using an ID from the user.',
  url: 'https://owasp.org/API-Security/editions/2023/en/0xa1-broken-object-level-authorization/',
};
/** API1's "How To Prevent", for the checks that act on A's item (delete, update, synthesize with it). */
const API1_PREVENT: StandardQuote = {
  ...API1,
  quote:
    'Use the authorization mechanism to check if the logged-in user has access to perform the requested action on the record in every function that uses an input from the client to access a record in the database.',
};
const API2: StandardQuote = {
  name: OWASP_2023,
  clause: 'API2:2023 Broken Authentication',
  quote:
    "Authentication mechanisms are often implemented incorrectly, allowing attackers to compromise authentication tokens or to exploit implementation flaws to assume other user's identities temporarily or permanently.",
  url: 'https://owasp.org/API-Security/editions/2023/en/0xa2-broken-authentication/',
};

const bola = (id: RequirementId, text: string, standard: StandardQuote = API1): Requirement => ({
  id,
  area: 'security',
  section: 'API1:2023 Broken Object Level Authorization',
  level: 'SECURITY',
  source: 'speak-v1',
  standards: [standard],
  text,
});

export const requirements: Requirement[] = [
  bola(
    'SEC-TAKE-GET-ISOLATED',
    "GET /v1/speak/takes/{take_id} with B's token and A's take id is refused (4xx other than 401; 403 or 404 alike), and the error body carries none of A's take (its text, name, voice id).",
  ),
  bola(
    'SEC-VOICE-GET-ISOLATED',
    "GET /v1/speak/voices/{voice_id} with B's token and A's voice id is refused (4xx other than 401), the error body carrying none of A's voice (its name).",
  ),
  bola(
    'SEC-AUDIO-ISOLATED',
    "GET /v1/speak/takes/{take_id}/{format} with B's token and A's take id, for every format (wav, mp3, m4a, flac, webm), is refused: never the 307 to A's audio, never audio bytes.",
  ),
  bola(
    'SEC-LIST-ISOLATED',
    "B's lists of voices and of takes, plain, filtered by A's ids (voice_id=, take_id=) and bounded (length, older, newer around A's items), never hold one of A's items.",
  ),
  bola(
    'SEC-DELETE-REFUSED',
    "DELETE of A's take and of A's voice with B's token is refused (4xx other than 401), and A still sees both unchanged afterwards.",
    API1_PREVENT,
  ),
  bola(
    'SEC-UPDATE-REFUSED',
    "Updating A's voice with B's token (POST /v1/speak/voices/{voice_id}, the SDK's update, wire-facts.md) is refused, A's voice unchanged afterwards; this is also the update path that would register a webhook on A's voice (status_webhook), so B cannot set one.",
    API1_PREVENT,
  ),
  bola(
    'SEC-FOREIGN-VOICE-TAKE',
    "POST /v1/speak/takes/generate with B's token and A's voice_id is refused (4xx other than 401): B cannot synthesize with A's voice; no take of B's appears with it.",
    API1_PREVENT,
  ),
  bola(
    'SEC-WS-FOREIGN-VOICE',
    "Over B's websocket (B's worker URL), a take request with A's voice_id is refused (an error message or a failed take, no audio of A's voice); B's websocket never carries a frame or a Take of a request A sent over A's own websocket meanwhile.",
    API1_PREVENT,
  ),
  {
    id: 'SEC-REFRESH-OTHER-EMAIL',
    area: 'security',
    section: 'API2:2023 Broken Authentication',
    level: 'SECURITY',
    source: 'speak-v1',
    standards: [API2],
    text: "POST /auth/refresh with A's refresh token and B's email never yields a token pair that acts as B: it is refused, or its access token still acts as A (sees A's voice).",
  },
  {
    id: 'SEC-LOGOUT-SCOPED',
    area: 'security',
    section: 'Authentication 5',
    level: 'SECURITY',
    source: 'speak-v1',
    quote:
      'Logout: POST `/auth/logout` with `refresh_token` revokes that refresh token. Afterwards no new access token can be obtained with it.',
    text: "A's logout revokes A's refresh token only: afterwards A's refresh token is refused, while B's access token and B's refresh token still work.",
  },
];
