import type { RequirementDeclaration } from '../types.ts';
import { requirementsIn } from './requirement.ts';

const r = requirementsIn('version');

/** speak-v1.md: Versioning, Endpoints (Version), the general wire rules of "What the service does". */
export const requirements: RequirementDeclaration[] = [
  r(
    'VERSION-NO-TOKEN',
    'Versioning 2; Authentication 1; Endpoints: Version',
    'MUST',
    'The /version endpoint exists and needs no access token.',
    {
      quote: 'A `/version` endpoint exists and needs no access token.',
    },
  ),
  r(
    'VERSION-MAJOR-MINOR',
    'Versioning 2',
    'MUST',
    'The /version endpoint reports a major and a minor version number.',
    {
      quote: 'The `/version` endpoint reports a major and a minor version number and needs no token.',
    },
  ),
  r(
    'VERSION-MAJOR-MATCHES-PATH',
    'Versioning 1–2',
    'SHOULD',
    'The interface version is part of the path (`/v1/speak/...`): the reported major version is 1.',
    {
      quote: 'The interface version is part of the path: `/v1/speak/...`.',
    },
  ),
  r(
    'VERSION-WIRE-SHAPE',
    'Paths and defaults',
    'INFO',
    '`GET /v1/speak/version` (no token) returns `{"version": 1, "minor": N}`, both integers.',
    {
      source: 'wire-facts',
    },
  ),
  r(
    'VERSION-PATH-PREFIX',
    'Versioning 1',
    'MUST',
    'The interface lives under `/v1/speak/...`; the authentication endpoints are outside this prefix (`/auth/...`).',
    {
      quote:
        'The interface version is part of the path: `/v1/speak/...`. The authentication endpoints are outside this prefix.',
    },
  ),
  r(
    'API-JSON-BODIES',
    'What the service does; Endpoints',
    'MUST',
    'All requests and responses with a body use JSON (except audio and websocket binary messages); request bodies are JSON with `content-type: application/json`.',
    {
      quote: 'All requests and responses with a body use JSON, except audio and websocket binary messages.',
    },
  ),
];
