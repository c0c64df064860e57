import type { RequirementDeclaration } from '../types.ts';
import { requirementsIn } from './requirement.ts';

const r = requirementsIn('webhooks');

/**
 * speak-v1.md: Events → Webhooks, States and transitions (the done webhook at `ready`); wire-facts.md:
 * the SDK's `{"post_url"}` form and the webhook record (INFO). Delivery details (retries, timeouts)
 * are not shown by the contract: what a server does there is INFO.
 */
export const requirements: RequirementDeclaration[] = [
  r(
    'WEBHOOK-POST-JSON',
    'Events: Webhooks 1-2',
    'MUST',
    'Webhooks are called with HTTP POST and a JSON body (content-type application/json).',
    {
      quote: 'When the result is ready, the service sends an HTTP POST to that URL.',
    },
  ),
  r(
    'WEBHOOK-DONE-CALLED',
    'Events: Webhooks 1; States and transitions',
    'MUST',
    "A take's done_webhook is called when the take is done (`ready`). The contract gives the call no time: one that came by the end of the run counts; 'never called' is found only at the run's end, at least 30 s after the take was seen done (a wait chosen by speakcheck).",
    {
      quote: 'When the result is ready, the service sends an HTTP POST to that URL.',
    },
  ),
  r(
    'WEBHOOK-DONE-ONCE',
    'States and transitions; Events: Webhooks 1',
    'SHOULD',
    'done_webhook is called once per item, at its one move to `ready`: never before it is done, and not a second time after a call the hook answered (whether a failed call is retried is a delivery detail, not shown). A second call is watched for 4.5 s after the first for a take, 2.5 s for a voice (windows chosen by speakcheck).',
    {
      quote:
        '| progress_50 | worker progress | same | ready | `info` is filled. The done webhook is called. |',
    },
  ),
  r(
    'WEBHOOK-DONE-BODY-TAKE',
    'Events: Webhooks 1',
    'MUST',
    "The done call's body has the Take structure: it validates against the Take schema, has a done status, and `info` filled for a ready take.",
    {
      quote: 'The body has the same structure as the Voice or Take response.',
    },
  ),
  r(
    'WEBHOOK-DONE-BODY-EQUALS-GET',
    'Events: Webhooks 1',
    'SHOULD',
    "The done call's body equals the take as GET returns it right after the call (webhook bookkeeping fields timestamp_ms/status_code aside).",
    {
      quote: 'The body has the same structure as the Voice or Take response.',
    },
  ),
  r(
    'WEBHOOK-DONE-AUDIO-FETCHABLE',
    'Events: Webhooks 1; States and transitions',
    'MUST',
    'When the done call of a ready take arrives, its audio can be fetched in every format ("In `ready`, audio in every format can be fetched").',
    {
      quote: 'In `ready`, audio in every format can be fetched.',
    },
  ),
  r(
    'WEBHOOK-DONE-ARRIVAL-BOUND',
    'Events: Webhooks 1',
    'INFO',
    'How long after the take was seen ready by polling its done call arrived, reported against 10 s (a threshold chosen by speakcheck: the contract gives the call no time, "Delivery details of webhooks (retries, signatures, authentication, timeouts): not shown"; latency is no verdict).',
  ),
  r(
    'WEBHOOK-STATUS-CALLED',
    'Events: Webhooks 2',
    'MUST',
    "A take's status_webhook is called with the Take structure (validates against the Take schema) when its progress changes, the done status included (the contract gives the calls no time: one that came by the end of the run counts; 'never called for the done status' is found only at the run's end, at least 30 s after the take was seen done, a wait chosen by speakcheck; their order is WEBHOOK-STATUS-ORDERED's).",
    {
      quote:
        "It is called by POST, with the Take structure in the body, each time the take's progress changes.",
    },
  ),
  r(
    'WEBHOOK-STATUS-ORDERED',
    'Events: Webhooks 2; States and transitions',
    'SHOULD',
    'Status calls arrive in status order: no status after a done one, never backwards.',
    {
      quote:
        "It is called by POST, with the Take structure in the body, each time the take's progress changes.",
    },
  ),
  r(
    'WEBHOOK-STATUS-AGREES-POLLING',
    'Events: Webhooks 2',
    'SHOULD',
    "Every status seen by polling the take, the final one included, is also reported by a status call (that the last status call carries the final status is WEBHOOK-STATUS-CALLED's). The contract gives the calls no time: one that came by the end of the run counts; 'never reported' is found only at the run's end, at least 30 s after the take was seen done (a wait chosen by speakcheck).",
    {
      quote:
        "It is called by POST, with the Take structure in the body, each time the take's progress changes.",
    },
  ),
  r(
    'WEBHOOK-STATUS-AGREES-WEBSOCKET',
    'Events: Webhooks 2; Events: Websocket stream',
    'SHOULD',
    "For a take requested over the websocket with webhooks, every status its text messages report is also reported by a status call, and its done_webhook is called once. The contract gives the status calls no time: one that came by the end of the run counts; 'never reported' is found only at the run's end, at least 30 s after the take was seen done (a wait chosen by speakcheck).",
    {
      quote:
        "It is called by POST, with the Take structure in the body, each time the take's progress changes.",
    },
  ),
  r(
    'WEBHOOK-VOICE-DONE',
    'Events: Webhooks 1',
    'MUST',
    "A voice's done_webhook is called when the voice is ready, with the Voice structure (validates against the Voice schema) in a done status (the contract gives the call no time: one that came by the end of the run counts; 'never called' is found only at the run's end, at least 30 s after the voice was seen done, a wait chosen by speakcheck). (Once per voice is WEBHOOK-DONE-ONCE; that the call follows its example take is only in the wire facts: reported.)",
    {
      quote:
        'A voice or a take may carry `done_webhook` (a URL). When the result is ready, the service sends an HTTP POST to that URL.',
    },
  ),
  r(
    'WEBHOOK-POST-URL-FORM',
    'Webhooks (wire facts)',
    'INFO',
    'The SDK sends webhooks as `{"post_url": URL}` objects; the server accepts them and calls post_url.',
    {
      source: 'wire-facts',
      sdkQuote: 'The SDK sends webhooks as objects `{"post_url": URL}`',
    },
  ),
  r(
    'WEBHOOK-LAST-CALL-SHOWN',
    'Webhooks (wire facts)',
    'INFO',
    'After a call, the item shows the webhook as `{post_url, timestamp_ms, status_code}` of the last call.',
    {
      source: 'wire-facts',
    },
  ),
  r(
    'WEBHOOK-LAST-CALL-RECORD',
    'Webhooks (wire facts)',
    'INFO',
    'Where the item shows a `{"post_url"}` webhook with `timestamp_ms` and `status_code`, after a delivered call they record it: post_url as given, timestamp_ms an integer (ms since the epoch) not before the item was created, status_code the HTTP status the hook answered. (INFO: the {post_url, timestamp_ms, status_code} webhook object is only in wire-facts.md.)',
    {
      source: 'wire-facts',
      sdkQuote:
        'responses may carry `{"post_url", "timestamp_ms", "status_code"}` (last call time and the HTTP status the hook answered).',
    },
  ),
  r(
    'WEBHOOK-RETRY-AFTER-5XX',
    'Events: Webhooks 4',
    'INFO',
    'A done call answered with 500 is retried (delivery details are not shown by the contract).',
  ),
  r(
    'WEBHOOK-SLOW-SINK-NO-DELAY',
    'Events: Webhooks; What the service does',
    'INFO',
    'A webhook target that answers slowly does not delay the take becoming ready. (INFO: speak-v1.md: "Delivery details of webhooks (retries, signatures, authentication, timeouts): not shown".)',
  ),
];
