/**
 * The order suite files start in (suites.vitest.config.ts `sequence.sequencer`): vitest's own order
 * (failed first, then longest first), except that the files that open webhook windows start first and
 * the end-of-run judge of those windows starts last (suites/webhooks-settled.spec.ts, see
 * src/client/webhook-sink-control.ts): the windows then run beside every other file. The expiry
 * waits (suites/expiry.spec.ts) start before everything (in a thread of their own with --expiry
 * full: src/harness/suite-workers.ts): vitest's own order put them third, after the two
 * other first files, and a quick run against the run's own stack (short lifetimes) ended about
 * 2 s later for it. The longest files (suites/websocket*.spec.ts) start right after the webhook
 * windows, as they would otherwise bound a run against a slow server; not before them: with two
 * files at a time against the run's own stack, the windows then opened 2 s later (the run's last
 * file to end).
 */
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { EXPIRY_FILE, LONGEST_FILE } from './suite-files.ts';
import { SETTLED_FILE, SETTLING_FILE } from './webhook-files.ts';

export class SuiteSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (spec: TestSpecification) =>
      EXPIRY_FILE.test(spec.moduleId)
        ? -1
        : SETTLING_FILE.test(spec.moduleId)
          ? 0
          : LONGEST_FILE.test(spec.moduleId)
            ? 0.5
            : SETTLED_FILE.test(spec.moduleId)
              ? 2
              : 1;
    return sorted.sort((a, b) => rank(a) - rank(b)); // stable: vitest's order within each rank
  }
}
