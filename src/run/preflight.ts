/**
 * Before any suite runs: is the server there, does it speak JSON, do the credentials work? Each
 * question has a bounded answer, and a "no" becomes ONE sentence that says what to fix.
 */
import { AuthError } from '../client/auth-session.ts';
import { ClientDiagnostic, describeBody } from '../client/diagnostics.ts';
import { type Exchange, send } from '../client/http.ts';
import { HttpSpeakClient } from '../client/speak-client.ts';
import { SpeakcheckError } from '../errors.ts';
import type { ServerAccess } from '../harness/run-plan.ts';

export class PreflightError extends SpeakcheckError {
  readonly code = 'SPEAKCHECK_PREFLIGHT';
  override name = 'PreflightError';
}

export const PREFLIGHT_REQUEST_TIMEOUT_MS = 5_000;
export const PREFLIGHT_TOTAL_MS = 20_000;

/**
 * How long one preflight request waits on back-pressure (429/503): a server that only throttles is
 * there and speaks HTTP, so the run goes on and its suites wait on the limit within --max-time.
 */
export const PREFLIGHT_THROTTLE_MS = 8_000;

export interface PreflightResult {
  version: unknown;
  /** The quickest of the preflight's GETs (ms): the server's round trip, for src/harness/suite-workers.ts. */
  quickestAnswerMs: number;
  /** Set when the server only throttled: what it answered (the questions left unanswered). */
  throttled?: string;
  /**
   * Set when the server answered part of the preflight and left one question unanswered (the
   * version, the login, the model list): the run goes on, and the route that does not answer is
   * judged like any other (src/client/route-silence.ts: its tests fail or are blocked at once, the
   * outage named). A server that answers none of the API's questions is not judged (exit 3).
   */
  hung?: string;
}

/** The server is there but left a preflight question unanswered: the run goes on to a verdict. */
export function preflightHungLine(hung: string): string {
  return `speakcheck: the server answered the preflight only in part (${hung}); going on: what needs that route is judged without it.`;
}

/** The preflight's bounds (tests shorten them). */
export interface PreflightBounds {
  requestMs: number;
  totalMs: number;
}

const BOUNDS: PreflightBounds = { requestMs: PREFLIGHT_REQUEST_TIMEOUT_MS, totalMs: PREFLIGHT_TOTAL_MS };

export async function preflight(
  config: ServerAccess,
  bounds: PreflightBounds = BOUNDS,
): Promise<PreflightResult> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new PreflightError(
            `the server at ${config.baseUrl} did not complete the preflight within ${bounds.totalMs / 1000} s.`,
          ),
        ),
      bounds.totalMs,
    );
  });
  try {
    return await Promise.race([checks(config, bounds.requestMs), deadline]);
  } catch (err) {
    throw toPreflightError(err, config);
  } finally {
    clearTimeout(timer);
  }
}

async function checks(config: ServerAccess, requestMs: number): Promise<PreflightResult> {
  try {
    return await questions(config, requestMs);
  } catch (err) {
    // Back-pressure is no answer either way: not "could not run", the suites wait on the limit.
    if (err instanceof ClientDiagnostic && err.kind === 'throttled')
      // No round trip measured: 0 keeps the suites' default file count (a throttling server gains nothing from more).
      return { version: undefined, throttled: err.message, quickestAnswerMs: 0 };
    throw err;
  }
}

