/** An observation is keyed data; its sentence is written from the template once (src/evidence/observation.ts). */
import { describe, expect, test } from 'vitest';
import { comparedForm, observation } from '../../src/evidence/observation.ts';

describe('observation', () => {
  test('the sentence is the template with each {name} the value or particular of that name', () => {
    const o = observation('voices.delete-answer', 'DELETE /v1/speak/voices/{id} answered {status} {body}', {
      values: { status: 405 },
      particulars: { body: '{"detail":"no"}' },
    });
    // {id} names no datum: it stays as written (a path template of the contract).
    expect(o.text).toBe('DELETE /v1/speak/voices/{id} answered 405 {"detail":"no"}');
    expect(o).toMatchObject({ key: 'voices.delete-answer', values: { status: 405 } });
  });

  test('compared: the key and the values in name order; particulars never; caught not at all', () => {
    const a = observation('lists.page-base', '{first} {n}', {
      values: { first: 1, b: 'x' },
      particulars: { n: 3 },
    });
    const b = observation('lists.page-base', '{first} {n}', {
      values: { b: 'x', first: 1 },
      particulars: { n: 9 },
    });
    expect(comparedForm(a)).toBe('lists.page-base: b="x", first=1');
    expect(comparedForm(a)).toBe(comparedForm(b));
    expect(comparedForm(observation('websocket.one-model', 'one model'))).toBe('websocket.one-model');
    expect(comparedForm(observation('audio.retry', 'trying again', { caught: true }))).toBeUndefined();
  });
});
