/**
 * Read-only records that are derived from one another in time proportional to what changed
 * (decision 110). Copying a 10,000-member null-prototype record costs about 3.5 ms on this
 * machine — most of a pass's budget — so a derived record is a shared, never-modified base plus
 * a small overlay of the members that differ, seen through a Proxy that behaves like the plain
 * record (`record[name]`, `Object.hasOwn`, `in`, `Object.keys`/`entries`/`values` in the given key
 * order, JSON, deep equality in tests). When the overlay grows past about √N members it is folded
 * into a new base: one copy per √N changes instead of one per change.
 *
 * Writes throw (the records are immutable; so are plain ones by contract, `Readonly<…>`).
 */

/** A member the overlay removes from its base. */
const ABSENT: unique symbol = Symbol('absent');

interface Version<V> {
  /** Never modified after it is made. Null prototype. */
  base: Readonly<Record<string, V>>;
  /** Members that differ from `base`; never modified after the version is made. */
  overlay: ReadonlyMap<string, V | typeof ABSENT>;
  /** The record's keys, in order. */
  keys: readonly string[];
}

const versions = new WeakMap<object, Version<unknown>>();

/** The smallest overlay that is folded into a new base regardless of N. */
const MIN_FOLD = 64;

/**
 * A record with exactly the members of `keys` (in that order), each `base`'s value except those in
 * `changes` (a value, or undefined for a member that is gone — it must then be absent from `keys`).
 * `base` may be a plain record (never to be modified after) or one this function made.
 */
export function deriveRecord<V>(base: Readonly<Record<string, V>>, keys: readonly string[], changes: ReadonlyMap<string, V | undefined>): Readonly<Record<string, V>> {
  const from: Version<V> = (versions.get(base) as Version<V> | undefined) ?? { base, overlay: new Map(), keys: [] };
  const overlay = new Map<string, V | typeof ABSENT>(from.overlay);
  for (const [name, value] of changes) {
    const original = Object.hasOwn(from.base, name) ? from.base[name] : ABSENT;
    const next = value === undefined ? ABSENT : value;
    if (next === original) overlay.delete(name);
    else overlay.set(name, next);
  }
  if (overlay.size > Math.max(MIN_FOLD, Math.sqrt(keys.length))) return plainRecord(keys, (name) => valueIn(from.base, overlay, name)!);
  return view({ base: from.base, overlay, keys });
}

/** A plain null-prototype record of `keys`, in order. */
export function plainRecord<V>(keys: readonly string[], valueOf: (key: string) => V): Record<string, V> {
  const record = Object.create(null) as Record<string, V>;
  for (const key of keys) record[key] = valueOf(key);
  return record;
}

function valueIn<V>(base: Readonly<Record<string, V>>, overlay: ReadonlyMap<string, V | typeof ABSENT>, key: string): V | undefined {
  const value = overlay.get(key);
  if (value === ABSENT) return undefined;
  if (value !== undefined) return value;
  return Object.hasOwn(base, key) ? base[key] : undefined;
}

function view<V>(version: Version<V>): Readonly<Record<string, V>> {
  const { base, overlay, keys } = version;
  const has = (key: string | symbol): key is string => typeof key === 'string' && (overlay.has(key) ? overlay.get(key) !== ABSENT : Object.hasOwn(base, key));
  const refuse = (): never => {
    throw new TypeError('a derived record is read-only');
  };
  const record = new Proxy(Object.create(null) as Record<string, V>, {
    get: (_target, key) => (has(key) ? valueIn(base, overlay, key) : undefined),
    has: (_target, key) => has(key),
    ownKeys: () => [...keys],
    getOwnPropertyDescriptor: (_target, key) =>
      has(key) ? { value: valueIn(base, overlay, key), writable: false, enumerable: true, configurable: true } : undefined,
    set: refuse,
    defineProperty: refuse,
    deleteProperty: refuse,
    setPrototypeOf: refuse,
    preventExtensions: refuse,
  });
  versions.set(record, version);
  return record;
}
