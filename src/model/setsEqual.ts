/** Set equality of two string lists: order and duplicates do not count. */
export function setsEqual(a: readonly string[], b: readonly string[]): boolean {
  // The common cases of a pass over every server (the same list, two empty ones) build no sets.
  if (a === b || (a.length === 0 && b.length === 0)) return true;
  const left = new Set(a);
  const right = new Set(b);
  return left.size === right.size && [...left].every((item) => right.has(item));
}
