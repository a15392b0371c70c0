import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { backoffDelay } from '../../src/operators/backoffDelay.js';

/** The un-jittered delay: 1000·2^(attempt-1), capped at 30 s. */
const base = (attempt: number): number => Math.min(1000 * 2 ** (attempt - 1), 30_000);

describe('backoffDelay', () => {
  it('doubles from 1 s with random() = 0.5 (jitter factor 1.0)', () => {
    const delays = [1, 2, 3, 4, 5].map((attempt) => backoffDelay(attempt, () => 0.5));
    expect(delays).toEqual([1000, 2000, 4000, 8000, 16000]);
  });

  it('is capped at 30 s', () => {
    expect(backoffDelay(6, () => 0.5)).toBe(30_000);
    expect(backoffDelay(50, () => 0.5)).toBe(30_000);
    expect(backoffDelay(2000, () => 0.5)).toBe(30_000);
    expect(backoffDelay(6, () => 0.99)).toBe(30_000);
  });

  it('jitters by a factor from 0.8 (random() = 0) up to, not including, 1.2', () => {
    expect(backoffDelay(1, () => 0)).toBe(800);
    expect(backoffDelay(3, () => 0)).toBe(3200);
    expect(backoffDelay(1, () => 0.75)).toBe(1100);
    // The largest double below 1 makes 0.8 + 0.4·r round to exactly 1.2; the bound holds anyway.
    expect(backoffDelay(1, () => 1 - Number.EPSILON / 2)).toBe(1199);
    expect(backoffDelay(6, () => 0)).toBe(24_000);
  });

  it('treats attempts below 1 as the first', () => {
    expect(backoffDelay(0, () => 0.5)).toBe(1000);
    expect(backoffDelay(-3, () => 0.5)).toBe(1000);
  });

  it('uses Math.random by default', () => {
    const delay = backoffDelay(1);
    expect(delay).toBeGreaterThanOrEqual(800);
    expect(delay).toBeLessThan(1200);
  });

  it('always lies in [0.8, 1.2)·base, is a whole number of ms and never exceeds 30 s (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 200 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (attempt, r) => {
          const delay = backoffDelay(attempt, () => r);
          expect(Number.isInteger(delay)).toBe(true);
          expect(delay).toBeGreaterThanOrEqual(0.8 * base(attempt));
          expect(delay).toBeLessThan(1.2 * base(attempt));
          expect(delay).toBeLessThanOrEqual(30_000);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('never decreases with the attempt for a fixed random() (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 60 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (attempt, r) => backoffDelay(attempt + 1, () => r) >= backoffDelay(attempt, () => r),
      ),
    );
  });
});
