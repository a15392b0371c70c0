import { describe, expect, it } from 'vitest';
import { setsEqual } from '../../src/model/setsEqual.js';

describe('setsEqual', () => {
  it('ignores order and duplicates', () => {
    expect(setsEqual(['a', 'b'], ['b', 'a'])).toBe(true);
    expect(setsEqual(['a', 'a', 'b'], ['b', 'a'])).toBe(true);
  });

  it('sees a missing or extra item', () => {
    expect(setsEqual(['a'], ['a', 'b'])).toBe(false);
    expect(setsEqual(['a', 'b'], ['a', 'c'])).toBe(false);
    expect(setsEqual([], [])).toBe(true);
  });
});
