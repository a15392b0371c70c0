import { defer, finalize, from, tap, type ObservableInput, type OperatorFunction } from 'rxjs';
import { exhaustMapWithTrailing } from '../operators/exhaustMapWithTrailing.js';
import type { ReadActivity } from '../operators/settleOnActivity.js';
import type { WatchTick } from './watchDirectory.js';

/**
 * Reads again on the ticks of a watcher: one read at a time, and at most one more after it,
 * whatever the number of ticks meanwhile (decision 107).
 *
 * ```
 * ticks:   c--cc------c----
 * read 1:  ^---R                   each read takes 4 frames
 * read 2:      ^---R               the ticks at 3 and 4 make one read, after read 1
 * read 3:             ^---R
 * output:  ----R---R-------R
 * ```
 *
 * Eager: a read starts at the tick, not when the debounce ends, so its content is usually there
 * before the window closes and the pass does not wait for it. A tick during a read neither
 * abandons it (a save that produces two watcher events used to read the file twice, the first
 * read thrown away) nor starts a second one alongside: the trailing read sees everything written
 * before it started.
 *
 * `onActivity` hears `change` for every tick of that kind, `start` when a read begins and
 * `end` once it is over — after its result has gone downstream, and, when a trailing read
 * follows, after that one's `start`, so the count of running reads never drops to 0 in between.
 *
 * @param read reads the file (or directory listing) once: a promise, or an observable that completes
 * @param onActivity told of the changes and reads (`settleOnActivity` times its window from them)
 */
export function rereadOnTick<R>(
  read: () => ObservableInput<R>,
  onActivity?: (activity: ReadActivity) => void,
): OperatorFunction<WatchTick, R> {
  return (ticks$) =>
    ticks$.pipe(
      tap((tick) => {
        if (tick === 'change') onActivity?.('change');
      }),
      exhaustMapWithTrailing(() =>
        defer(() => {
          onActivity?.('start');
          return from(read());
        }).pipe(finalize(() => onActivity?.('end'))),
      ),
    );
}
