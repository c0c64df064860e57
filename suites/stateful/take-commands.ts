/**
 * The commands on takes and lists (fast-check's AsyncCommand): each has a precondition on the model
 * (`check`), the real call (`run`), and a postcondition that compares the server's answer with the
 * model and throws a Finding naming the requirement it is evidence against. Every call is a step of
 * the sequence's log (the report's lines, the reproduction script's curl lines).
 */
import type fc from 'fast-check';
import { deleteAnswerUnknowable } from '../../src/checks/exchange.ts';
import { Finding, show } from '../../src/checks/finding.ts';
import { pagesProblems } from '../../src/checks/lists.ts';
import {
  type AccountName,
  addTake,
  canDelete,
  canGenerate,
  deletedTakes,
  expectTakeGet,
  forgetTake,
  isNewTakeId,
  listProblems,
  liveTakes,
  type ModelTake,
  pick,
  recordDeleted,
  recordPaged,
  repeatsInput,
  type SequenceModel,
  statusClass,
  takesOf,
} from '../../src/checks/stateful/model.ts';
import { apiCall, capture } from '../../src/checks/stateful/script-words.ts';
import {
  ASSUMED_FIRST_PAGE,
  firstPageNumber,
  probedPage,
  readWholeList,
} from '../../src/checks/whole-list.ts';
import type { Exchange, RequirementId } from '../../src/harness/index.ts';
import type { Real } from './real.ts';

export type SequenceCommand = fc.AsyncCommand<SequenceModel, Real>;

/** Short texts, few of them: real services bill per character, and repeats are an input of their own. */
export const TEXTS = ['One.', 'Two.', 'Three.'] as const;

const fail = (requirement: RequirementId, message: string, exchange?: Exchange) =>
  new Finding(message, {
    requirement,
    ...(exchange
      ? { where: `${exchange.method} ${new URL(exchange.url).pathname}`, actual: exchange.status }
      : {}),
  });

/**
 * A postcondition that failed: thrown when the run judges its requirement (MUST, SHOULD; the sdk
 * profile's wire facts), so the sequence stops and shrinks; noted as an observation when the run only
 * observes it (INFO), and the sequence goes on.
 */
export function violate(r: Real, finding: Finding): void {
  const id = finding.facts.requirement;
  if (id === undefined || r.world.judged(id)) throw finding;
  r.world.infoNotes.add(`${id}: ${finding.message}`);
}

/** The script's lines that generate take T<key> as `account` with its voice ($V1/$V2) and read its id. */
export function generateLines(account: AccountName, key: number, text: string): string[] {
  const voice = account === 'primary' ? 'V1' : 'V2';
  return [
    apiCall(account, 'POST', '/v1/speak/takes/generate', { voice_id: '__VOICE__', text }).replace(
      '"__VOICE__"',
      `"'"$${voice}"'"`,
    ),
    capture(`T${key}`, 'take_id'),
  ];
}

const has = (m: SequenceModel, account: AccountName) => m.accounts.includes(account);
const var_ = (t: { key: number }) => `T${t.key}`;

export class GenerateTake implements SequenceCommand {
  constructor(
    readonly account: AccountName,
    readonly text: string,
  ) {}
  check(m: Readonly<SequenceModel>): boolean {
    return has(m, this.account) && canGenerate(m as SequenceModel);
  }
  async run(m: SequenceModel, r: Real): Promise<void> {
    const take = addTake(m, this.account, this.text, 'rest');
    const body = { voice_id: r.voice(this.account), text: this.text };
    r.step(
      `${var_(take)} = generate a take as ${this.account}: ${show(this.text)}`,
      generateLines(this.account, take.key, this.text),
    );
    const repeat = repeatsInput(m, take);
    const exchange = await r.client(this.account).post('/v1/speak/takes/generate', body);
    const json = exchange.json as { take_id?: unknown; voice_id?: unknown } | undefined;
    if (statusClass(exchange.status) !== '2xx' || typeof json?.take_id !== 'string')
      throw fail(
        repeat ? 'SEQ-REPEAT-NEW-TAKE' : 'SEQ-TAKE-LISTED-AFTER-CHANGES',
        `take generation as ${this.account} answered ${exchange.status} without a take_id: ${show(exchange.text)}`,
        exchange,
      );
    take.takeId = json.take_id;
    take.voiceId = body.voice_id;
    r.track(this.account, json.take_id);
    if (repeat) m.observed.add('SEQ-REPEAT-NEW-TAKE');
    if (!isNewTakeId(m, json.take_id, take)) {
      const earlier = m.takes.find((t) => t !== take && t.takeId === json.take_id)!;
      throw fail(
        'SEQ-REPEAT-NEW-TAKE',
        `generating ${show(this.text)} again answered take ${json.take_id}, the id of T${earlier.key} made earlier in the sequence: a new job must be a new take`,
        exchange,
      );
    }
  }
  toString(): string {
    return `GenerateTake(${this.account}, ${JSON.stringify(this.text)})`;
  }
}

