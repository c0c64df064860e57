/**
 * Whether an access token works (the auth area's probe: GET /v1/speak/models with it as the bearer),
 * telling the server's refusal apart from a token the run's own waits carried past its lifetime.
 */
import { Finding, show } from '../../src/checks/finding.ts';
import {
  accessTokenLifetime,
  ClientDiagnostic,
  freshEnough,
  type SpeakContext,
} from '../../src/harness/index.ts';

/**
 * The access token from `what` works. A token the run kept past the lifetime it shows (its own
 * waits: back-pressure, other scenarios first) proves nothing when refused: `again` does the step
 * that made it once more and its token is judged instead (issue 37), at most twice.
 */
export async function assertAccessWorks(
  speak: SpeakContext,
  access: string,
  what: string,
  again?: () => Promise<string>,
): Promise<void> {
  let token = access;
  for (let attempt = 0; ; attempt++) {
    for (let n = 0; again && n < 2 && !freshEnough(accessTokenLifetime(token)); n++) token = await again();
    const exchange = await speak.anon.get('/v1/speak/models', {
      headers: { authorization: `Bearer ${token}` },
    });
    if (exchange.status === 200) return;
    // A 401 for a token that the run's own waits (back-pressure on this very request) carried past the
    // lifetime it shows is our delay, not the server's refusal: ask again, then conclude nothing.
    const stale = exchange.status === 401 && !freshEnough(accessTokenLifetime(token));
    if (stale && again && attempt < 2) continue;
    if (stale)
      throw new ClientDiagnostic(
        'throttled',
        `the access token from ${what} went past the lifetime it shows while the run waited on the server's back-pressure; its 401 concludes nothing`,
        'GET /v1/speak/models',
      );
    throw new Finding(
      `GET /v1/speak/models with the access token from ${what} answered ${exchange.status}: ${show(exchange.text)}`,
      {
        where: 'GET /v1/speak/models',
        expected: 200,
        actual: exchange.status,
      },
    );
  }
}
