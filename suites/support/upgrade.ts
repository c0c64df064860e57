/**
 * A websocket URL the worker must refuse at the upgrade (an expired one, one with its secret removed
 * or altered): the refusal is a 4xx before the switch of protocols; a 5xx, another failure or a
 * connection that opens is a Finding that says which.
 */
import { Finding } from '../../src/checks/finding.ts';
import { SpeakStreamConnection, WsClientError } from '../../src/harness/index.ts';

/** Resolves with the refusal's status; `why` names the URL in the finding ("… past its lifetime"). */
export async function expectUpgradeRefused(url: string, why: string, timeoutMs: number): Promise<number> {
  try {
    const conn = await SpeakStreamConnection.connect(url, { timeoutMs });
    await conn.close();
  } catch (error) {
    if (error instanceof WsClientError && error.kind === 'upgrade-refused') {
      if (error.status !== undefined && error.status >= 400 && error.status < 500) return error.status;
      throw new Finding(`${why}: the upgrade was refused with HTTP ${error.status}, expected a 4xx`, {
        expected: '4xx',
        actual: error.status,
      });
    }
    throw error;
  }
  throw new Finding(`${why}: the worker accepted the connection; it must refuse it at the upgrade`, {
    expected: 'upgrade refused (4xx)',
    actual: '101 Switching Protocols',
  });
}
