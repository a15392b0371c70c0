import { resolve } from 'node:path';
import { defer, finalize, share, type Observable } from 'rxjs';
import type { ChildNames, WatchEvent, WatchFactory } from './watchFactory.js';

/**
 * One watcher per directory, however many sources watch it (decision 108): `~/.qwen` holds the user
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
 * The one watcher tracks the children any of its subscribers wants (decision 194): the union of
 * their `wanted` names, asked live, so it grows and shrinks with them; a subscriber that names
 * none wants every child.
 *
 * The sharing table belongs to the returned factory: sessions or tests that make their own share
 * nothing.
 */
export function shareWatchersByDirectory(watch: WatchFactory): WatchFactory {
  const watchers = new Map<string, { events$: Observable<WatchEvent>; subscribers: number; wanted: Set<{ names: ChildNames | undefined }> }>();
  return (dir, names) =>
    defer(() => {
      const key = resolve(dir);
      let entry = watchers.get(key);
      if (entry === undefined) {
        const wanted = new Set<{ names: ChildNames | undefined }>();
        const union: ChildNames = (name) => [...wanted].some((w) => w.names === undefined || w.names(name));
        entry = { events$: watch(key, union).pipe(share()), subscribers: 0, wanted };
        watchers.set(key, entry);
      }
      const held = entry;
      // One record per subscriber, so two that pass the same function count twice.
      const own = { names };
      held.wanted.add(own);
      held.subscribers += 1;
      return held.events$.pipe(
        // Counted per subscriber, not per connection: one that re-subscribes while an error is
        // still being delivered keeps the entry (and so the one watcher) alive.
        finalize(() => {
          held.wanted.delete(own);
          held.subscribers -= 1;
          if (held.subscribers === 0 && watchers.get(key) === held) watchers.delete(key);
        }),
      );
    });
}
