/**
 * The order the gateway lists tools in across reloads (decision 358): a client's model reads
 * tools/list as the head of its prompt, and a provider's prompt cache reuses only an exact prefix.
 * A tool that stays keeps its place among those that stay, a new one is appended, a removed one
 * drops out; a tool whose description or schema changed keeps its place (its key is its name).
 *
 * ```
 * before:  a1 a2 b1 c1               (keys; the first list is taken as it comes)
 * items:   0x a1 a3 b1 c1            (a server `0` added; `a` lost a2, gained a3)
 * result:  a1 b1 c1 0x a3            (kept, in their old order; then the new, in the items' order)
 * ```
 */

/**
 * `items` in the order that keeps `previous`: the items whose key `previous` has, in its order,
 * then the others in the order they came. Without `previous` (a fresh gateway), `items` as they
 * came. Always a permutation of `items`: items with one key (never, for qualified tool names)
 * keep their order among themselves.
 */
export function keptOrder<T>(previous: readonly string[] | undefined, items: readonly T[], keyOf: (item: T) => string): T[] {
  if (previous === undefined) return [...items];
  const place = new Map<string, number>();
  previous.forEach((key, i) => {
    if (!place.has(key)) place.set(key, i);
  });
  const ranked = items.map((item, i) => ({ item, rank: place.get(keyOf(item)) ?? previous.length + i }));
  // A stable sort: a new item ranks past every kept one, by where it came.
  ranked.sort((a, b) => a.rank - b.rank);
  return ranked.map((r) => r.item);
}
