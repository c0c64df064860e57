/**
 * The named external standards the catalogue's MUSTs and SHOULDs rest on, each in the standard's own
 * words, where speak-v1.md is silent (its Errors section: "the error for unknown identifiers or invalid
 * bodies: not shown") but a standard every server of this kind answers to is not. A requirement names
 * the ones it rests on in its declaration (`standards:` in catalogue/<area>.ts); it may carry a
 * speak-v1.md quote too. src/requirements/grounding-rule.ts says what counts.
 */
import type { StandardQuote } from '../types.ts';

const RFC_9110 = 'RFC 9110';
const rfc9110 = (clause: string, anchor: string, quote: string): StandardQuote => ({
  name: RFC_9110,
  clause,
  quote,
  url: `https://www.rfc-editor.org/rfc/rfc9110#${anchor}`,
});

/** RFC 9110 (HTTP Semantics), in its own words: what a status class says about who erred. */
export const RFC_9110_CLIENT_ERROR = rfc9110(
  '§15.5',
  'name-client-error-4xx',
  'The 4xx (Client Error) class of status code indicates that the client seems to have erred.',
);
export const RFC_9110_SERVER_ERROR = rfc9110(
  '§15.6',
  'name-server-error-5xx',
  'The 5xx (Server Error) class of status code indicates that the server is aware that it has erred or is incapable of performing the requested method.',
);
export const RFC_9110_UNAUTHORIZED = rfc9110(
  '§15.5.2',
  'name-401-unauthorized',
  'The 401 (Unauthorized) status code indicates that the request has not been applied because it lacks valid authentication credentials for the target resource.',
);
export const RFC_9110_BAD_REQUEST = rfc9110(
  '§15.5.1',
  'name-400-bad-request',
  'The 400 (Bad Request) status code indicates that the server cannot or will not process the request due to something that is perceived to be a client error (e.g., malformed request syntax, invalid request message framing, or deceptive request routing).',
);
export const RFC_9110_UNPROCESSABLE_CONTENT = rfc9110(
  '§15.5.21',
  'name-422-unprocessable-content',
  'The 422 (Unprocessable Content) status code indicates that the server understands the content type of the request content (hence a 415 (Unsupported Media Type) status code is inappropriate), and the syntax of the request content is correct, but it was unable to process the contained instructions.',
);

/** "A client error is never a 5xx": the client erred (4xx), the server did not (5xx). */
/** "A client error is never a 5xx": the client erred (4xx), the server did not (5xx). */
export const CLIENT_ERROR_NOT_5XX = [RFC_9110_CLIENT_ERROR, RFC_9110_SERVER_ERROR] as const;