/**
 * A command on one take of the customer: the n-th (wrapping) of those it may act on (`candidates`),
 * so the parameter shrinks towards the first and a sequence stays valid when steps are removed.
 */
abstract class OnTake implements SequenceCommand {
  constructor(
    readonly account: AccountName,
    readonly n: number,
  ) {}
  protected abstract candidates(m: SequenceModel): ModelTake[];
  protected target(m: SequenceModel): ModelTake | undefined {
    return pick(this.candidates(m), this.n);
  }
  check(m: Readonly<SequenceModel>): boolean {
    return has(m, this.account) && this.target(m as SequenceModel) !== undefined;
  }
  abstract run(m: SequenceModel, r: Real): Promise<void>;
}

export class GetTake extends OnTake {
  protected candidates(m: SequenceModel) {
    return takesOf(m, this.account);
  }
  async run(m: SequenceModel, r: Real): Promise<void> {
    const take = this.target(m)!;
    const path = `/v1/speak/takes/${r.idOf(take)}`;
    r.step(`GET ${var_(take)} as ${this.account}${take.deleted ? ' (deleted earlier)' : ''}`, [
      apiCall(this.account, 'GET', `/v1/speak/takes/$${var_(take)}`),
    ]);
    const exchange = await r.client(this.account).get(path);
    const got = statusClass(exchange.status);
    if (expectTakeGet(take) === 'gone') {
      goneAnswer(m, r, exchange, `GET of T${take.key}, deleted earlier in the sequence,`);
      return;
    }
    const json = exchange.json as Record<string, unknown> | undefined;
    if (
      got !== '2xx' ||
      json?.take_id !== take.takeId ||
      json?.text !== take.text ||
      json?.voice_id !== take.voiceId
    )
      throw fail(
        'SEQ-TAKE-GET-AGREES',
        `GET of T${take.key} (${take.takeId}) answered ${exchange.status} ${show(exchange.text)}; the model expects that take with text ${show(take.text)} and voice ${take.voiceId}`,
        exchange,
      );
    m.observed.add('SEQ-TAKE-GET-AGREES');
  }
  override toString(): string {
    return `GetTake(${this.account}, ${this.n})`;
  }
}

/**
 * What an answer about a deleted take must be: a client error (SEQ-ERROR-AFTER-CHANGE-4XX, never a
 * 5xx), and not the take or its audio (SEQ-DELETED-TAKE-GONE, a wire fact: 404 when unknown).
 */
export function goneAnswer(m: SequenceModel, r: Real, exchange: Exchange, what: string): void {
  const got = statusClass(exchange.status);
  m.observed.add('SEQ-ERROR-AFTER-CHANGE-4XX');
  if (got === '5xx' || got === 'other')
    throw fail(
      'SEQ-ERROR-AFTER-CHANGE-4XX',
      `${what} answered ${exchange.status}: ${show(exchange.text)}; a request about an item the client deleted is a client error (4xx), not a server error`,
      exchange,
    );
  if (exchange.status !== 404)
    violate(
      r,
      fail(
        'SEQ-DELETED-TAKE-GONE',
        `${what} answered ${exchange.status}${exchange.headers.location ? ` (Location ${exchange.headers.location.split('?')[0]})` : ''}: ${show(exchange.text)}; a deleted take is unknown (404)`,
        exchange,
      ),
    );
  // Judged (or, INFO, noted) only past the 5xx check above: a sequence stopped there did not judge it.
  m.observed.add('SEQ-DELETED-TAKE-GONE');
}

