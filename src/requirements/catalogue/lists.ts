import type { RequirementDeclaration } from '../types.ts';
import { requirementsIn } from './requirement.ts';

const r = requirementsIn('lists');

/** speak-v1.md: Endpoints (list query parameters, voices and takes alike); wire-facts: Lists. */
export const requirements: RequirementDeclaration[] = [
  r(
    'LIST-ID-FILTER',
    'Endpoints: Voices (query parameters)',
    'MUST',
    '`voice_id` (voices) / `take_id` (takes), a comma-separated list of identifiers: return only these (and all of them the full list holds).',
    {
      quote:
        '| voice_id (voices) or take_id (takes) | comma-separated list of identifiers | Return only these. |',
    },
  ),
  r(
    'LIST-LENGTH',
    'Endpoints: Voices (query parameters)',
    'MUST',
    '`length` is the page size: no answer holds more than `length` items.',
    {
      quote: '| length | integer | Page size. |',
    },
  ),
  r(
    'LIST-PAGES-PARTITION',
    'Endpoints: Voices (query parameters)',
    'MUST',
    "`page` is the page number: consecutive pages of one `length` partition the list, with no duplicate and no gap, in the list's order.",
    {
      quote: '| page | integer | Page number. |',
    },
  ),
  r(
    'LIST-OLDER',
    'Endpoints: Voices (query parameters)',
    'MUST',
    '`older` (timestamp ms) restricts results to older items: items older than it are returned, newer ones are not.',
    {
      quote:
        '| older | integer | Timestamp in milliseconds since the epoch. Restricts results to older items. |',
    },
  ),
  r(
    'LIST-NEWER',
    'Endpoints: Voices (query parameters)',
    'MUST',
    '`newer` (timestamp ms) restricts results to newer items: items newer than it are returned, older ones are not.',
    {
      quote:
        '| newer | integer | Timestamp in milliseconds since the epoch. Restricts results to newer items. |',
    },
  ),
  r(
    'LIST-ORACLE',
    'Endpoints: Voices (query parameters); Lists',
    'SHOULD',
    'Any combination of id filter, length/page and older/newer answers exactly what the full list filtered and paged gives, under the semantics the server itself showed where the contract is silent (first page number, bound inclusivity, default page size, order): consistent, whatever the choice.',
    {
      quote: 'Query parameters of the list, for voices and for takes alike:',
    },
  ),
  r(
    'LIST-ORDERING',
    'Endpoints: Voices (query parameters)',
    'INFO',
    'Default page size and ordering: not shown; the observed ordering is reported.',
  ),
  r(
    'LIST-PAGE-BASE',
    'Lists',
    'INFO',
    '`page` counts from 1 and defaults to 1; `length` absent means unlimited.',
    {
      source: 'wire-facts',
      sdkQuote: '`length` absent means unlimited; `page` counts from 1 and defaults to 1.',
    },
  ),
  r(
    'LIST-BOUNDS-INCLUSIVE',
    'Lists',
    'INFO',
    '`older` and `newer` are inclusive: "older than or equal to", "newer than or equal to" the given timestamp_ms.',
    {
      source: 'wire-facts',
      sdkQuote:
        '`older` and `newer` are inclusive: "older than or equal to", "newer than or equal to" the given timestamp_ms.',
    },
  ),
];
