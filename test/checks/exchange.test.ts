import { describe, expect, it } from 'vitest';
import { deleteAnswerUnknowable } from '../../src/checks/exchange.ts';

describe('a DELETE sent again after no answer (RFC 9110 §9.2.2: the same effect, not the same answer)', () => {
  const resentDelete = { method: 'DELETE', status: 404, resentAfterNoAnswer: true as const };

  it('answered 404, says nothing of the delete: its first attempt may have deleted the item', () => {
    expect(deleteAnswerUnknowable(resentDelete)).toBe(true);
    expect(deleteAnswerUnknowable({ ...resentDelete, method: 'delete' })).toBe(true);
  });

  it('is judged as any other answer otherwise', () => {
    expect(deleteAnswerUnknowable({ method: 'DELETE', status: 404 })).toBe(false); // sent once: a real 404
    expect(deleteAnswerUnknowable({ ...resentDelete, status: 200 })).toBe(false); // it deleted, and said so
    expect(deleteAnswerUnknowable({ ...resentDelete, status: 500 })).toBe(false);
    expect(deleteAnswerUnknowable({ ...resentDelete, method: 'GET' })).toBe(false);
  });
});