export class DeleteTake extends OnTake {
  protected candidates(m: SequenceModel) {
    return liveTakes(m, this.account);
  }
  override check(m: Readonly<SequenceModel>): boolean {
    return super.check(m) && canDelete(m as SequenceModel, this.account);
  }
  async run(m: SequenceModel, r: Real): Promise<void> {
    const take = this.target(m)!;
    r.step(`DELETE ${var_(take)} as ${this.account}`, [
      apiCall(this.account, 'DELETE', `/v1/speak/takes/$${var_(take)}`),
    ]);
    const exchange = await r.client(this.account).delete(`/v1/speak/takes/${r.idOf(take)}`);
    // Sent again after its first attempt got no answer, then 404: the first may have deleted it, so
    // the answer is not judged (src/checks/exchange.ts), and it says nothing of whether the server
    // deletes at all. A server known to delete deleted it; otherwise what it holds is unknown.
    if (deleteAnswerUnknowable(exchange)) {
      if (m.learned.deleteOffered === true) recordDeleted(take);
      else forgetTake(take);
      return;
    }
    // The wire facts' delete is not the contract's: a server that does not offer it is not judged on it.
    if (m.learned.deleteOffered === undefined && [404, 405, 501].includes(exchange.status)) {
      m.learned.deleteOffered = false;
      return;
    }
    if (statusClass(exchange.status) !== '2xx') {
      violate(
        r,
        fail(
          'SEQ-DELETED-TAKE-GONE',
          `DELETE of T${take.key} (${take.takeId}, made in this sequence) as ${this.account} answered ${exchange.status}: ${show(exchange.text)}`,
          exchange,
        ),
      );
      return;
    }
    m.learned.deleteOffered = true;
    recordDeleted(take);
  }
  override toString(): string {
    return `DeleteTake(${this.account}, ${this.n})`;
  }
}

/** A request about a deleted take: GET again, its wav audio, or DELETE again. */
export class TouchDeleted extends OnTake {
  constructor(
    account: AccountName,
    n: number,
    readonly how: 'wav' | 'delete',
  ) {
    super(account, n);
  }
  protected candidates(m: SequenceModel) {
    return deletedTakes(m, this.account);
  }
  async run(m: SequenceModel, r: Real): Promise<void> {
    const take = this.target(m)!;
    const client = r.client(this.account);
    if (this.how === 'wav') {
      r.step(`GET the wav of ${var_(take)} (deleted) as ${this.account}`, [
        apiCall(this.account, 'GET', `/v1/speak/takes/$${var_(take)}/wav`),
      ]);
      const exchange = await client.get(`/v1/speak/takes/${r.idOf(take)}/wav`);
      goneAnswer(m, r, exchange, `GET /wav of T${take.key}, deleted earlier in the sequence,`);
      return;
    }
    r.step(`DELETE ${var_(take)} again as ${this.account}`, [
      apiCall(this.account, 'DELETE', `/v1/speak/takes/$${var_(take)}`),
    ]);
    const exchange = await client.delete(`/v1/speak/takes/${r.idOf(take)}`);
    goneAnswer(m, r, exchange, `a second DELETE of T${take.key}`);
  }
  override toString(): string {
    return `TouchDeleted(${this.account}, ${this.n}, ${this.how})`;
  }
}

/** The account's takes as one list filtered to every id the sequence made for it (deleted ones too). */
function filterOf(m: SequenceModel, account: AccountName): string[] {
  return takesOf(m, account).map((t) => t.takeId!);
}

const filterVariables = (m: SequenceModel, account: AccountName) =>
  takesOf(m, account)
    .map((t) => `$${var_(t)}`)
    .join(',');

async function listIds(
  r: Real,
  account: AccountName,
  query: Record<string, string | number>,
): Promise<string[]> {
  const exchange = await r.client(account).get('/v1/speak/takes', { query });
  if (exchange.status !== 200 || !Array.isArray(exchange.json))
    throw fail(
      'SEQ-TAKE-LISTED-AFTER-CHANGES',
      `GET /v1/speak/takes ${show(query)} as ${account} answered ${exchange.status}: ${show(exchange.text)}`,
      exchange,
    );
  return (exchange.json as Array<{ take_id?: unknown }>).map((item) => String(item.take_id));
}

