/**
 * Assertions the suites share about single answers and values: each throws a Finding that names
 * where, what was expected and what came.
 */
import { Finding, show } from '../../src/checks/finding.ts';
import { type Exchange, expectJson, type RequirementId } from '../../src/harness/index.ts';

/** A 2xx with a JSON body, or a Finding naming the request and what came back. */
export function expectCreated(exchange: Exchange, what: string): unknown {
  if (exchange.status < 200 || exchange.status >= 300) {
    throw new Finding(
      `${what}: ${exchange.method} ${new URL(exchange.url).pathname} answered ${exchange.status}: ${show(exchange.text, 300)}`,
      { where: exchange.url, expected: '2xx', actual: exchange.status },
    );
  }
  return expectJson(exchange, what);
}

/**
 * Milliseconds since the epoch, not seconds: within a day of this machine's clock (tolerates
 * skew with a remote server, catches seconds and microseconds).
 */
export function assertEpochMs(value: number, where: string): void {
  const day = 24 * 3600 * 1000;
  if (!Number.isInteger(value) || Math.abs(value - Date.now()) > day) {
    throw new Finding(
      `${where}: timestamp_ms ${value} is not milliseconds since the epoch near now (${Date.now()}); ${value < 1e11 ? 'it looks like seconds' : 'it is far off'}`,
      { where, expected: Date.now(), actual: value },
    );
  }
}

/** `requirement`: the id the mismatch is evidence against when it surfaces in a shared scenario (see Finding). */
export function assertEqualField(
  actual: unknown,
  expected: unknown,
  where: string,
  requirement?: RequirementId,
): void {
  if (JSON.stringify(actual) !== JSON.stringify(expected)) {
    throw new Finding(`${where}: expected ${show(expected)}, got ${show(actual)}`, {
      where,
      expected,
      actual,
      ...(requirement === undefined ? {} : { requirement }),
    });
  }
}
