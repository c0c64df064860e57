/**
 * Issue 41, points 6 and 8: the live lines name areas (webhooks once, no "expiry" row) and mark the
 * failures the expect file lists as expected.
 */
import { describe, expect, test } from 'vitest';
import {
  areaOfFile,
  failureExpected,
  LiveProgress,
  type LiveRequirement,
  type LiveTest,
} from '../../src/report/live-progress.ts';

const CATALOGUE: Record<string, LiveRequirement> = {
  'AUTH-EXPIRED-TOKEN-401': { area: 'auth', level: 'MUST' },
  'AUDIO-SIGNED-EXPIRES': { area: 'audio', level: 'MUST' },
  'WS-URL-EXPIRED-REFUSED': { area: 'websocket', level: 'MUST' },
  'AUDIO-CONTENT-TYPE': { area: 'audio', level: 'INFO' },
};

function progress(expected: string[] = [], only: string[] = []) {
  const lines: string[] = [];
  const live = new LiveProgress(
    (l) => lines.push(l),
    new Set(expected),
    (id) => CATALOGUE[id],
    only,
  );
  return { live, lines };
}

const passed = (name: string, requirements: string[] = []): LiveTest => ({
  name,
  state: 'passed',
  requirements,
});
const failed = (name: string, requirements: string[], extra: Partial<LiveTest> = {}): LiveTest => ({
  name,
  state: 'failed',
  requirements,
  message: 'got 302',
  ...extra,
});

const rowOf = (lines: string[], area: string) => lines.filter((l) => l.trimStart().startsWith(`${area} `));

describe('live rows are areas', () => {
  test('webhooks.spec.ts and webhooks-settled.spec.ts make one webhooks row, when both ended', () => {
    const { live, lines } = progress();
    live.plan(['suites/webhooks.spec.ts', 'suites/webhooks-settled.spec.ts', 'suites/auth.spec.ts']);
    live.fileEnded('suites/webhooks-settled.spec.ts', [passed('a'), passed('b')], 1_000, false);
    expect(rowOf(lines, 'webhooks')).toEqual([]);
    live.fileEnded('suites/webhooks.spec.ts', [passed('c'), failed('d', ['WEBHOOK-X'])], 2_500, false);
    expect(rowOf(lines, 'webhooks')).toEqual(['  webhooks     3 passed   1 failed   0 skipped  3.5 s']);
    live.flush();
    expect(rowOf(lines, 'webhooks')).toHaveLength(1);
  });

  test("the lifetimes file is no row: its tests count in their requirements' areas", () => {
    const { live, lines } = progress();
    live.plan([
      'suites/expiry.spec.ts',
      'suites/auth.spec.ts',
      'suites/audio.spec.ts',
      'suites/websocket.spec.ts',
    ]);
    live.fileEnded(
      'suites/expiry.spec.ts',
      [
        passed('token', ['AUTH-EXPIRED-TOKEN-401']),
        failed('signed url', ['AUDIO-SIGNED-EXPIRES']),
        passed('ws url', ['WS-URL-EXPIRED-REFUSED']),
      ],
      800,
      false,
    );
    live.fileEnded('suites/auth.spec.ts', [passed('login')], 600, false);
    live.fileEnded('suites/audio.spec.ts', [passed('wav')], 1_000, false);
    expect(lines.some((l) => /\bexpiry\b/.test(l))).toBe(false);
    expect(rowOf(lines, 'auth')).toEqual(['  auth         2 passed   0 failed   0 skipped  0.6 s']);
    expect(rowOf(lines, 'audio')).toEqual(['  audio        1 passed   1 failed   0 skipped  1.0 s']);
    // websocket's own file has not ended: its row waits.
    expect(rowOf(lines, 'websocket')).toEqual([]);
  });

  test("a lifetimes test's ✗ line names its requirement's area, not the file", () => {
    const { live, lines } = progress();
    live.failed(
      'suites/expiry.spec.ts',
      failed('lifetimes waited out > signed url', ['AUDIO-SIGNED-EXPIRES']),
    );
    expect(lines).toEqual(['  ✗ audio › lifetimes waited out > signed url: got 302']);
  });

  test('--only auth: the lifetimes file holds back only the selected areas', () => {
    const { live, lines } = progress([], ['auth']);
    live.plan(['suites/expiry.spec.ts', 'suites/auth.spec.ts']);
    live.fileEnded('suites/auth.spec.ts', [passed('login')], 600, false);
    expect(rowOf(lines, 'auth')).toEqual([]);
    live.fileEnded('suites/expiry.spec.ts', [passed('token', ['AUTH-EXPIRED-TOKEN-401'])], 300, false);
    expect(rowOf(lines, 'auth')).toEqual(['  auth         2 passed   0 failed   0 skipped  0.6 s']);
  });

  test('a stopped run prints the rows not printed yet with what ended', () => {
    const { live, lines } = progress();
    live.plan(['suites/webhooks.spec.ts', 'suites/webhooks-settled.spec.ts']);
    live.fileEnded('suites/webhooks.spec.ts', [passed('c')], 500, true);
    live.flush();
    expect(rowOf(lines, 'webhooks')).toEqual([
      '  webhooks     1 passed   0 failed   0 skipped  0.5 s  (file error)',
    ]);
  });

  test('the file of an area is its area', () => {
    expect(areaOfFile('/x/suites/webhooks-settled.spec.ts')).toBe('webhooks');
    expect(areaOfFile('suites/websocket/streaming.spec.ts')).toBe('websocket');
  });
});

