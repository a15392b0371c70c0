import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { approvalHash, approvalState } from '../../src/model/settings/approvalHash.js';
import { canonicalJson } from '../../src/model/canonicalJson.js';
import { sha256Hex } from '../../src/model/sha256Hex.js';
import type { ApprovalDecisions } from '../../src/model/types.js';
import { shuffleKeysDeep } from './shuffleKeysDeep.js';

describe('approvalHash', () => {
  it('is SHA-256 full hex of the canonical JSON', () => {
    const entry = { command: 'node', args: ['s.js'] };
    expect(approvalHash(entry)).toBe(sha256Hex('{"args":["s.js"],"command":"node"}'));
    expect(approvalHash(entry)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('ignores scope, description, source and file at the top level only', () => {
    const base = { command: 'node', env: { description: 'kept' } };
    expect(approvalHash({ ...base, scope: 'project', description: 'x', source: '/a', file: '/b' })).toBe(approvalHash(base));
    expect(approvalHash({ ...base, env: { description: 'changed' } })).not.toBe(approvalHash(base));
  });

  it('hashes the entry as written: $VAR is not expanded', () => {
    expect(approvalHash({ command: '$HOME/x' })).not.toBe(approvalHash({ command: '/home/me/x' }));
  });

  it('changes when any other field changes', () => {
    const base = { command: 'node', args: ['a'] };
    expect(approvalHash({ ...base, args: ['b'] })).not.toBe(approvalHash(base));
    expect(approvalHash({ ...base, unknownField: 1 })).not.toBe(approvalHash(base));
    expect(approvalHash({ ...base, trust: true })).not.toBe(approvalHash(base));
  });

  it('hashes anything, even invalid entries', () => {
    expect(approvalHash(42)).toBe(sha256Hex('42'));
    expect(approvalHash(null)).toBe(sha256Hex('null'));
    expect(approvalHash(['a'])).toBe(sha256Hex('["a"]'));
  });

  it('keeps an own __proto__ key of the entry', () => {
    const withProto: unknown = JSON.parse('{"command":"x","__proto__":{"a":1}}');
    expect(approvalHash(withProto)).not.toBe(approvalHash({ command: 'x' }));
  });

  it('property: invariant under key order, at every depth', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), fc.integer(), (entry, seed) => {
        expect(approvalHash(shuffleKeysDeep(entry, seed))).toBe(approvalHash(entry));
      }),
    );
  });

  it('property: changes when the args order changes', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.string(), { minLength: 2, maxLength: 6 }), (args) => {
        const reordered = [...args.slice(1), args[0]!];
        expect(approvalHash({ command: 'x', args: reordered })).not.toBe(approvalHash({ command: 'x', args }));
      }),
    );
  });

  it('is stable with canonicalJson (regression guard)', () => {
    expect(approvalHash({ b: 1, a: 2 })).toBe(sha256Hex(canonicalJson({ a: 2, b: 1 })));
  });
});

describe('approvalState', () => {
  const decisions: ApprovalDecisions = {
    ok: { hash: 'h1', status: 'approved' },
    no: { hash: 'h2', status: 'rejected' },
  };

  it('is the stored status for the same hash', () => {
    expect(approvalState('ok', 'h1', decisions)).toBe('approved');
    expect(approvalState('no', 'h2', decisions)).toBe('rejected');
  });

  it('is pending without a record or for another hash', () => {
    expect(approvalState('other', 'h1', decisions)).toBe('pending');
    expect(approvalState('ok', 'changed', decisions)).toBe('pending');
    expect(approvalState('no', 'changed', decisions)).toBe('pending');
  });

  it('does not see Object.prototype members', () => {
    expect(approvalState('toString', 'h', decisions)).toBe('pending');
    expect(approvalState('__proto__', 'h', decisions)).toBe('pending');
    expect(approvalState('constructor', 'h', decisions)).toBe('pending');
  });

  it('ignores inherited records', () => {
    const inherited = Object.create({ ghost: { hash: 'h', status: 'approved' } }) as ApprovalDecisions;
    expect(approvalState('ghost', 'h', inherited)).toBe('pending');
  });

  it('works for a server named __proto__', () => {
    const stored = JSON.parse('{"__proto__": {"hash": "h", "status": "approved"}}') as ApprovalDecisions;
    expect(approvalState('__proto__', 'h', stored)).toBe('approved');
  });

  it('reads a malformed record as pending', () => {
    const broken = { a: null, b: { hash: 'h', status: 'maybe' }, c: 'approved' } as unknown as ApprovalDecisions;
    expect(approvalState('a', 'h', broken)).toBe('pending');
    expect(approvalState('b', 'h', broken)).toBe('pending');
    expect(approvalState('c', 'h', broken)).toBe('pending');
  });
});
