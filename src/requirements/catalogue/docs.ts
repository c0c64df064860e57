import type { RequirementDeclaration } from '../types.ts';
import { requirementsIn } from './requirement.ts';

const r = requirementsIn('docs');

/** speak-v1.md: What the service does (published reference and definition). */
export const requirements: RequirementDeclaration[] = [
  r(
    'DOCS-INTERACTIVE-HTML',
    'What the service does',
    'MUST',
    'An interactive reference is published at `{base_url}/v1/speak/docs` (HTML).',
    {
      quote:
        'An interactive reference and a machine-readable definition are published at `{base_url}/v1/speak/docs`, `{base_url}/v1/speak/redoc` and `{base_url}/v1/speak/openapi.json`.',
    },
  ),
  r(
    'DOCS-REDOC-HTML',
    'What the service does',
    'MUST',
    'A reference is published at `{base_url}/v1/speak/redoc` (HTML).',
    {
      quote:
        'An interactive reference and a machine-readable definition are published at `{base_url}/v1/speak/docs`, `{base_url}/v1/speak/redoc` and `{base_url}/v1/speak/openapi.json`.',
    },
  ),
  r(
    'DOCS-OPENAPI-VALID',
    'What the service does',
    'MUST',
    'A machine-readable definition is published at `{base_url}/v1/speak/openapi.json`: a valid OpenAPI document.',
    {
      quote:
        'An interactive reference and a machine-readable definition are published at `{base_url}/v1/speak/docs`, `{base_url}/v1/speak/redoc` and `{base_url}/v1/speak/openapi.json`.',
    },
  ),
  r(
    'DOCS-OPENAPI-PATHS',
    'What the service does; Endpoints',
    'MUST',
    "The definition describes the interface: it declares every `/v1/speak` operation of the contract's Endpoints.",
    {
      quote:
        'An interactive reference and a machine-readable definition are published at `{base_url}/v1/speak/docs`, `{base_url}/v1/speak/redoc` and `{base_url}/v1/speak/openapi.json`.',
    },
  ),
  r(
    'DOCS-OPENAPI-AUTH-PATHS',
    'Endpoints: Authentication endpoints',
    'INFO',
    'Whether the definition also declares /auth/login|refresh|logout (they may live on another host); reported.',
  ),
  r(
    'DOCS-WITHOUT-TOKEN',
    'Authentication 1',
    'INFO',
    'Authentication 1 exempts only /version, yet a browser opens the docs without a bearer: what the docs paths answer without a token is reported.',
  ),
];
