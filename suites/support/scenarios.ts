/**
 * Scenario mechanics of the suites: a scenario run once and shared by the tests that await it
 * (with its evidence copied to each), scenarios started early, and the run's shared voice.
 */
import { beforeEach } from 'vitest';
import type { Voice } from '../../schemas/types.ts';
import { Finding } from '../../src/checks/finding.ts';
import {
  adoptScenarioRecord,
  ClientDiagnostic,
  expectSchema,
  markSetupFailure,
  newTestRecord,
  runContext,
  runWithRecord,
  type SpeakContext,
  selectedRequirements,
} from '../../src/harness/index.ts';
import { waitUntilDone } from './items.ts';

/**
 * Runs `make` once; later callers share its promise (one scenario feeds several tests). The
 * scenario records its exchanges and observations apart, and every test that awaits it receives a
 * copy as its own evidence, whichever test (or prefetch) started it. `evidence: false` for plumbing
 * that every test awaits (the shared voice), whose exchanges would only bury the test's own.
 */
export function once<T, A extends unknown[] = []>(
  make: (...args: A) => Promise<T>,
  o: { evidence?: boolean } = {},
): (...args: A) => Promise<T> {
  let promise: Promise<T> | undefined;
  if (o.evidence === false) {
    return (...args) => {
      promise ??= make(...args);
      return promise.catch((error: unknown) => {
        markSetupFailure(error);
        throw error;
      });
    };
  }
  const scenario = newTestRecord();
  return (...args) => {
    promise ??= runWithRecord(scenario, () => make(...args));
    // The reactions run in the awaiting test's context (AsyncLocalStorage follows `then`).
    return promise.then(
      (value) => {
        adoptScenarioRecord(scenario);
        return value;
      },
      (error: unknown) => {
        adoptScenarioRecord(scenario);
        markSetupFailure(error);
        throw error;
      },
    );
  };
}

/**
 * Starts scenarios as soon as the file's login is done (before its first test, with the file's
 * context, the `speak` fixture), without awaiting them: synthesis of independent items overlaps
 * instead of queueing behind each test. Each test still awaits its scenario and sees its failure;
 * here failures are only kept from being unhandled.
 * With a requirement selection (`run --requirement`) nothing is started early: most scenarios
 * would feed tests that are not registered, and each selected test starts what it awaits.
 */
export function prefetch(...scenarios: Array<(speak: SpeakContext) => Promise<unknown>>): void {
  if (selectedRequirements()) return;
  let started = false;
  // vitest sets up the fixtures a hook names, as for a test.
  beforeEach(({ speak }: { speak: SpeakContext }) => {
    if (started) return;
    started = true;
    for (const scenario of scenarios) scenario(speak).catch(() => undefined);
  });
}

/**
 * The run's shared voice (src/harness/shared-voice.ts), ready: for files that only need *a* voice
 * to make takes with. The global setup asked for it; here its generate answer is schema-checked and
 * it is waited for like any voice (bounded by the ready timeout from its creation, statuses recorded:
 * every file's wait ends about together — each leaves out the run's holds since the creation and
 * its own polls' waits — and a file that starts later polls once). Not tracked:
 * the global setup deletes it after every file. Call once per file, at the top, with no argument;
 * the result takes the file's context (`sharedVoice(speak)`, the first caller's is the one used).
 */
export function useSharedVoice(): (speak: SpeakContext) => Promise<Voice> {
  return once(
    async (s: SpeakContext) => {
      const provided = runContext().sharedVoice;
      if (!provided.ok && provided.throttled)
        throw new ClientDiagnostic('throttled', provided.problem, 'POST /v1/speak/voices/generate');
      if (!provided.ok)
        throw new Finding(provided.problem, {
          where: 'POST /v1/speak/voices/generate',
          // The evidence against the route that failed it; a block for every test that only needed a voice.
          ...(provided.requirement !== undefined ? { runFact: true, requirement: provided.requirement } : {}),
        });
      expectSchema('Voice', provided.created, 'the generated voice');
      const created = provided.created as Voice;
      const since = provided.createdMs;
      const heldSince = provided.createdHeldMs;
      return (await waitUntilDone<Voice>(s, 'voice', provided.voiceId, { first: created, since, heldSince }))
        .final;
    },
    { evidence: false },
  );
}
