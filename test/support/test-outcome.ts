/**
 * One TestOutcome, as the conformance reporter makes it, for the tests of verdicts and reports: they
 * state only what their case is about (state, requirements, what differs) and get the rest empty.
 */
import { conclusionsOfState } from '../../src/verdict/conclusion.ts';
import type { TestOutcome } from '../../src/verdict/verdict.ts';

/** The file a test named without one (no ` > ` in its key) is taken to be in. */
const DEFAULT_FILE = 'suites/auth.spec.ts';

/**
 * `test`: the key `<file> > <name>`, or only the name (then the file is suites/auth.spec.ts). A
 * failed test has the error "<name> broke" unless `extra` gives its errors; its conclusions are those its
 * state implies (as the reporter derives them for a test that left none) unless `extra` gives them;
 * `extra` overrides any field.
 */
export function testOutcome(
  test: string,
  state: TestOutcome['state'],
  requirements: string[],
  extra: Partial<TestOutcome> = {},
): TestOutcome {
  const at = test.indexOf(' > ');
  const file = at < 0 ? DEFAULT_FILE : test.slice(0, at);
  const name = at < 0 ? test : test.slice(at + 3);
  const errors = extra.errors ?? (state === 'failed' ? [`${name} broke`] : []);
  const note = extra.observations?.find((o) => o.key === 'test-skipped')?.values?.note as string | undefined;
  return {
    key: `${file} > ${name}`,
    file,
    name,
    state,
    durationMs: 1,
    errors: state === 'failed' ? [`${name} broke`] : [],
    requirements,
    unknownRequirements: [],
    observations: [],
    evidence: [],
    droppedEvidence: 0,
    characters: 0,
    conclusions: conclusionsOfState(state, requirements, {
      ...(errors[0] === undefined ? {} : { error: errors[0] }),
      ...(note === undefined ? {} : { note }),
    }),
    ...extra,
  };
}
