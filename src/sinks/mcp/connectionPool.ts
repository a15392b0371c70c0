import {
  AsyncSubject,
  EMPTY,
  Observable,
  Subject,
  asyncScheduler,
  defer,
  from,
  lastValueFrom,
  takeUntil,
  timer,
  type SchedulerLike,
  type Subscriber,
  type Subscription,
} from 'rxjs';
import {
  SharedConnectionRestarted,
  type Connection,
  type Connector,
  type ServerRequestHandlers,
} from '../../model/connection.js';
import { fingerprint } from '../../model/reconcile/fingerprint.js';
import type { ServerLists } from '../../model/types.js';

/**
 * The shared connection pool (docs/contract.md, "Shared pool"): a {@link Connector} decorator, so a
 * session needs no special path — it is handed `pool.connector` instead of the real one.
 *
 * ```
 * key = fingerprint(resolved config)            (the server's name is not part of it)
 *
 * session A  acquire ─┐                      ┌─ handle A ──── close() ─┐
 * session B  acquire ─┴─ inner connector ─C──┴─ handle B ──── close() ─┴─ idleGraceMs ─ C.close()
 *                        (spawned once)                              refs 0 ──────────────▶
 *
 * C dies:    every handle's lists$ ──#  (same error), the entry is evicted at once:
 *            the next acquire spawns a fresh one, the ones after it attach
 *
 * restart(key): C.close() ─────────────▶ gone ─ spawn C'   (an acquire in between waits:
 *               every handle's lists$ ──# SharedConnectionRestarted   two processes of one
 *                                                                     config never overlap)
 * ```
 *
 * The server's own requests (elicitation, sampling, roots) on a shared connection are answered by
 * the session that has held it longest and has a handler for that request: one process has one
 * client, so one session's user answers, and it is the one most likely to stay. The capabilities
 * advertised are those of the session that spawned the process.
 */

/** Options of {@link createConnectionPool}. */
export interface ConnectionPoolOptions {
  /** How pooled connections are opened (the real one is `connectMcp`). */
  connector: Connector;
  /** How long a connection nobody holds stays up for a re-acquire (default 30 000 ms). */
  idleGraceMs?: number;
  scheduler?: SchedulerLike;
}

/** One pooled connection, as {@link ConnectionPool.stats} reports it. */
export interface PooledConnectionStats {
  /** The fingerprint of the resolved config. */
  key: string;
  /** Handles out plus acquires waiting for the connection. */
  refs: number;
  /** Absent while the connection is still starting (or for remote servers). */
  pid?: number;
  /** Nobody holds it: it closes when the idle grace ends, unless it is acquired again. */
  idle: boolean;
}

/** Connections shared by several sessions (several `createMcpLive` in one process). */
export interface ConnectionPool {
  /** A Connector for one session: subscribing acquires (attach or spawn), the handle's close() releases. */
  readonly connector: Connector;
  /** Live pooled connections (for tests, benchmarks, /mcp): key = fingerprint of the resolved config, refs, pid. */
  stats(): PooledConnectionStats[];
  /**
   * Restarts the shared connection of `key` for every session holding it (`/reconnect NAME` in
   * pool mode): closes it now, and every handle's `lists$` errors with
   * {@link SharedConnectionRestarted} so its session reconnects at once. Acquires of `key` wait
   * until the old process is gone, then one of them spawns. Returns an observable that completes
   * when the old process is gone, or `undefined` when there is no live connection for `key`.
   */
  restart(key: string): Observable<void> | undefined;
  /** Closes every pooled connection now (ends processes); acquires after it fail. */
  dispose(): Promise<void>;
}

export const DEFAULT_IDLE_GRACE_MS = 30_000;

/** The message of every acquire and every handle's `lists$` once the pool is disposed. */
const DISPOSED = 'connection pool disposed';

interface Entry {
  readonly key: string;
  /** Handles out plus acquires waiting. */
  refs: number;
  /** Set once the inner connector emitted. */
  conn?: Connection;
  /** The lists as of now: the initial ones with every `list_changed` applied. */
  lists: ServerLists;
  /** Fans the one inner `lists$` out to every handle; errors when the connection dies. */
  readonly changes: Subject<Partial<ServerLists>>;
  /** Acquires waiting for the connection to come up, with their session's handlers. */
  readonly waiters: Map<Subscriber<Connection>, ServerRequestHandlers>;
  /** The handlers of every session holding or waiting, oldest first: who answers the server's requests. */
  readonly holders: ServerRequestHandlers[];
  /** The inner connect, until it settled. */
  attempt?: Subscription;
  /** The subscription to the inner `lists$`. */
  listening?: Subscription;
  /** A pending idle close. */
  idle?: Subscription;
  /** The close of the inner connection, once it started (runs to its end, never cut short). */
  closing?: Subscription;
}

const NO_LISTS: ServerLists = { tools: [], prompts: [], resources: [] };

