import { basename, dirname, join, resolve } from 'node:path';
import { watch, type ChokidarOptions, type FSWatcher } from 'chokidar';
import { Observable } from 'rxjs';
import { isEditorArtifact } from '../model/editorArtifacts.js';

/**
 * What a directory watcher reports: a change of one direct child, that it is ready, `raw`:
 * activity it did not classify (such as the watched directory itself being removed), on which
 * the consumer re-checks what exists, or `recheck`: no new activity, but a child that changed a
 * moment ago is worth reading once more (see {@link TRAILING_CHECK_MS}).
 */
export interface WatchEvent {
  event: 'add' | 'change' | 'unlink' | 'addDir' | 'unlinkDir' | 'ready' | 'raw' | 'recheck';
  /**
   * The child (or, for `ready` and the directory's own removal, the directory itself). A `raw`
   * event names the child the native watcher named, else the directory.
   */
  path: string;
}

const CHILD_EVENTS: ReadonlySet<string> = new Set(['add', 'change', 'unlink', 'addDir', 'unlinkDir']);

/**
 * Which direct children of a directory its watcher must track (by name). Asked again on every
 * listing, so it may change while the watcher runs: a shared watcher's names come and go with
 * its subscribers (`shareWatchersByDirectory`).
 */
export type ChildNames = (name: string) => boolean;

/**
 * The seam between the file sources and the file system: watch one directory, depth 0 — only
 * the children `wanted` names when it is given (decision 194), else all of them. A child it does
 * not want may still show in a `raw` event. The observable errors when the watcher fails;
 * unsubscribing closes the watcher. Tests replace it with `cold()` / `Subject` observables.
 */
export type WatchFactory = (dir: string, wanted?: ChildNames) => Observable<WatchEvent>;

/**
 * chokidar drops a `change` of a path within 50 ms of the previous one, and an `unlink` within
 * 100 ms, without a trailing event (paulmillr/chokidar#1455): two quick saves would leave the
 * second unread. So every child event is followed, this long after the last one for that path,
 * by a `recheck` — a read that is sure to see the final content. It is not itself a sign of a
 * change: it does not restart the pipeline's debounce (decision 106), whose window, longer than
 * this, is still open when the read comes back.
 */
const TRAILING_CHECK_MS = 120;

/**
 * The direct child of `root` a native event is about, else `root`: fs.watch of the directory
 * names the child; fs.watch of a child file names that file; events inside a child directory
 * are not about a direct child. An editor artifact's event counts as the directory's.
 */
function rawChild(root: string, name: string | null | undefined, details: unknown): string {
  const watched = (details as { watchedPath?: unknown } | undefined)?.watchedPath;
  const at = typeof watched === 'string' ? resolve(watched) : root;
  const child = at === root ? (name ? join(root, name) : root) : dirname(at) === root ? at : root;
  // Editor artifacts stay anonymous, as `ignored` keeps them out of the classified events.
  return child !== root && isEditorArtifact(basename(child)) ? root : child;
}

/**
 * A {@link WatchFactory} on chokidar (`open`: chokidar's `watch`; tests pass a spy to look at
 * the watcher). `ignoreInitial`: the sources read the file themselves at subscription.
 * `atomic`: an unlink followed by an add of the same name is one `change`. No
 * `awaitWriteFinish`: the pipeline debounces, and waiting here would only add delay. Plus a
 * trailing `recheck` per path ({@link TRAILING_CHECK_MS}).
 *
 * A child that `wanted` does not name is `ignored`: chokidar neither keeps it in its listing nor
 * watches it on its own (at depth 0 it opens a native watcher per child file). A workspace root
 * of 100,000 files, watched for `.mcp.json` and `.lsp.json`, so holds two entries, not 100,000
 * entries and watchers (decision 194). The directory's own watcher still sees every change in it,
 * and each re-listing asks `wanted` again, so a name wanted later is picked up by the next one.
 */
export function createChokidarWatchFactory(open: (path: string, options: ChokidarOptions) => FSWatcher = watch): WatchFactory {
  return (dir, wanted) => chokidarWatch(open, dir, wanted);
}

function chokidarWatch(open: (path: string, options: ChokidarOptions) => FSWatcher, dir: string, wanted: ChildNames | undefined): Observable<WatchEvent> {
  return new Observable<WatchEvent>((subscriber) => {
    const root = resolve(dir);
    const watcher = open(root, {
      ignoreInitial: true,
      depth: 0,
      atomic: true,
      awaitWriteFinish: false,
      persistent: true,
      ignored: (path: string) => {
        const at = resolve(path);
        if (at === root) return false;
        const name = basename(at);
        return isEditorArtifact(name) || (wanted !== undefined && dirname(at) === root && !wanted(name));
      },
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
          subscriber.next({ event: 'recheck', path });
        }, TRAILING_CHECK_MS),
      );
    });
    watcher.on('ready', () => subscriber.next({ event: 'ready', path: root }));
    // chokidar does not always emit `unlinkDir` for the watched directory itself (under load it
    // may only see its children go), nor anything at all when a child directory is replaced by a
    // file of the same name (and then not for that file's later changes either); the native
    // watcher always reports something, and names the child.
    watcher.on('raw', (_event, name, details) => subscriber.next({ event: 'raw', path: rawChild(root, name, details) }));
    watcher.on('error', (error) => subscriber.error(error));
    return () => {
      for (const timer of trailing.values()) clearTimeout(timer);
      trailing.clear();
      // close() is async; nothing waits for it, and a failure to close is not actionable.
      watcher.close().catch(() => undefined);
    };
  });
}

/** The default {@link WatchFactory}: {@link createChokidarWatchFactory} on chokidar's own `watch`. */
export const chokidarWatchFactory: WatchFactory = createChokidarWatchFactory();
