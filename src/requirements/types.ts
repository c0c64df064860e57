/** One checkable statement of the contract (speak-v1.md) or of the wire facts real clients rely on. */
export type RequirementLevel = 'MUST' | 'SHOULD' | 'INFO';

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
  | 'webhooks';

export interface Requirement {
  /** Stable, upper-case, dash-separated, e.g. `AUTH-REFRESH-ROTATES`. */
  id: string;
  area: Area;
  /** Where the statement lives, e.g. `Authentication 4`. */
  section: string;
  /** MUST and SHOULD are judged; INFO only records what the server does where the contract is silent. */
  level: RequirementLevel;
  source: 'speak-v1' | 'wire-facts';
  text: string;
  /**
   * MUST and SHOULD: the sentence (or table row) of speak-v1.md the requirement rests on, verbatim
   * (test/harness/grounding.test.ts finds each in the spec). INFO needs none.
   */
  quote?: string;
}
