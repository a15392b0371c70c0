import { resolve } from 'node:path';
import { defer, finalize, share, type Observable } from 'rxjs';
import type { WatchEvent, WatchFactory } from './watchFactory.js';

/**
 * One watcher per directory, however many sources watch it (issue 15): `~/.qwen` holds the user
 * settings, the approvals and the trusted folders (and stands in for a missing `extensions/`),
 * the workspace holds `.mcp.json` and `.qwen/`; each used to have a chokidar watcher per file.
 *
 * ```
 * subscribers of ~/.qwen:  settings ^-----------!      approvals ^---------------!
 * watch(~/.qwen):                   ^----------------------------------------------!
 * ```
 *
 * The returned factory subscribes `watch` once per directory (by its resolved path) and
 * multicasts its events; each subscriber filters the names it wants, as before (depth 0, see
 * `watchDirectory`). The last subscriber to leave closes the watcher; one that comes later opens
 * a new one. A subscriber that joins a running watcher does not hear its `ready`: it reads at
 * subscription, after the watcher was already watching, so nothing falls between the two. A
 * failing watcher fails every subscriber (each watches again after its delay: the first opens a
 * new watcher, the others join it).
 *
 * The sharing table belongs to the returned factory: sessions or tests that make their own share
 * nothing.
 */
export function shareWatchersByDirectory(watch: WatchFactory): WatchFactory {
  const watchers = new Map<string, { events$: Observable<WatchEvent>; subscribers: number }>();
  return (dir) =>
    defer(() => {
      const key = resolve(dir);
      let entry = watchers.get(key);
      if (entry === undefined) {
        entry = { events$: watch(key).pipe(share()), subscribers: 0 };
        watchers.set(key, entry);
      }
      const held = entry;
      held.subscribers += 1;
      return held.events$.pipe(
        // Counted per subscriber, not per connection: one that re-subscribes while an error is
        // still being delivered keeps the entry (and so the one watcher) alive.
        finalize(() => {
          held.subscribers -= 1;
          if (held.subscribers === 0 && watchers.get(key) === held) watchers.delete(key);
        }),
      );
    });
}
