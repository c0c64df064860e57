/**
 * Run-wide facts (src/facts/run-facts.ts): what one thread records every other thread of the run
 * reads (two stores over one file, as two suite threads are), and the allowance a later wait gets.
 */
import { appendFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, test } from 'vitest';
import {
  ALLOWANCE_FLOOR_MS,
  type FactOf,
  fileFacts,
  memoryFacts,
  publishedFactsPath,
  runFacts,
  startRunFacts,
} from '../../src/facts/run-facts.ts';

/** A stuck take's fact, as the wait ledger records it. */
function stuckTake(id: string, sentence = `take ${id} stuck`): FactOf<'stuck'> {
  return {
    key: `take:${id}`,
    type: 'stuck',
    spreads: true,
    consequence: { kind: 'blocks' },
    sentence,
    stuck: { kind: 'take', id, statuses: ['waiting'], polls: 3, waitedMs: 60_000, boundMs: 60_000 },
  };
}

let remove: (() => void) | undefined;
afterEach(() => {
  remove?.();
  remove = undefined;
});

describe('record, find and allowance', () => {
  test('find returns the first limiting fact of a key; successes are not found without their type', () => {
    const facts = memoryFacts();
    facts.record({ key: 'take:a', type: 'done', tookMs: 10 });
    expect(facts.find('take:a')).toBeUndefined();
    expect(facts.find('take:a', 'done')?.tookMs).toBe(10);
    facts.record(stuckTake('a', 'first'));
    facts.record(stuckTake('a', 'second'));
    expect(facts.find('take:a')?.sentence).toBe('first');
    expect(facts.find('take:a')?.atMs).toBeGreaterThan(0);
  });

  test('allowance: the bound when nothing is known, 0 for the key itself, twice the slowest success of a spreading group', () => {
    const facts = memoryFacts();
    expect(facts.allowance('take:b', 60_000)).toEqual({ allowedMs: 60_000 });
    facts.record(stuckTake('a'));
    expect(facts.allowance('take:a', 60_000).allowedMs).toBe(0);
    expect(facts.allowance('take:b', 60_000).allowedMs).toBe(0); // nothing of the group got done
    facts.record({ key: 'take:c', type: 'done', tookMs: 3_000 });
    expect(facts.allowance('take:b', 60_000)).toMatchObject({ allowedMs: 6_000, fact: { key: 'take:a' } });
    facts.record({ key: 'take:d', type: 'done', tookMs: 40_000 });
    expect(facts.allowance('take:b', 60_000).allowedMs).toBe(60_000);
    // Another group is untouched.
    expect(facts.allowance('voice:b', 60_000)).toEqual({ allowedMs: 60_000 });
  });

  test('allowance: never under the floor once something of the group succeeded, never over the bound', () => {
    const facts = memoryFacts();
    facts.record(stuckTake('a'));
    facts.record({ key: 'take:c', type: 'done', tookMs: 0.8 });
    // Twice 0.8 ms is below timer jitter: a served request would be judged silent.
    expect(facts.allowance('take:b', 15_000).allowedMs).toBe(ALLOWANCE_FLOOR_MS);
    expect(facts.allowance('take:b', 300).allowedMs).toBe(300);
    expect(facts.allowance('take:a', 15_000).allowedMs).toBe(0);
  });

  test('ofType and find by kind give the kind’s own fields, typed', () => {
    const facts = memoryFacts();
    facts.record(stuckTake('a'));
    facts.record({ key: 'take:b', type: 'done', tookMs: 7 });
    facts.record({ key: 'route:GET /a', type: 'throttled', status: 429, retryAfterHonoured: true });
    expect(facts.ofType('stuck').map((f) => f.stuck.id)).toEqual(['a']);
    expect(facts.ofType('done').map((f) => f.tookMs)).toEqual([7]);
    expect(facts.find('route:GET /a', 'throttled')?.status).toBe(429);
    expect(facts.find('route:GET /a', 'served')).toBeUndefined();
  });

  test('a line that is not a fact is ignored', () => {
    const run = startRunFacts();
    remove = run.remove;
    appendFileSync(
      run.path,
      '[1,2]\n"text"\n{"key":1,"type":"done"}\n{"key":"take:c","type":"done","tookMs":5}\n',
    );
    expect(fileFacts(run.path).all()).toEqual([{ key: 'take:c', type: 'done', tookMs: 5 }]);
  });

  test('a fact that does not spread limits its key only', () => {
    const facts = memoryFacts();
    facts.record({
      key: 'route:GET /a',
      type: 'unavailable',
      consequence: { kind: 'not-concluded', wouldJudge: 'x' },
      sentence: 'GET /a answered 429',
      outage: { route: 'GET /a', statuses: [429], answers: 3, spanMs: 25_000, servedElsewhere: 1 },
    });
    expect(facts.allowance('route:GET /a', 25_000).allowedMs).toBe(0);
    expect(facts.allowance('route:GET /b', 25_000)).toEqual({ allowedMs: 25_000 });
  });
});

describe('one file for the run', () => {
  test('what one store appends the other reads, a half-written line included once it is complete', () => {
    const run = startRunFacts();
    remove = run.remove;
    const one = fileFacts(run.path);
    const other = fileFacts(run.path);
    expect(other.all()).toEqual([]);
    one.record(stuckTake('a'));
    expect(other.allowance('take:b', 1_000).allowedMs).toBe(0);
    appendFileSync(run.path, '{"key":"take:c","type":"done",');
    expect(other.all()).toHaveLength(1);
    appendFileSync(run.path, '"tookMs":2000}\n');
    expect(other.allowance('take:b', 10_000).allowedMs).toBe(4_000);
    expect(one.all()).toHaveLength(2);
  });

  test('published to threads started later: a worker thread records into the same run', async () => {
    const run = startRunFacts();
    remove = run.remove;
    expect(publishedFactsPath()).toBe(run.path);
    expect(runFacts().all()).toEqual([]);
    // A worker thread (as a suite file runs): it sees the published path and appends a fact.
    const worker = new Worker(
      `const { getEnvironmentData } = require('node:worker_threads');
       const { appendFileSync } = require('node:fs');
       const path = getEnvironmentData('speakcheck:run-facts');
       appendFileSync(path, JSON.stringify({ key: 'route:GET /x', type: 'unavailable', consequence: { kind: 'blocks' }, sentence: 'from a thread' }) + '\\n');`,
      { eval: true },
    );
    await new Promise((resolve, reject) => worker.once('exit', resolve).once('error', reject));
    expect(runFacts().find('route:GET /x')?.sentence).toBe('from a thread');
  });

  test('outside a run the facts live in memory; removing the run unpublishes its file', () => {
    const run = startRunFacts();
    run.remove();
    expect(publishedFactsPath()).toBeUndefined();
    runFacts().record({ key: 'route:GET /x', type: 'served' });
    expect(runFacts().find('route:GET /x', 'served')).toBeDefined();
  });
});
