import { describe, expect, it } from 'vitest';
import { wakeAt, type WakeClock } from '../../src/hosts/ui/kit/wakeAt.js';

/**
 * A clock whose first timer fires `early` ms before the wall clock reaches its time, as Node's
 * timers can (a monotonic clock beside a wall clock read in whole milliseconds); later ones fire
 * on time.
 */
function earlyClock(firstEarly: number) {
  let early = firstEarly;
  let wall = 1_000;
  const timers = new Map<number, { due: number; callback: () => void }>();
  let next = 0;
  const clock: WakeClock = {
    now: () => wall,
    setTimeout: (callback, ms) => {
      timers.set(++next, { due: wall + ms, callback });
      return next;
    },
    clearTimeout: (timer) => void timers.delete(timer as number),
  };
  /** Runs the earliest timer: the wall clock then reads its time less `early` (never less than now). */
  const fireNext = (): boolean => {
    const [id, timer] = [...timers].sort((a, b) => a[1].due - b[1].due)[0] ?? [];
    if (id === undefined || timer === undefined) return false;
    timers.delete(id);
    wall = Math.max(wall, timer.due - early);
    early = 0;
    timer.callback();
    return true;
  };
  return { clock, fireNext, pending: () => timers.size, now: () => wall };
}

describe('wakeAt (decision 356)', () => {
  it('wakes once the clock reads the time, when the timer fires on time', () => {
    const t = earlyClock(0);
    let woken: number | undefined;
    wakeAt(1_400, () => (woken = t.now()), t.clock);
    expect(t.fireNext()).toBe(true);
    expect(woken).toBe(1_400);
    expect(t.pending()).toBe(0);
  });

  it('a timer that fires early is set again for what is left: the wake never comes before the time', () => {
    const t = earlyClock(1);
    let woken: number | undefined;
    wakeAt(1_400, () => (woken = t.now()), t.clock);
    // Fires at 1,399 by the wall clock: not yet; set again for the last millisecond.
    expect(t.fireNext()).toBe(true);
    expect(woken).toBeUndefined();
    expect(t.pending()).toBe(1);
    expect(t.fireNext()).toBe(true);
    expect(woken).toBe(1_400);
    expect(t.pending()).toBe(0);
  });

  it('a time already past wakes on the next turn; a cancel before it wakes nothing', () => {
    const t = earlyClock(0);
    let woken = 0;
    wakeAt(500, () => woken++, t.clock);
    const cancel = wakeAt(2_000, () => woken++, t.clock);
    cancel();
    while (t.fireNext());
    expect(woken).toBe(1);
  });
});
