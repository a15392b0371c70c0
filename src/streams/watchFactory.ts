import { basename, resolve } from 'node:path';
import { watch } from 'chokidar';
import { Observable } from 'rxjs';
import { isEditorArtifact } from './editorArtifacts.js';

/**
 * What a directory watcher reports: a change of one direct child, that it is ready, or `raw`:
 * activity it did not classify (such as the watched directory itself being removed), on which
 * the consumer re-checks what exists.
 */
export interface WatchEvent {
  event: 'add' | 'change' | 'unlink' | 'addDir' | 'unlinkDir' | 'ready' | 'raw';
  /** The child (or, for `ready`, `raw` and the directory's own removal, the directory itself). */
  path: string;
}

const CHILD_EVENTS: ReadonlySet<string> = new Set(['add', 'change', 'unlink', 'addDir', 'unlinkDir']);

/**
 * The seam between the file sources and the file system: watch one directory, depth 0.
 * The observable errors when the watcher fails; unsubscribing closes the watcher.
 * Tests replace it with `cold()` / `Subject` observables.
 */
export type WatchFactory = (dir: string) => Observable<WatchEvent>;

/**
 * chokidar drops a `change` of a path within 50 ms of the previous one, and an `unlink` within
 * 100 ms, without a trailing event (paulmillr/chokidar#1455): two quick saves would leave the
 * second unread. So every child event is followed, this long after the last one for that path,
 * by one more `change` — a read that is sure to see the final content.
 */
const TRAILING_CHECK_MS = 120;

/**
 * The default {@link WatchFactory}, on chokidar. `ignoreInitial`: the sources read the file
 * themselves at subscription. `atomic`: an unlink followed by an add of the same name is one
 * `change`. No `awaitWriteFinish`: the pipeline debounces, and waiting here would only add delay.
 * Plus a trailing `change` per path ({@link TRAILING_CHECK_MS}).
 */
export const chokidarWatchFactory: WatchFactory = (dir) =>
  new Observable<WatchEvent>((subscriber) => {
    const root = resolve(dir);
    const watcher = watch(root, {
      ignoreInitial: true,
      depth: 0,
      atomic: true,
      awaitWriteFinish: false,
      persistent: true,
      ignored: (path: string) => resolve(path) !== root && isEditorArtifact(basename(path)),
    });
    const trailing = new Map<string, NodeJS.Timeout>();
    watcher.on('all', (event, path) => {
      if (!CHILD_EVENTS.has(event)) return;
      subscriber.next({ event: event as WatchEvent['event'], path });
      clearTimeout(trailing.get(path));
      trailing.set(
        path,
        setTimeout(() => {
          trailing.delete(path);
          subscriber.next({ event: 'change', path });
        }, TRAILING_CHECK_MS),
      );
    });
    watcher.on('ready', () => subscriber.next({ event: 'ready', path: root }));
    // chokidar does not always emit `unlinkDir` for the watched directory itself (under load it
    // may only see its children go), but the native watcher always reports something.
    watcher.on('raw', () => subscriber.next({ event: 'raw', path: root }));
    watcher.on('error', (error) => subscriber.error(error));
    return () => {
      for (const timer of trailing.values()) clearTimeout(timer);
      trailing.clear();
      // close() is async; nothing waits for it, and a failure to close is not actionable.
      watcher.close().catch(() => undefined);
    };
  });
