import { useEffect, useMemo, useState } from 'react';
import { asyncScheduler, throttleTime, type Observable, type SchedulerLike } from 'rxjs';

/**
 * The latest value of `obs$`, `initial` until the first emission.
 *
 * Subscribes in `useEffect` and unsubscribes in its cleanup, so an unmounted component never
 * receives a value. `obs$` must keep its identity across renders (a property of `McpLive`, a
 * `useMemo` result): a new observable each render would resubscribe each render. When the
 * identity does change, the value stays until the new observable emits.
 */
export function useObservable<T>(obs$: Observable<T>, initial: T): T {
  const [value, setValue] = useState<T>(initial);
  useEffect(() => {
    // A function setter would be called with T as a function; wrap so any T is safe.
    const subscription = obs$.subscribe((next) => setValue(() => next));
    return () => subscription.unsubscribe();
  }, [obs$]);
  return value;
}

/** Frame budget of the UI: at most ~30 renders a second from one stream. */
export const FRAME_MS = 33;

/**
 * {@link useObservable}, throttled to one value per `ms` (default {@link FRAME_MS}).
 *
 * ```
 * obs$:   -a-b-c-d-----e-|
 * shown:  -a---c---d---e-|     (leading value at once, the latest one at the end of each window)
 * ```
 *
 * The first value of a quiet stream shows at once (leading) and the last value of a storm is
 * never lost (trailing), while a storm of updates — a pass reconnecting fifty servers, a
 * `list_changed` loop — costs at most one render per frame. The throttled stream is memoised by
 * the identity of `obs$`, so a re-render does not resubscribe.
 */
export function useThrottledObservable<T>(
  obs$: Observable<T>,
  initial: T,
  ms: number = FRAME_MS,
  scheduler: SchedulerLike = asyncScheduler,
): T {
  const throttled$ = useMemo(
    () => obs$.pipe(throttleTime(ms, scheduler, { leading: true, trailing: true })),
    [obs$, ms, scheduler],
  );
  return useObservable(throttled$, initial);
}
