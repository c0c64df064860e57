/**
 * One HTTP exchange with undici, bounded in every way: connect, headers, body stall, total time and
 * body size. Redirects are never followed here (the caller decides, see fetchSigned). Every exchange,
 * failed or not, is recorded as redacted evidence.
 *
 * Back-pressure (429, 503: ./back-pressure.ts) is not an answer: `send` waits as the server asks
 * (Retry-After, else exponential backoff with jitter) and sends again, paced by the run-wide
 * throttle. Every attempt is evidence; the caller only ever sees the final answer that was not
 * back-pressure, or, when the request's bound or the run's budget runs out first, a
 * ClientDiagnostic of kind 'throttled' (a requirement it leaves unjudged is not concluded, never
 * failed).
 */
import { Agent, request } from 'undici';
import { evidenceFor, recordEvidence } from '../evidence/evidence.ts';
import { redactUrl } from '../evidence/redact.ts';
import { BackPressure, isBackPressure, runThrottle } from './back-pressure.ts';
import { ClientDiagnostic, describeBody, diagnoseNetworkError } from './diagnostics.ts';
import { type HttpMethod, httpMethod, isIdempotent, routeOf } from './route.ts';
import { answerBoundMs, observeAnswer, RouteSilence } from './route-silence.ts';
import { asServerSilence, originOf, ServerSilence, stillSilent } from './server-silence.ts';
import { trustedCa } from './tls-trust.ts';

export interface Exchange {
  method: string;
  url: string;
  status: number;
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  body: Buffer;
  text: string;
  /** The parsed body when the content type says JSON and it parses; undefined otherwise. */
  json: unknown;
  ms: number;
  /** How long the status line and headers took (the first answer), when measured. */
  headersMs?: number;
  /** The id of its evidence entry (src/evidence/evidence.ts): a finding about it names it by this. */
  evidenceId?: number;
  /**
   * Sent again because its first attempt got no answer (`send`, an idempotent request): the first
   * may still have been carried out, so an answer that depends on the state (a DELETE's 404) says
   * nothing of this request's own effect (src/checks/exchange.ts deleteAnswerUnknowable).
   */
  resentAfterNoAnswer?: true;
}

export interface SendOptions {
  method: string;
  url: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  timeoutMs: number;
  maxBytes?: number;
  /** Called once the status line and headers arrived, before the body is read (not for back-pressure). */
  onHeaders?: (status: number) => void;
  /** The longest this request waits on back-pressure before giving up (default PER_REQUEST_THROTTLE_MS). */
  throttleBoundMs?: number;
  /** Called once, when the first byte of the body arrived (the body may stream for long after). */
  onFirstByte?: () => void;
  /**
   * Stop reading the body once this many bytes arrived (the exchange keeps what came): for a caller
   * that judges only whether a body was delivered, not its whole, from a server that may stream it
   * for as long as a take is spoken.
   */
  readUpTo?: number;
  /**
   * Called right before each attempt, after any wait on back-pressure: what it returns replaces the
   * URL and is merged into the headers of that attempt. So a credential (an access token, a signed
   * URL) is read, and renewed when stale, at the moment it is sent, not before the run's own waits
   * (src/client/lifetime.ts).
   */
  prepare?: () => Promise<AttemptChanges | undefined> | AttemptChanges | undefined;
  /** 'second': the run's second identity sends it (recorded with the evidence). */
  account?: 'second';
  /**
   * The route the request belongs to (./route.ts), when not the one its URL shows: a signed URL's
   * host is a route of its own whatever its path (signedRoute).
   */
  route?: string;
  /**
   * The caller bounded this request as a stream a server may legitimately hold open before its
   * first byte (a wav of a take still synthesizing, bounded by the ready time): `timeoutMs` alone
   * bounds it, no bound learned from the route's other answers shortens it.
   */
  stream?: boolean;
}

/** What `prepare` changes for one attempt. */
export interface AttemptChanges {
  url?: string;
  headers?: Record<string, string>;
}

