/** Reading fields of JSON whose shape is under test: no assumption that it is an object at all. */

/** `value[name]` when value is a non-null object (arrays included), undefined otherwise. */
export function field(value: unknown, name: string): unknown {
  return value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[name] : undefined;
}
