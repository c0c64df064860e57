/**
 * A reproduction of a failed requirement that runs as pasted into a shell (POSIX sh, curl, sed),
 * built from the (already redacted) evidence of one of its failing tests: the login step of each
 * account it needs (SPEAK_EMAIL/SPEAK_PASSWORD, or a token), the items the failing request touches
 * made afresh (the run deleted its own: src/report/reproduction-items.ts), and the failing request
 * itself, the one the check named, not the test's last exchanges. A two-account (security)
 * reproduction names each request's account ($SPEAK_TOKEN_A / $SPEAK_TOKEN_B). Secrets never come
 * back: they are variables; a request that carried no Authorization (a signed URL) gets none.
 * Websocket requests get their transcript and a small Node script that replays them.
 */

import type { EvidenceEntry } from '../evidence/evidence.ts';
import { REDACTED } from '../evidence/redact.ts';
import type { Conclusions } from '../verdict/conclusion.ts';
import { isViolation } from '../verdict/standing.ts';
import { type ItemPlan, planItems } from './reproduction-items.ts';

export { websocketModelOf, websocketScript } from './reproduction-websocket.ts';

import {
  type Account,
  accountOf,
  bodyWithVariables,
  captureId,
  comment,
  keepingLocation,
  loginStep,
  shellWord,
  singleQuoted,
  variable,
  waitUntilReady,
} from './reproduction-shell.ts';

export interface Reproduction {
  /** Shell lines, in order: login, items made afresh, the failing request (named for curl, its tool). */
  curl: string[];
  /** The websocket requests the failing test sent (redacted JSON), in order. */
  websocket: string[];
  /** The websocket exchanges as they went: upgrade answers, each request's outcome, statuses, frames, timings. */
  transcript: string[];
  /** What the reproduction cannot show exactly, and which test it reproduces. */
  notes: string[];
}

/** How to run a reproduction, as the reports say it above them. */
export const REPRODUCTION_USAGE =
  'Paste it into a shell with SPEAK_EMAIL and SPEAK_PASSWORD set (a two-account one also SPEAK_SECOND_EMAIL and SPEAK_SECOND_PASSWORD), or a token in SPEAK_TOKEN (SPEAK_SECOND_TOKEN): it logs in and makes what it needs afresh.';

/** Of a websocket test's HTTP exchanges, beyond this many only the last ones are reproduced. */
export const MAX_REPRODUCED_EXCHANGES = 12;
/** How long a reproduction waits for an item it made to be ready, in seconds. */
const READY_WAIT_S = 120;

/** Request headers curl sets itself, or that describe the transport rather than the request. */
const TRANSPORT_HEADERS = /^(host|content-length|connection|transfer-encoding|accept-encoding|user-agent)$/i;

export function isWebsocketEntry(e: EvidenceEntry): boolean {
  return e.method.startsWith('WS ') || e.method.startsWith('GET (websocket');
}

export interface ReproductionOptions {
  /** `--ca-file`: the private CA the run trusted for https. */
  caFile?: string;
  /** Where the login endpoint is (`--auth-url`; default: the request's own origin). */
  authUrl?: string;
  /** `--keep`: the run left what it made in place. */
  keep?: boolean;
  /** Every test's exchanges: where an item the failing test did not make itself was made or read. */
  context?: readonly EvidenceEntry[];
}

/** How one curl line stands for the evidence's values. */
interface CurlContext {
  account: Account;
  /** Old id → the variable holding the id made afresh. */
  ids: ReadonlyMap<string, string>;
  /** The URL is this variable (a signed URL the reproduction was just given). */
  urlVariable?: string;
  /** What curl prints: headers and body (default), the headers only (audio), the body only (to read an id from). */
  show?: 'all' | 'headers' | 'body';
}

function withIds(text: string, ids: ReadonlyMap<string, string>): string {
  let out = text;
  for (const [id, name] of ids) out = out.split(id).join(variable(name));
  return out;
}

/** A word for text that may hold variables: single quotes when it holds none. */
function word(text: string): string {
  return text.includes('\uE000') ? shellWord(text) : singleQuoted(text);
}

