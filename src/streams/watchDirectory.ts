import { statSync } from 'node:fs';
import { basename, dirname, relative, resolve, sep } from 'node:path';
import { Observable, Subscription, asyncScheduler, type SchedulerLike } from 'rxjs';
import type { ReadActivity } from '../operators/settleOnActivity.js';
import { chokidarWatchFactory, type ChildNames, type WatchEvent, type WatchFactory } from './watchFactory.js';

/** Dependencies of the watched sources; every one has a real default. */
export interface WatchDeps {
  /** Watches one directory at depth 0 (default: chokidar). */
  watch?: WatchFactory;
  /** Whether a path is an existing directory (default: `fs.statSync`). */
  isDirectory?: (path: string) => boolean;
  /** Schedules the re-watch after a watcher failure (default: `asyncScheduler`). */
  scheduler?: SchedulerLike;
  /** Delay before watching again after a watcher failed, in ms (default 1000). */
  rewatchDelayMs?: number;
  /**
   * Told of every change a watcher sees and of every read it causes (default: nobody): the
   * pipeline times its debounce from these (`settleOnActivity`, decision 105).
   */
  onActivity?: (activity: ReadActivity) => void;
}

/**
 * Why to read again: `change`, something may have changed (at subscription, on an event of a
 * watched name, when the watch moves or fails); `check`, nothing new was seen, but reading again
 * makes sure nothing was missed (the watcher became ready, or the trailing `recheck` after a
 * change). Only a `change` (re)starts the pipeline's debounce.
 */
export type WatchTick = 'change' | 'check';

const DEFAULT_REWATCH_DELAY_MS = 1000;

function isDirectoryOnDisk(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function nearestExistingDirectory(path: string, isDirectory: (path: string) => boolean): string {
  let current = path;
  while (!isDirectory(current)) {
    const parent = dirname(current);
    if (parent === current) return current;
    current = parent;
  }
  return current;
}

/**
 * Ticks whenever a direct child of `dir` whose name passes `accept` may have changed.
 *
 * ```
 * subscribe      !
 * fs (in dir)    ----a----x.tmp------c----
 * output         c-k-c---------------c----    (c: change, k: check ({@link WatchTick}); x.tmp not accepted)
 * ```
 *
 * One tick at subscription (the initial read) and one when the watcher is ready (a write between
 * the two is not lost; a `check`). Watches `dir` itself at depth 0, so renames over a name, deletes and
 * re-creates are seen. While `dir` does not exist, the nearest existing ancestor is watched
 * until the next path component appears, then the watch moves down, one or more levels at once;
 * if `dir` disappears, it moves back up. Every event re-checks the location (a stat per level),
 * and every move ticks: the children may have changed.
 * The watcher is told which children matter (`accept` in `dir`, the next component in an
 * ancestor), so a directory of many other files costs no more than one of a few (decision 194).
 * A watcher that fails ticks and is replaced after `rewatchDelayMs`. Cold: each subscription
 * subscribes the factory on its own, and unsubscribing closes that (with
 * `shareWatchersByDirectory`, one watcher serves every subscription of a directory).
 */
export function watchDirectory(
  dir: string,
  accept: (name: string) => boolean,
  deps: WatchDeps = {},
): Observable<WatchTick> {
  const watch = deps.watch ?? chokidarWatchFactory;
  const isDirectory = deps.isDirectory ?? isDirectoryOnDisk;
  const scheduler = deps.scheduler ?? asyncScheduler;
  const rewatchDelayMs = deps.rewatchDelayMs ?? DEFAULT_REWATCH_DELAY_MS;
  const target = resolve(dir);

  return new Observable<WatchTick>((subscriber) => {
    let location = '';
    let current: Subscription | undefined;

    /** Moves to the nearest existing directory; true when the location changed. */
    const relocate = (): boolean => {
      const next = nearestExistingDirectory(target, isDirectory);
      if (next === location) return false;
      watchAt(next);
      return true;
    };

    const watchAt = (at: string): void => {
      current?.unsubscribe();
      location = at;
      // Assigned before subscribing: a synchronous watcher may move us on from inside.
      const own = new Subscription();
      current = own;
      own.add(
        watch(at, wantedAt(at)).subscribe({
          next: (event) => {
            if (current === own) onEvent(at, event);
          },
          error: () => {
            if (current !== own) return;
            own.unsubscribe();
            if (!relocate()) {
              // Same place, still there: watch it again a little later.
              const waiting = new Subscription();
              current = waiting;
              waiting.add(
                scheduler.schedule(() => {
                  if (current === waiting) watchAt(at);
                }, rewatchDelayMs),
              );
            }
            // Whatever happened meanwhile went unseen.
            subscriber.next('change');
          },
        }),
      );
    };

    const onEvent = (at: string, event: WatchEvent): void => {
      // Any sign of life re-checks where to watch: watchers do not reliably report their own
      // directory going away (chokidar may send only a raw event), nor every ancestor change.
      if (relocate()) {
        subscriber.next('change');
        return;
      }
      if (at !== target) return;
      if (event.event === 'ready') {
        subscriber.next('check');
        return;
      }
      const path = resolve(event.path);
      if (dirname(path) === target && accept(basename(path))) subscriber.next(event.event === 'recheck' ? 'check' : 'change');
    };

    /**
     * What the watcher at `at` must track (decision 194): the accepted names in `dir` itself; in
     * an ancestor, the next component on the way down to it (any event there re-checks anyway).
     */
    const wantedAt = (at: string): ChildNames => {
      if (at === target) return accept;
      const next = relative(at, target).split(sep)[0];
      return (name) => name === next;
    };

    watchAt(nearestExistingDirectory(target, isDirectory));
    subscriber.next('change');

    return () => {
      const last = current;
      current = undefined;
      last?.unsubscribe();
    };
  });
}
