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
 * The fan-out of one reconcile pass (SPEC §6, §8): the actions of one server run in order (a
 * disconnect finishes before its reconnect starts), different servers run in parallel, at most
 * `concurrency` (default 8) servers at once.
 */
import {
  concatMap,
  groupBy,
  mergeMap,
  type Observable,
  type OperatorFunction,
  ReplaySubject,
} from 'rxjs';

/** One action of a reconcile pass for the server `name` (connect, disconnect, re-filter …). */
export interface ServerTask<R> {
  readonly name: string;
  /** Starts the action on subscription; emits what the action reports and completes when done. */
  readonly run: () => Observable<R>;
}

/**
 * Runs per-server tasks: grouped by `name`, a server's tasks strictly one after the other (a
 * task starts only after the previous task of the same server completed), different servers in
 * parallel with at most `concurrency` servers active at once. Emits everything the tasks emit
 * and completes when the source has completed and every task has completed.
 *
 * `groupBy(name)` → `concatMap` within a server → `mergeMap(…, concurrency)` across servers,
 * with two details that matter:
 *
 * - **No lost tasks.** `mergeMap` holds back the groups beyond `concurrency` and subscribes to
 *   them later; a plain `groupBy` group is a `Subject` and would drop every task pushed into it
 *   before that. Each group therefore replays its tasks to its (single, late) subscriber.
 * - **A slot is held per server until its group completes**, i.e. until the source has
 *   completed and that server's last task has finished. The intended source is one pass,
 *   `from(tasks)`, which completes as soon as it has emitted every task, so a server holds a
 *   slot exactly while it has work: the bound is on servers running at once. Fed by a source
 *   that stays open, a server whose queue ran dry would keep its slot until the source
 *   completes; don't use it that way. Groups end with the source, so none outlives the pass.
 *
 * An error of a task (or of the source) goes downstream and ends the result, tearing down the
 * other servers' running tasks (standard operator semantics). The pipeline wraps each task's
 * `run()` with `catchError`, so a failed connect is a value (`{ state: 'error' }`) and the pass
 * and the other servers go on (SPEC §6).
 *
 * @param concurrency how many servers may run tasks at once (default 8)
 */
export function reconcileByServer<R>(concurrency = 8): OperatorFunction<ServerTask<R>, R> {
  return (source) =>
    source.pipe(
      groupBy((task) => task.name, {
        // Unbounded on purpose: a group buffers the tasks of one server in one pass.
        connector: () => new ReplaySubject<ServerTask<R>>(Infinity),
      }),
      mergeMap((server$) => server$.pipe(concatMap((task) => task.run())), concurrency),
    );
}