/** One curl command line for an HTTP exchange (null for websocket entries). */
export function curlFor(
  e: Pick<EvidenceEntry, 'method' | 'url' | 'requestHeaders' | 'requestBody' | 'account'>,
  o: ReproductionOptions = {},
  c: CurlContext = { account: accountOf(e, false), ids: new Map() },
): { command: string; notes: string[] } | null {
  if (isWebsocketEntry(e as EvidenceEntry)) return null;
  const notes: string[] = [];
  const show = { all: ['-i'], headers: ['-D', '-', '-o', '/dev/null'], body: [] }[c.show ?? 'all'];
  const parts = ['curl', '-sS', ...show];
  // The private CA the run trusted (--ca-file): curl trusts it the same way, never -k.
  if (o.caFile && e.url.startsWith('https:')) parts.push('--cacert', singleQuoted(o.caFile));
  if (e.method !== 'GET') parts.push('-X', e.method);
  for (const [name, value] of Object.entries(e.requestHeaders)) {
    if (TRANSPORT_HEADERS.test(name)) continue;
    if (/^authorization$/i.test(name)) {
      parts.push('-H', shellWord(`Authorization: Bearer ${variable(c.account.token)}`));
      continue;
    }
    parts.push('-H', singleQuoted(`${name}: ${value}`));
  }
  if (e.requestBody !== undefined && e.requestBody !== '') {
    if (/^<\d+ bytes of /.test(e.requestBody)) {
      notes.push(`${e.method} ${e.url}: the request body was binary (${e.requestBody}); send your own file.`);
      parts.push('--data-binary', '@FILE');
    } else {
      if (/… \(\d+ bytes in all\)$/.test(e.requestBody))
        notes.push(
          `${e.method} ${e.url}: the request body is cut in the evidence; the curl sends the excerpt.`,
        );
      parts.push('--data-raw', shellWord(withIds(bodyWithVariables(e.requestBody, c.account), c.ids)));
    }
  }
  if (c.urlVariable) parts.push(shellWord(variable(c.urlVariable)));
  else {
    if (e.url.includes(REDACTED))
      notes.push(`${e.method} ${e.url}: a signature in the URL is redacted; ask the API for a fresh URL.`);
    parts.push(word(withIds(e.url, c.ids)));
  }
  return { command: parts.join(' '), notes };
}

/** What a failing test left: its error messages and its exchanges. */
export interface FailingTest {
  name: string;
  errors: readonly string[];
  evidence: readonly EvidenceEntry[];
  /** What the test concluded per requirement: a requirement's findings name their exchanges by id. */
  conclusions?: Conclusions;
}

/** The ids of the exchanges the findings of `requirement` rest on (of every requirement: none named). */
function findingExchanges(t: FailingTest, requirement?: string): Set<number> {
  const lists = requirement ? [t.conclusions?.[requirement] ?? []] : Object.values(t.conclusions ?? {});
  return new Set(lists.flatMap((list) => list.filter(isViolation).flatMap((c) => c.exchanges ?? [])));
}

/**
 * The exchange the check failed on: the last HTTP exchange its finding names by id (a check records
 * the exchange it judged, src/harness/check.ts); -1 when its findings name none (the test's
 * exchanges are then replayed as they went). Nothing is read from the finding's sentence.
 */
export function failingExchange(t: FailingTest, requirement?: string): number {
  let ids = findingExchanges(t, requirement);
  if (ids.size === 0 && requirement) ids = findingExchanges(t);
  for (let i = t.evidence.length - 1; i >= 0; i--) {
    const e = t.evidence[i]!;
    if (isWebsocketEntry(e) || isBackPressure(e)) continue;
    if (e.id !== undefined && ids.has(e.id)) return i;
  }
  return -1;
}

/** A 429 or 503 was back-pressure the client waited out and sent again (src/client/http.ts). */
function isBackPressure(e: EvidenceEntry): boolean {
  return e.status === 429 || e.status === 503;
}

const TWO_ACCOUNTS_NOTE =
  "Two accounts: A is the run's own (SPEAK_EMAIL/SPEAK_PASSWORD, or SPEAK_TOKEN), B its second identity (SPEAK_SECOND_EMAIL/SPEAK_SECOND_PASSWORD, or SPEAK_SECOND_TOKEN); each request carries $SPEAK_TOKEN_A or $SPEAK_TOKEN_B, and the items are A's.";

/** The reproduction of a failed requirement from its failing tests (the first one it can name). */
export function reproductionOf(
  tests: readonly FailingTest[],
  o: ReproductionOptions & { requirement?: string } = {},
): Reproduction {
  for (const t of tests) {
    const index = failingExchange(t, o.requirement);
    if (index >= 0) return requestReproduction(t, index, tests.length, o);
  }
  const t = tests.find((x) => x.evidence.length > 0);
  if (!t) return { curl: [], websocket: [], transcript: [], notes: [] };
  return wholeTestReproduction(t, o);
}

