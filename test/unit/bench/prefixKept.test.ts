import { describe, expect, it } from 'vitest';
import { prefixKeptShare } from '../../../bench/prefixKept.js';

describe('prefixKeptShare', () => {
  it('the share of the bytes before that still start the text after, in %', () => {
    expect(prefixKeptShare('{"tools":[a]}', '{"tools":[a,b]}')).toBeCloseTo((100 * 11) / 13);
    expect(prefixKeptShare('abcd', 'abcd')).toBe(100);
    expect(prefixKeptShare('abcd', 'xbcd')).toBe(0);
    expect(prefixKeptShare('abcd', 'ab')).toBe(50);
    expect(prefixKeptShare('', 'ab')).toBe(100);
  });

  it('counts UTF-8 bytes, not characters', () => {
    // "é" is two bytes: the first of them is shared with "è".
    expect(prefixKeptShare('aé', 'aè')).toBeCloseTo((100 * 2) / 3);
  });
});
