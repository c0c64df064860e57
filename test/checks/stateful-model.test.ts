/**
 * The model of the contract the stateful suite judges sequences against (src/checks/stateful/model.ts),
 * without a server: what it expects after each kind of change, and what it counts as observed.
 */
import { describe, expect, test } from 'vitest';
import { pagesProblems } from '../../src/checks/lists.ts';
import {
  addSession,
  addSocket,
  addTake,
  batchProblems,
  canBatch,
  canDelete,
  expectRefresh,
  expectTakeGet,
  isNewTakeId,
  listProblems,
  newModel,
  notOffered,
  offeredIn,
  openSessions,
  recordDeleted,
  recordEndedWithSibling,
  recordLoggedOut,
  recordPaged,
  recordRefreshed,
  recordRefusedAfterLogout,
  recordSocketRequest,
  repeatsInput,
  SEQUENCE_IDS,
  sequenceConclusion,
  socketRequestEnd,
  statusClass,
  voiceStatusNote,
  voiceViewProblems,
  WIRE_OPERATIONS,
} from '../../src/checks/stateful/model.ts';
import { sequenceScript } from '../../src/checks/stateful/script.ts';
import { apiCall } from '../../src/checks/stateful/script-words.ts';
import { findRequirement, type RequirementId } from '../../src/requirements/index.ts';

function withTakes(n: number) {
  const m = newModel(['primary', 'second']);
  const takes = Array.from({ length: n }, (_, i) => {
    const t = addTake(m, 'primary', `T${i}`, 'rest');
    t.takeId = `tk_${i + 1}`;
    return t;
  });
  return { m, takes };
}

