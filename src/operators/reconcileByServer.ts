/**
 * reconcileByServer — each server's tasks in order, different servers in parallel (bounded).
 *
 * ```
 * source:    (abAc|)     a, A: tasks of server a; b: of server b; c: of server c
 * server a:  ^--a--A     each task runs 3 frames, then emits its name and completes;
 * server b:  ^--b        A starts only when a has completed
 * server c:     ^--c     concurrency 2: c starts when b frees its slot
 * result:    ---a--A     (b too at frame 3; c and completion too at frame 6)
 * ```
 *
 * The fan-out of one reconcile pass (docs/contract.md, "Reconcile"): the actions of one server run
 * in order (a disconnect finishes before its reconnect starts), different servers run in parallel,
 * at most `concurrency` (default 8) servers at once; a server frees its slot when its queue ran
 * dry.
 */
import { Observable, Subscription, type OperatorFunction } from 'rxjs';

/** One action of a reconcile pass for the server `name` (connect, disconnect, re-filter …). */
export interface ServerTask<R> {
  readonly name: string;
  /** Starts the action on subscription; emits what the action reports and completes when done. */
  readonly run: () => Observable<R>;
}

/**
 * Runs per-server tasks: a server's tasks strictly one after the other (a task starts only after
 * the previous task of the same server completed), different servers in parallel with at most
 * `concurrency` servers active at once. Emits everything the tasks emit and completes when the
 * source has completed and every task has completed.
 *
 * - **No lost tasks.** A task of a server that waits for a slot, or runs one already, queues
 *   behind that server's earlier tasks.
 * - **A slot is held per server while it has work**: from its first task until its queue ran dry.
 *   A later task of it then queues for a slot like a new server's.
 * - **Linear in the number of servers** (decision 172). It was `groupBy(name)` → `concatMap` →
 *   `mergeMap(…, concurrency)`: every group lived until the source completed, and each of N
 *   groups ending took itself out of an array of N subscriptions — a pass of 20,000 blocks spent
 *   seconds there. Here a server's state goes when its queue is empty, and servers whose tasks
 *   complete synchronously are started in a loop, not by recursion (no stack growth with N).
 *
 * An error of a task (or of the source) goes downstream and ends the result, tearing down the
 * other servers' running tasks (standard operator semantics). The pipeline wraps each task's
 * `run()` with `catchError`, so a failed connect is a value (`{ state: 'error' }`) and the pass
 * and the other servers go on (docs/contract.md, "Reconcile").
 *
 * @param concurrency how many servers may run tasks at once (default 8)
 */
export function reconcileByServer<R>(concurrency = 8): OperatorFunction<ServerTask<R>, R> {
  return (source) =>
    new Observable<R>((subscriber) => {
      /** Tasks not started yet, per server that runs one or waits for a slot. */
      const queued = new Map<string, ServerTask<R>[]>();
      /** The servers holding a slot, each with the subscription of the task it runs. */
      const running = new Map<string, Subscription>();
      /** Servers waiting for a slot, in arrival order; `head` is the next one. */
      let waiting: string[] = [];
      let head = 0;
      let sourceDone = false;
      let starting = false;

      /** Runs `name`'s next task in its slot, or gives the slot up when it has none. */
      const runNext = (name: string): void => {
        const task = queued.get(name)?.shift();
        if (task === undefined) {
          queued.delete(name);
          running.delete(name);
          return startWaiting();
        }
        let action: Observable<R>;
        try {
          action = task.run();
        } catch (err) {
          return subscriber.error(err);
        }
        const inner = new Subscription();
        running.set(name, inner);
        inner.add(
          action.subscribe({
            next: (value) => subscriber.next(value),
            error: (err: unknown) => subscriber.error(err),
            // Recursion here is bounded by this server's own tasks.
            complete: () => runNext(name),
          }),
        );
      };

      /** Starts waiting servers while slots are free: a loop, which a task completing at once re-enters only to return. */
      const startWaiting = (): void => {
        if (starting) return;
        starting = true;
        while (head < waiting.length && running.size < concurrency && !subscriber.closed) runNext(waiting[head++]!);
        if (head === waiting.length) {
          waiting = [];
          head = 0;
        }
        starting = false;
        if (sourceDone && queued.size === 0) subscriber.complete();
      };

      const upstream = source.subscribe({
        next: (task) => {
          const queue = queued.get(task.name);
          if (queue !== undefined) return void queue.push(task);
          queued.set(task.name, [task]);
          waiting.push(task.name);
          startWaiting();
        },
        error: (err: unknown) => subscriber.error(err),
        complete: () => {
          sourceDone = true;
          startWaiting();
        },
      });

      return () => {
        upstream.unsubscribe();
        for (const inner of running.values()) inner.unsubscribe();
        running.clear();
        queued.clear();
      };
    });
}
