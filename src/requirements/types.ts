import type { ItemKind } from '../../schemas/item-kind.ts';
import type { RequirementId } from '../../schemas/requirement-ids.ts';

export type { RequirementId } from '../../schemas/requirement-ids.ts';

/** One checkable statement of the contract (speak-v1.md) or of the wire facts real clients rely on. */
/**
 * SECURITY: a check a buyer's security review asks for (tenant isolation) that speak-v1.md does not
 * state in words, grounded on a named standard; judged and reported apart from the contract's MUSTs,
 * gating in every profile but lenient.
 */
export type RequirementLevel = 'MUST' | 'SHOULD' | 'INFO' | 'SECURITY';

/**
 * The areas of the contract, declared once: a suite file per area (suites/<area>.spec.ts), a
 * catalogue file per area (catalogue/<area>.ts, AREA_FILES), the values `--only` accepts.
 */
export const AREAS = [
  'auth',
  'models',
  'voices',
  'takes',
  'lists',
  'audio',
  'errors',
  'docs',
  'version',
  'websocket',
  'webhooks',
  'security',
  'sequences',
] as const;

export type Area = (typeof AREAS)[number];

/**
 * A named external standard a MUST or SHOULD rests on, in the standard's own words: where speak-v1.md
 * is silent but a standard every HTTP server answers to is not (RFC 9110: a client error is a 4xx,
 * never a 5xx), or where a security area judges by a published rule (e.g. OWASP API Security Top 10).
 */
export interface StandardQuote {
  /** The standard, as it names itself: `RFC 9110`, `OWASP API Security Top 10 2023`. */
  name: string;
  /** Where in it: `§15.5`, `API1:2023`. */
  clause: string;
  /** The standard's sentence, verbatim. */
  quote: string;
  /** Where to read it. */
  url: string;
}

export interface Requirement {
  /**
   * Stable, upper-case, dash-separated, e.g. `AUTH-REFRESH-ROTATES`. Declared once, in the entry of
   * catalogue/<area>.ts; schemas/requirement-ids.ts (generated: npm run requirements:ids) lists every
   * one as the RequirementId union, so a misspelled id anywhere else is a type error.
   */
  id: RequirementId;
  area: Area;
  /** Where the statement lives, e.g. `Authentication 4`. */
  section: string;
  /** MUST and SHOULD are judged; INFO only records what the server does where the contract is silent. */
  level: RequirementLevel;
  source: 'speak-v1' | 'wire-facts';
  text: string;
  /**
   * MUST and SHOULD: the sentence (or table row) of speak-v1.md that requires it, verbatim
   * (test/requirements/grounding.test.ts finds each in the spec; never a "not shown" sentence). INFO needs none.
   */
  quote?: string;
  /**
   * MUST and SHOULD: the named external standards it rests on, each with its own words
   * (catalogue/standards.ts). A requirement is grounded by a quote, a standard, or both;
   * src/requirements/grounding-rule.ts says what counts.
   */
  standards?: readonly StandardQuote[];
}

/** The kinds of item whose time to `ready` a requirement bounds (src/harness/wait-ledger.ts). */
export type ReadyBoundKind = ItemKind;

/**
 * A requirement as its catalogue entry declares it: the requirement itself (with its grounding) and
 * what else is said of it in one place, read by the layers above:
 */
export interface RequirementDeclaration extends Requirement {
  /**
   * The sentence of wire-facts.md an INFO wire fact rests on, verbatim: the sdk profile judges the
   * requirement as SHOULD with this quote (src/verdict/sdk-profile.ts); test/requirements/sdk-profile.test.ts
   * finds each in spec/wire-facts.md.
   */
  sdkQuote?: string;
  /** The kind of item whose ready bound this requirement is: a wait that runs out is evidence against it. */
  readyBoundOf?: ReadyBoundKind;
  /**
   * INFO whose check compares two timings of one run (chunks mode sooner than parts mode): whether it
   * held is what the run happened to catch, so compare never puts it side by side.
   */
  racesTimings?: true;
}