describe('takes and lists', () => {
  test('a deleted take is gone: GET expects a client error, the list must leave it out', () => {
    const { m, takes } = withTakes(3);
    recordDeleted(takes[1]!);
    expect(expectTakeGet(takes[1]!)).toBe('gone');
    expect(expectTakeGet(takes[0]!)).toBe('take');
    expect(listProblems(m, 'primary', ['tk_3', 'tk_1'])).toEqual([]);
    expect(listProblems(m, 'primary', ['tk_1', 'tk_2', 'tk_3'])[0]).toMatch(/still lists T2/);
    expect(listProblems(m, 'primary', ['tk_1'])[0]).toMatch(/missing T3/);
  });

  test("the list's order is the server's: any order of the live takes holds", () => {
    const { m } = withTakes(3);
    expect(listProblems(m, 'primary', ['tk_3', 'tk_2', 'tk_1'])).toEqual([]);
    expect(listProblems(m, 'primary', ['tk_1', 'tk_2', 'tk_3'])).toEqual([]);
  });

  test("one customer's takes are not the other's", () => {
    const { m } = withTakes(2);
    expect(listProblems(m, 'second', [])).toEqual([]);
    expect(listProblems(m, 'second', ['tk_1'])[0]).toMatch(/no take of the filter/);
  });

  test('pages must partition the whole list in its order: a skipped item is named', () => {
    const whole = ['a', 'b', 'c', 'd'];
    expect(pagesProblems([['a', 'b'], ['c', 'd'], []], whole, 2, { firstPage: 1 })).toEqual([]);
    expect(pagesProblems([['a', 'b'], ['d'], []], whole, 2, { firstPage: 1 })).toEqual([
      'pages skip c, which the whole list holds',
    ]);
    expect(pagesProblems([['a', 'b'], ['b', 'c'], ['d']], whole, 2, { firstPage: 1 })[0]).toMatch(
      /b on more than one page/,
    );
    expect(pagesProblems([['a', 'b', 'c'], ['d']], whole, 2, { firstPage: 1 })[0]).toMatch(
      /more than length=2/,
    );
    expect(
      pagesProblems(
        [
          ['b', 'a'],
          ['c', 'd'],
        ],
        whole,
        2,
        { firstPage: 1 },
      )[0],
    ).toMatch(/another order/);
    // The server's own page numbers, and an id on three pages named once.
    expect(pagesProblems([['a', 'b', 'c'], ['d']], whole, 2, { firstPage: 0 })[0]).toMatch(/^page 0 holds 3/);
    expect(
      pagesProblems(
        [
          ['a', 'b'],
          ['b', 'c'],
          ['b', 'd'],
        ],
        whole,
        2,
        { firstPage: 1 },
      )[0],
    ).toBe('b on more than one page');
  });

  test('paging is observed after any change of the sequence: a generation counts, no delete needed', () => {
    const m = newModel(['primary', 'second']);
    recordPaged(m, 'primary', 3);
    expect(m.observed.has('SEQ-LIST-PAGES-AFTER-CHANGES')).toBe(false);
    const { m: generated } = withTakes(3);
    recordPaged(generated, 'primary', 1);
    expect(generated.observed.has('SEQ-LIST-PAGES-AFTER-CHANGES')).toBe(false);
    recordPaged(generated, 'primary', 3);
    expect(generated.observed.has('SEQ-LIST-PAGES-AFTER-CHANGES')).toBe(true);
  });

  test('a server without DELETE: what only a delete brings about is not applicable, the rest still needs observing', () => {
    expect(offeredIn([{}, { deleteOffered: false }]).deleteOffered).toBe(false);
    expect(offeredIn([{ deleteOffered: false }, { deleteOffered: true }]).deleteOffered).toBe(true);
    expect(offeredIn([{}]).deleteOffered).toBeUndefined();
    const observed = new Set<RequirementId>(['SEQ-TAKE-GET-AGREES']);
    const none = { deleteOffered: false };
    expect(sequenceConclusion('SEQ-TAKE-GET-AGREES', observed, none)).toBe('observed');
    expect(sequenceConclusion('SEQ-ERROR-AFTER-CHANGE-4XX', observed, none)).toBe('not-applicable');
    expect(sequenceConclusion('SEQ-DELETED-TAKE-GONE', observed, none)).toBe('not-applicable');
    expect(sequenceConclusion('SEQ-LIST-PAGES-AFTER-CHANGES', observed, none)).toBe('not-observed');
    expect(sequenceConclusion('SEQ-ERROR-AFTER-CHANGE-4XX', observed, {})).toBe('not-observed');
    expect(sequenceConclusion('SEQ-ERROR-AFTER-CHANGE-4XX', observed, { deleteOffered: true })).toBe(
      'not-observed',
    );
  });

  test('a server without update or batch: only their ids are not applicable', () => {
    const observed = new Set<RequirementId>();
    const offered = offeredIn([{ updateOffered: false, batchOffered: false }]);
    expect(sequenceConclusion('SEQ-VOICE-UPDATE-EVERY-VIEW', observed, offered)).toBe('not-applicable');
    expect(sequenceConclusion('SEQ-BATCH-EVERY-TAKE', observed, offered)).toBe('not-applicable');
    expect(sequenceConclusion('SEQ-DELETED-TAKE-GONE', observed, offered)).toBe('not-observed');
    expect(notOffered(404, 'route')).toBe(true);
    expect(notOffered(422, 'route')).toBe(false);
    expect(notOffered(422, 'body')).toBe(true);
    expect(notOffered(500, 'body')).toBe(false);
    const m = newModel(['primary']);
    m.learned.batchOffered = false;
    expect(canBatch(m, 2)).toBe(false);
  });

  test('a view of a voice that was ready shows its status; anything else is noted, INFO (the contract shows no transition after ready)', () => {
    expect(voiceStatusNote({ status: 'ready', name: 'a' })).toBeUndefined();
    expect(voiceStatusNote({ status: 'waiting' })).toBe('status "waiting", where the voice was ready before');
    expect(voiceStatusNote({})).toBe('status undefined, where the voice was ready before');
    expect(findRequirement('SEQ-VOICE-STATUS-THROUGH-CHANGES')?.level).toBe('INFO');
    // Brought about only by an update, a wire fact: not applicable against a server without one.
    expect(WIRE_OPERATIONS.updateOffered.needs).toContain('SEQ-VOICE-STATUS-THROUGH-CHANGES');
  });

  test('every view of an updated voice shows the update; a batch answers its takes in order', () => {
    expect(voiceViewProblems({ name: 'a' }, { name: 'a', description: 'old' })).toEqual([]);
    expect(voiceViewProblems({ name: 'a', description: 'd' }, { name: 'old', description: 'd' })).toEqual([
      'name "old", where the update set "a"',
    ]);
    // A batch answer: takes whose texts are `texts`, with ids 1, 2 … in that order.
    const answer = (...texts: string[]) => texts.map((text, i) => ({ take_id: String(i + 1), text }));
    expect(batchProblems(['x', 'y', 'z'], answer('x', 'y', 'z'))).toEqual([]);
    expect(batchProblems(['x', 'y', 'z'], answer('y', 'z', 'x'))[0]).toMatch(/another order/);
    expect(batchProblems(['x', 'y'], [{ take_id: '1', text: 'x' }])[0]).toMatch(/1 takes for 2 bodies/);
    expect(batchProblems(['x'], { take_id: '1' })[0]).toMatch(/not an array/);
    const m = newModel(['primary']);
    for (let i = 0; i < 5; i++) addTake(m, 'primary', `T${i}`, 'rest');
    expect(canBatch(m, 2)).toBe(true);
    expect(canBatch(m, 3)).toBe(false);
  });

  test("the sequence ids are the catalogue's sequences area", () => {
    expect(SEQUENCE_IDS).toContain('SEQ-BATCH-EVERY-TAKE');
    expect(SEQUENCE_IDS.every((id) => id.startsWith('SEQ-'))).toBe(true);
  });

  test('the same input again must be a new take', () => {
    const { m, takes } = withTakes(1);
    const again = addTake(m, 'primary', 'T0', 'rest');
    expect(repeatsInput(m, again)).toBe(true);
    expect(isNewTakeId(m, 'tk_1', again)).toBe(false);
    expect(isNewTakeId(m, 'tk_9', again)).toBe(true);
    expect(repeatsInput(m, takes[0]!)).toBe(true);
  });

  test('delete is offered until the server showed it is not (a wire fact)', () => {
    const { m } = withTakes(1);
    expect(canDelete(m, 'primary')).toBe(true);
    m.learned.deleteOffered = false;
    expect(canDelete(m, 'primary')).toBe(false);
  });
});

