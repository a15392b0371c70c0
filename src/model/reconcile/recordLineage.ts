/**
 * Which records were made from which (decisions 103 and 104). A record registered here is `base` with the
 * members `changed` replaced, added or removed, every other member the same value — and neither
 * record is ever modified after. Comparing two such records then costs their changed members,
 * not all 10,000 of them. Bases are held weakly: a lineage never keeps an old record alive, and
 * a broken chain only means "unknown", never a wrong answer.
 */
interface Link {
  base: WeakRef<object>;
  changed: readonly string[];
}

const lineage = new WeakMap<object, Link>();

/** How many links {@link changedBetween} follows before it answers "unknown". */
const MAX_LINKS = 64;

/** Records that `record` (new, never to be modified) is `base` with the members `changed` changed. */
export function registerDerived(record: object, base: object, changed: readonly string[]): void {
  lineage.set(record, { base: new WeakRef(base), changed });
}

/**
 * Every member that may differ between `older` and `newer` (a superset), when `newer` was derived
 * from `older` through registered records; undefined when that is not known.
 */
export function changedBetween(older: object, newer: object): Set<string> | undefined {
  const names = new Set<string>();
  let at: object | undefined = newer;
  for (let links = 0; at !== older; links++) {
    const link: Link | undefined = links < MAX_LINKS ? lineage.get(at) : undefined;
    if (link === undefined) return undefined;
    for (const name of link.changed) names.add(name);
    at = link.base.deref();
    if (at === undefined) return undefined;
  }
  return names;
}
