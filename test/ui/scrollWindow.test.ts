import { describe, expect, it } from 'vitest';
import { revealOffset, scrollStep, scrollWindow } from '../../src/hosts/ui/kit/scrollWindow.js';

describe('scrollWindow', () => {
  it('shows everything, hiding nothing, when it fits', () => {
    expect(scrollWindow(0, 3, 8)).toEqual({ start: 0, end: 3, above: 0, below: 0 });
    expect(scrollWindow(5, 3, 8)).toEqual({ start: 0, end: 3, above: 0, below: 0 });
    expect(scrollWindow(0, 0, 8)).toEqual({ start: 0, end: 0, above: 0, below: 0 });
  });

  it('clamps the offset to the last full page and to the top', () => {
    expect(scrollWindow(1, 40, 8)).toEqual({ start: 1, end: 9, above: 1, below: 31 });
    expect(scrollWindow(99, 40, 8)).toEqual({ start: 32, end: 40, above: 32, below: 0 });
    expect(scrollWindow(-3, 40, 8)).toEqual({ start: 0, end: 8, above: 0, below: 32 });
  });

  it('shows at least one item', () => {
    expect(scrollWindow(0, 4, 0)).toEqual({ start: 0, end: 1, above: 0, below: 3 });
  });
});

describe('scrollStep', () => {
  const none = { upArrow: false, downArrow: false, pageUp: false, pageDown: false, home: false, end: false };
  it('moves a line with the arrows and a page, less one line of context, with PgUp/PgDn', () => {
    expect(scrollStep({ ...none, downArrow: true }, 8)).toBe(1);
    expect(scrollStep({ ...none, upArrow: true }, 8)).toBe(-1);
    expect(scrollStep({ ...none, pageDown: true }, 8)).toBe(7);
    expect(scrollStep({ ...none, pageUp: true }, 8)).toBe(-7);
    expect(scrollStep({ ...none, pageDown: true }, 1)).toBe(1);
    expect(scrollStep(none, 8)).toBeUndefined();
  });

  it('goes to either end with Home/End (clamped by scrollWindow)', () => {
    expect(scrollStep({ ...none, home: true }, 8)).toBe(-Infinity);
    expect(scrollStep({ ...none, end: true }, 8)).toBe(Infinity);
    expect(scrollWindow(3 + Infinity, 40, 8).start).toBe(32);
    expect(scrollWindow(3 - Infinity, 40, 8).start).toBe(0);
  });

  it('leaves the arrows alone where they belong to something else', () => {
    expect(scrollStep({ ...none, downArrow: true }, 8, { lines: false })).toBeUndefined();
    expect(scrollStep({ ...none, pageDown: true }, 8, { lines: false })).toBe(7);
  });
});

describe('revealOffset', () => {
  it('moves the window as little as it takes to show the rows', () => {
    expect(revealOffset(0, [3, 4], 8)).toBe(0);
    expect(revealOffset(0, [8, 9], 8)).toBe(1);
    expect(revealOffset(10, [4, 5], 8)).toBe(4);
    expect(revealOffset(10, [17, 18], 8)).toBe(10);
  });
});
