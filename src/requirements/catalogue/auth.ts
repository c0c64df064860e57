import type { RequirementDeclaration } from '../types.ts';
import { requirementsIn } from './requirement.ts';
import { RFC_9110_UNAUTHORIZED } from './standards.ts';

const r = requirementsIn('auth');

/** speak-v1.md: Authentication, Endpoints (Authentication endpoints), Errors, Limits; wire-facts: Paths. */
export const requirements: RequirementDeclaration[] = [
  r(
    'AUTH-BEARER-REQUIRED',
    'Authentication 1; RFC 9110 §15.5.2',
    'MUST',
    'Every request needs `Authorization: Bearer <ACCESS_TOKEN>`, except the /version endpoint (and the login call): a protected route called without a token is refused with 401 (the status HTTP gives a request that lacks credentials, RFC 9110).',
    {
      quote: 'Every request needs `Authorization: Bearer <ACCESS_TOKEN>`, except the `/version` endpoint.',
      // The contract's errors table gives 401 for an invalid or expired token; a missing one is 401 by HTTP.
      standards: [RFC_9110_UNAUTHORIZED],
    },
  ),
  r(
    'AUTH-INVALID-TOKEN-401',
    'Errors',
    'MUST',
    'Access token invalid on any request: HTTP 401 (a tampered token is invalid).',
    {
      quote:
        '| Access token invalid or expired on any request | HTTP 401. The client refreshes the token and retries. |',
    },
  ),
  r(
    'AUTH-EXPIRED-TOKEN-401',
    'Errors; Authentication 3',
    'MUST',
    'Access token expired on any request: HTTP 401; an access token works for a limited time (its JWT exp, or --access-token-lifetime). Judged where the run waits it out: up to --max-expiry-wait, or any lifetime within --max-time with --expiry full (the acceptance profile).',
    {
      quote:
        '| Access token invalid or expired on any request | HTTP 401. The client refreshes the token and retries. |',
    },
  ),
  r(
    'AUTH-PERMANENT-TOKEN',
    'Authentication 6',
    'INFO',
    'A long-lived token that needs no refresh (a permanent token) exists; how it is requested is not shown. Given one (--token), the harness reports whether it works and whether it carries an expiry.',
  ),
  r(
    'AUTH-ACCESS-LIFETIME',
    'Authentication 7; Limits',
    'INFO',
    'Lifetime of an access token: not shown (limited). The harness reports it when the token is a JWT (exp − iat).',
  ),
  r(
    'AUTH-LOGIN-NO-TOKEN',
    'Authentication 1',
    'MUST',
    'The login call carries no token: POST /auth/login works without Authorization.',
    {
      quote: 'The login call carries no token.',
    },
  ),
  r(
    'AUTH-LOGIN-OK',
    'Authentication 2; Endpoints: Authentication endpoints',
    'MUST',
    'Login: POST /auth/login with `email` and `password` returns `access_token` and `refresh_token`.',
    {
      quote:
        'Login: POST `/auth/login` with an email and a password returns `access_token` and `refresh_token`.',
    },
  ),
  r(
    'AUTH-TOKEN-PAIR-SHAPE',
    'Resources: Token pair',
    'MUST',
    'Token pair: object with `access_token` (string) and `refresh_token` (string); answer of login and refresh.',
    {
      quote: 'Object with `access_token` (string) and `refresh_token` (string).',
    },
  ),
  r('AUTH-LOGIN-FAIL-401', 'Authentication 2; Errors', 'MUST', 'A failed login returns status 401.', {
    quote: 'A failed login returns status 401.',
  }),
  r(
    'AUTH-ERROR-DETAIL',
    'Errors',
    'MUST',
    'A 401 is an error response: JSON with a `detail` field (a client falls back to the raw text otherwise).',
    {
      quote: 'Error responses are JSON with a `detail` field.',
    },
  ),
  r(
    'AUTH-ACCESS-TOKEN-WORKS',
    'Authentication 1–2',
    'MUST',
    'The access token from login (or refresh) authorises requests as `Authorization: Bearer <ACCESS_TOKEN>`.',
    {
      quote: 'Unless noted, a request carries the header `Authorization: Bearer <ACCESS_TOKEN>`.',
    },
  ),
  r(
    'AUTH-REFRESH-PAIR',
    'Authentication 4; Endpoints: Authentication endpoints',
    'MUST',
    'Refresh: POST /auth/refresh with `refresh_token` and `email` returns a token pair whose access token works.',
    {
      quote:
        'Refresh: POST `/auth/refresh` with `refresh_token` (and `email`) returns a new `access_token` and a new `refresh_token`.',
    },
  ),
  r(
    'AUTH-REFRESH-ROTATES',
    'Authentication 4',
    'MUST',
    'Refresh returns a *new* `access_token` and a *new* `refresh_token` (the refresh token differs from the one sent).',
    {
      quote:
        'Refresh: POST `/auth/refresh` with `refresh_token` (and `email`) returns a new `access_token` and a new `refresh_token`.',
    },
  ),
  r(
    'AUTH-REFRESH-WITH-BEARER',
    'Authentication 4',
    'MUST',
    'The refresh call may also carry the bearer header (it is accepted with it).',
    {
      quote: 'The refresh call may also carry the bearer header.',
    },
  ),
  r(
    'AUTH-REFRESH-CHAIN',
    'Authentication 4',
    'MUST',
    'Refreshing repeatedly allows use without the password: each new refresh token refreshes again.',
    {
      quote: 'Refreshing repeatedly allows use without the password.',
    },
  ),
  r(
    'AUTH-REFRESH-WITHOUT-EMAIL',
    'Authentication 4',
    'INFO',
    'The contract writes "(and `email`)": whether refresh without `email` is accepted is not shown; reported.',
  ),
  r(
    'AUTH-OLD-REFRESH-AFTER-ROTATION',
    'Authentication 4',
    'INFO',
    'Whether a refresh token still works after it was rotated by a refresh: not shown; reported.',
  ),
  r(
    'AUTH-LOGOUT-REVOKES',
    'Authentication 5',
    'MUST',
    'Logout: POST /auth/logout with `refresh_token` revokes it; afterwards no new access token can be obtained with it.',
    {
      quote:
        'Logout: POST `/auth/logout` with `refresh_token` revokes that refresh token. Afterwards no new access token can be obtained with it.',
    },
  ),
  r(
    'AUTH-LOGOUT-BODY',
    'Authentication 8',
    'INFO',
    'Response body (and status) of logout: not shown; reported.',
  ),
  r(
    'AUTH-PATHS',
    'Paths and defaults',
    'INFO',
    'Auth lives at `{auth_url}/auth/login|refresh|logout`; by default auth_url is the API host.',
    {
      source: 'wire-facts',
    },
  ),
];