export const DEFAULT_MAX_BYTES = 64 * 1024 * 1024;
const CONNECT_TIMEOUT_MS = 5_000;

let agent: Agent | undefined;
/** The CA list the agent was made with: a `--ca-file` given later makes a new agent. */
let agentCa: readonly string[] | undefined;
function sharedAgent(): Agent {
  const ca = trustedCa();
  if (agent && agentCa !== ca) {
    void agent.close().catch(() => undefined);
    agent = undefined;
  }
  agentCa = ca;
  agent ??= new Agent({
    // `ca` replaces Node's roots: trustedCa() is the system roots plus the --ca-file.
    connect: { timeout: CONNECT_TIMEOUT_MS, ...(ca ? { ca: [...ca] } : {}) },
    keepAliveTimeout: 4_000,
    pipelining: 1,
  });
  return agent;
}

/** Closes pooled connections (end of a file / of a CLI command) so the process can exit. */
export async function closeHttp(): Promise<void> {
  const current = agent;
  agent = undefined;
  await current?.close().catch(() => current.destroy());
}

/**
 * One request as the caller sees it: sent again while the server answers with back-pressure, each
 * attempt paced by the run-wide throttle and recorded as evidence.
 *
 * Why sending again is right for every method, POST included: a 429 says the server refused to
 * process the request (RFC 6585 §4: it is answered "because the user has sent too many requests",
 * before any work), so nothing was created that a second POST could duplicate. A 503 says the
 * server is "currently unable to handle the request" (RFC 9110 §15.6.4), which an origin answers
 * before acting; the caveat is a gateway in front that times out after forwarding: then a
 * generation may have happened and a retried POST makes a second one. The run tracks what it
 * creates by the ids it gets back, so such a twin is an extra item on the server, never a wrong
 * verdict.
 */