describe('expected failures are marked on the live lines', () => {
  test('the ✗ line and the row say expected when the expect file lists what the test found', () => {
    const { live, lines } = progress(['AUDIO-307']);
    live.plan(['suites/audio.spec.ts']);
    const mine = failed('wav: 307', ['AUDIO-307']);
    const other = failed('tampered', ['AUDIO-TAMPERED-REJECTED']);
    live.failed('suites/audio.spec.ts', mine);
    live.failed('suites/audio.spec.ts', other);
    live.fileEnded('suites/audio.spec.ts', [mine, other, passed('ok')], 1_000, false);
    expect(lines).toEqual([
      '  ✗ (expected) audio › wav: 307: got 302',
      '  ✗ audio › tampered: got 302',
      '  audio        1 passed   2 failed (1 expected)   0 skipped  1.0 s',
    ]);
    expect(live.expectedFailedTests()).toBe(1);
  });

  test('a test is expected when every requirement it found broken or blocked is listed, whatever else it covers', () => {
    const expected = new Set(['AUDIO-307', 'AUDIO-SIGNED-LOCATION']);
    const conclusions = {
      'AUDIO-307': [{ kind: 'violated' as const, message: '302' }],
      'AUDIO-SIGNED-LOCATION': [{ kind: 'blocked' as const, by: '302' }],
      'AUDIO-WAV-BEFORE-READY': [{ kind: 'held' as const }],
    };
    const requirements = Object.keys(conclusions);
    expect(failureExpected({ requirements, conclusions }, expected)).toBe(true);
    expect(failureExpected({ requirements, conclusions }, new Set(['AUDIO-307']))).toBe(false);
    // No conclusions: all of its requirements must be listed.
    expect(failureExpected({ requirements: ['AUDIO-307'] }, expected)).toBe(true);
    expect(failureExpected({ requirements: ['AUDIO-307', 'AUDIO-X'] }, expected)).toBe(false);
    expect(failureExpected({ requirements: ['AUDIO-307'] }, new Set())).toBe(false);
    // A blocked INFO observation beside listed ones: no expect file lists an INFO, it gates nothing.
    const withInfo = {
      requirements: ['AUDIO-FORMATS-SAME-AUDIO', 'AUDIO-CONTENT-TYPE'],
      conclusions: {
        'AUDIO-FORMATS-SAME-AUDIO': [{ kind: 'blocked' as const, by: '302' }],
        'AUDIO-CONTENT-TYPE': [{ kind: 'blocked' as const, by: '302' }],
      },
    };
    const listed = new Set(['AUDIO-FORMATS-SAME-AUDIO']);
    expect(failureExpected(withInfo, listed, (id) => CATALOGUE[id])).toBe(true);
    expect(failureExpected(withInfo, listed)).toBe(false);
  });
});

describe('a test that concluded nothing is not a failure, live as in the summary (issue 51 item 6)', () => {
  test('no ✗ line, and the row counts it "not concluded", not "failed"', () => {
    const { live, lines } = progress();
    live.plan(['suites/audio.spec.ts']);
    const paced = failed('signed url', ['AUDIO-SIGNED-EXPIRES'], {
      message: 'the test ran out of its 60 s bound',
      conclusions: {
        'AUDIO-SIGNED-EXPIRES': [
          { kind: 'not-concluded', cause: 'paced', reason: 'bound', wouldJudge: 'a higher --max-rps' },
        ],
      },
    });
    live.failed('suites/audio.spec.ts', paced);
    expect(lines).toEqual([
      '  … audio › signed url: not concluded (paced): the test ran out of its 60 s bound',
    ]);
    live.fileEnded('suites/audio.spec.ts', [passed('a'), paced], 1_000, false);
    expect(rowOf(lines, 'audio')).toEqual([
      '  audio        1 passed   0 failed   1 not concluded   0 skipped  1.0 s',
    ]);
  });

  test('a test that also found a violation stays a failure', () => {
    const { live, lines } = progress();
    const test = failed('wav', ['AUDIO-SIGNED-EXPIRES', 'AUDIO-CONTENT-TYPE'], {
      conclusions: {
        'AUDIO-SIGNED-EXPIRES': [{ kind: 'violated', message: 'got 200' }],
        'AUDIO-CONTENT-TYPE': [{ kind: 'not-concluded', cause: 'timeout', reason: 'bound', wouldJudge: 'x' }],
      },
    });
    live.failed('suites/audio.spec.ts', test);
    expect(lines[0]).toMatch(/^ {2}✗ audio › wav: got 302$/);
  });
});

test('the server throttling is said once, while the run goes on', () => {
  const { live, lines } = progress();
  live.throttled(0, 0);
  expect(lines).toEqual([]);
  live.throttled(3, 1);
  live.throttled(9, 1);
  expect(lines).toEqual([
    '  … the server throttles (429 on 3, 503 on 1 requests so far): the run now paces itself to its limit (back-pressure, never a verdict)',
  ]);
});