describe('sessions', () => {
  test('a chain of any depth refreshes; its own logout ends it', () => {
    const m = newModel(['primary']);
    const s = addSession(m, 'primary');
    for (let i = 0; i < 7; i++) {
      expect(expectRefresh(m, s)).toEqual({ outcome: 'pair', requirement: 'SEQ-REFRESH-CHAIN-ANY-DEPTH' });
      recordRefreshed(m, s);
    }
    expect(s.depth).toBe(7);
    expect(m.observed.has('SEQ-REFRESH-CHAIN-ANY-DEPTH')).toBe(true);
    recordLoggedOut(s);
    expect(expectRefresh(m, s).outcome).toBe('refused');
  });

  test("another session's logout: a pair or a refusal are both allowed (INFO); the chain's own logout is a MUST at any depth", () => {
    const m = newModel(['primary', 'second']);
    const a = addSession(m, 'primary');
    const b = addSession(m, 'primary');
    const c = addSession(m, 'second');
    const d = addSession(m, 'primary');
    recordLoggedOut(a);
    expect(expectRefresh(m, a)).toEqual({ outcome: 'refused', requirement: 'SEQ-REFRESH-CHAIN-ANY-DEPTH' });
    expect(expectRefresh(m, b)).toEqual({ outcome: 'pair', requirement: 'SEQ-LOGOUT-ONE-SESSION' });
    expect(findRequirement('SEQ-LOGOUT-ONE-SESSION')?.level).toBe('INFO');
    expect(expectRefresh(m, c)).toEqual({ outcome: 'pair', requirement: 'SEQ-REFRESH-CHAIN-ANY-DEPTH' });
    recordRefreshed(m, b);
    expect(m.observed.has('SEQ-LOGOUT-ONE-SESSION')).toBe(true);
    // Log out everywhere: d was refused; it is no longer judged nor logged out again.
    recordEndedWithSibling(m, d);
    expect(expectRefresh(m, d).outcome).toBe('either');
    expect(openSessions(m)).toEqual([b, c]);
  });

  test("the run's logout of the customer elsewhere (another file) is a sibling's logout: INFO, its own logout still a MUST", () => {
    const m = newModel(['primary']);
    const s = addSession(m, 'primary');
    expect(expectRefresh(m, s, true)).toEqual({ outcome: 'pair', requirement: 'SEQ-LOGOUT-ONE-SESSION' });
    expect(expectRefresh(m, s, false)).toEqual({
      outcome: 'pair',
      requirement: 'SEQ-REFRESH-CHAIN-ANY-DEPTH',
    });
    recordRefreshed(m, s, true);
    expect(m.observed.has('SEQ-LOGOUT-ONE-SESSION')).toBe(true);
    recordLoggedOut(s);
    expect(expectRefresh(m, s, true)).toEqual({
      outcome: 'refused',
      requirement: 'SEQ-REFRESH-CHAIN-ANY-DEPTH',
    });
  });

  test('a refusal after its own logout is observed past the fixed depth only', () => {
    const m = newModel(['primary']);
    const s = addSession(m, 'primary');
    recordRefreshed(m, s);
    recordLoggedOut(s);
    recordRefusedAfterLogout(m, s);
    expect(m.observed.has('SEQ-REFRESH-CHAIN-ANY-DEPTH')).toBe(false);
    const deep = addSession(m, 'primary');
    deep.depth = 2;
    recordLoggedOut(deep);
    recordRefusedAfterLogout(m, deep);
    expect(m.observed.has('SEQ-REFRESH-CHAIN-ANY-DEPTH')).toBe(true);
  });
});