/**
 * The whole filtered list (src/checks/whole-list.ts): one answer, and when it is shorter than the
 * filter the server may have a default page size of its own (the answer's length, even 1: "Default
 * page size … not shown"), so the list read again in pages of that size, the one the server chose.
 */
export async function wholeList(r: Real, account: AccountName, ids: readonly string[]): Promise<string[]> {
  const first = await listIds(r, account, { take_id: ids.join(',') });
  // A filter of a sequence's few takes: never near WHOLE_LIST_MAX_PAGES pages.
  const whole = await readWholeList(first, {
    readPage: (page, length) => listIds(r, account, { take_id: ids.join(','), length, page }),
    idOf: (id) => id,
    firstPage: () => firstPage(r, account, ids, first[0]!),
    length: first.length,
    complete: first.length >= ids.length,
  });
  return whole.items;
}

/**
 * The first page number ("whether pages are counted from 0 or 1: not shown"), learned once the
 * server showed it; until then each read starts from page 1 and the next one asks again.
 */
async function firstPage(
  r: Real,
  account: AccountName,
  ids: readonly string[],
  firstId: string,
): Promise<number> {
  const probe = async (page: number, length: number) => {
    const exchange = await r.client(account).get('/v1/speak/takes', {
      query: { take_id: ids.join(','), length, page },
    });
    return probedPage(exchange).map((item) => String((item as { take_id?: unknown }).take_id));
  };
  r.world.firstPage ??= await firstPageNumber(probe, (id) => id, firstId);
  return r.world.firstPage ?? ASSUMED_FIRST_PAGE;
}

export class ListTakes implements SequenceCommand {
  constructor(
    readonly account: AccountName,
    /** Undefined: the whole filtered list; else read in pages of this length. */
    readonly length: number | undefined,
  ) {}
  check(m: Readonly<SequenceModel>): boolean {
    return has(m, this.account) && takesOf(m as SequenceModel, this.account).length > 0;
  }
  async run(m: SequenceModel, r: Real): Promise<void> {
    const ids = filterOf(m, this.account);
    const vars = filterVariables(m, this.account);
    r.step(`list the takes of ${this.account} filtered to the sequence's ${ids.length}`, [
      apiCall(this.account, 'GET', `/v1/speak/takes?take_id=${vars}`),
    ]);
    const whole = await wholeList(r, this.account, ids);
    const problems = listProblems(m, this.account, whole);
    if (problems.length > 0) {
      const ghostsOnly = problems.every((p) => p.startsWith('still lists'));
      violate(
        r,
        fail(
          ghostsOnly ? 'SEQ-DELETED-TAKE-GONE' : 'SEQ-TAKE-LISTED-AFTER-CHANGES',
          `the take list of ${this.account} filtered to the sequence's takes: ${problems.join('; ')}`,
        ),
      );
      return;
    }
    m.observed.add('SEQ-TAKE-LISTED-AFTER-CHANGES');
    if (this.length === undefined || whole.length < 2) return;
    await this.pages(m, r, ids, vars, whole);
  }

  /** Pages of `length`, read one after another; judged only when the whole list read around them did not move. */
  private async pages(
    m: SequenceModel,
    r: Real,
    ids: string[],
    vars: string,
    whole: string[],
  ): Promise<void> {
    const length = this.length!;
    const base = await firstPage(r, this.account, ids, whole[0]!);
    const pages: string[][] = [];
    const count = Math.ceil(whole.length / length);
    for (let page = base; page < base + count + 1; page++) {
      r.step(`page ${page} of length ${length}`, [
        apiCall(this.account, 'GET', `/v1/speak/takes?take_id=${vars}&length=${length}&page=${page}`),
      ]);
      pages.push(await listIds(r, this.account, { take_id: ids.join(','), length, page }));
    }
    // A take that changed status meanwhile may move in a server's order: judge a stable list only.
    const after = await wholeList(r, this.account, ids);
    if (after.join() !== whole.join()) return;
    const problems = pagesProblems(pages, whole, length, { firstPage: base });
    recordPaged(m, this.account, pages.length);
    if (problems.length > 0)
      throw fail(
        'SEQ-LIST-PAGES-AFTER-CHANGES',
        `pages of length ${length} (from page ${base}) of the takes of ${this.account}: ${problems.join('; ')}`,
      );
  }
  toString(): string {
    return `ListTakes(${this.account}, ${this.length ?? 'whole'})`;
  }
}
