/** For tests of checks: the Finding `fn` throws; anything else it throws, or nothing, fails the test. */
import { Finding } from '../../src/checks/finding.ts';

export function findingOf(fn: () => void): Finding {
  try {
    fn();
  } catch (error) {
    if (error instanceof Finding) return error;
    throw error;
  }
  throw new Error('the check accepted what it should have refused');
}