async function questions(config: ServerAccess, requestMs: number): Promise<PreflightResult> {
  const version = await askVersion(config, requestMs);
  if (version.exchange) requireJson(version.exchange, config, 'GET /v1/speak/version');

  const settings = {
    baseUrl: config.baseUrl,
    authUrl: config.authUrl,
    requestTimeoutMs: requestMs,
    throttleBoundMs: PREFLIGHT_THROTTLE_MS,
  };
  const credentials = {
    ...(config.email !== undefined ? { email: config.email } : {}),
    ...(config.password !== undefined ? { password: config.password } : {}),
    ...(config.token !== undefined ? { token: config.token } : {}),
  };
  let api: HttpSpeakClient;
  let models: Exchange;
  try {
    api = await HttpSpeakClient.login(settings, credentials);
    models = await api.get('/v1/speak/models');
  } catch (err) {
    // A server that answers /version and then hangs is there, speaks the API and is broken: a
    // verdict, not exit 3. One that answered none of the API's questions is not judged.
    if (err instanceof ClientDiagnostic && err.kind === 'hung' && version.exchange)
      return { version: version.exchange.json, quickestAnswerMs: version.exchange.ms, hung: err.message };
    throw err;
  }
  if (models.status === 401 || models.status === 403) {
    throw new PreflightError(
      config.token
        ? `the server rejected the token (GET /v1/speak/models answered ${models.status}); check --token.`
        : `the server accepted the login but rejected its access token (GET /v1/speak/models answered ${models.status}).`,
    );
  }
  requireJson(models, config, 'GET /v1/speak/models');
  // Polite: do not leave a live refresh token behind.
  await api.session?.logout().catch(() => undefined);
  if (!version.exchange) return { version: undefined, quickestAnswerMs: models.ms, hung: version.hung };
  return { version: version.exchange.json, quickestAnswerMs: Math.min(version.exchange.ms, models.ms) };
}

/**
 * The version answer: the wire-facts path, else the contract's literal `/version` ("Its full path
 * ...: not shown"). A path that does not answer is no reason to stop here: the login and the model
 * list say whether the server speaks the API, and the version's silence is judged like any route's
 * (`hung`: the sentence; the route learned in src/client/route-silence.ts).
 */
async function askVersion(
  config: ServerAccess,
  requestMs: number,
): Promise<{ exchange: Exchange; hung?: undefined } | { exchange?: undefined; hung: string }> {
  const get = (path: string) =>
    send({
      method: 'GET',
      url: `${config.baseUrl}${path}`,
      headers: { accept: 'application/json' },
      timeoutMs: requestMs,
      throttleBoundMs: PREFLIGHT_THROTTLE_MS,
    });
  let hung: string | undefined;
  let version: Exchange | undefined;
  try {
    version = await get('/v1/speak/version');
    if (version.status === 200) return { exchange: version };
  } catch (err) {
    // Only a route the run learned is silent while the server answered others goes on to the
    // login: a server silent everywhere (its root asked too) did not answer at all (exit 3).
    if (!(err instanceof ClientDiagnostic && err.kind === 'hung' && err.routeLearned)) throw err;
    hung = err.message;
  }
  const atRoot = await get('/version').catch((err: unknown) => {
    if (hung !== undefined && err instanceof ClientDiagnostic && err.kind === 'hung') return undefined;
    throw err;
  });
  if (atRoot?.status === 200 && atRoot.json !== undefined) return { exchange: atRoot };
  if (version) return { exchange: version };
  return { hung: hung ?? 'GET /v1/speak/version did not answer' };
}

function requireJson(exchange: Exchange, config: ServerAccess, what: string): void {
  if (exchange.json !== undefined) return;
  throw new PreflightError(
    `${config.baseUrl} does not look like a Speak v1 server: ${what} answered ${exchange.status} with ${describeBody(
      exchange.headers['content-type'],
      exchange.body,
    )} where JSON was expected.`,
  );
}

function toPreflightError(err: unknown, config: ServerAccess): PreflightError {
  if (err instanceof PreflightError) return err;
  if (err instanceof AuthError) {
    const hint = config.token ? '' : ' check --email/--password (SPEAK_EMAIL/SPEAK_PASSWORD)';
    return new PreflightError(`${err.message.replace(/\.$/, '')};${hint}.`.replace(/;\.$/, '.'));
  }
  if (err instanceof ClientDiagnostic) {
    if (err.kind === 'unreachable') return new PreflightError(`could not reach the server: ${err.message}.`);
    if (err.kind === 'timeout' || err.kind === 'hung')
      return new PreflightError(`the server did not answer in time: ${err.message}.`);
    if (err.kind === 'garbage') return new PreflightError(`the server does not speak HTTP: ${err.message}.`);
    if (err.kind === 'certificate')
      return new PreflightError(`could not verify the server's certificate: ${err.message}.`);
    return new PreflightError(`${err.message.replace(/\.$/, '')}.`);
  }
  return new PreflightError(`preflight failed: ${err instanceof Error ? err.message : String(err)}.`);
}
