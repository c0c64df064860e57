/**
 * A DELETE in a sequence that was sent again after its first attempt got no answer, then answered
 * 404 (suites/stateful/take-commands.ts, DeleteTake): the first attempt may have deleted the take, so
 * the 404 is not judged, and it does not teach the model that the server offers no delete.
 */
import { expect, test } from 'vitest';
import { addTake, liveTakes, newModel, takesOf } from '../../src/checks/stateful/model.ts';
import type { Exchange } from '../../src/harness/index.ts';
import type { Real } from '../../suites/stateful/real.ts';
import { DeleteTake } from '../../suites/stateful/take-commands.ts';

const answered = (status: number, resent: boolean) =>
  ({
    status,
    text: '{"detail":"Not Found"}',
    headers: {},
    method: 'DELETE',
    url: 'http://127.0.0.1:1/v1/speak/takes/tk_1',
    ...(resent ? { resentAfterNoAnswer: true } : {}),
  }) as unknown as Exchange;

function realAnswering(exchange: Exchange): Real {
  return {
    world: { judged: () => true, infoNotes: new Set<string>() },
    step: () => {},
    idOf: (take: { takeId?: string }) => take.takeId,
    client: () => ({ delete: async () => exchange }),
  } as unknown as Real;
}

function modelWithTake(deleteOffered?: boolean) {
  const m = newModel(['primary']);
  const take = addTake(m, 'primary', 'One.', 'rest');
  take.takeId = 'tk_1';
  if (deleteOffered !== undefined) m.learned.deleteOffered = deleteOffered;
  return { m, take };
}

test('before the sequence knows the server deletes, a resent DELETE answered 404 leaves the take unknown, not live', async () => {
  const { m, take } = modelWithTake();
  await new DeleteTake('primary', 0).run(m, realAnswering(answered(404, true)));
  expect(m.learned.deleteOffered).toBeUndefined(); // not "the server offers no delete"
  expect(take.forgotten).toBe(true);
  expect(takesOf(m, 'primary')).toEqual([]); // neither listed, read nor judged as live or deleted
});

test('once the server is known to delete, a resent DELETE answered 404 deleted the take', async () => {
  const { m, take } = modelWithTake(true);
  await new DeleteTake('primary', 0).run(m, realAnswering(answered(404, true)));
  expect(take.deleted).toBe(true);
  expect(take.forgotten).toBeUndefined();
});

test('a first DELETE answered 404 still says the server offers no delete, the take live', async () => {
  const { m } = modelWithTake();
  await new DeleteTake('primary', 0).run(m, realAnswering(answered(404, false)));
  expect(m.learned.deleteOffered).toBe(false);
  expect(liveTakes(m, 'primary')).toHaveLength(1);
});