/**
 * Creates a pool around `options.connector`.
 *
 * - Acquire = subscribing `pool.connector(name, config)`: a live connection for the key gets a new
 *   handle; a connect in flight is waited for (concurrent acquires spawn once); otherwise it
 *   spawns. A failed spawn is not kept: every waiter gets the error, the next acquire tries again.
 * - Unsubscribing before the handle arrived drops that acquire's reference; when it was the last,
 *   the spawn in flight is aborted (the inner connector ends what it started) — nobody wants it.
 * - A handle's `close()` releases (idempotent, completes at once); at zero references the
 *   connection closes after `idleGraceMs` on the scheduler, unless it is acquired again first.
 */
export function createConnectionPool(options: ConnectionPoolOptions): ConnectionPool {
  const inner = options.connector;
  const scheduler = options.scheduler ?? asyncScheduler;
  const idleGraceMs = options.idleGraceMs ?? DEFAULT_IDLE_GRACE_MS;
  const entries = new Map<string, Entry>();
  /**
   * Closes under way, by key: a new acquire of that key waits for it (one config's processes never
   * overlap), and dispose() waits for all. Each completes when the process is gone.
   */
  const closing = new Map<string, Observable<void>>();
  let disposed = false;

  const evict = (entry: Entry): void => {
    if (entries.get(entry.key) === entry) entries.delete(entry.key);
    entry.idle?.unsubscribe();
    entry.idle = undefined;
  };

  /** Ends the inner connection for real; the returned observable completes once the process is gone. */
  const closeInner = (entry: Entry, reason?: Error): Observable<void> => {
    evict(entry);
    entry.listening?.unsubscribe();
    entry.listening = undefined;
    const conn = entry.conn;
    const gone = new AsyncSubject<void>();
    // Registered before the handles hear of it: a session that re-acquires at once must wait.
    if (conn) closing.set(entry.key, gone);
    if (reason) entry.changes.error(reason);
    else entry.changes.complete();
    if (!conn) return EMPTY;
    const settle = (): void => {
      if (closing.get(entry.key) === gone) closing.delete(entry.key);
      gone.complete();
    };
    // A close that fails has still ended what it could: waiters go on, nobody judges.
    entry.closing = from(conn.close()).subscribe({ error: settle, complete: settle });
    return gone;
  };

  /** The connection went away on its own: every handle hears it, and the next acquire spawns anew. */
  const die = (entry: Entry, error: unknown): void => {
    evict(entry);
    entry.listening = undefined;
    entry.changes.error(error);
  };

  const release = (entry: Entry, handlers: ServerRequestHandlers): void => {
    const index = entry.holders.indexOf(handlers);
    if (index >= 0) entry.holders.splice(index, 1);
    // A dead, failed or closed entry is out of the map: its references no longer count.
    if (entries.get(entry.key) !== entry) return;
    entry.refs -= 1;
    if (entry.refs > 0) return;
    if (!entry.conn) {
      // The last waiter left before the connection came up: abort the spawn.
      evict(entry);
      entry.attempt?.unsubscribe();
      entry.attempt = undefined;
      return;
    }
    entry.idle = timer(idleGraceMs, scheduler).subscribe(() => {
      entry.idle = undefined;
      void closeInner(entry);
    });
  };

  const handleOf = (entry: Entry, conn: Connection, handlers: ServerRequestHandlers): Connection => {
    let released = false;
    const closed = new Subject<void>();
    const gone = (): Promise<never> => Promise.reject(new Error('connection closed'));
    return {
      pid: conn.pid,
      server: conn.server,
      // The shared connection's lists now, not the ones it started with.
      get lists() {
        return entry.lists;
      },
      lists$: defer(() => (released ? EMPTY : entry.changes.pipe(takeUntil(closed)))),
      callTool: (tool, args, options) =>
        released ? gone() : conn.callTool(tool, args, options),
      getPrompt: conn.getPrompt && ((prompt, args, options) => (released ? gone() : conn.getPrompt!(prompt, args, options))),
      readResource: conn.readResource && ((uri, options) => (released ? gone() : conn.readResource!(uri, options))),
      subscribeResource: conn.subscribeResource && ((uri, options) => (released ? gone() : conn.subscribeResource!(uri, options))),
      unsubscribeResource: conn.unsubscribeResource && ((uri, options) => (released ? gone() : conn.unsubscribeResource!(uri, options))),
      complete: conn.complete && ((params, options) => (released ? gone() : conn.complete!(params, options))),
      stderrTail: () => conn.stderrTail(),
      close: () => {
        if (!released) {
          released = true;
          closed.next();
          closed.complete();
          release(entry, handlers);
        }
        // Releasing never waits for the process: the pool ends it after the grace.
        return EMPTY;
      },
    };
  };

  const opened = (entry: Entry, conn: Connection): void => {
    entry.attempt = undefined;
    entry.conn = conn;
    entry.lists = conn.lists;
    entry.listening = from(conn.lists$).subscribe({
      next: (lists) => {
        entry.lists = { ...entry.lists, ...lists };
        entry.changes.next(lists);
      },
      error: (error: unknown) => die(entry, error),
      // Only our own close completes it; anything else means the connection is gone.
      complete: () => die(entry, new Error('connection closed')),
    });
    for (const [waiter, handlers] of [...entry.waiters]) {
      entry.waiters.delete(waiter);
      waiter.next(handleOf(entry, conn, handlers));
      waiter.complete();
    }
  };

  const failed = (entry: Entry, error: unknown): void => {
    entry.attempt = undefined;
    evict(entry);
    for (const waiter of [...entry.waiters.keys()]) {
      entry.waiters.delete(waiter);
      waiter.error(error);
    }
  };

  /** Spawns once the previous process of this key (if one is closing) is gone, and only if still wanted. */
  const spawnAfterClose = (entry: Entry, name: string, config: Parameters<Connector>[1], handlers: ServerRequestHandlers): void => {
    const previous = closing.get(entry.key);
    if (!previous) return spawn(entry, name, config, handlers);
    entry.attempt = previous.subscribe({
      complete: () => {
        entry.attempt = undefined;
        if (entries.get(entry.key) === entry && !disposed) spawn(entry, name, config, handlers);
      },
    });
  };

  const spawn = (entry: Entry, name: string, config: Parameters<Connector>[1], handlers: ServerRequestHandlers): void => {
    let emitted = false;
    const attempt = inner(name, config, answeredByHolders(entry.holders, handlers)).subscribe({
      next: (conn) => {
        emitted = true;
        opened(entry, conn);
      },
      error: (error: unknown) => failed(entry, error),
      complete: () => {
        if (!emitted) failed(entry, new Error('the connector completed without a connection'));
      },
    });
    // A connector that settled synchronously has nothing left to abort.
    if (!attempt.closed) entry.attempt = attempt;
  };

  const connector: Connector = (name, config, handlers = {}) =>
    new Observable<Connection>((subscriber) => {
      if (disposed) {
        subscriber.error(new Error(DISPOSED));
        return;
      }
      const key = fingerprint(config);
      let entry = entries.get(key);
      const fresh = entry === undefined;
      if (!entry) {
        entry = { key, refs: 0, lists: NO_LISTS, changes: new Subject(), waiters: new Map(), holders: [] };
        entries.set(key, entry);
      }
      const current = entry;
      current.refs += 1;
      current.holders.push(handlers);
      current.idle?.unsubscribe();
      current.idle = undefined;
      if (current.conn) {
        subscriber.next(handleOf(current, current.conn, handlers));
        subscriber.complete();
        return;
      }
      current.waiters.set(subscriber, handlers);
      if (fresh) spawnAfterClose(current, name, config, handlers);
      return () => {
        // Still waiting: this acquire's reference goes with it.
        if (current.waiters.delete(subscriber)) release(current, handlers);
      };
    });

  return {
    connector,
    stats: () =>
      [...entries.values()].map((e) => {
        const s: PooledConnectionStats = { key: e.key, refs: e.refs, idle: e.refs === 0 && e.conn !== undefined };
        if (e.conn?.pid !== undefined) s.pid = e.conn.pid;
        return s;
      }),
    restart(key) {
      const entry = entries.get(key);
      if (!entry?.conn) return undefined;
      return closeInner(entry, new SharedConnectionRestarted());
    },
    async dispose() {
      disposed = true;
      for (const entry of [...entries.values()]) {
        if (entry.conn) {
          void closeInner(entry, new Error(DISPOSED));
        } else {
          entry.attempt?.unsubscribe();
          failed(entry, new Error(DISPOSED));
        }
      }
      await Promise.all([...closing.values()].map((gone) => lastValueFrom(gone, { defaultValue: undefined })));
    },
  };
}

/**
 * The handlers a shared connection is opened with: each request goes to the longest holder that
 * has a handler for it. Only the kinds `spawner` has are offered (they decide the capabilities);
 * with no holder left that has one, a form is cancelled, sampling refused, and the roots are none.
 */
function answeredByHolders(holders: readonly ServerRequestHandlers[], spawner: ServerRequestHandlers): ServerRequestHandlers {
  const first = <K extends keyof ServerRequestHandlers>(kind: K): ServerRequestHandlers[K] => holders.find((h) => h[kind])?.[kind];
  const answered: ServerRequestHandlers = {};
  if (spawner.elicit) answered.elicit = (...a) => first('elicit')?.(...a) ?? Promise.resolve({ action: 'cancel' });
  if (spawner.sample) {
    answered.sample = (...a) => first('sample')?.(...a) ?? Promise.reject(new Error('no session that can sample holds this server'));
  }
  if (spawner.roots) answered.roots = () => first('roots')?.() ?? [];
  // Notifications are every holder's news, whoever spawned the connection.
  answered.log = (...a) => holders.forEach((h) => h.log?.(...a));
  answered.resourceUpdated = (...a) => holders.forEach((h) => h.resourceUpdated?.(...a));
  return answered;
}
