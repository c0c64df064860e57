/**
 * The commands on what only the wire facts offer besides delete: voice updates (POST
 * /v1/speak/voices/{id}, a partial body answered `true`) read back through every view, and batch
 * generation (an array of TakeGenerate bodies answered with an array of Takes in the same order).
 * Both are wire facts, not the contract: their findings are INFO (SHOULD in the sdk profile), and a
 * server that refuses them as a server without them would (the first call answered as an unknown
 * route, or the array as a malformed body) is not judged on them: not applicable (model.ts).
 */
import { Finding, show } from '../../src/checks/finding.ts';
import {
  type AccountName,
  addTake,
  batchProblems,
  canBatch,
  canUpdateVoice,
  notOffered,
  type SequenceModel,
  statusClass,
  voiceStatusNote,
  voiceViewProblems,
} from '../../src/checks/stateful/model.ts';
import { apiCall } from '../../src/checks/stateful/script-words.ts';
import type { Exchange } from '../../src/harness/index.ts';
import type { Real } from './real.ts';
import { type SequenceCommand, TEXTS, violate } from './take-commands.ts';

const has = (m: SequenceModel, account: AccountName) => m.accounts.includes(account);
/** The script's voice of the customer ($V1, $V2): the script makes one of its own. */
const voiceVar = (account: AccountName) => (account === 'primary' ? '$V1' : '$V2');

const finding = (
  id: 'SEQ-VOICE-UPDATE-EVERY-VIEW' | 'SEQ-VOICE-STATUS-THROUGH-CHANGES' | 'SEQ-BATCH-EVERY-TAKE',
  message: string,
  e: Exchange,
) =>
  new Finding(message, {
    requirement: id,
    where: `${e.method} ${new URL(e.url).pathname}`,
    actual: e.status,
  });

/** Which fields an update sends: a partial body, as the wire facts allow. */
export type UpdateFields = 'name' | 'description' | 'both';

export class UpdateVoice implements SequenceCommand {
  constructor(
    readonly account: AccountName,
    readonly fields: UpdateFields,
    readonly n: number,
  ) {}
  check(m: Readonly<SequenceModel>): boolean {
    return has(m, this.account) && canUpdateVoice(m as SequenceModel);
  }
  async run(m: SequenceModel, r: Real): Promise<void> {
    const voiceId = await r.updatableVoice(this.account);
    // A value no earlier update of the run set (SequenceWorld.updates): every update changes the voice.
    const k = `${this.n}.${++r.world.updates}`;
    const body: { name?: string; description?: string } = {};
    if (this.fields !== 'description') body.name = r.world.speak.prefix(`sequence-voice-${k}`);
    if (this.fields !== 'name') body.description = `Updated by a sequence (${k}).`;
    r.step(`update the voice of ${this.account}: ${show(body)}`, [
      apiCall(this.account, 'POST', `/v1/speak/voices/${voiceVar(this.account)}`, body),
    ]);
    const exchange = await r
      .client(this.account)
      .post(`/v1/speak/voices/${encodeURIComponent(voiceId)}`, body);
    if (m.learned.updateOffered === undefined && notOffered(exchange.status, 'route')) {
      m.learned.updateOffered = false;
      return;
    }
    if (statusClass(exchange.status) !== '2xx' || exchange.json !== true) {
      violate(
        r,
        finding(
          'SEQ-VOICE-UPDATE-EVERY-VIEW',
          `the update of the voice of ${this.account} answered ${exchange.status} ${show(exchange.text)}, not true`,
          exchange,
        ),
      );
      // What the server holds now is unknown: later views of this voice are not judged.
      delete m.voices[this.account];
      return;
    }
    m.learned.updateOffered = true;
    m.voices[this.account] = { ...m.voices[this.account], ...body };
  }
  toString(): string {
    return `UpdateVoice(${this.account}, ${this.fields}, ${this.n})`;
  }
}

