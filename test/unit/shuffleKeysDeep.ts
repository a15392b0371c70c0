/**
 * Test support: a deep copy of a JSON value whose object keys are inserted in a different,
 * seed-determined order at every depth (arrays keep their order). Keys are defined as data so an
 * own `__proto__` key survives.
 */
export function shuffleKeysDeep<T>(value: T, seed: number): T {
  let state = seed >>> 0 || 1;
  const next = (): number => {
    // xorshift32: deterministic, so a failing fast-check case replays exactly.
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 0x1_0000_0000;
  };
  const visit = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(visit);
    if (node === null || typeof node !== 'object') return node;
    const keys = Object.keys(node);
    for (let i = keys.length - 1; i > 0; i--) {
      const j = Math.floor(next() * (i + 1));
      [keys[i], keys[j]] = [keys[j]!, keys[i]!];
    }
    return Object.fromEntries(keys.map((key) => [key, visit((node as Record<string, unknown>)[key])]));
  };
  return visit(value) as T;
}
