/**
 * A named set of switches that are on in this process (defects, latitude): off unless the stack was
 * started with them. Activating also puts the list in an environment variable, so the worker
 * processes (and threads) the stack starts see it; a worker adopts it only because it is a child of such a
 * stack (process.send exists) or a thread of it, never from a stray variable in a shell.
 */
import { isMainThread } from 'node:worker_threads';

export interface SwitchSet<Name extends string> {
  /** What the code that misbehaves on purpose asks. */
  view: { has(name: Name): boolean; list(): Name[] };
  /** Turns on `names` (replacing what was on); an unknown name throws what `unknown` makes. */
  activate(names: readonly string[]): void;
  /** In a worker process forked by such a stack, or a worker thread of it: the parent's switches. */
  adoptParent(): void;
}

export function createSwitchSet<Name extends string>(o: {
  env: string;
  isKnown: (name: string) => boolean;
  unknown: (names: string[]) => Error;
}): SwitchSet<Name> {
  const active = new Set<Name>();
  const activate = (names: readonly string[]): void => {
    const unknown = names.filter((name) => !o.isKnown(name));
    if (unknown.length > 0) throw o.unknown(unknown);
    active.clear();
    for (const name of names) active.add(name as Name);
    if (active.size > 0) process.env[o.env] = [...active].join(',');
    else delete process.env[o.env];
  };
  return {
    view: { has: (name) => active.has(name), list: () => [...active] },
    activate,
    adoptParent() {
      // A forked worker has IPC to its stack; a worker thread was started by it (its env a copy of the stack's).
      const given = process.send || !isMainThread ? process.env[o.env] : undefined;
      if (given) activate(given.split(','));
    },
  };
}
