/**
 * settleOnActivity — let a burst of changes settle, timed from what the watchers saw rather than
 * from when the reads they caused came back.
 *
 * ```
 * activity:  (cs)-e----------      c: a watcher saw a change; s, e: a read starts, ends
 * source:    ----a-----------      a: what that read produced
 * result:    ----------a-----      dueTime 10: 10 frames after c; the read ending at 5 does not extend it
 *
 * activity:  (cs)-e--(cs)--e-----  a change at 8 restarts the window …
 * source:    ----a--------b------
 * result:    ------------------b-  … which closes at 18, with the latest value
 *
 * activity:  (cs)-----------e--    the window closes at 10 while the read still runs:
 * source:    --------------a---
 * result:    ---------------a--    a goes out as that read ends (15), without a new window
 * ```
 *
 * The pipeline's debounce step (docs/contract.md, "Passes"; decision 105): `settle` measured its window from
 * the values, i.e. from read completions, so every save cost the read (5–20 ms) on top of the
 * debounce, and a slow read pushed the pass further. Here the window opens at the first change a
 * watcher reports and each later change restarts it (a burst of saves still becomes one pass),
 * but a read that ends inside the window does not; when it closes, the latest value goes out —
 * at once, or, while a read that started before the close is still running, right when the
 * last such read ends (its value included). The reads are the watchers' own, started at each
 * tick, so their content is usually there before the window closes.
 *
 * - A value that arrives while no read runs did not come from a watched file (a session
 *   server, an approval written here): it is a change of its own and restarts the window, as
 *   `settle` does. With no activity at all this operator is `settle`.
 * - A value produced by a read while no window is open (a read a watcher asked for without a
 *   change, such as its check after a save, that found one) opens a window then.
 * - Nothing new since the last emission: the window closes silently.
 * - Source completion emits the pending value at once, as `settle` does; errors of either
 *   stream go downstream; the end of `activity$` changes nothing.
 */
import { asyncScheduler, Observable, Subscription, type MonoTypeOperatorFunction, type SchedulerLike } from 'rxjs';
import { DEFAULT_SETTLE_MS } from './settle.js';

/**
 * What the readers of watched files report: `change`, a watcher saw something that may be a
 * change (it opens or restarts the window); `start` and `end`, one read begins and is over
 * (its result, if any, already delivered). Every `start` is followed by one `end`.
 */
export type ReadActivity = 'change' | 'start' | 'end';

/**
 * Emits the latest value once `dueTime` ms have passed since the last change reported on
 * `activity$` (or the last value that came with no read running), waiting past that only for
 * the reads still running then.
 *
 * @param activity$ changes seen and reads started and ended, subscribed before the source (so it
 *   hears the reads the source starts when it is subscribed)
 * @param dueTime quiet time in ms after the last change (default 300)
 * @param scheduler the scheduler that measures the wait (a `TestScheduler` in marble tests)
 * @param options.firstAtOnce the first value goes out as soon as no read runs, without a window
 *   (decision 220): at start there is no burst to coalesce yet, only the first reads of every
 *   source, and a session lists its servers (lazy ones from their record) without waiting
 */
export function settleOnActivity<T>(
  activity$: Observable<ReadActivity>,
  dueTime: number = DEFAULT_SETTLE_MS,
  scheduler: SchedulerLike = asyncScheduler,
  { firstAtOnce = false }: { readonly firstAtOnce?: boolean } = {},
): MonoTypeOperatorFunction<T> {
  return (source) =>
    new Observable<T>((subscriber) => {
      let latest: { readonly value: T } | undefined;
      let reading = 0;
      /** The open window, until it closes. */
      let window: Subscription | undefined;
      /** The window closed while reads were running: emit when the last of them ends. */
      let due = false;
      /** Nothing went out yet (with `firstAtOnce`, the first value does not wait for a window). */
      let first = firstAtOnce;

      const emit = (): void => {
        due = false;
        if (latest === undefined) return;
        const { value } = latest;
        latest = undefined;
        first = false;
        subscriber.next(value);
      };

      const open = (): void => {
        due = false;
        window?.unsubscribe();
        window = scheduler.schedule(() => {
          window = undefined;
          if (reading > 0) due = true;
          else emit();
        }, dueTime);
      };
      subscriber.add(() => window?.unsubscribe());

      subscriber.add(
        activity$.subscribe({
          next: (activity) => {
            // Before the first value is out (`firstAtOnce`) a change opens no window: that value
            // waits for the reads running only; the change's own read comes after it, settled.
            if (activity === 'change') {
              if (!first) open();
            } else if (activity === 'start') reading += 1;
            else {
              reading = Math.max(0, reading - 1);
              if (reading === 0 && due) emit();
            }
          },
          error: (error: unknown) => subscriber.error(error),
        }),
      );

      subscriber.add(
        source.subscribe({
          next: (value) => {
            latest = { value };
            if (first) {
              // The start's window is not waited for: out now, or when the reads running end.
              window?.unsubscribe();
              window = undefined;
              if (reading > 0) due = true;
              else emit();
            } else if (reading === 0 || (window === undefined && !due)) open();
          },
          error: (error: unknown) => subscriber.error(error),
          complete: () => {
            window?.unsubscribe();
            emit();
            subscriber.complete();
          },
        }),
      );
    });
}
