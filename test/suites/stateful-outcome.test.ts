/**
 * What the sequences' errors conclude (suites/stateful/outcome.ts): only a Finding of a sequence
 * requirement is a counterexample; a request without an answer, a websocket upgrade that timed out
 * or another requirement's finding stops the sequences and blocks the ids they did not observe,
 * never fails them.
 */
import { expect, test } from 'vitest';
import { Finding } from '../../src/checks/finding.ts';
import { SEQUENCE_IDS } from '../../src/checks/stateful/model.ts';
import { classify, type RequirementId } from '../../src/harness/index.ts';
import {
  isCounterexample,
  replayCommand,
  requirementOf,
  sequenceEnd,
  stopAsBlock,
} from '../../suites/stateful/outcome.ts';

/** A POST that got no answer once (src/client/diagnostics.ts 'hung'): TAKE-GENERATE-RETURNS-TAKE's finding. */
function hungPost(): Error {
  return Object.assign(new Error('POST /v1/speak/takes/generate got no answer within 15 s'), {
    code: 'SPEAKCHECK_HUNG',
    route: 'POST /v1/speak/takes/generate',
    method: 'POST',
  });
}

/** A websocket upgrade that timed out once (src/client/ws-client-error.ts): WS-CONNECT-NO-BEARER's. */
function upgradeTimedOut(): Error {
  return Object.assign(new Error('the websocket upgrade got no answer within 15 s'), {
    code: 'SPEAKCHECK_WS_CLIENT',
    route: 'GET /v1/speak/takes/stream (websocket upgrade)',
  });
}

test('only a Finding of a sequence requirement is a counterexample, and it names that requirement', () => {
  const list = new Finding('pages skip tk_1', { requirement: 'SEQ-LIST-PAGES-AFTER-CHANGES' });
  expect(isCounterexample(list)).toBe(true);
  expect(requirementOf(list)).toBe('SEQ-LIST-PAGES-AFTER-CHANGES');
  // Not the take list's failure: a hang, an upgrade timing out, a 500 of another requirement, a finding naming none.
  expect(classify(hungPost())).toMatchObject({ kind: 'finding', requirement: 'TAKE-GENERATE-RETURNS-TAKE' });
  expect(isCounterexample(hungPost())).toBe(false);
  expect(isCounterexample(upgradeTimedOut())).toBe(false);
  expect(isCounterexample(new Finding('answered 500', { requirement: 'WS-CONNECT-NO-BEARER' }))).toBe(false);
  expect(isCounterexample(new Finding('voice generation answered 500'))).toBe(false);
  expect(isCounterexample(new Error('a bug'))).toBe(false);
  expect(() => requirementOf(new Finding('x'))).toThrow('not a counterexample');
});

test('a stop leaves the observed ids held and the others open, and its error blocks them instead of failing them', () => {
  const observed = new Set<RequirementId>(['SEQ-TAKE-GET-AGREES']);
  const ends = Object.fromEntries(
    SEQUENCE_IDS.map((id) => [
      id,
      sequenceEnd(id, {
        observed,
        offered: {},
        failed: new Set(),
        stopped: true,
        timedOut: undefined,
        logins: true,
      }).kind,
    ]),
  );
  expect(ends['SEQ-TAKE-GET-AGREES']).toBe('held');
  expect(Object.values(ends).filter((k) => k !== 'held')).toEqual(
    SEQUENCE_IDS.filter((id) => id !== 'SEQ-TAKE-GET-AGREES').map(() => 'open'),
  );
  // covers() blocks what a 'setup' failure leaves open; a plain finding before any check fails every id.
  const hung = hungPost();
  expect(classify(stopAsBlock(hung)).kind).toBe('setup');
});

test('a token-only run leaves the refresh chain not observed, judged by --email and --password', () => {
  const end = sequenceEnd('SEQ-REFRESH-CHAIN-ANY-DEPTH', {
    observed: new Set(),
    offered: {},
    failed: new Set(),
    stopped: false,
    timedOut: undefined,
    logins: false,
  });
  expect(end).toMatchObject({
    kind: 'not-observed',
    wouldJudge: '--email and --password instead of --token',
  });
  const withPassword = sequenceEnd('SEQ-REFRESH-CHAIN-ANY-DEPTH', {
    observed: new Set(),
    offered: {},
    failed: new Set(),
    stopped: false,
    timedOut: undefined,
    logins: true,
  });
  expect(withPassword).toMatchObject({
    wouldJudge: 'more sequences (--sequences N, or --profile acceptance)',
  });
});

test("the replay command names the run's profile when not the default and its --sequences when given", () => {
  const id: RequirementId = 'SEQ-BATCH-EVERY-TAKE';
  expect(replayCommand({ seed: 5, path: '4:2@AB', id, profile: 'sdk', sequences: 60 })).toBe(
    "speakcheck run --profile sdk --sequences 60 --seed 5 --replay-path '4:2@AB' --requirement SEQ-BATCH-EVERY-TAKE",
  );
  expect(replayCommand({ seed: 5, id, profile: 'strict' })).toBe(
    'speakcheck run --seed 5 --requirement SEQ-BATCH-EVERY-TAKE',
  );
});