describe('websocket connections', () => {
  test('a connection serving a second request is what only a sequence shows', () => {
    const m = newModel(['primary']);
    const w = addSocket(m, 'primary');
    recordSocketRequest(m, w);
    expect(m.observed.has('SEQ-WS-REQUESTS-ANY-COUNT')).toBe(false);
    recordSocketRequest(m, w);
    expect(w.requests).toBe(2);
    expect(m.observed.has('SEQ-WS-REQUESTS-ANY-COUNT')).toBe(true);
  });
});

test('status classes', () => {
  expect([200, 307, 404, 500, 99].map(statusClass)).toEqual(['2xx', '3xx', '4xx', '5xx', 'other']);
});

test('the reproduction script logs in with variables only, makes its voice, and runs each step in order', () => {
  const script = sequenceScript({
    steps: [
      { title: 'T1 = generate', lines: ['TOKEN="$A1"; call POST /x'] },
      { title: "DELETE T1 it's", lines: ['TOKEN="$A1"; call DELETE /y'] },
    ],
    accounts: ['primary'],
    model: 'm1',
    gender: 'female',
    seed: 42,
    failure: 'answered 500',
    websocket: { firstMessageS: 15, endS: 60 },
  }).join('\n');
  expect(script.startsWith('#!/bin/sh\n')).toBe(true);
  // The credentials go into the JSON escaped by sed (a password may hold " or \): pasted into sh,
  // test/checks/stateful-script-login.int.test.ts.
  expect(script).toContain(`\\"password\\":\\"$(printf '%s' "$SPEAK_PASSWORD" | sed 's/[\\\\"]/\\\\&/g')\\"`);
  expect(script).not.toContain('SPEAK_SECOND_EMAIL');
  expect(script.indexOf('step 1: T1')).toBeLessThan(script.indexOf('step 2: DELETE'));
  expect(script).toContain(`'== step 2: DELETE T1 it'"'"'s'`);
  expect(script).toContain('seed 42');
});

test("a step's path names the ids the script read (double-quoted: sh expands $T1), its JSON stays literal", () => {
  expect(apiCall('primary', 'GET', '/v1/speak/takes?take_id=$T1,$T2&length=1')).toBe(
    'TOKEN="$A1"; call GET "/v1/speak/takes?take_id=$T1,$T2&length=1"',
  );
  expect(apiCall('second', 'POST', '/v1/speak/takes/generate', { text: "it's" })).toBe(
    `TOKEN="$A2"; call POST "/v1/speak/takes/generate" '{"text":"it'"'"'s"}'`,
  );
});

describe('a websocket request of a sequence', () => {
  const end = (outcome: string, status: unknown, evidenceAgainst?: string) =>
    socketRequestEnd({ outcome, status, takeId: outcome === 'ended' ? 'tk_1' : undefined, evidenceAgainst });
  test('served when it ended ready with a take id', () => {
    expect(end('ended', 'ready')).toBe('served');
  });
  test('a timeout without evidence against the server (slow, not silent) concludes nothing: latency is never a verdict', () => {
    expect(end('timeout', 'started')).toBe('timed-out');
    expect(end('timeout', undefined)).toBe('timed-out');
  });
  test('not served: silent past the request bound after earlier requests were answered, a close, an error', () => {
    expect(end('timeout', undefined, 'WS-SERIALIZED')).toBe('not-served');
    expect(end('closed', 'started')).toBe('not-served');
    expect(end('take-failed', 'error')).toBe('not-served');
    expect(end('ended', 'started')).toBe('not-served');
  });
});
