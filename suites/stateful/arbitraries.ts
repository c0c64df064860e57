/**
 * The generator of sequences: fast-check's `fc.commands` over every command of the contract and the
 * wire facts, weighted so a sequence interleaves state changes with every kind of read, and sized past
 * the fixed scenarios (chains deeper than four refreshes, more than three requests on one connection,
 * lists paged after deletes). Each parameter shrinks towards the simplest call (the first customer,
 * one refresh, the whole list), so a failure shrinks to the shortest sequence that still fails.
 */
import fc from 'fast-check';
import type { AccountName } from '../../src/checks/stateful/model.ts';
import { Login, Logout, Refresh, WebsocketTake } from './session-commands.ts';
import {
  DeleteTake,
  GenerateTake,
  GetTake,
  ListTakes,
  type SequenceCommand,
  TEXTS,
  TouchDeleted,
} from './take-commands.ts';
import { BatchGenerate, ReadVoice, UpdateVoice } from './wire-commands.ts';

export interface SequenceShape {
  accounts: readonly AccountName[];
  /** Whether the run has credentials to log in again (a token-only run has not). */
  logins: boolean;
  maxCommands: number;
  /** `fc.commands`' replay path of a shrunk sequence (`--replay-path`). */
  replayPath?: string;
}

export function sequenceArbitrary(
  shape: SequenceShape,
): fc.Arbitrary<Iterable<fc.AsyncCommand<never, never>>> {
  const account = fc.constantFrom<AccountName>(...shape.accounts);
  const text = fc.constantFrom(...TEXTS);
  const index = fc.nat({ max: 7 });
  // Weighted by repetition: reads and changes interleave, generation does not crowd them out.
  const generate = fc.tuple(account, text).map(([a, t]) => new GenerateTake(a, t));
  const get = fc.tuple(account, index).map(([a, n]) => new GetTake(a, n));
  const remove = fc.tuple(account, index).map(([a, n]) => new DeleteTake(a, n));
  const touch = fc
    .tuple(account, index, fc.constantFrom('wav' as const, 'delete' as const))
    .map(([a, n, how]) => new TouchDeleted(a, n, how));
  const whole = account.map((a) => new ListTakes(a, undefined));
  const paged = fc
    .tuple(account, fc.integer({ min: 1, max: 3 }))
    .map(([a, length]) => new ListTakes(a, length));
  // Mostly the customer's last connection (shrinks to it), several requests in a row: connections
  // serving more requests than any fixed scenario.
  const websocket = fc
    .tuple(account, fc.constantFrom(false, false, true), text, fc.integer({ min: 1, max: 5 }))
    .map(([a, fresh, t, times]) => new WebsocketTake(a, fresh, t, times));
  // The wire facts' update and batch: a voice changed and read back through either view; batches
  // past the fixed scenario's two bodies.
  const update = fc
    .tuple(
      account,
      fc.constantFrom('name' as const, 'description' as const, 'both' as const),
      fc.nat({ max: 2 }),
    )
    .map(([a, fields, n]) => new UpdateVoice(a, fields, n));
  const readVoice = fc
    .tuple(account, fc.constantFrom('get' as const, 'list' as const))
    .map(([a, view]) => new ReadVoice(a, view));
  const batch = fc
    .tuple(account, fc.array(fc.nat({ max: TEXTS.length - 1 }), { minLength: 2, maxLength: 4 }))
    .map(([a, texts]) => new BatchGenerate(a, texts));
  const takes: fc.Arbitrary<SequenceCommand>[] = [
    update,
    readVoice,
    readVoice,
    batch,
    generate,
    generate,
    get,
    get,
    remove,
    remove,
    touch,
    whole,
    paged,
    paged,
    websocket,
    websocket,
    websocket,
  ];
  const sessions: fc.Arbitrary<SequenceCommand>[] = shape.logins
    ? [
        account.map((a) => new Login(a)),
        account.map((a) => new Login(a)),
        fc.tuple(index, fc.integer({ min: 1, max: 8 })).map(([n, times]) => new Refresh(n, times)),
        fc.tuple(index, fc.integer({ min: 1, max: 8 })).map(([n, times]) => new Refresh(n, times)),
        index.map((n) => new Logout(n)),
        index.map((n) => new Logout(n)),
      ]
    : [];
  // Unbiased: a run explores few sequences, and fast-check's bias would make its first ones short.
  return fc.noBias(
    fc.commands([...takes, ...sessions] as fc.Arbitrary<fc.AsyncCommand<never, never>>[], {
      maxCommands: shape.maxCommands,
      size: 'max',
      ...(shape.replayPath ? { replayPath: shape.replayPath } : {}),
    }),
  );
}

