import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { canonicalJson } from '../../src/model/canonicalJson.js';

describe('canonicalJson', () => {
  it('sorts object keys recursively and keeps array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, 1, { z: 0, y: 1 }], c: null } })).toBe(
      '{"a":{"c":null,"d":[3,1,{"y":1,"z":0}]},"b":1}',
    );
  });

  it('serialises scalars like JSON.stringify', () => {
    expect(canonicalJson('a"b')).toBe('"a\\"b"');
    expect(canonicalJson(1.5)).toBe('1.5');
    expect(canonicalJson(true)).toBe('true');
    expect(canonicalJson(null)).toBe('null');
    expect(canonicalJson(Number.NaN)).toBe('null');
  });

  it('drops undefined members, nulls undefined items, and always returns a string', () => {
    expect(canonicalJson({ a: undefined, b: 1 })).toBe('{"b":1}');
    expect(canonicalJson([undefined, 1])).toBe('[null,1]');
    expect(canonicalJson(undefined)).toBe('null');
  });

  it('keeps an own __proto__ key and ignores prototypes', () => {
    const parsed: unknown = JSON.parse('{"__proto__": {"x": 1}, "a": 2}');
    expect(canonicalJson(parsed)).toBe('{"__proto__":{"x":1},"a":2}');
    const bare = Object.create(null) as Record<string, unknown>;
    bare.a = 2;
    expect(canonicalJson(bare)).toBe(canonicalJson({ a: 2 }));
  });

  it('round-trips: parsing the output gives a value deep-equal to the input', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(JSON.parse(canonicalJson(value))).toEqual(JSON.parse(JSON.stringify(value)));
      }),
    );
  });
});
