/**
 * The real side of a sequence (suites/sequences.spec.ts): the server's clients per customer, the
 * sessions and websocket connections the sequence opened, the steps it ran (for the report and the
 * reproduction script), and cleanup. One Real per sequence; what outlives it (the customers' voices,
 * the page base the server showed) is the file's (`SequenceWorld`).
 */
import type { AccountName, ModelTake } from '../../src/checks/stateful/model.ts';
import type { ScriptStep } from '../../src/checks/stateful/script.ts';
import type {
  RequirementId,
  SpeakClient,
  SpeakContext,
  SpeakStreamConnection,
} from '../../src/harness/index.ts';

/** What the file made once for every sequence: a ready voice per customer, the clients, what the server showed. */
export interface SequenceWorld {
  speak: SpeakContext;
  accounts: readonly AccountName[];
  clients: Record<AccountName, SpeakClient | undefined>;
  voices: Record<AccountName, string | undefined>;
  /**
   * The voice each customer's sequences update (UpdateVoice): the second customer's own voice, and a
   * voice of the file's for the first (the run's shared voice is every file's: never updated).
   */
  updatable: Record<AccountName, (() => Promise<string>) | undefined>;
  credentials: Record<AccountName, { email: string; password: string } | undefined>;
  /** The number of the first page, once a paged read showed it ("pages are counted from 0 or 1: not shown"). */
  firstPage?: number;
  /** Whether the run judges `id` (MUST, SHOULD) or only observes it (INFO in its profile). */
  judged(id: RequirementId): boolean;
  /** What the sequences observed of requirements the run only observes (INFO), once each. */
  infoNotes: Set<string>;
  /** Takes the second customer made: the file deletes them at its end (the first customer's are tracked). */
  secondTakes: string[];
  /**
   * How many voice updates the run sent. Each sets a name and description no earlier one set: the
   * voices outlive a sequence, and an update to the value a voice already holds changes nothing, so
   * a server that shows the value before the update would pass every later candidate of a shrink.
   */
  updates: number;
}

export interface TokenPair {
  access_token: string;
  refresh_token: string;
}

export class Real {
  readonly sessions = new Map<number, TokenPair>();
  /** Per session: when its login was sent (epoch ms), for the run's logouts of its customer since. */
  readonly loggedInAtMs = new Map<number, number>();
  readonly sockets = new Map<number, SpeakStreamConnection>();
  readonly steps: ScriptStep[] = [];
  private requestCounter = 0;
  /** Per connection: the slowest first message of its requests so far (ms). */

  constructor(readonly world: SequenceWorld) {}

  client(account: AccountName): SpeakClient {
    const client = this.world.clients[account];
    if (!client)
      throw new Error(
        `no client for the ${account} customer (the command's precondition should have said so)`,
      );
    return client;
  }

  voice(account: AccountName): string {
    const voice = this.world.voices[account];
    if (!voice) throw new Error(`no voice for the ${account} customer`);
    return voice;
  }

  /** The voice the customer's updates change (made once per file, on first use). */
  updatableVoice(account: AccountName): Promise<string> {
    const voice = this.world.updatable[account];
    if (!voice) throw new Error(`no voice to update for the ${account} customer`);
    return voice();
  }

  /** Records a step before its call: the report's line and the script's lines. */
  step(title: string, lines: string[], o: { websocket?: boolean } = {}): void {
    this.steps.push({ title, lines, ...o });
  }

  /** The take's id for the server; it was set when its generation was answered. */
  idOf(take: ModelTake): string {
    if (take.takeId === undefined) throw new Error(`T${take.key} has no id (its generation failed)`);
    return take.takeId;
  }

  track(account: AccountName, takeId: string): void {
    if (account === 'primary') this.world.speak.track('take', takeId);
    else this.world.secondTakes.push(takeId);
  }

  /**
   * How long a request waits for its first message: the harness's own websocket request bound (the
   * run's request timeout), as every other suite's; a connection the run already learned silent is
   * concluded sooner by the run-wide silent-socket fact (src/client/ws-end-clock.ts).
   */
  firstMessageBound(): number {
    return this.world.speak.config.timeouts.requestMs;
  }

  nextRequestId(): number {
    this.requestCounter += 1;
    return this.requestCounter;
  }

  /** Closes the connections the sequence opened (its sessions need nothing: they are left to expire). */
  async close(): Promise<void> {
    await Promise.all([...this.sockets.values()].map((socket) => socket.close().catch(() => undefined)));
    this.sockets.clear();
  }
}

/**
 * A websocket request of a sequence that reached the harness's bound without evidence against the
 * server (a slow first status, a take slower than the ready bound): the sequence stops, and
 * SEQ-WS-REQUESTS-ANY-COUNT is not concluded by it (a timeout, never a verdict).
 */
export class SequenceTimeout extends Error {
  readonly code = 'SPEAKCHECK_SEQUENCE_TIMEOUT';
  constructor(message: string) {
    super(message);
    this.name = 'SequenceTimeout';
  }
}
