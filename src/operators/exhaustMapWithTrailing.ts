/**
 * exhaustMapWithTrailing — one inner at a time; what arrives meanwhile runs once, afterwards,
 * with the latest value.
 *
 * ```
 * source:   -a-b-c-----------d------|
 * inner a:   ^----A
 * inner c:        ^----C
 * inner d:                   ^----D
 * result:   ------A----C----------D-|
 * ```
 * Each inner emits its value in upper case 5 frames after it starts, and completes. b and c
 * arrive while a runs: b is replaced by c, and c runs once a completes.
 *
 * The pipeline's pass gate (docs/contract.md, "Passes"): only one reconcile pass runs at a time;
 * triggers that arrive during a pass are coalesced, and when the pass ends exactly one trailing
 * pass runs with the latest desired state. Values that arrive while that trailing inner runs are
 * coalesced the same way, so the latest value is never lost: the last value of the source is always
 * projected.
 *
 * ```
 * source:    -a--b---------     inner a: ------A| piped takeUntil(superseded$)
 * inner a:    ^--!              b arrives: a's superseded$ emits, a winds down (here: at once)
 * inner b:       ^----B|
 * result:    ---------B|
 * ```
 * An inner that must not hold up newer values can listen to `superseded$` and finish early; the
 * trailing inner starts as soon as it has. A reconcile pass does: it stops waiting for a hung
 * server's connect when a newer desired state arrives (decision 17).
 */
import { AsyncSubject, from, Observable, type ObservableInput, type OperatorFunction, Subscription } from 'rxjs';

/**
 * Maps each source value to an inner observable like `exhaustMap`, but instead of ignoring
 * values that arrive while an inner is active it keeps the latest of them and, when the inner
 * completes, runs exactly one trailing inner with it.
 *
 * - At most one inner is subscribed at a time; everything the inners emit is passed on.
 * - `index` counts projections (0, 1, 2 …), as in `exhaustMap`; values coalesced away are
 *   not counted.
 * - Source completion: the result completes once the active inner and the trailing inner
 *   (if one is pending) have completed.
 * - Errors of the source, of an inner, or thrown by `project` go downstream and end the
 *   result (standard operator semantics). The pipeline therefore catches failures *inside* its
 *   project (redux-observable style), so a failed pass becomes a value and the gate lives on.
 * - Unsubscribing tears down the source and the active inner.
 *
 * The busy flag and the pending value are state of one subscription: they live in the
 * subscribe function (what `defer()` would give a composed operator), so two subscribers of the same piped observable never share them
 * (unlike rxjs-etc's `auditMap`, whose state sits in the operator's closure). It is written
 * out rather than composed from `mergeMap` + `concat(defer(…))` because that composition nests
 * one more `concat` for every consecutive trailing inner, which grows without bound while
 * triggers keep arriving during passes; here each inner is subscribed on its own.
 *
 * - `superseded$` (the third argument of `project`) emits once and completes as soon as a value
 *   arrives while that inner runs (a late subscriber still hears it); it never emits for an inner
 *   that completes first. The operator never cuts an inner short: winding down is the inner's choice.
 *
 * @param project maps a value (its projection index, and a notifier of newer values) to the inner to run
 */
export function exhaustMapWithTrailing<T, R>(
  project: (value: T, index: number, superseded$: Observable<void>) => ObservableInput<R>,
): OperatorFunction<T, R> {
  return (source) =>
    new Observable<R>((subscriber) => {
      let index = 0;
      let active = false;
      let pending: { readonly value: T } | undefined;
      let sourceDone = false;
      /** Told when a value arrives while the active inner runs. */
      let newer: AsyncSubject<void> | undefined;

      const runInner = (value: T): void => {
        let input: ObservableInput<R>;
        const superseded = new AsyncSubject<void>();
        try {
          input = project(value, index++, superseded.asObservable());
        } catch (error: unknown) {
          subscriber.error(error);
          return;
        }
        newer = superseded;
        active = true;
        // Held by the result's subscription so that unsubscribing (or an error) tears the
        // inner down, even when that happens while the inner is still being subscribed.
        const innerSubscription = new Subscription();
        subscriber.add(innerSubscription);
        innerSubscription.add(
          from(input).subscribe({
            next: (result) => subscriber.next(result),
            error: (error: unknown) => subscriber.error(error),
            complete: () => {
              subscriber.remove(innerSubscription);
              active = false;
              if (pending) {
                const next = pending.value;
                pending = undefined;
                runInner(next);
              } else if (sourceDone) {
                subscriber.complete();
              }
            },
          }),
        );
      };

      subscriber.add(
        source.subscribe({
          next: (value) => {
            // A synchronous source may go on emitting after the result has ended.
            if (subscriber.closed) return;
            if (!active) return runInner(value);
            pending = { value };
            // Read once: telling the inner may complete it and start the trailing one.
            const told = newer;
            told?.next();
            told?.complete();
          },
          error: (error: unknown) => subscriber.error(error),
          complete: () => {
            sourceDone = true;
            if (!active) subscriber.complete();
          },
        }),
      );
    });
}
