/**
 * settle — let a burst of changes settle, then pass on the last one.
 *
 * ```
 * source:     --a-b-c--------d------|
 * settle(3):  ---------c--------d---|
 * ```
 * Each value waits 3 frames; a newer value restarts the wait and replaces it.
 *
 * The pipeline's debounce step (docs/contract.md, "Passes"): a burst of saves across all sources becomes one
 * reconcile. It is `debounceTime` under a name of its own so the step is one named, tested
 * operator and its default (300 ms) lives in one place. On completion the pending value is
 * emitted at once, as `debounceTime` does.
 */
import { asyncScheduler, debounceTime, type MonoTypeOperatorFunction, type SchedulerLike } from 'rxjs';

/** The watcher's default debounce, in ms (docs/contract.md, "Passes"); `settleOnActivity` shares it. */
export const DEFAULT_SETTLE_MS = 300;

/**
 * Emits a value only once `dueTime` ms have passed without a newer one.
 *
 * @param dueTime quiet time in ms before the latest value is emitted (default 300)
 * @param scheduler the scheduler that measures the wait (a `TestScheduler` in marble tests)
 */
export function settle<T>(
  dueTime: number = DEFAULT_SETTLE_MS,
  scheduler: SchedulerLike = asyncScheduler,
): MonoTypeOperatorFunction<T> {
  return debounceTime<T>(dueTime, scheduler);
}