export async function send(o: SendOptions): Promise<Exchange> {
  const route = o.route ?? routeOf(o.method, o.url);
  // Redacted: it reaches diagnostics and the run's facts (a signed URL's signature is a secret).
  const what = `${o.method.toUpperCase()} ${redactUrl(o.url)}`;
  const throttle = runThrottle();
  const backPressure = new BackPressure(what, o.url, o.throttleBoundMs, throttle, route);
  const silence = new RouteSilence(route, () => throttle.answered());
  const server = new ServerSilence(originOf(o.url));
  // One no-answer is no verdict: an idempotent request asks once more (RFC 9110 §9.2.2), so a
  // route that never answers is learned from this request alone (./route-silence.ts).
  const method = httpMethod(o.method);
  let askAgain = !o.stream && route !== LIVENESS_ROUTE && method !== undefined && isIdempotent(method);
  let resent = false;
  for (;;) {
    const unanswered = silence.unanswered();
    if (unanswered)
      throw routed(
        new ClientDiagnostic(
          'hung',
          `${unanswered.sentence ?? `${route} does not answer`}; ${what} was not sent (the route does not answer for the rest of the run)`,
          o.url,
        ),
        route,
        method,
        true,
      );
    // A server the run learned answers nothing: its root asked again now and then, never this
    // request's own bound waited out (./server-silence.ts).
    const silent =
      route === LIVENESS_ROUTE ? undefined : await stillSilent(server, (ms) => probeServer(o.url, ms));
    if (silent) {
      const sentence = `${silent.sentence}; ${what} was not sent (asked again when the server answers)`;
      throw routed(asServerSilence(new ClientDiagnostic('hung', sentence, o.url)), route, method);
    }
    await backPressure.beforeAttempt();
    const changes = await o.prepare?.();
    const attempt = changes
      ? {
          ...o,
          ...(changes.url !== undefined ? { url: changes.url } : {}),
          headers: { ...(o.headers ?? {}), ...(changes.headers ?? {}) },
        }
      : o;
    // Learned from headers, the bound covers headers only (sendOnce): a body's first byte is the
    // caller's to bound, and a stream's whole wait is (o.stream).
    const answerMs = o.stream ? attempt.timeoutMs : answerBoundMs(route, attempt.timeoutMs);
    // Answers counted from here: only those that came while this route was silent say the server is up.
    const servedBefore = throttle.answered();
    let exchange: Exchange;
    try {
      exchange = await sendOnce(attempt, answerMs, () => silence.unanswered()?.sentence);
    } catch (err) {
      if (err instanceof ClientDiagnostic && noAnswers.has(err)) {
        if (route !== LIVENESS_ROUTE) {
          // The server known silent meanwhile: this no-answer is the server's, not the route's.
          if (server.silent()) throw routed(asServerSilence(err), route, method);
          // Whether the server is up at all (a full stall is its outage, not this route's) is asked
          // at its root: neither it nor anything else of the run answering meanwhile is the whole
          // server's silence, learned for the run (answers counted from the question: one to a
          // request sent before a stall says nothing of the stall).
          const answeredBeforeProbe = throttle.answered();
          const rootAnswered = await probeServer(attempt.url, answerMs);
          if (server.silent() || (!rootAnswered && throttle.answered() === answeredBeforeProbe)) {
            server.learn(err.message, answerMs);
            throw routed(asServerSilence(err), route, method);
          }
        }
        const learned = silence.noAnswer(err.message, answerMs, servedBefore);
        if (learned)
          throw routed(
            new ClientDiagnostic(
              'hung',
              `${err.message}; ${learned.sentence ?? `${route} does not answer`}: the route does not answer for the rest of the run`,
              o.url,
            ),
            route,
            method,
            true,
          );
        if (askAgain) {
          askAgain = false;
          resent = true;
          continue;
        }
        routed(err, route, method);
      }
      if (err instanceof ClientDiagnostic && learnedWhileWaiting.has(err)) routed(err, route, method, true);
      throw err;
    }
    silence.answered();
    server.answered();
    observeAnswer(route, exchange.headersMs ?? exchange.ms);
    if (!isBackPressure(exchange.status)) {
      backPressure.answered();
      if (resent) exchange.resentAfterNoAnswer = true;
      return exchange;
    }
    await backPressure.throttled(exchange.status, exchange.headers['retry-after']);
  }
}

/** The route of the request that asks whether the server answers anything (any status will do). */
const LIVENESS_ROUTE = 'GET (is the server up) /';
const LIVENESS_TIMEOUT_MS = 5_000;

/** Whether the server answered anything (any status) at its root within the bound. */
async function probeServer(url: string, boundMs: number): Promise<boolean> {
  let root: string;
  try {
    root = new URL('/', url).toString();
  } catch {
    return true; // no root to ask: nothing learned of the server
  }
  // No longer than the request it asks about was given: a short bound stays short.
  const timeoutMs = Math.min(LIVENESS_TIMEOUT_MS, boundMs);
  // Back-pressure is an answer too: a server that rate-limits is up.
  return send({
    method: 'GET',
    url: root,
    route: LIVENESS_ROUTE,
    timeoutMs,
    throttleBoundMs: timeoutMs,
  }).then(
    () => true,
    (e: unknown) => e instanceof ClientDiagnostic && e.kind === 'throttled',
  );
}

/**
 * Diagnostics of an attempt that got no answer within its bound: no headers, or headers and then
 * no first byte of the body (./route-silence.ts counts them per route).
 */
const noAnswers = new WeakSet<ClientDiagnostic>();
/** Diagnostics of an attempt that stopped waiting because the run learned its route does not answer. */
const learnedWhileWaiting = new WeakSet<ClientDiagnostic>();
/** How often a request waiting for its first answer asks whether the run learned its route does not answer. */
const LEARNED_POLL_MS = 1_000;

/**
 * Names the route a 'hung' diagnostic is about (./diagnostics.ts `route`), and whether the run
 * learned the route does not answer (`learned`: a run-wide fact) or the no-answer is this request's
 * own (a POST not sent again, a stream, a server that answered nothing else meanwhile).
 */
