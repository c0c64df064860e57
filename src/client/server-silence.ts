/**
 * A server that answers nothing at all is learned once per run, beside a route that does not answer
 * (./route-silence.ts): a request got no answer within its bound, nothing else of the run was
 * answered meanwhile, and the server's root did not answer either. The run then knows (a run-wide
 * fact, src/facts): a later request does not wait out its own bound but asks the root again (one
 * question at a time per thread, at most every SERVER_RECHECK_MS) and, while the server stays
 * silent, concludes at once with the fact's sentence. What the test needed is not concluded, never
 * failed: a whole server's stall says nothing about one route (src/harness/disposition.ts).
 * A server that answers again (its root, or any request) is served as before.
 */
import { redactText } from '../evidence/redact.ts';
import { type FactOf, type FactStore, runFacts } from '../facts/run-facts.ts';
import type { ClientDiagnostic } from './diagnostics.ts';

/** How often a thread asks a silent server's root again. */
export const SERVER_RECHECK_MS = 5_000;
/**
 * How long the root is given then: a root that answers at all answers in far less, and a server that
 * takes longer is asked again SERVER_RECHECK_MS later (the request learned from had its whole bound).
 */
export const SERVER_RECHECK_BOUND_MS = 2_000;
let recheckMs = SERVER_RECHECK_MS;

/** Tests: a shorter interval between questions to a silent server's root (undefined: the default). */
export function setServerRecheckMsForTests(ms?: number): void {
  recheckMs = ms ?? SERVER_RECHECK_MS;
}

/** The origin of `url` (`https://api.example.com`), or the URL itself when it does not parse. */
export function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

export class ServerSilence {
  readonly key: `server:${string}`;

  constructor(
    /** `https://api.example.com` */
    readonly origin: string,
    private readonly facts: FactStore = runFacts(),
  ) {
    this.key = `server:${origin}`;
  }

  /** The fact that the server answers nothing, when it is the run's latest word on the server. */
  silent(): FactOf<'server-silent'> | undefined {
    const mine = this.facts.all().filter((f) => f.key === this.key);
    const last = mine[mine.length - 1];
    return last?.type === 'server-silent' ? last : undefined;
  }

  /** A request got no answer, nor did the root, while nothing else was answered: the run knows. */
  learn(diagnostic: string, boundMs: number): FactOf<'server-silent'> {
    const known = this.silent();
    if (known) return known;
    const route = `any request to ${this.origin}`;
    this.facts.record({
      key: this.key,
      type: 'server-silent',
      consequence: { kind: 'blocks' },
      sentence: `the server at ${this.origin} answered nothing, not even at its root: ${redactText(diagnostic)}`,
      boundMs,
      outage: { route, statuses: [], answers: 1, spanMs: boundMs, servedElsewhere: 0 },
    });
    // Its root was asked just now: the next question waits its interval.
    rechecks.set(this.key, { atMs: Date.now() });
    return this.facts
      .ofType('server-silent')
      .filter((f) => f.key === this.key)
      .at(-1)!;
  }

  /** The server answered: it is served again (written only while it was known silent). */
  answered(): void {
    if (this.silent()) this.facts.record({ key: this.key, type: 'server-answered-again' });
  }
}

/**
 * Marks a 'hung' diagnostic as the whole server's silence: what the test needed is not concluded,
 * never a finding against the request's route (src/harness/disposition.ts).
 */
export function asServerSilence(diagnostic: ClientDiagnostic): ClientDiagnostic {
  diagnostic.serverSilent = true;
  return diagnostic;
}

/** Per thread and server: when its root was last asked, and the question in flight. */
const rechecks = new Map<string, { atMs: number; pending?: Promise<void> }>();

/**
 * Whether the server is still silent, asking its root (`probe`, within SERVER_RECHECK_BOUND_MS)
 * first when the thread has not asked for SERVER_RECHECK_MS; requests meanwhile share the question
 * in flight and its answer.
 */
export async function stillSilent(
  server: ServerSilence,
  probe: (boundMs: number) => Promise<unknown>,
): Promise<FactOf<'server-silent'> | undefined> {
  const fact = server.silent();
  if (!fact) return undefined;
  let recheck = rechecks.get(server.key);
  if (!recheck) {
    recheck = { atMs: 0 };
    rechecks.set(server.key, recheck);
  }
  if (!recheck.pending && Date.now() - recheck.atMs >= recheckMs) {
    const current = recheck;
    current.pending = probe(Math.min(fact.boundMs, SERVER_RECHECK_BOUND_MS))
      .then(() => undefined)
      .finally(() => {
        current.atMs = Date.now();
        current.pending = undefined;
      });
  }
  await recheck.pending;
  return server.silent();
}

/** Forgets when roots were asked (tests). */
export function resetServerRechecks(): void {
  rechecks.clear();
}