/**
 * One sequence that brings about the state of every judged SEQ requirement, run after the random
 * ones when they left one unobserved: a pass is an observation, and a main job of a few random
 * sequences left one MUST not observed in about half the runs (2 of 4 measured, 2026-11-27).
 * Commands whose precondition does not hold (no logins in a token-only run, no delete offered) are
 * skipped by fast-check's model run, as in any sequence. A failure it finds is shrunk by
 * `shrinkByRemoval` (fast-check cannot shrink a sequence it did not generate).
 */
export function witnessSequence(shape: Pick<SequenceShape, 'accounts'>): SequenceCommand[] {
  const a = shape.accounts[0]!;
  // Within the model's seven takes: two generations, a batch of three, two websocket requests.
  return [
    new Login(a),
    new GenerateTake(a, TEXTS[0]),
    new GenerateTake(a, TEXTS[0]),
    new GetTake(a, 0),
    new BatchGenerate(a, [0, 1, 2]),
    new ListTakes(a, undefined),
    new ListTakes(a, 1),
    new Refresh(0, 6),
    new WebsocketTake(a, false, TEXTS[1], 2),
    new UpdateVoice(a, 'both', 0),
    new ReadVoice(a, 'list'),
    new DeleteTake(a, 0),
    new TouchDeleted(a, 0, 'wav'),
    new ListTakes(a, 1),
    new Logout(0),
  ];
}

/**
 * The shortest sequence left by removing steps one at a time, the last first, keeping each removal
 * after which `fails` still holds (the same failure): a failing hand-written sequence, shrunk.
 */
export async function shrinkByRemoval<T>(
  items: readonly T[],
  fails: (candidate: T[]) => Promise<boolean>,
): Promise<T[]> {
  let current = [...items];
  for (let i = current.length - 1; i >= 0; i--) {
    const candidate = current.filter((_, k) => k !== i);
    if (await fails(candidate)) current = candidate;
  }
  return current;
}

/**
 * The sequence with every step run as the first customer, when a step ran as the second: fast-check
 * shrinks one command's customer at a time, and a candidate whose first step moves to the first
 * customer loses the preconditions of the steps after it, so a failure that has nothing to do with
 * the second customer keeps it. Tried once after shrinking (suites/sequences.spec.ts): when it
 * still fails the same way, its reproduction needs only the first customer's credentials.
 * Takes fast-check's wrapped commands (the steps that ran) or plain ones.
 */
export function asPrimary(commands: Iterable<unknown>): SequenceCommand[] | undefined {
  const steps = [...commands].flatMap((c) => {
    const wrapped = c as { cmd?: SequenceCommand; hasRan?: boolean };
    if (wrapped.cmd !== undefined) return wrapped.hasRan ? [wrapped.cmd] : [];
    return [c as SequenceCommand];
  });
  const second = (c: SequenceCommand) => (c as { account?: AccountName }).account === 'second';
  if (!steps.some(second)) return undefined;
  // A copy of each command of the second customer, the same in all but its customer.
  return steps.map((c) =>
    second(c)
      ? Object.assign(Object.create(Object.getPrototypeOf(c)) as SequenceCommand, c, { account: 'primary' })
      : c,
  );
}