function routed(
  diagnostic: ClientDiagnostic,
  route: string,
  method: HttpMethod | undefined,
  learned = false,
): ClientDiagnostic {
  diagnostic.route = route;
  if (method !== undefined) diagnostic.method = method;
  if (learned) diagnostic.routeLearned = true;
  return diagnostic;
}

/** `GET (signed URL) storage.example.com`: every signed URL of one host is one route. */
export function signedRoute(url: string): string {
  let host: string;
  try {
    host = new URL(url).host;
  } catch {
    host = '?';
  }
  return `GET (signed URL) ${host}`;
}

/**
 * One attempt: one exchange, recorded as evidence. `answerMs` bounds the response headers (the
 * phase it was learned from); `o.timeoutMs` the whole exchange, the body's first byte included: a
 * server may send headers at once and hold a stream's first byte while it synthesizes.
 */
async function sendOnce(
  o: SendOptions,
  answerMs: number = o.timeoutMs,
  learned: () => string | undefined = () => undefined,
): Promise<Exchange> {
  const started = performance.now();
  let headersMs: number | undefined;
  const method = o.method.toUpperCase();
  const requestHeaders = { ...(o.headers ?? {}) };
  const signal = AbortSignal.timeout(o.timeoutMs);
  // The headers' own bound (cleared once they came); the run learning the route's silence ends the
  // wait for headers or for the body's first byte.
  const firstAnswer = new AbortController();
  const answerTimer = setTimeout(() => firstAnswer.abort(), answerMs);
  // A request already waiting when the run learns its route does not answer stops waiting too.
  let learnedMeanwhile: string | undefined;
  const learnedPoll = setInterval(() => {
    learnedMeanwhile = learned();
    if (learnedMeanwhile !== undefined) firstAnswer.abort();
  }, LEARNED_POLL_MS);
  const firstAnswerCame = () => {
    clearTimeout(answerTimer);
    clearInterval(learnedPoll);
  };
  const maxBytes = o.maxBytes ?? DEFAULT_MAX_BYTES;
  let status: number | null = null;
  let headers: Record<string, string> = {};
  const chunks: Buffer[] = [];
  // One evidence entry per exchange, whether it completed or failed part way (then with what came).
  const record = (body: Buffer, ms: number, error?: string) =>
    recordEvidence(
      evidenceFor({
        method,
        url: o.url,
        requestHeaders,
        ...(o.body !== undefined
          ? { requestBody: o.body, requestContentType: requestHeaders['content-type'] }
          : {}),
        status,
        headers,
        body,
        ms,
        ...(error !== undefined ? { error } : {}),
        ...(o.account ? { account: o.account } : {}),
      }),
    );
  try {
    const response = await request(o.url, {
      method: method as 'GET',
      headers: requestHeaders,
      body: o.body ?? null,
      signal: AbortSignal.any([signal, firstAnswer.signal]),
      dispatcher: sharedAgent(),
      // The signals above end a silent exchange first (and say which bound ran out).
      headersTimeout: o.timeoutMs + 1_000,
      bodyTimeout: o.timeoutMs,
    });
    status = response.statusCode;
    clearTimeout(answerTimer);
    headersMs = performance.now() - started;
    headers = flattenHeaders(response.headers);
    if (!isBackPressure(status)) o.onHeaders?.(status);
    let size = 0;
    for await (const chunk of response.body) {
      const buffer = chunk as Buffer;
      size += buffer.length;
      if (size > maxBytes) {
        response.body.destroy();
        throw new ClientDiagnostic(
          'too-large',
          `the response body exceeded ${maxBytes} bytes (${method} ${redactUrl(o.url)})`,
          o.url,
        );
      }
      // A throttled attempt is no answer: its body is not the first byte of the one awaited.
      if (size === buffer.length) firstAnswerCame();
      if (!isBackPressure(status) && buffer.length > 0 && size === buffer.length) o.onFirstByte?.();
      chunks.push(buffer);
      if (o.readUpTo !== undefined && !isBackPressure(status) && size >= o.readUpTo) break;
    }
  } catch (err) {
    const unanswered = firstAnswer.signal.aborted && !signal.aborted && learnedMeanwhile === undefined;
    const diagnostic = learnedMeanwhile
      ? new ClientDiagnostic(
          'hung',
          `${learnedMeanwhile}; ${method} ${redactUrl(o.url)} stopped waiting after ${Math.round(performance.now() - started)} ms (the route does not answer for the rest of the run)`,
          o.url,
        )
      : unanswered
        ? new ClientDiagnostic(
            'hung',
            `got no response headers within ${answerMs} ms (${method} ${redactUrl(o.url)})`,
            o.url,
          )
        : diagnoseNetworkError(err, {
            method,
            url: o.url,
            timeoutMs: o.timeoutMs,
            timedOut: signal.aborted,
            phase: status === null ? 'headers' : 'body',
          });
    if (learnedMeanwhile) learnedWhileWaiting.add(diagnostic);
    else if (unanswered || (signal.aborted && chunks.length === 0)) noAnswers.add(diagnostic);
    record(Buffer.concat(chunks), performance.now() - started, diagnostic.message);
    throw diagnostic;
  } finally {
    firstAnswerCame();
  }
  const body = Buffer.concat(chunks);
  const ms = performance.now() - started;
  const evidenceId = record(body, ms);
  return makeExchange({
    method,
    url: o.url,
    status,
    headers,
    body,
    ms,
    ...(headersMs !== undefined ? { headersMs } : {}),
    ...(evidenceId !== undefined ? { evidenceId } : {}),
  });
}

function flattenHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value !== undefined) out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

function isJsonType(contentType: string | undefined): boolean {
  return /^application\/([\w.+-]+\+)?json\b/i.test(contentType?.trim() ?? '');
}

/**
 * A body under another content type (text/plain) that starts like a JSON object or array: read as
 * JSON, as the vendor's SDK does, so a server that only mislabels its JSON is judged for that one
 * fault (API-JSON-BODIES, ERR-CONTENT-TYPE look at the content type) rather than for everything.
 */
function looksLikeJson(body: Buffer): boolean {
  const first = body.find((byte) => byte !== 0x20 && byte !== 0x0a && byte !== 0x0d && byte !== 0x09);
  return first === 0x7b || first === 0x5b; // { or [
}

export function makeExchange(o: Omit<Exchange, 'text' | 'json'>): Exchange {
  let text: string | undefined;
  let json: unknown;
  let parsed = false;
  const exchange = { ...o } as Exchange;
  // Text and JSON are computed on first use: audio bodies are megabytes nobody reads as text.
  Object.defineProperty(exchange, 'text', {
    enumerable: true,
    get: () => {
      text ??= o.body.toString('utf8');
      return text;
    },
  });
  Object.defineProperty(exchange, 'json', {
    enumerable: true,
    get: () => {
      if (!parsed) {
        parsed = true;
        if ((isJsonType(o.headers['content-type']) || looksLikeJson(o.body)) && o.body.length > 0) {
          try {
            json = JSON.parse(o.body.toString('utf8'));
          } catch {
            json = undefined;
          }
        }
      }
      return json;
    },
  });
  return exchange;
}

/** The parsed JSON of an exchange, or a precise diagnostic of what came back instead. */
export function expectJson(exchange: Exchange, what = `${exchange.method} ${exchange.url}`): unknown {
  if (exchange.json !== undefined) return exchange.json;
  const type = exchange.headers['content-type'];
  const reason = isJsonType(type) ? 'a body that does not parse as JSON' : 'something other than JSON';
  throw new ClientDiagnostic(
    'not-json',
    `${what} answered ${exchange.status} with ${reason}: ${describeBody(type, exchange.body)}`,
    exchange.url,
  );
}
