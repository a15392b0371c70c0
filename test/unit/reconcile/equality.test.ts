import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { desiredStateEqual, mcpGatingEqual, mcpServersEqual } from '../../../src/model/reconcile/equality.js';
import type { DesiredState, Gating } from '../../../src/model/types.js';
import { shuffleKeysDeep } from '../shuffleKeysDeep.js';

describe('mcpServersEqual', () => {
  it('ignores key order at every depth', () => {
    expect(mcpServersEqual({ a: { command: 'x', env: { A: '1', B: '2' } }, b: {} }, { b: {}, a: { env: { B: '2', A: '1' }, command: 'x' } })).toBe(true);
  });

  it('keeps array order significant', () => {
    expect(mcpServersEqual({ a: { args: ['1', '2'] } }, { a: { args: ['2', '1'] } })).toBe(false);
  });

  it('undefined ≡ {} at the top level', () => {
    expect(mcpServersEqual(undefined, {})).toBe(true);
    expect(mcpServersEqual({}, undefined)).toBe(true);
    expect(mcpServersEqual(undefined, undefined)).toBe(true);
    expect(mcpServersEqual(undefined, { a: {} })).toBe(false);
  });

  it('sees added, removed and changed entries', () => {
    expect(mcpServersEqual({ a: { command: 'x' } }, { a: { command: 'y' } })).toBe(false);
    expect(mcpServersEqual({ a: {} }, { a: {}, b: {} })).toBe(false);
    expect(mcpServersEqual({ a: { env: {} } }, { a: {} })).toBe(false);
  });

  it('ignores prototypes (the assembled map has none)', () => {
    const bare = Object.create(null) as Record<string, unknown>;
    bare.a = { command: 'x' };
    expect(mcpServersEqual(bare, { a: { command: 'x' } })).toBe(true);
  });

  it('property: invariant under recursive key permutation', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), fc.integer(), (servers, seed) => {
        expect(mcpServersEqual(servers, shuffleKeysDeep(servers, seed))).toBe(true);
      }),
    );
  });

  it('property: sensitive to args order', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.string(), { minLength: 2, maxLength: 6 }), fc.string(), (args, name) => {
        const reversed = [...args].reverse();
        expect(mcpServersEqual({ [name]: { command: 'x', args } }, { [name]: { command: 'x', args: reversed } })).toBe(false);
      }),
    );
  });
});

describe('mcpGatingEqual', () => {
  it('compares lists as sets', () => {
    expect(mcpGatingEqual({ excluded: ['a', 'b'], pending: ['x', 'y'] }, { excluded: ['b', 'a'], pending: ['y', 'x'] })).toBe(true);
    expect(mcpGatingEqual({ allowed: ['a', 'b'] }, { allowed: ['b', 'a', 'a'] })).toBe(true);
  });

  it.each<keyof Gating>(['allowed', 'excluded', 'pending', 'rejected'])('sees a difference in %s', (key) => {
    expect(mcpGatingEqual({ [key]: ['a'] }, { [key]: ['b'] })).toBe(false);
  });

  it('undefined ≡ [] for excluded, pending, rejected', () => {
    expect(mcpGatingEqual({}, { excluded: [], pending: [], rejected: [] })).toBe(true);
    expect(mcpGatingEqual({ excluded: [] }, {})).toBe(true);
  });

  it('allowed absent (allow all) ≠ [] (deny all)', () => {
    expect(mcpGatingEqual({}, { allowed: [] })).toBe(false);
    expect(mcpGatingEqual({ allowed: [] }, {})).toBe(false);
    expect(mcpGatingEqual({ allowed: [] }, { allowed: [] })).toBe(true);
  });

  it('an undefined gating is {}', () => {
    expect(mcpGatingEqual(undefined, { pending: [] })).toBe(true);
    expect(mcpGatingEqual(undefined, undefined)).toBe(true);
    expect(mcpGatingEqual(undefined, { allowed: [] })).toBe(false);
    expect(mcpGatingEqual({ rejected: ['a'] }, undefined)).toBe(false);
  });

  it('a reject that leaves the pending set unchanged is a difference', () => {
    expect(mcpGatingEqual({ pending: ['a'], rejected: [] }, { pending: ['a'], rejected: ['a'] })).toBe(false);
  });

  it('property: invariant under list permutation', () => {
    const list = fc.array(fc.string(), { maxLength: 6 });
    fc.assert(
      fc.property(fc.option(list, { nil: undefined }), list, list, list, (allowed, excluded, pending, rejected) => {
        const gating: Gating = { excluded, pending, rejected };
        if (allowed !== undefined) gating.allowed = allowed;
        const permuted: Gating = {
          excluded: [...excluded].reverse(),
          pending: [...pending.slice(1), ...pending.slice(0, 1)],
          rejected: [...rejected].sort(),
        };
        if (allowed !== undefined) permuted.allowed = [...allowed].reverse();
        expect(mcpGatingEqual(gating, permuted)).toBe(true);
      }),
    );
  });
});

describe('desiredStateEqual', () => {
  const state: DesiredState = { servers: { a: { name: 'a', scope: 'user', source: '/u', config: {} } }, gating: { pending: [] }, trusted: true };

  it('is equal for equal parts', () => {
    expect(desiredStateEqual(state, { ...state, gating: {} })).toBe(true);
  });

  it('sees servers, gating and trust', () => {
    expect(desiredStateEqual(state, { ...state, servers: {} })).toBe(false);
    expect(desiredStateEqual(state, { ...state, gating: { allowed: [] } })).toBe(false);
    expect(desiredStateEqual(state, { ...state, trusted: false })).toBe(false);
  });

  it('sees a change of scope or source of the same config', () => {
    expect(desiredStateEqual(state, { ...state, servers: { a: { name: 'a', scope: 'cli', source: '/u', config: {} } } })).toBe(false);
  });
});
