import type { RequirementDeclaration } from '../types.ts';
import { requirementsIn } from './requirement.ts';
import { CLIENT_ERROR_NOT_5XX } from './standards.ts';

const r = requirementsIn('sequences');

/**
 * What only sequences of calls judge (suites/sequences.spec.ts, issue 50): the state the contract
 * describes after any interleaving of changes and reads, of any length, for either customer. Each
 * entry rests on the sentence that requires it; what only the wire facts say (delete) is INFO,
 * judged as SHOULD in the sdk profile.
 */
export const requirements: RequirementDeclaration[] = [
  r(
    'SEQ-TAKE-LISTED-AFTER-CHANGES',
    'States and transitions',
    'MUST',
    'After any sequence of generations, deletions and reads, the take list (filtered to the ids the sequence made) holds every take the customer generated and has not deleted.',
    {
      quote:
        '| (none) | POST takes/generate | accepted | waiting | `info` is null; the take appears in the take list. |',
    },
  ),
  r(
    'SEQ-LIST-PAGES-AFTER-CHANGES',
    'Endpoints: Voices (query parameters)',
    'MUST',
    'After any sequence of changes, consecutive pages of one `length` read one after another (no change between them) partition the list as it is: no item skipped, none repeated, in its order.',
    {
      quote: '| page | integer | Page number. |',
    },
  ),
  r(
    'SEQ-TAKE-GET-AGREES',
    'Endpoints: Takes',
    'MUST',
    'GET of any take the sequence made and did not delete answers that one take: its take_id, voice_id and text as generation answered them, whatever happened to other takes in between.',
    {
      quote: '| GET | /v1/speak/takes/{take_id} | none | one Take |',
    },
  ),
  r(
    'SEQ-REPEAT-NEW-TAKE',
    'What the service does',
    'MUST',
    'The same TakeGenerate sent again (same voice, text, prosody) is a new job: a new take_id, listed beside the first, never the earlier take answered again.',
    {
      quote: 'A **take** is one text-to-speech job made with a voice.',
    },
  ),
  r(
    'SEQ-REFRESH-CHAIN-ANY-DEPTH',
    'Authentication 4',
    'MUST',
    "A chain of refreshes of any length keeps working until its own logout: each refresh with the latest refresh token of a session that was not logged out answers a new token pair; once that token was logged out, at whatever depth, a refresh with it is refused (Authentication 5: 'Afterwards no new access token can be obtained with it.').",
    {
      quote: 'Refreshing repeatedly allows use without the password.',
    },
  ),
  r(
    'SEQ-LOGOUT-ONE-SESSION',
    'Authentication 5',
    'INFO',
    "Observed: whether logout revokes only the refresh token it is given (another session of the same customer, another login's chain, keeps refreshing) or every session of the customer (log out everywhere). The contract says it revokes that refresh token and leaves the others open: either is a legitimate design.",
  ),
  r(
    'SEQ-WS-REQUESTS-ANY-COUNT',
    'Events: Websocket stream',
    'MUST',
    'One websocket connection serves any number of take requests one after another: the n-th request of a connection ends with its ready Take and its end-of-take frame like the first.',
    {
      quote: 'Because one connection is shared, requests over one websocket are handled one after another.',
    },
  ),
  r(
    'SEQ-ERROR-AFTER-CHANGE-4XX',
    'Errors; RFC 9110 §15.5, §15.6',
    'MUST',
    'A request about an item a change made unknown (GET, audio or DELETE of a deleted take) is a client error: a 4xx, never a 5xx (RFC 9110).',
    {
      standards: CLIENT_ERROR_NOT_5XX,
    },
  ),
  r(
    'SEQ-DELETED-TAKE-GONE',
    'Paths and defaults',
    'INFO',
    'A take deleted (DELETE answered true) is gone for every view: GET and its audio endpoints answer 404 (no redirect to audio), the list leaves it out, and the deletion took effect for whichever customer made it.',
    {
      source: 'wire-facts',
      sdkQuote:
        'Delete: `DELETE /v1/speak/voices/{voice_id}` and `DELETE /v1/speak/takes/{take_id}`; response body `true`; 404 when unknown. A deleted item no longer appears in lists.',
    },
  ),
  r(
    'SEQ-VOICE-UPDATE-EVERY-VIEW',
    'Paths and defaults',
    'INFO',
    "After any sequence of voice updates (name, description) interleaved with other calls, every view of the customer's voice shows the last update: GET of the voice and the voice list filtered to it.",
    {
      source: 'wire-facts',
      sdkQuote:
        'Update a voice: `POST /v1/speak/voices/{voice_id}` with a partial body (any of `name`, `gender`, `description`, `default_style`, `default_prosody`); the response body is the JSON literal `true`.',
    },
  ),
  r(
    'SEQ-VOICE-STATUS-THROUGH-CHANGES',
    'States and transitions',
    'INFO',
    'Observed: the status every view of a customer\'s voice shows through a sequence that updated it (GET of the voice, the voice list filtered to it), the voice having been ready before: whether it stays `ready` or goes back. The contract shows a new voice `waiting` and, after a few seconds, `ready`; it shows no other transition of a voice ("Transitions of a voice: not shown."), and updates are only a wire fact, so any other path is the server\'s to choose.',
  ),
  r(
    'SEQ-BATCH-EVERY-TAKE',
    'Paths and defaults',
    'INFO',
    'A batch of any size (an array of TakeGenerate bodies, past the fixed two) answers an array of as many takes in the order of its bodies, each a take of its own that GET and the list then show.',
    {
      source: 'wire-facts',
      sdkQuote:
        '`POST /v1/speak/takes/generate` also accepts a JSON array of TakeGenerate bodies (batch) and then answers with an array of Takes, in the same order.',
    },
  ),
];
