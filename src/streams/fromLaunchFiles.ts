import { readdir } from 'node:fs/promises';
import { combineLatest, distinctUntilChanged, map, of, type Observable } from 'rxjs';
import { isLaunchFile, launchFolders } from '../model/launch/launchFiles.js';
import type { PathKeys } from '../model/pathKeys.js';
import { rereadOnTick } from './rereadOnTick.js';
import { watchDirectory, type WatchDeps } from './watchDirectory.js';

export type LaunchFilesDeps = WatchDeps & {
  /** How paths compare here (this machine's: `systemPathKeys`, decision 283). */
  pathKeys: PathKeys;
  /** The names in a directory (default `fs.promises.readdir`); a directory that cannot be listed has none. */
  list?: (dir: string) => Promise<readonly string[]>;
};

/**
 * The launcher files (decision 301) in `workspace` and its ancestors below `home`, live: their
 * paths, sorted, distinct. Each may be given in more than one spelling (as given, real path):
 * see `launchFolders`.
 *
 * ```
 * workspace  ----------+node_modules-----------+.npmrc-----rm node_modules---
 * output     []--------[ws/node_modules]-------[ws/.npmrc, ws/node_modules]--[ws/.npmrc]
 * ```
 *
 * Each folder is watched at depth 0 for the launcher names only ({@link watchDirectory}, which
 * keeps a watcher's listing to them: decision 194) and listed again on its ticks; names match
 * case-blind where the file system ignores case. Emits only when the list changes. A folder
 * that cannot be listed counts as having none: what this guards is the user's own servers, and
 * a folder nobody can list is one npx cannot read either.
 */
export function fromLaunchFiles(workspace: string | readonly string[], home: string | readonly string[], deps: LaunchFilesDeps): Observable<readonly string[]> {
  const { pathKeys } = deps;
  const list = deps.list ?? listDirectory;
  const accept = (name: string) => isLaunchFile(name, pathKeys.ignoresCase);
  const folders = launchFolders(typeof workspace === 'string' ? [workspace] : workspace, typeof home === 'string' ? [home] : home, pathKeys.path, pathKeys.ignoresCase);
  if (folders.length === 0) return of([]);
  const perFolder = folders.map((folder) =>
    watchDirectory(folder, accept, deps).pipe(
      rereadOnTick(async () => (await list(folder)).filter(accept).map((name) => pathKeys.path.join(folder, name)), deps.onActivity),
    ),
  );
  return combineLatest(perFolder).pipe(
    map((found) => [...new Set(found.flat())].sort()),
    distinctUntilChanged((a, b) => a.length === b.length && a.every((path, i) => path === b[i])),
  );
}

async function listDirectory(dir: string): Promise<readonly string[]> {
  try {
    return await readdir(dir);
  } catch {
    return [];
  }
}
