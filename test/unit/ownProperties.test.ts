import { describe, expect, it } from 'vitest';
import { cloneJson, setOwn } from '../../src/model/ownProperties.js';

describe('setOwn', () => {
  it('makes every key an own data property, the prototype untouched (__proto__, constructor, toString …)', () => {
    const object: Record<string, unknown> = {};
    for (const key of ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'plain']) setOwn(object, key, { key });
    expect(Object.getPrototypeOf(object)).toBe(Object.prototype);
    expect(Object.keys(object)).toEqual(['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'plain']);
    for (const key of Object.keys(object)) expect(Object.getOwnPropertyDescriptor(object, key)).toEqual({ value: { key }, enumerable: true, writable: true, configurable: true });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('replaces an own value, and keeps a JSON copy of __proto__ as data', () => {
    const object: Record<string, unknown> = {};
    setOwn(object, 'a', 1);
    setOwn(object, 'a', 2);
    expect(object).toEqual({ a: 2 });
    const parsed = JSON.parse('{"__proto__": {"polluted": true}, "x": [{"__proto__": 1}]}') as unknown;
    const copy = cloneJson(parsed) as Record<string, unknown>;
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.hasOwn(copy, '__proto__')).toBe(true);
    expect(JSON.stringify(copy)).toBe(JSON.stringify(parsed));
  });
});