/** The login step of each account, at the run's auth URL (else the origin of the account's first request). */
function loginSteps(
  accounts: readonly Account[],
  entries: readonly EvidenceEntry[],
  o: ReproductionOptions,
): string[] {
  const refresh = entries.some((e) => (e.requestBody ?? '').includes(`"refresh_token":"${REDACTED}"`));
  return accounts.flatMap((account) => {
    const origin = o.authUrl ?? (entries[0] ? new URL(entries[0].url).origin : '');
    return loginStep(account, origin.replace(/\/$/, ''), { refresh });
  });
}

/** A reproduction's shell lines as they are written: the accounts they use, the ids made afresh. */
class Script {
  readonly lines: string[] = [];
  readonly notes: string[] = [];
  private readonly ids = new Map<string, string>();
  private readonly accounts: Account[] = [];
  private readonly sent: EvidenceEntry[] = [];

  constructor(
    private readonly o: ReproductionOptions,
    readonly twoAccounts: boolean,
  ) {}

  account(e: Pick<EvidenceEntry, 'account'>): Account {
    const account = accountOf(e, this.twoAccounts);
    if (!this.accounts.some((a) => a.label === account.label)) this.accounts.push(account);
    return account;
  }

  /** The curl line of `e`, sent with its account's token and the ids made afresh. */
  curl(e: EvidenceEntry, c: Partial<CurlContext> = {}): string {
    const curl = curlFor(e, this.o, { account: this.account(e), ids: this.ids, ...c });
    if (!curl) return '';
    this.sent.push(e);
    this.notes.push(...curl.notes);
    return curl.command;
  }

  /** Makes the plan's items again, in order, each id read into its variable; waits where the run did. */
  recreate(plan: ItemPlan): void {
    for (const r of plan.recreations) {
      const request = r.request as EvidenceEntry;
      const who = this.twoAccounts ? `Account ${this.account(request).label} makes` : 'Make';
      this.lines.push(
        comment(
          `${who} ${r.id} again${this.o.keep ? '' : ' (the run deleted its own)'}: its new id is $${r.name}.`,
        ),
        ...captureId(r.name, this.curl(request, { show: 'body' }), r.field),
      );
      this.ids.set(r.id, r.name);
      if (r.waitReady) {
        const get = {
          ...request,
          method: 'GET',
          url: r.itemUrl,
          requestHeaders: { authorization: REDACTED },
        };
        delete get.requestBody;
        this.lines.push(
          `# Wait until ${r.name} is ready, as the run did (at most ${READY_WAIT_S} s).`,
          waitUntilReady(this.curl(get, { show: 'body' }), READY_WAIT_S),
        );
      }
      if (r.note) this.notes.push(r.note);
    }
    for (const id of plan.missing)
      this.notes.push(
        this.o.keep
          ? `${id} is used as the run kept it (--keep).`
          : `${id} could not be made again: the run deleted it at its end; \`--keep\` keeps what a run makes.`,
      );
  }

