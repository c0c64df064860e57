/**
 * A Finding is what a check throws: one sentence that says what was expected, what was found and
 * where, plus the same facts as data for the report. Suites never throw bare Errors for contract
 * violations, so the report can tell "the server is wrong" (Finding) from "the harness broke".
 */
import { SpeakcheckError } from '../errors.ts';
import type { RequirementId } from '../requirements/index.ts';

export interface FindingFacts {
  /** Where it was seen: a request line, a JSON pointer, a list query ... */
  where?: string;
  /** The id of the exchange it rests on (its evidence entry's, src/evidence/evidence.ts), when one. */
  exchange?: number;
  expected?: unknown;
  actual?: unknown;
  /**
   * The requirement this finding is evidence against wherever it surfaces (a GET answering an array
   * is VOICE-GET-OBJECT failing even inside a wait for readiness): check() and covers() attribute it
   * there when the test covers that id.
   */
  requirement?: RequirementId;
  /**
   * The requirement was named by a run-wide fact (src/facts: a connection silent after its first
   * request): the finding fails it where the test covers it and blocks the test elsewhere, as a stuck
   * wait does: it is no evidence about the other requirements of the test it surfaced in.
   */
  runFact?: boolean;
}

/**
 * What sort of violation, as Schemathesis names its failed check: `schema` when a body broke a schema
 * of schemas/ (SchemaFinding, src/harness/schema.ts), `contract` for every other sentence of the
 * contract a check found broken (a status, an order, a header, audio bytes ...).
 */
export type FindingKind = 'contract' | 'schema';

export class Finding extends SpeakcheckError {
  readonly code = 'SPEAKCHECK_FINDING';
  override readonly name = 'Finding';
  readonly kind: FindingKind = 'contract';
  readonly facts: FindingFacts;

  constructor(message: string, facts: FindingFacts = {}) {
    super(message);
    this.facts = facts;
  }
}

export function isFinding(error: unknown): error is Finding {
  return error instanceof Finding;
}

/** Short, single-line rendering of any value for a finding's message. */
export function show(value: unknown, max = 160): string {
  let text: string;
  if (typeof value === 'string') text = JSON.stringify(value);
  else if (value === undefined) text = 'undefined';
  else if (Buffer.isBuffer(value)) text = `<${value.length} bytes>`;
  else {
    try {
      text = JSON.stringify(value) ?? String(value);
    } catch {
      text = String(value);
    }
  }
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
