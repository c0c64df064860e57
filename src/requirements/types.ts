/** One checkable statement of the contract (speak-v1.md) or of the wire facts real clients rely on. */
/**
 * SECURITY: a check a buyer's security review asks for (tenant isolation) that speak-v1.md does not
 * state in words, grounded on a named standard; judged and reported apart from the contract's MUSTs,
 * gating in every profile but lenient.
 */
export type RequirementLevel = 'MUST' | 'SHOULD' | 'INFO' | 'SECURITY';

export type Area =
  | 'auth'
  | 'models'
  | 'voices'
  | 'takes'
  | 'lists'
  | 'audio'
  | 'errors'
  | 'docs'
  | 'version'
  | 'websocket'
  | 'webhooks'
  | 'security';

export interface Requirement {
  /** Stable, upper-case, dash-separated, e.g. `AUTH-REFRESH-ROTATES`. */
  id: string;
  area: Area;
  /** Where the statement lives, e.g. `Authentication 4`. */
  section: string;
  /** MUST and SHOULD are judged; INFO only records what the server does where the contract is silent. */
  level: RequirementLevel;
  /** `standard`: a named external standard (see `standard`), not the contract. */
  source: 'speak-v1' | 'wire-facts' | 'standard';
  /** The named standard the quote comes from (e.g. OWASP API Security Top 10 2023, API1:2023); absent: speak-v1.md. */
  standard?: string;
  text: string;
  /**
   * MUST and SHOULD: the sentence (or table row) of speak-v1.md the requirement rests on, verbatim
   * (test/harness/grounding.test.ts finds each in the spec). INFO needs none.
   */
  quote?: string;
}
