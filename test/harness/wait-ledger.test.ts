/**
 * One wait per stuck thing (src/harness/wait-ledger.ts): what a later wait may still spend once a
 * wait of its kind ran its whole bound, the ledger file shared by the suite files' threads, and how
 * check()/checkStep() treat a stuck wait's error (it fails the kind's ready bound, blocks the rest).
 */
import { appendFileSync, rmSync } from 'node:fs';
import { afterEach, describe, expect, test } from 'vitest';
import { startRunFacts } from '../../src/facts/run-facts.ts';
import { check, checkStep, runWithChecks } from '../../src/harness/check.ts';
import { classify } from '../../src/harness/disposition.ts';
import {
  allowedWaitMs,
  fileLedger,
  isStuckWait,
  memoryLedger,
  NotWaitedAgain,
  ReadyBoundExceeded,
  type StuckWait,
} from '../../src/harness/wait-ledger.ts';
import type { Conclusions } from '../../src/verdict/conclusion.ts';

const BOUND = 60_000;
const stuckVoice: StuckWait = {
  kind: 'voice',
  id: 'vc_shared0001',
  statuses: ['waiting'],
  polls: 201,
  waitedMs: 60_100,
  boundMs: BOUND,
};

describe('allowedWaitMs', () => {
  test('nothing stuck: the whole bound, for anyone', () => {
    const ledger = memoryLedger();
    ledger.recordDone('voice', 'vc_a', 4_000);
    expect(allowedWaitMs(ledger, 'voice', 'vc_b', BOUND)).toEqual({ allowedMs: BOUND });
  });

  test('the stuck item itself: no second wait (one poll)', () => {
    const ledger = memoryLedger();
    ledger.recordDone('voice', 'vc_a', 4_000);
    ledger.recordStuck(stuckVoice);
    expect(allowedWaitMs(ledger, 'voice', stuckVoice.id, BOUND)).toEqual({ allowedMs: 0, stuck: stuckVoice });
  });

  test('another item of the kind: twice the slowest done one, none when none got done, never past the bound', () => {
    const ledger = memoryLedger();
    ledger.recordStuck(stuckVoice);
    expect(allowedWaitMs(ledger, 'voice', 'vc_b', BOUND).allowedMs).toBe(0);
    ledger.recordDone('voice', 'vc_a', 1_500);
    ledger.recordDone('voice', 'vc_c', 4_000);
    expect(allowedWaitMs(ledger, 'voice', 'vc_b', BOUND).allowedMs).toBe(8_000);
    ledger.recordDone('voice', 'vc_d', 45_000);
    expect(allowedWaitMs(ledger, 'voice', 'vc_b', BOUND).allowedMs).toBe(BOUND);
  });

  test('a stuck voice says nothing about takes (only the same kind is poisoned)', () => {
    const ledger = memoryLedger();
    ledger.recordStuck(stuckVoice);
    expect(allowedWaitMs(ledger, 'take', 'tk_a', BOUND)).toEqual({ allowedMs: BOUND });
  });

  test('the first stuck wait of the kind is the evidence named, the same item preferred', () => {
    const ledger = memoryLedger();
    const later = { ...stuckVoice, id: 'vc_later', waitedMs: 61_000 };
    ledger.recordStuck(stuckVoice);
    ledger.recordStuck(later);
    expect(ledger.stuck('voice', 'vc_other')).toEqual({ stuck: stuckVoice, sameItem: false });
    expect(ledger.stuck('voice', 'vc_later')).toEqual({ stuck: later, sameItem: true });
  });
});

describe('the ledger file', () => {
  let remove: (() => void) | undefined;
  afterEach(() => remove?.());

  test('what one reader writes every other reader of the file sees (as the suite threads do)', () => {
    const file = startRunFacts();
    remove = file.remove;
    const one = fileLedger(file.path);
    const other = fileLedger(file.path);
    expect(other.stuck('voice', stuckVoice.id)).toBeUndefined();
    one.recordStuck(stuckVoice);
    one.recordDone('take', 'tk_a', 2_000);
    expect(other.stuck('voice', 'vc_b')).toEqual({ stuck: stuckVoice, sameItem: false });
    expect(other.slowestDoneMs('take')).toBe(2_000);
    expect(other.slowestDoneMs('voice')).toBeUndefined();
  });

  test('a line still being written is read at the next poll, not as garbage', () => {
    const file = startRunFacts();
    remove = file.remove;
    appendFileSync(file.path, '{"type":"stuck","kind":"voice"');
    expect(fileLedger(file.path).stuck('voice', 'x')).toBeUndefined();
  });

  test('removed at the end of the run: a missing file is an empty ledger', () => {
    const file = startRunFacts();
    file.remove();
    expect(fileLedger(file.path).slowestDoneMs('voice')).toBeUndefined();
    rmSync(file.path, { force: true });
  });
});

describe('a stuck wait in a test', () => {
  const notAgain = new NotWaitedAgain('voice', 'vc_b', stuckVoice, {
    status: 'waiting',
    waitedMs: 30,
    sameItem: false,
  });
  const first = new ReadyBoundExceeded(stuckVoice, 'waiting');

  const inTest = <T>(ids: string[], fn: () => T) => {
    const conclusions: Conclusions = {};
    return { conclusions, result: runWithChecks({ ids, conclusions }, fn) };
  };

  test('names the first wait and its evidence', () => {
    expect(first.message).toBe(
      'voice vc_share did not reach a done state within 60000 ms (waited 60.1 s, 201 polls; statuses seen: ["waiting"])',
    );
    expect(notAgain.message).toBe(
      `${first.message}; so voice vc_b, still "waiting" after 0.0 s, was not waited for again (one wait per stuck voice)`,
    );
    expect(notAgain.facts.requirement).toBe('VOICE-READY-BOUND');
  });

  test.each([
    ['a later wait', notAgain],
    ['the first wait', first],
    ['either, wrapped by a property', Object.assign(new Error('p: x'), { cause: notAgain })],
  ])(
    '%s inside a check of another requirement stops the test as a setup failure, failing nothing',
    async (_, err) => {
      expect(isStuckWait(err)).toBe(true);
      const { conclusions, result } = inTest(['TAKE-BATCH'], async () => {
        await check('TAKE-BATCH', async () => {
          throw err;
        });
      });
      const thrown = await result.catch((e: unknown) => e);
      expect(thrown).toBe(err);
      expect(classify(thrown).kind).toBe('run-fact');
      expect(conclusions).toEqual({});
    },
  );

  test('inside a checkStep of another requirement: passed through, not a StepFailed of that step', async () => {
    const { conclusions, result } = inTest(['TAKE-GENERATE-RETURNS-TAKE'], () =>
      checkStep('TAKE-GENERATE-RETURNS-TAKE', async () => {
        throw notAgain;
      }),
    );
    expect(await result.catch((e: unknown) => e)).toBe(notAgain);
    expect(conclusions).toEqual({});
  });

  test('in a test that covers the ready bound: the evidence fails it', async () => {
    const { conclusions, result } = inTest(['VOICE-READY-BOUND', 'VOICE-GET-OBJECT'], () =>
      checkStep('VOICE-READY-BOUND', async () => {
        throw notAgain;
      }),
    );
    await expect(result).rejects.toThrow(/VOICE-READY-BOUND: voice vc_share did not reach/);
    expect(conclusions['VOICE-READY-BOUND']).toEqual([{ kind: 'violated', message: notAgain.message }]);
  });
});
