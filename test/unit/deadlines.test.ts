import { describe, expect, it } from 'vitest';
import { slowdownFrom } from '../deadlines.js';

describe('the suite’s slowdown factor (decision 316)', () => {
  it('is the MCP_LIVE_TEST_SLOWDOWN given, fractions included', () => {
    expect(slowdownFrom('3', 0, 2)).toBe(3);
    expect(slowdownFrom('1.5', 40, 2)).toBe(1.5);
  });

  it('unset, empty or not a positive number: 2 on an idle machine, more as the load per core grows, at most 10', () => {
    for (const env of [undefined, '', 'fast', '0', '-2']) expect(slowdownFrom(env, 0, 2)).toBe(2);
    expect(slowdownFrom(undefined, 2, 2)).toBe(2);
    expect(slowdownFrom(undefined, 6.9, 2)).toBe(5);
    expect(slowdownFrom(undefined, 17, 2)).toBe(10);
    expect(slowdownFrom(undefined, 60, 2)).toBe(10);
  });
});
