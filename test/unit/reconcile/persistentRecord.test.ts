import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { deriveRecord, plainRecord } from '../../../src/model/reconcile/persistentRecord.js';

/** A plain null-prototype record of `entries`, keys in that order. */
const plain = (entries: readonly (readonly [string, number])[]): Record<string, number> =>
  plainRecord(
    entries.map(([k]) => k),
    (k) => entries.find(([name]) => name === k)![1],
  );

/** Everything a reader of a record can observe, in order. */
function observed(record: Readonly<Record<string, number>>, probes: readonly string[]) {
  return {
    keys: Object.keys(record),
    entries: Object.entries(record),
    json: JSON.stringify(record),
    probes: probes.map((p) => [p, record[p], Object.hasOwn(record, p), p in record] as const),
    prototype: Object.getPrototypeOf(record) as unknown,
  };
}

const NAMES = ['a', 'b', 'c', '__proto__', 'toString', 'constructor', 'z'];

/**
 * Runs of the chain property: 70 in the default suite (most chains grow an overlay past the fold
 * size, 64), ten times that in test/slow/reconcileProperties.test.ts.
 */
const RUNS = 70 * Number(process.env.MCP_LIVE_PROPERTY_SCALE ?? 1);

describe('deriveRecord', () => {
  it('reads like the plain record it stands for, over any chain of derivations (folds included)', () => {
    const names = [...NAMES, ...Array.from({ length: 150 }, (_, i) => `s${String(i).padStart(3, '0')}`)];
    const change = fc.record({ name: fc.constantFrom(...names), value: fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }) });
    fc.assert(
      fc.property(fc.array(fc.array(change, { minLength: 1, maxLength: 12 }), { minLength: 1, maxLength: 40 }), (steps) => {
        let model = new Map<string, number>(names.slice(0, 5).map((n, i) => [n, i]));
        let record: Readonly<Record<string, number>> = plain([...model]);
        const kept: [Readonly<Record<string, number>>, Map<string, number>][] = [];
        for (const changes of steps) {
          const next = new Map(model);
          const last = new Map<string, number | undefined>();
          for (const { name, value } of changes) {
            last.set(name, value);
            if (value === undefined) next.delete(name);
            else next.set(name, value);
          }
          const keys = [...next.keys()].sort();
          const derived = deriveRecord(record, keys, last);
          const sorted = new Map(keys.map((k) => [k, next.get(k)!]));
          expect(observed(derived, names)).toStrictEqual(observed(plain([...sorted]), names));
          expect(derived).toStrictEqual(plain([...sorted]));
          kept.push([derived, sorted]);
          record = derived;
          model = sorted;
        }
        // Older versions never change when newer ones are derived from them.
        for (const [old, content] of kept) expect(observed(old, names)).toStrictEqual(observed(plain([...content]), names));
      }),
      { numRuns: RUNS },
    );
  });

  it('folds a large overlay into a plain record, and keeps a small one as a view', () => {
    const keys = Array.from({ length: 10_000 }, (_, i) => `s${i}`).sort();
    const base = plainRecord(keys, () => 0);
    const one = deriveRecord(base, keys, new Map([['s1', 1]]));
    expect(one['s1']).toBe(1);
    expect(isPlain(one)).toBe(false);
    const many = deriveRecord(one, keys, new Map(keys.slice(0, 101).map((k) => [k, 2])));
    expect(isPlain(many)).toBe(true);
    expect(Object.values(many).filter((v) => v === 2)).toHaveLength(101);
    expect(one['s1']).toBe(1);
  });

  it('refuses writes, like a frozen record', () => {
    const record = deriveRecord(plain([['a', 1]]), ['a', 'b'], new Map([['b', 2]])) as Record<string, number>;
    expect(() => {
      record['a'] = 5;
    }).toThrow(TypeError);
    expect(() => delete record['a']).toThrow(TypeError);
    expect(() => Object.defineProperty(record, 'c', { value: 1 })).toThrow(TypeError);
    expect(() => {
      Object.setPrototypeOf(record, {});
    }).toThrow(TypeError);
    expect({ ...record }).toEqual({ a: 1, b: 2 });
  });
});

/** A view answers `Object.isExtensible` by its target; a plain record is an ordinary object: tell them by a write. */
function isPlain(record: object): boolean {
  try {
    Object.defineProperty(record, '__probe__', { value: 1, configurable: true });
    delete (record as Record<string, unknown>)['__probe__'];
    return true;
  } catch {
    return false;
  }
}
