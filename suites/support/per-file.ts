/**
 * State kept per suite file, keyed by the file's SpeakContext (the `speak` fixture is one per file): suites
 * run with `isolate: false`, so module-level state would be shared by every file a worker runs.
 */
import type { SpeakContext } from '../../src/harness/index.ts';

/** A getter of this file's own `T`, made by `make` the first time the file asks. */
export function perFile<T>(make: () => T): (s: SpeakContext) => T {
  const states = new WeakMap<SpeakContext, T>();
  return (s) => {
    let state = states.get(s);
    if (state === undefined) {
      state = make();
      states.set(s, state);
    }
    return state;
  };
}
