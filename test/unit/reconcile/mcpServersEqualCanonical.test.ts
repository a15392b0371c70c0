import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../../src/model/canonicalJson.js';
import { mcpServersEqual } from '../../../src/model/reconcile/equality.js';

/** JSON-like values plus what canonical JSON drops or folds: undefined members, functions, NaN, -0. */
const value: fc.Arbitrary<unknown> = fc.letrec<{ v: unknown }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom(undefined, null, Number.NaN, Infinity, -0, 0, 1, '', 'x', true, () => 1),
    fc.array(tie('v'), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom('a', 'b', '__proto__', 'toString'), tie('v'), { maxKeys: 3 }),
  ),
})).v;

describe('mcpServersEqual compares member by member (decision 102)', () => {
  it('property: equal exactly when the canonical JSON texts are equal', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom('s1', 's2', 's3'), value, { maxKeys: 3 }), fc.dictionary(fc.constantFrom('s1', 's2', 's3'), value, { maxKeys: 3 }), (a, b) => {
        expect(mcpServersEqual(a, b)).toBe(canonicalJson(a) === canonicalJson(b));
        // Sharing objects between the sides (what the incremental assembly does) changes nothing.
        const shared = { ...b, ...a };
        expect(mcpServersEqual(a, shared)).toBe(canonicalJson(a) === canonicalJson(shared));
      }),
      { numRuns: 500 },
    );
  });

  it('does not serialise servers that are the same object on both sides', () => {
    const server = { toJSON: 'ignored', config: { command: 'x' } };
    let reads = 0;
    const counted = new Proxy(server, {
      ownKeys(target) {
        reads += 1;
        return Reflect.ownKeys(target);
      },
    });
    expect(mcpServersEqual({ kept: counted, edited: { command: 'a' } }, { kept: counted, edited: { command: 'b' } })).toBe(false);
    expect(reads).toBe(0);
  });
});
