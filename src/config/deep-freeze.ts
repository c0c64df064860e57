/**
 * Values no code can change: DeepReadonly makes an assignment to one a compile error, deepFreeze a
 * TypeError at run time. The config `speakcheck run` hands to the run and the run plan built from it
 * (src/harness/run-plan.ts) are both.
 */

/** Every property readonly, every array a readonly array, all the way down. */
export type DeepReadonly<T> = T extends (...args: never[]) => unknown
  ? T
  : T extends readonly (infer E)[]
    ? readonly DeepReadonly<E>[]
    : T extends object
      ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
      : T;

/** Freezes `value` and every object and array in it (plain data: what JSON can hold); returns it. */
export function deepFreeze<T>(value: T): DeepReadonly<T> {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value as DeepReadonly<T>;
}