  /** The login steps the lines need, then the lines. */
  finish(): string[] {
    const usesToken = this.sent.some((e) => e.requestHeaders.authorization || /\/auth\//.test(e.url));
    if (this.twoAccounts) this.notes.unshift(TWO_ACCOUNTS_NOTE);
    return [...(usesToken ? loginSteps(this.accounts, this.sent, this.o) : []), ...this.lines];
  }
}

/** The failing request, with the login and the items it needs, from the test's evidence. */
function requestReproduction(
  t: FailingTest,
  index: number,
  failingTests: number,
  o: ReproductionOptions,
): Reproduction {
  const evidence = t.evidence;
  const target = evidence[index]!;
  // A signed URL is only good fresh: the request that redirected to it comes along (it gives one).
  const leadIn =
    !target.requestHeaders.authorization && index > 0
      ? evidence
          .slice(0, index)
          .reverse()
          .find((e) => e.headers.location === target.url && !isBackPressure(e))
      : undefined;
  const follow =
    !leadIn && target.headers.location
      ? evidence.slice(index + 1).find((e) => e.url === target.headers.location && !isBackPressure(e))
      : undefined;
  const replayed = [...(leadIn ? [leadIn] : []), target];
  const plan = planItems({
    before: evidence.slice(0, index),
    replayed,
    ...(o.context ? { run: o.context } : {}),
  });
  const script = new Script(
    o,
    [...replayed, ...plan.recreations.map((r) => r.request)].some((e) => e.account === 'second'),
  );
  script.recreate(plan);
  if (leadIn)
    script.lines.push(
      '# A fresh signed URL: the request that redirected to it.',
      ...keepingLocation(script.curl(leadIn)),
    );
  const account = script.account(target);
  script.lines.push(
    comment(
      `The failing request${script.twoAccounts ? ` (account ${account.label})` : ''}: the run's answer was ${target.status ?? 'none'}${target.error ? ` (${target.error})` : ''}.`,
    ),
  );
  const targetCurl = script.curl(target, {
    ...(leadIn ? { urlVariable: 'LOCATION' } : {}),
    ...(isBinary(target) ? { show: 'headers' as const } : {}),
  });
  if (follow)
    script.lines.push(
      ...keepingLocation(targetCurl),
      '# Where it redirected, as the run followed it: without Authorization (the URL carries its own).',
      script.curl(follow, { urlVariable: 'LOCATION', show: isBinary(follow) ? 'headers' : 'all' }),
    );
  else script.lines.push(targetCurl);
  const curl = script.finish();
  script.notes.unshift(
    `Reproduces the test "${t.name}"${failingTests > 1 ? ` (1 of ${failingTests} failing tests)` : ''}: its failing request${
      plan.recreations.length ? ', after making what it uses afresh' : ''
    }; the test's ${evidence.length} exchanges are under its evidence.`,
  );
  return { curl, websocket: [], transcript: [], notes: dedupe(script.notes) };
}

function isBinary(e: EvidenceEntry): boolean {
  return /^<\d+ bytes of /.test(e.body);
}

function dedupe(lines: readonly string[]): string[] {
  return [...new Set(lines)];
}

/**
 * No request named (a websocket check, a timing, a finding about several requests): the test's
 * HTTP exchanges as they went (the last ones), after the items they use are made afresh.
 */
function wholeTestReproduction(t: FailingTest, o: ReproductionOptions): Reproduction {
  const answered = t.evidence.filter((e) => !isBackPressure(e));
  const http = answered.filter((e) => !isWebsocketEntry(e) && !/\/auth\/login$/.test(e.url));
  const last = http.length > MAX_REPRODUCED_EXCHANGES ? http.slice(-MAX_REPRODUCED_EXCHANGES) : http;
  const plan = planItems({ before: t.evidence, replayed: last, ...(o.context ? { run: o.context } : {}) });
  // A creating request is replayed once, as the item's recreation.
  const made = new Set<EvidenceEntry>(plan.recreations.map((r) => r.request as EvidenceEntry));
  const kept = last.filter((e) => !made.has(e));
  const script = new Script(
    o,
    [...kept, ...plan.recreations.map((r) => r.request)].some((e) => e.account === 'second'),
  );
  script.recreate(plan);
  if (kept.length) script.lines.push("# The test's exchanges, as they went.");
  kept.forEach((e, i) => {
    // A signed URL the run was redirected to is fetched fresh: from the redirect just replayed.
    const fromRedirect = i > 0 && kept[i - 1]!.headers.location === e.url;
    const curl = script.curl(e, {
      ...(isBinary(e) ? { show: 'headers' as const } : {}),
      ...(fromRedirect ? { urlVariable: 'LOCATION' } : {}),
    });
    if (kept[i + 1] && e.headers.location === kept[i + 1]!.url) script.lines.push(...keepingLocation(curl));
    else script.lines.push(curl);
  });
  const out: Reproduction = { curl: script.finish(), websocket: [], transcript: [], notes: [] };
  out.notes.push(
    `Reproduces the test "${t.name}": its failure names no single request, so its exchanges are replayed as they went${
      plan.recreations.length ? ', after making what they use afresh' : ''
    }.`,
    ...script.notes,
  );
  if (last.length < http.length)
    out.notes.push(`Only the last ${last.length} of ${http.length} HTTP exchanges are reproduced.`);
  for (const e of answered) {
    if (e.method.startsWith('WS ') && e.requestBody) out.websocket.push(e.requestBody);
    if (isWebsocketEntry(e)) out.transcript.push(transcriptLine(e));
  }
  out.notes = dedupe(out.notes);
  return out;
}

function transcriptLine(e: EvidenceEntry): string {
  const answer = e.method.startsWith('WS ')
    ? e.body
    : `HTTP ${e.status ?? 'no answer'}${e.body ? ` ${e.body}` : ''}`;
  return `${e.method} ${e.url}: ${answer}${e.error ? ` (${e.error})` : ''}`;
}
