import { basename, dirname, resolve } from 'node:path';
import type { Observable } from 'rxjs';
import { watchDirectory, type WatchDeps } from './watchDirectory.js';

/**
 * Ticks whenever the file at `path` may have changed: added, changed, removed, renamed over,
 * or its directory created or removed (SPEC §7).
 *
 * ```
 * subscribe     !
 * settings.json ------w----------rm---w-----
 * .swp, ~, .tmp ---s------s-------------s---
 * output        t(r)--t----------t----t-----    (t: read again; r: watcher ready)
 * ```
 *
 * Watches the file's directory at depth 0, filtered by name, and, while that directory does not
 * exist, its nearest existing ancestor (see {@link watchDirectory}). Ticks once at subscription.
 * A tick means "read again", never "it changed": readers compare contents themselves.
 */
export function watchFile(path: string, deps: WatchDeps = {}): Observable<void> {
  const file = resolve(path);
  const name = basename(file);
  return watchDirectory(dirname(file), (child) => child === name, deps);
}
