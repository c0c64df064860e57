/**
 * A run that judged nothing says why in its verdict line when one reason kept everything from being
 * judged: `--only security` without a second account is NOTHING JUDGED (exit 1, as the gate rules
 * say for a run that judged nothing), naming the option that would judge it, never DOES NOT CONFORM.
 * test/cli/action-run.int.test.ts shows the same through a real run.
 */
import { describe, expect, test } from 'vitest';
import { EXIT } from '../../src/exit-codes.ts';
import { catalogue } from '../../src/requirements/index.ts';
import type { Conclusion } from '../../src/verdict/conclusion.ts';
import { gate } from '../../src/verdict/gate.ts';
import { computeVerdicts } from '../../src/verdict/verdict.ts';
import { testOutcome as outcome } from '../support/test-outcome.ts';

const security = catalogue.filter((r) => r.area === 'security' && r.level === 'SECURITY');
const noSecondAccount: Conclusion = {
  kind: 'not-observed',
  reason: 'the run has no second identity (customer B) to check isolation with',
  wouldJudge: '--second-email/--second-password or --second-token',
};

/** Each security check's test ran and concluded only that it could not observe anything. */
function securityOnly(conclusion: Conclusion, ranTests = true) {
  return computeVerdicts(
    catalogue,
    security.map((r) =>
      outcome(`suites/security.spec.ts > ${r.id}`, ranTests ? 'passed' : 'skipped', [r.id], {
        conclusions: { [r.id]: [conclusion] },
      }),
    ),
    { areas: ['security'], profile: 'strict' },
  );
}

describe('nothing judged, for one reason', () => {
  test('--only security without a second account: NOTHING JUDGED, naming the options that would judge it', () => {
    expect(security.length).toBeGreaterThan(1);
    for (const profile of ['strict', 'lenient', 'acceptance', 'sdk'] as const) {
      const result = gate(securityOnly(noSecondAccount), profile);
      expect(result, profile).toEqual({
        exitCode: EXIT.failed,
        words: 'NOTHING JUDGED',
        reasons: [
          `${security.length} security checks not judged: the run has no second identity (customer B) to check isolation with · what would judge them: --second-email/--second-password or --second-token`,
        ],
      });
    }
  });

  test('the same when every test was skipped ("no test ran" only when no reason was said)', () => {
    expect(gate(securityOnly(noSecondAccount, false), 'strict').reasons[0]).toMatch(
      /^\d+ security checks not judged: .* what would judge them: --second-email/,
    );
  });

  test('different remedies: the verdict line points at the not-judged lines instead', () => {
    const v = securityOnly(noSecondAccount);
    // The gate reads what the test concluded (the verdict's data), not the words written of it.
    const first = v.requirements.find(
      (r) => r.decided?.kind === 'not-applicable' || r.decided?.kind === 'not-observed',
    )!;
    first.decided = {
      ...(first.decided as { kind: 'not-applicable'; reason: string; wouldJudge: string }),
      wouldJudge: 'something else',
    };
    expect(gate(v, 'strict')).toMatchObject({
      words: 'NOTHING JUDGED',
      reasons: ['every requirement not judged: see what would judge each'],
    });
  });
});
