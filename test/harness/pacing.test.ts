/**
 * Issue 41, point 5: when pacing (--max-rps, the server's 429s) keeps a transient state from being
 * observed, the not-judged hint says so and what to change.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { runThrottle } from '../../src/client/back-pressure.ts';
import {
  runPacing,
  TEST_BOUND_REMEDY,
  TOO_FAST_BASE,
  testBoundConclusion,
  tooFastRemedyFor,
} from '../../src/harness/pacing.ts';

describe('what would judge a state the run was too slow to see', () => {
  test('unpaced: only a slower take would, and pacing is not mentioned', () => {
    const hint = tooFastRemedyFor({ answered429: 0, answered503: 0 }, 'audio');
    expect(hint).toBe(TOO_FAST_BASE);
    expect(hint).not.toMatch(/max-rps|pac/);
  });

  test('--max-rps: pacing likely hid it; raise --max-rps or run the area alone', () => {
    const hint = tooFastRemedyFor({ maxRps: 12, answered429: 0, answered503: 0 }, 'audio');
    expect(hint).toBe(
      'pacing likely hid it (--max-rps 12): requests queued while the take finished; raise --max-rps, or run the area alone (`--only audio`), so fewer requests share the pace',
    );
  });

  test("the server's 429s: the limit paced the run; the area alone, or a higher limit", () => {
    const hint = tooFastRemedyFor({ answered429: 37, answered503: 1 }, 'takes');
    expect(hint).toBe(
      "pacing likely hid it (the server's limit: 429 on 37, 503 on 1 requests): requests queued while the take finished; run the area alone (`--only takes`), so fewer requests share the limit, or give the test account a higher limit",
    );
  });

  test('both: both named, and every hint fits the terminal line (240 characters)', () => {
    const hint = tooFastRemedyFor({ maxRps: 2.5, answered429: 1, answered503: 0 }, 'webhooks');
    expect(hint).toContain("(--max-rps 2.5; the server's limit: 429 on 1 request)");
    const longest = tooFastRemedyFor(
      { maxRps: 12.25, answered429: 99_999, answered503: 99_999 },
      'websocket',
    );
    expect(longest.length).toBeLessThanOrEqual(240);
  });
});

describe('what the run knows of its pacing', () => {
  afterEach(() => runThrottle().reset());

  test('--max-rps from the config, the 429s and 503s from the run-wide throttle', () => {
    const throttle = runThrottle();
    throttle.reset();
    expect(runPacing({})).toEqual({ answered429: 0, answered503: 0 });
    throttle.noteThrottled(429, 0, 0);
    throttle.noteThrottled(503, undefined, 0);
    throttle.noteThrottled(503, undefined, 0);
    expect(runPacing({ maxRps: 12 })).toEqual({ maxRps: 12, answered429: 1, answered503: 2 });
  });
});

describe('a test that ran out of its time bound (issue 51 item 6)', () => {
  test('unpaced: cause timeout, the longer bounds', () => {
    expect(testBoundConclusion('ran out of 60 s', { answered429: 0, answered503: 0 })).toEqual({
      kind: 'not-concluded',
      cause: 'timeout',
      reason: 'ran out of 60 s',
      wouldJudge: TEST_BOUND_REMEDY,
    });
  });

  test('--max-rps 0.5: cause paced, and the remedy names --max-rps, not --ready-timeout', () => {
    const c = testBoundConclusion('ran out of 60 s', { maxRps: 0.5, answered429: 0, answered503: 0 });
    expect(c.cause).toBe('paced');
    expect(c.wouldJudge).toBe(
      'less pacing (--max-rps 0.5: each request waited its turn): a higher --max-rps (or fewer areas sharing the pace: `--only AREA`), or a longer --max-time',
    );
    expect(c.wouldJudge).not.toContain('--ready-timeout');
  });

  test("paced by the server's limit: cause paced, the limit named", () => {
    const c = testBoundConclusion('ran out', { answered429: 3, answered503: 0 });
    expect(c.cause).toBe('paced');
    expect(c.wouldJudge).toMatch(/^less pacing \(the server's limit: 429 on 3 requests: /);
  });
});
