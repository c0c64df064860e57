/**
 * Honest skipping from inside a covers() test: when the server makes a MUST unverifiable (e.g. an
 * access token that lives 15 minutes), the test is reported as skipped with its reason rather than
 * passed. A test body can call its own `context.skip` (covers() hands it the vitest context); this is
 * for the helpers it calls (credentials(), a shared wait) that have no context: a beforeEach keeps the
 * current test's `skip` (tests of one file run one after another).
 */
import { beforeEach, type TestContext } from 'vitest';

export function useSkip(): (reason: string) => never {
  let current: TestContext['skip'] | undefined;
  beforeEach((context) => {
    current = context.skip;
  });
  return (reason: string): never => {
    if (!current) throw new Error(`cannot skip outside a test: ${reason}`);
    current(reason);
    throw new Error(`skipped: ${reason}`);
  };
}
