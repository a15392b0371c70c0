/** The clock {@link wakeAt} reads and sets timers on (the process's, or a test's). */
export interface WakeClock {
  now(): number;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(timer: unknown): void;
}

const systemClock: WakeClock = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (timer) => clearTimeout(timer as NodeJS.Timeout),
};

/**
 * Calls `wake` once the clock reads `at` or later, and returns what cancels it. A timer may fire
 * before `Date.now()` reaches the time it was set for (timers run on a monotonic clock, the wall
 * clock is read in whole milliseconds; Node 24 shows it often): one that fires early is set again
 * for what is left, so whoever compares the clock with `at` on waking finds it due (decision 356).
 */
export function wakeAt(at: number, wake: () => void, clock: WakeClock = systemClock): () => void {
  let timer: unknown;
  const arm = (): void => {
    timer = clock.setTimeout(() => (clock.now() < at ? arm() : wake()), Math.max(0, at - clock.now()));
  };
  arm();
  return () => clock.clearTimeout(timer);
}
