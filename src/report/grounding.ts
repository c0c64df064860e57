/**
 * What a requirement rests on, as the reports print it: the speak-v1.md sentence and each named
 * standard with its clause and words (src/requirements/grounding-rule.ts says what may ground a
 * MUST or SHOULD). INFO rests on nothing.
 */
import type { Requirement } from '../requirements/types.ts';

export interface GroundingLine {
  /** `speak-v1.md`, `wire-facts.md (sdk profile)`, or `RFC 9110 §15.5`. */
  source: string;
  quote: string;
  url?: string;
}

export function groundingLines(r: Pick<Requirement, 'quote' | 'standards' | 'source'>): GroundingLine[] {
  // A wire fact judged in the sdk profile quotes wire-facts.md (the vendor SDK), not the contract.
  const file = r.source === 'wire-facts' ? 'wire-facts.md (sdk profile)' : 'speak-v1.md';
  return [
    ...(r.quote ? [{ source: file, quote: r.quote }] : []),
    ...(r.standards ?? []).map((s) => ({ source: `${s.name} ${s.clause}`, quote: s.quote, url: s.url })),
  ];
}
