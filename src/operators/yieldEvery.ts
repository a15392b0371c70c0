/**
 * yieldEvery — a synchronous burst longer than `count` goes on in later scheduler tasks.
 *
 * ```
 * source:  (abcde|)       five values at once, count 2
 * result:  (ab)(cd)(e|)   a, b now; c, d in the next task; e and the end in the one after
 * ```
 * In virtual time every group lands in the same frame; on the event loop, whatever waits (a
 * SIGTERM handler, a command on stdin, the UI) runs between them (decision 174). Values that
 * come spread out pass straight through; only the values beyond `count` since the last yield
 * wait, in order, for the next task.
 */
import { Observable, asyncScheduler, type MonoTypeOperatorFunction, type SchedulerLike, type Subscription } from 'rxjs';

/**
 * @param count how many values pass in one task before the rest waits for the next
 * @param scheduler where the next task is scheduled (delay 0)
 */
export function yieldEvery<T>(count: number, scheduler: SchedulerLike = asyncScheduler): MonoTypeOperatorFunction<T> {
  return (source) =>
    new Observable<T>((subscriber) => {
      /** Values waiting for the next task; `head` is the next one. */
      let waiting: T[] = [];
      let head = 0;
      /** Values passed since the last yield. */
      let passed = 0;
      /** A drain is scheduled (and its action, to cancel). */
      let scheduled = false;
      let action: Subscription | undefined;
      let sourceDone = false;

      const later = (): void => {
        scheduled = true;
        const task = scheduler.schedule(drain);
        // Unless a synchronous scheduler ran it already.
        if (scheduled) action = task;
      };

      const drain = (): void => {
        scheduled = false;
        action = undefined;
        passed = 0;
        while (head < waiting.length && passed < count && !subscriber.closed) {
          passed += 1;
          subscriber.next(waiting[head++]!);
        }
        if (head < waiting.length) return later();
        waiting = [];
        head = 0;
        if (sourceDone) subscriber.complete();
      };

      const upstream = source.subscribe({
        next: (value) => {
          if (!scheduled && passed < count) {
            passed += 1;
            return subscriber.next(value);
          }
          waiting.push(value);
          if (!scheduled) later();
        },
        error: (err: unknown) => subscriber.error(err),
        complete: () => {
          sourceDone = true;
          if (!scheduled) subscriber.complete();
        },
      });

      return () => {
        upstream.unsubscribe();
        action?.unsubscribe();
      };
    });
}
