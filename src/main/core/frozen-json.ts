// JSON text of values that are shared and never change (an account the directory cache hands to
// every lookup of it): serialized once, not once per history row and answer.

/** Values frozen by deepFreeze, with their JSON text once asked for (null until then). */
const frozen = new WeakMap<object, string | null>();

/** JSON.stringify(value), remembered for values that went through `deepFreeze`. */
export function jsonOf(value: unknown): string {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value);
  const known = frozen.get(value);
  if (known === undefined) return JSON.stringify(value);
  if (known !== null) return known;
  const text = JSON.stringify(value);
  frozen.set(value, text);
  return text;
}

/** Freezes `value` and every object under it, for sharing; `jsonOf` then serializes it once. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !frozen.has(value)) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
    frozen.set(value, null);
  }
  return value;
}
