import { lstatSync, realpathSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { EMPTY, connect, distinctUntilChanged, map, merge, skip, switchMap, type Observable } from 'rxjs';
import { watchDirectory, type WatchDeps, type WatchTick } from './watchDirectory.js';

export interface WatchFileDeps extends WatchDeps {
  /**
   * Where `path` points when it is a symlink (fully resolved), else `undefined` — also for a
   * dangling link (default: `lstat` + `realpath`).
   */
  linkTarget?: (path: string) => string | undefined;
}

function linkTargetOnDisk(path: string): string | undefined {
  try {
    return lstatSync(path).isSymbolicLink() ? realpathSync(path) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Ticks whenever the file at `path` may have changed: added, changed, removed, renamed over,
 * or its directory created or removed (docs/contract.md, "Watching").
 *
 * ```
 * subscribe     !
 * settings.json ------w----------rm---w-----
 * .swp, ~, .tmp ---s------s-------------s---
 * output        ck----c----------c----c-----  (c: a change; k: a check — the watcher is ready; see WatchTick)
 * ```
 *
 * Watches the file's directory at depth 0, filtered by name, and, while that directory does not
 * exist, its nearest existing ancestor (see {@link watchDirectory}). Ticks once at subscription.
 * A tick means "read again", never "it changed": readers compare contents themselves; its kind
 * says whether it may stand for a change or only makes sure (`WatchTick`).
 *
 * A symlinked file (dotfile managers do that) is also watched where it points: an editor saves
 * the target, often by renaming a new file over it, and the link's own directory never hears of
 * that. Every tick of the link's directory re-checks the target, so a re-pointed link moves the
 * second watch along.
 */
export function watchFile(path: string, deps: WatchFileDeps = {}): Observable<WatchTick> {
  const file = resolve(path);
  const name = basename(file);
  const linkTarget = deps.linkTarget ?? linkTargetOnDisk;
  return watchDirectory(dirname(file), (child) => child === name, deps).pipe(
    // connect: both branches see the tick at subscription.
    connect((own$) =>
      merge(
        own$,
        own$.pipe(
          map(() => linkTarget(file)),
          distinctUntilChanged(),
          switchMap((target) =>
            target === undefined
              ? EMPTY
              : // Its first tick duplicates the one that found the target.
                watchDirectory(dirname(target), (child) => child === basename(target), deps).pipe(skip(1)),
          ),
        ),
      ),
    ),
  );
}