/** A view of a voice the sequence updated: GET of it, or the voice list filtered to it. */
export class ReadVoice implements SequenceCommand {
  constructor(
    readonly account: AccountName,
    readonly view: 'get' | 'list',
  ) {}
  check(m: Readonly<SequenceModel>): boolean {
    return has(m, this.account) && m.voices[this.account] !== undefined;
  }
  async run(m: SequenceModel, r: Real): Promise<void> {
    const expected = m.voices[this.account]!;
    const voiceId = await r.updatableVoice(this.account);
    const client = r.client(this.account);
    let exchange: Exchange;
    let shown: unknown;
    if (this.view === 'get') {
      r.step(`GET the voice of ${this.account}`, [
        apiCall(this.account, 'GET', `/v1/speak/voices/${voiceVar(this.account)}`),
      ]);
      exchange = await client.get(`/v1/speak/voices/${encodeURIComponent(voiceId)}`);
      shown = exchange.json;
    } else {
      r.step(`list the voices of ${this.account} filtered to its voice`, [
        apiCall(this.account, 'GET', `/v1/speak/voices?voice_id=${voiceVar(this.account)}`),
      ]);
      exchange = await client.get('/v1/speak/voices', { query: { voice_id: voiceId } });
      shown = Array.isArray(exchange.json)
        ? (exchange.json as Array<{ voice_id?: unknown }>).find((v) => v?.voice_id === voiceId)
        : undefined;
    }
    const view = this.view === 'get' ? 'GET of the voice' : 'the voice list filtered to it';
    const problems =
      exchange.status !== 200
        ? [`answered ${exchange.status} ${show(exchange.text)}`]
        : shown === undefined
          ? [`does not hold the voice: ${show(exchange.text)}`]
          : voiceViewProblems(expected, shown);
    m.observed.add('SEQ-VOICE-UPDATE-EVERY-VIEW');
    if (problems.length > 0)
      violate(
        r,
        finding(
          'SEQ-VOICE-UPDATE-EVERY-VIEW',
          `after the sequence's last update of the voice of ${this.account}, ${view} shows ${problems.join('; ')}`,
          exchange,
        ),
      );
    if (shown === undefined) return;
    // Its status through the sequence: the contract shows none after ready (INFO, noted).
    m.observed.add('SEQ-VOICE-STATUS-THROUGH-CHANGES');
    const status = voiceStatusNote(shown);
    if (status !== undefined)
      violate(
        r,
        finding(
          'SEQ-VOICE-STATUS-THROUGH-CHANGES',
          `after an update of the voice of ${this.account}, ${view} shows ${status}`,
          exchange,
        ),
      );
  }
  toString(): string {
    return `ReadVoice(${this.account}, ${this.view})`;
  }
}

/** The script line that reads the k-th take_id (1-based) of a batch answer into a variable. */
const captureNth = (variable: string, k: number) =>
  `${variable}=$(printf '%s' "$BODY" | tr '{' '\\n' | field take_id | sed -n ${k}p)`;

export class BatchGenerate implements SequenceCommand {
  constructor(
    readonly account: AccountName,
    /** Indexes into TEXTS, one per body (2 to 4 bodies). */
    readonly texts: readonly number[],
  ) {}
  check(m: Readonly<SequenceModel>): boolean {
    return has(m, this.account) && canBatch(m as SequenceModel, this.texts.length);
  }
  async run(m: SequenceModel, r: Real): Promise<void> {
    const voice = r.voice(this.account);
    // Distinct texts in one batch: the order of the answer is judged by each take's text.
    const texts = this.texts.map((i, k) => `${TEXTS[i % TEXTS.length]} ${k + 1}.`);
    const takes = texts.map((text) => addTake(m, this.account, text, 'rest'));
    const bodies = texts.map((text) => ({ voice_id: '__VOICE__', text }));
    const v = this.account === 'primary' ? 'V1' : 'V2';
    r.step(
      `${takes.map((t) => `T${t.key}`).join(', ')} = a batch of ${texts.length} as ${this.account}: ${show(texts)}`,
      [
        apiCall(this.account, 'POST', '/v1/speak/takes/generate', bodies).replaceAll(
          '"__VOICE__"',
          `"'"$${v}"'"`,
        ),
        ...takes.map((t, k) => captureNth(`T${t.key}`, k + 1)),
      ],
    );
    const exchange = await r.client(this.account).post(
      '/v1/speak/takes/generate',
      bodies.map((b) => ({ ...b, voice_id: voice })),
    );
    const answered = exchange.json;
    if (Array.isArray(answered))
      for (const t of answered as Array<{ take_id?: unknown }>)
        if (typeof t?.take_id === 'string') r.track(this.account, t.take_id);
    if (m.learned.batchOffered === undefined && notOffered(exchange.status, 'body')) {
      m.learned.batchOffered = false;
      m.takes.splice(m.takes.length - takes.length, takes.length);
      return;
    }
    const problems =
      statusClass(exchange.status) === '2xx'
        ? batchProblems(texts, answered)
        : [`answered ${exchange.status} ${show(exchange.text)}`];
    if (problems.length > 0) {
      // Which take is which is unknown: the batch's takes leave the model (the list filter names only known ids).
      m.takes.splice(m.takes.length - takes.length, takes.length);
      violate(
        r,
        finding(
          'SEQ-BATCH-EVERY-TAKE',
          `a batch of ${texts.length} as ${this.account}: ${problems.join('; ')}`,
          exchange,
        ),
      );
      return;
    }
    m.learned.batchOffered = true;
    (answered as Array<{ take_id: string }>).forEach((t, k) => {
      takes[k]!.takeId = t.take_id;
      takes[k]!.voiceId = voice;
    });
    // Past the fixed scenario's two bodies: what only a sequence brings about.
    if (texts.length >= 3) m.observed.add('SEQ-BATCH-EVERY-TAKE');
  }
  toString(): string {
    return `BatchGenerate(${this.account}, [${this.texts.join(', ')}])`;
  }
}
