/**
 * Every exchange is recorded, redacted and cut to an excerpt, as evidence of the test that made it.
 * The test in progress is found through AsyncLocalStorage, so concurrent tests in one file keep
 * their evidence apart; exchanges made outside any test (login in a hook) go to a file-level log.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Observation, ObservedData } from './observation.ts';
import { redactHeaders, redactJson, redactText, redactUrl } from './redact.ts';

export const BODY_EXCERPT_CHARS = 2_000;
/** Beyond this many exchanges per test only the first and the last ones are kept. */
export const MAX_EXCHANGES_PER_TEST = 40;

export interface EvidenceEntry {
  method: string;
  url: string;
  requestHeaders: Record<string, string>;
  requestBody?: string;
  status: number | null;
  headers: Record<string, string>;
  body: string;
  ms: number;
  error?: string;
  /**
   * 'second': made with the run's second identity (customer B, the security area); absent: the
   * run's own account. A reproduction names each request's account by it (src/report/reproduction.ts).
   */
  account?: 'second';
  /**
   * The exchange's id in this worker (unique within a test's evidence, kept when a scenario's record
   * is adopted): a finding names the exchanges it rests on by it, and a reproduction finds them by it.
   */
  id?: number;
}

/** What one test accumulates while it runs. */
export interface TestRecord {
  evidence: EvidenceEntry[];
  /** Exchanges that were not kept because the test made too many. */
  droppedEvidence: number;
  observations: Observation[];
  /** Characters of text sent for synthesis by this test (billing-relevant on real services). */
  characters: number;
}

export function newTestRecord(): TestRecord {
  return { evidence: [], droppedEvidence: 0, observations: [], characters: 0 };
}

const current = new AsyncLocalStorage<TestRecord>();
/** Outside-any-test activity of this worker; handed to the next test that finishes. */
const pending = newTestRecord();

export function runWithRecord<T>(record: TestRecord, fn: () => T): T {
  return current.run(record, fn);
}

export function activeRecord(): TestRecord {
  return current.getStore() ?? pending;
}

/** Moves what happened outside tests (hooks) into `record` so nothing goes unreported. */
export function drainPending(record: TestRecord): void {
  record.characters += pending.characters;
  pending.characters = 0;
  record.observations.push(...pending.observations.splice(0));
}

/** The last id given to an exchange in this worker. */
let lastEvidenceId = 0;

/** Records `entry` as evidence of the test in progress; its id (undefined: no test is in progress). */
export function recordEvidence(entry: EvidenceEntry): number | undefined {
  const record = activeRecord();
  if (record === pending) return undefined; // hook traffic (login, cleanup) is not evidence of any one test
  entry.id ??= ++lastEvidenceId;
  if (record.evidence.length >= MAX_EXCHANGES_PER_TEST) {
    // Keep the first half and a rolling tail: the start shows the setup, the end shows the failure.
    record.evidence.splice(MAX_EXCHANGES_PER_TEST / 2, 1);
    record.droppedEvidence++;
  }
  record.evidence.push(entry);
  return entry.id;
}

/** The id of the latest exchange of the test in progress (undefined: none yet, or no test). */
export function latestEvidenceId(): number | undefined {
  return activeRecord().evidence.at(-1)?.id;
}

/**
 * A shared scenario's record (its exchanges and observations) copied into the test that awaited it,
 * so each test sharing the scenario shows what it judged. Characters move only once: the first
 * test to adopt them reports them, the run total stays right.
 */
export function adoptScenarioRecord(scenario: TestRecord): void {
  const record = activeRecord();
  if (record === pending || record === scenario) return;
  for (const entry of scenario.evidence) recordEvidence(entry);
  record.droppedEvidence += scenario.droppedEvidence;
  const had = new Set(record.observations.map(identity));
  for (const o of scenario.observations) if (!had.has(identity(o))) record.observations.push(o);
  record.characters += scenario.characters;
  scenario.characters = 0;
}

export function recordObservation(o: Observation): void {
  activeRecord().observations.push(redactObservation(o));
}

/** One observation the same as another: its key and data (the object, not its sentence). */
function identity(o: Observation): string {
  return JSON.stringify([o.key, o.values ?? {}, o.particulars ?? {}, o.text]);
}

/** An observation with every string it shows redacted (a token in a body it quotes). */
function redactObservation(o: Observation): Observation {
  const data = (d: ObservedData | undefined) =>
    d &&
    Object.fromEntries(Object.entries(d).map(([k, v]) => [k, typeof v === 'string' ? redactText(v) : v]));
  return {
    ...o,
    text: redactText(o.text),
    ...(o.values ? { values: data(o.values) } : {}),
    ...(o.particulars ? { particulars: data(o.particulars) } : {}),
  };
}

export function recordCharacters(count: number): void {
  activeRecord().characters += count;
}

/** A short, redacted, printable rendering of a body for the evidence. */
export function bodyExcerpt(body: Buffer | string | undefined, contentType: string | undefined): string {
  if (body === undefined) return '';
  const buffer = typeof body === 'string' ? Buffer.from(body) : body;
  if (buffer.length === 0) return '';
  const type = (contentType ?? '').toLowerCase();
  const textual = type === '' || /json|text|xml|html|javascript|urlencoded/.test(type);
  if (!textual) return `<${buffer.length} bytes of ${type || 'binary data'}>`;
  const head = buffer.subarray(0, BODY_EXCERPT_CHARS * 2).toString('utf8');
  let shown: string;
  if (type.includes('json')) {
    try {
      shown = JSON.stringify(redactJson(JSON.parse(buffer.toString('utf8'))));
    } catch {
      shown = redactText(head);
    }
  } else {
    shown = redactText(head);
  }
  return shown.length > BODY_EXCERPT_CHARS
    ? `${shown.slice(0, BODY_EXCERPT_CHARS)}… (${buffer.length} bytes in all)`
    : shown;
}

export function evidenceFor(o: {
  method: string;
  url: string;
  requestHeaders: Record<string, string>;
  requestBody?: Buffer | string;
  requestContentType?: string;
  status: number | null;
  headers: Record<string, string>;
  body?: Buffer;
  ms: number;
  error?: string;
  account?: 'second';
}): EvidenceEntry {
  const entry: EvidenceEntry = {
    method: o.method,
    url: redactUrl(o.url),
    requestHeaders: redactHeaders(o.requestHeaders),
    status: o.status,
    headers: redactHeaders(o.headers),
    body: bodyExcerpt(o.body, o.headers['content-type']),
    ms: Math.round(o.ms),
  };
  if (o.requestBody !== undefined)
    entry.requestBody = bodyExcerpt(o.requestBody, o.requestContentType ?? 'application/json');
  if (o.error) entry.error = redactText(o.error);
  if (o.account) entry.account = o.account;
  return entry;
}
