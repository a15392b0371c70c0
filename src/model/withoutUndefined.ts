/** A copy of `value` without its members that are `undefined`: what JSON and deep-equal comparisons see alike. */
export function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
