import {
  AsyncSubject,
  EMPTY,
  Observable,
  Subscription,
  concat,
  defer,
  from,
  lastValueFrom,
  catchError,
  concatMap,
  finalize,
  ignoreElements,
  map,
  merge,
  noop,
  of,
  switchMap,
  tap,
  timer,
  type SchedulerLike,
} from 'rxjs';
import {
  NeedsAuthorization,
  SharedConnectionRestarted,
  type Connection,
  type ConnectionActivity,
  type Connector,
  type ServerIdentity,
  type ServerRequestHandlers,
} from '../../model/connection.js';
import { serverWarnings, type Blocked, type WantedServer } from '../../model/reconcile/plan.js';
import type { ServerStatus } from '../../model/report/status.js';
import type { Scope } from '../../model/types.js';
import { needsAuthText, type HintAudience } from '../../model/report/messages.js';
import { languagesOf } from '../../model/lsp/lspConfig.js';
import { backoffDelay } from '../../operators/backoffDelay.js';
import { NOT_CONNECTED, STDERR_LINES, trustOf, type Entry, type InFlight } from './liveEntries.js';
import { offeredInstructions } from './offeredSurface.js';
import type { StatusBoard } from './statusBoard.js';
import type { ToolCatalog } from './toolCatalog.js';

/** Dependencies of {@link ServerLifecycle}; everything that touches time or processes is injected. */
export interface ServerLifecycleDeps {
  connector: Connector;
  scheduler: SchedulerLike;
  /** Restarts in a row after which a dead server stays in `error` until the next pass. */
  maxFailures: number;
  /** Jitter source for the backoff (tests pin it). */
  random: () => number;
  /** A connection that stayed up this long resets the failure count. */
  stableAfterMs: number;
  /** See `LiveServersDeps.restartShared`. */
  restartShared?: (fingerprint: string) => Observable<void> | undefined;
  /** Who reads the fix hints of a `needs_auth` error (default `library`). */
  hints?: HintAudience;
  /** How this session answers its servers' own requests (elicitation, sampling, roots). */
  handlers?: ServerRequestHandlers;
  /** The entries, and where their statuses go. */
  board: Pick<StatusBoard, 'entries' | 'ensure' | 'update' | 'note'>;
  /** The lists as a status shows them, and the surface record. */
  catalog: Pick<ToolCatalog, 'listsPatch' | 'observeSurface' | 'prepareSurface' | 'forgetSurface'>;
  /** The requests in flight: a replaced connection closes once its own have ended. */
  inFlight: InFlight;
}

/**
 * Every server's connection from connect to close: the only code that opens and closes
 * connections, and that supervises them (restart with backoff, decision 33).
 *
 * Each action returns a cold observable that completes when the action is done (a connect when it
 * settled, a disconnect when the process is gone), so the per-server `concatMap` of a pass can
 * order them.
 */
export class ServerLifecycle {
  private readonly board: ServerLifecycleDeps['board'];
  private readonly catalog: ServerLifecycleDeps['catalog'];
  private readonly scheduler: SchedulerLike;
  private readonly maxFailures: number;
  private readonly random: () => number;
  private readonly stableAfterMs: number;
  /** Closes in flight: they belong here, not to the pass that asked, so a superseded pass cannot cut one short. */
  private readonly closes = new Subscription();
  /** Replaced connections waiting for their requests to end; `dispose` closes them at once. */
  private readonly retiring = new Map<Connection, () => void>();
  /**
   * Processes still ending that `dispose` waits for, each until it is gone: retired connections'
   * and those of attempts given up before they connected (a pass moved on, a disconnect, dispose).
   */
  private readonly ending = new Set<Promise<void>>();
  private readonly untilGone = (gone: Promise<void>): void => {
    this.ending.add(gone);
    void gone.then(() => this.ending.delete(gone));
  };

  constructor(private readonly deps: ServerLifecycleDeps) {
    this.board = deps.board;
    this.catalog = deps.catalog;
    this.scheduler = deps.scheduler;
    this.maxFailures = deps.maxFailures;
    this.random = deps.random;
    this.stableAfterMs = deps.stableAfterMs;
  }

  /**
   * Connects; completes once the first attempt settled (connected or error). The attempt belongs
   * to this entry, not to the subscriber: unsubscribing only stops waiting (a superseded pass lets
   * go), and the attempt goes on until it settles or `disconnect` ends it — which aborts it and
   * ends its processes (the connector's contract). So the next pass finds it `connecting` with its
   * fingerprint and keeps it ({@link settled}), or disconnects it when it is no longer wanted.
   */
  connect(server: WantedServer): Observable<never> {
    return defer(() => {
      const e = this.board.ensure(server.name, server.scope, server.source);
      e.queued = undefined;
      e.forceReconnect = false;
      e.failures = 0;
      this.stopSession(e);
      // The plan disconnects before it reconnects; a connection still held here is closed first
      // (the attempt waits for it, see `open`).
      this.close(e);
      e.server = server;
      if (server.invalid !== undefined || server.resolved === undefined) {
        this.board.update(server.name, invalidPatch(server));
        return EMPTY;
      }
      const settling = new AsyncSubject<never>();
      e.settling = settling;
      this.open(e, server, () => this.settle(e, settling));
      return settling.asObservable();
    });
  }

  /**
   * A server a pass is about to connect, known from the moment its plan exists (decision 325): a
   * new name shows `connecting` (an invalid entry its `error`) while it waits for a connect slot,
   * so `status` after `planned()` lists every server. The planner sees it as holding nothing
   * until `connect` takes it (a superseded pass never started it). A known name keeps its state.
   */
  expect(server: WantedServer): void {
    if (this.board.entries.has(server.name)) return;
    const e = this.board.ensure(server.name, server.scope, server.source);
    e.queued = true;
    this.board.update(server.name, server.invalid !== undefined || server.resolved === undefined ? invalidPatch(server) : connectingPatch(server));
  }

  /** Completes when the attempt a `connect` started for `name` has settled; at once if there is none. */
  settled(name: string): Observable<never> {
    return defer(() => this.board.entries.get(name)?.settling?.asObservable() ?? EMPTY);
  }

  /** Disconnects and removes the server's tools, prompts and resources; completes when its process is gone. */
  disconnect(name: string): Observable<never> {
    return defer(() => {
      const e = this.board.entries.get(name);
      if (!e) return EMPTY;
      e.queued = undefined;
      this.stopSession(e);
      const conn = e.conn;
      if (conn) this.keepStderr(e, '(process stopped)');
      // `/reconnect NAME` on a pooled server: end the shared process, not only our hold on it.
      const restarting = conn && e.forceReconnect && e.server ? this.deps.restartShared?.(e.server.fingerprint) : undefined;
      e.lists = undefined;
      e.withheld = undefined;
      e.server = undefined;
      this.catalog.forgetSurface(name);
      // Tools go first: a call is refused from here on, however long the process takes to end.
      this.board.update(name, { state: 'disconnected', pid: undefined, error: undefined, trust: undefined, ...NOT_CONNECTED });
      return this.close(e, restarting);
    });
  }

  /**
   * Make-before-break (decision 101): connects `server`'s new config while the old connection goes
   * on serving; once the new one has listed, the two swap in one status update — one `servers$`
   * and `tools$` emission, no moment without tools — and the old one is closed when the requests
   * in flight on it have ended (new ones already go to the new connection). Completes when the
   * new connection is up, or the fallback has settled: if the new config cannot start while the
   * old process runs (a port or a lock it holds), the old one is stopped and the new config tried
   * once more in the old order, and the history says so. Without a serving connection it is a
   * plain disconnect and connect.
   */
  replace(server: WantedServer): Observable<never> {
    return defer(() => {
      const e = this.board.entries.get(server.name);
      const resolved = server.resolved;
      if (!e?.conn || resolved === undefined) return concat(this.disconnect(server.name), this.connect(server));
      e.replacing?.attempt.unsubscribe();
      if (e.settling) this.settle(e, e.settling);
      e.forceReconnect = false;
      const settling = new AsyncSubject<never>();
      e.settling = settling;
      const name = server.name;
      const replacing: Entry['replacing'] = { server, attempt: new Subscription() };
      e.replacing = replacing;
      const done = (): void => this.settle(e, settling);
      replacing.attempt = this.deps
        .connector(name, resolved, this.deps.handlers)
        .pipe(
          tap((conn) => this.swap(e, replacing, conn, done)),
          ignoreElements(),
          catchError((err: unknown) => {
            if (e.replacing !== replacing) return EMPTY;
            e.replacing = undefined;
            // This action settles when the retry has, not when the disconnect ends the old session.
            if (e.settling === settling) e.settling = undefined;
            this.board.note(e, `the new config did not start while the old process ran (${errorMessage(err)}); stopping the old one and trying again`);
            return concat(this.disconnect(name), this.connect(server)).pipe(finalize(done));
          }),
        )
        .subscribe();
      return settling.asObservable();
    });
  }

  /** The replacement is up: it takes the old connection's place in one status update; the old one retires. */
  private swap(e: Entry, replacing: NonNullable<Entry['replacing']>, conn: Connection, settled: () => void): void {
    // Superseded meanwhile (a newer pass, a disconnect): this connection is nobody's.
    if (e.replacing !== replacing) return void this.closes.add(from(conn.close()).subscribe({ error: noop }));
    const { server } = replacing;
    e.replacing = undefined;
    const old = e.conn;
    // No state changes at a swap (connected → connected): its history says it happened, in the swap's one update (decision 331).
    const swapped = old ? `replaced by its new config, the old connection serving until then${pidChange(e.status.pid, conn.pid)}` : undefined;
    e.session?.unsubscribe();
    e.session = undefined;
    e.failures = 0;
    e.server = server;
    if (old) {
      this.keepStderr(e, '(process replaced by the new config)');
      e.conn = undefined;
    }
    // The view may have changed while it started (a refilter of the replacement).
    conn.reconfigure?.(server.view);
    this.follow(e, server, of(conn), settled, wantedPatch(server), swapped);
    // After the swap is published: starting the old one's close takes a few ms of its own.
    if (old) this.retire(old);
  }

  /** Applies new view fields to a connected server: its connection and process stay. */
  refilter(server: WantedServer): Observable<never> {
    return defer(() => {
      const e = this.board.entries.get(server.name);
      if (!e) return EMPTY;
      // A replacement under way is what the new view belongs to: it applies at the swap.
      if (e.replacing?.server.fingerprint === server.fingerprint) {
        e.replacing.server = server;
        return EMPTY;
      }
      e.server = server;
      // A language server takes its new settings and routing on the live connection (decision 148).
      e.conn?.reconfigure?.(server.view);
      this.board.update(server.name, { ...this.catalog.listsPatch(server.name, e), ...wantedPatch(server) });
      return EMPTY;
    });
  }

  /** Marks a server as not connected for a reason (`removed` reads as `disconnected`). */
  block(name: string, scope: Scope, source: string, why: Blocked): Observable<never> {
    return defer(() => {
      this.board.ensure(name, scope, source).queued = undefined;
      this.catalog.forgetSurface(name);
      this.board.update(name, {
        scope,
        source,
        state: why.reason === 'removed' ? 'disconnected' : 'blocked',
        reason: why.reason,
        notAllowedBy: why.notAllowedBy,
        detail: why.detail,
        error: undefined,
        trust: undefined,
        warnings: undefined,
        languages: undefined,
        pid: undefined,
        ...NOT_CONNECTED,
      });
      return EMPTY;
    });
  }

  /**
   * Starts the process of an idle server (`/reconnect NAME` on one, decision 196); undefined
   * when `name` is not idle. Resolves when it runs, rejects with why it did not start.
   */
  wake(name: string): Promise<void> | undefined {
    const e = this.board.entries.get(name);
    if (e?.status.state !== 'idle' || e.conn?.start === undefined) return undefined;
    return e.conn.start();
  }


  /** Asks the next pass to reconnect this server whatever its state (`/reconnect NAME`). */
  markForReconnect(name: string): boolean {
    const e = this.board.entries.get(name);
    // A queued server (decision 325) is connected by the pass this asks for: it holds nothing yet.
    if (!e?.server) return e?.queued === true;
    e.forceReconnect = true;
    return true;
  }

  /** How `name` is reached as the last pass wanted it (undefined when no pass wants it now). */
  wanted(name: string): WantedServer | undefined {
    return this.board.entries.get(name)?.server;
  }

  /** Keeps scope and source current for a known server whose entry moved between files. */
  describe(name: string, scope: Scope, source: string): void {
    if (this.board.entries.has(name)) this.board.update(name, { scope, source });
  }

  /** Ends every connection; resolves when every process is gone (the board's last publication is the composer's). */
  async dispose(): Promise<void> {
    // Replaced connections stop waiting for their requests: the session is ending.
    for (const closeNow of this.retiring.values()) closeNow();
    const closing: Promise<void>[] = [];
    for (const e of this.board.entries.values()) {
      this.stopSession(e);
      // Also the closes still in flight from passes that did not wait for them.
      closing.push(lastValueFrom(this.close(e), { defaultValue: undefined }).then(noop, noop));
    }
    // And what is still ending: retired connections, and the attempts given up before they
    // connected (the lines above among them).
    closing.push(...this.ending);
    await Promise.all(closing);
  }

  private open(e: Entry, server: WantedServer, settled?: () => void): void {
    const name = server.name;
    const resolved = server.resolved!;
    this.board.update(name, connectingPatch(server));
    // A process of this server that is still closing goes first: never two at once.
    this.follow(e, server, concat(e.closing ?? EMPTY, this.deps.connector(name, resolved, this.deps.handlers, this.untilGone)), settled);
  }

  /**
   * Follows a connection attempt: publishes the connection (with `patch`, in the same status
   * update) and its list refreshes, and supervises it — a failed first attempt ends in `error`, a
   * death later is restarted with backoff, a missing authorization waits in `needs_auth`.
   */
  private follow(
    e: Entry,
    server: WantedServer,
    attempt$: Observable<Connection>,
    settled?: () => void,
    patch: Partial<ServerStatus> = {},
    note?: string,
  ): void {
    const name = server.name;
    let connected = false;
    e.session = attempt$
      .pipe(
        concatMap((conn) => this.pinSettled(server, conn)),
        tap((conn) => {
          connected = true;
          e.conn = conn;
          e.lists = conn.lists;
          e.connectedAt = this.scheduler.now();
          this.catalog.observeSurface(e, server, conn);
          // An on-demand connection says whether a process runs: in this update, then as it changes.
          const activity = conn.activity;
          this.board.update(name, {
            ...patch,
            state: 'connected',
            pid: conn.pid,
            error: undefined,
            serverInfo: conn.server?.info,
            ...protocolPatch(conn.server),
            instructions: offeredInstructions(conn.server, e.withheld),
            capabilities: conn.server?.capabilities,
            ...this.catalog.listsPatch(name, e),
            ...(activity === undefined ? {} : this.activityPatch(activity)),
          }, note);
          settled?.();
        }),
        switchMap((conn) =>
          conn.activity$ === undefined ? conn.lists$ : merge(conn.lists$, conn.activity$.pipe(map((activity) => ({ activity })))),
        ),
      )
      .subscribe({
        next: (change) => {
          if ('activity' in change) return this.board.update(name, this.activityPatch(change.activity));
          const lists = change;
          e.lists = { ...(e.lists ?? { tools: [], prompts: [], resources: [] }), ...lists };
          if (e.conn) this.catalog.observeSurface(e, server, e.conn);
          // A process that started behind an idle connection may say more about itself than the record.
          const identity = e.conn?.server;
          this.board.update(name, {
            ...this.catalog.listsPatch(name, e),
            ...(identity === undefined
              ? {}
              : { serverInfo: identity.info, ...protocolPatch(identity), instructions: offeredInstructions(identity, e.withheld), capabilities: identity.capabilities }),
          });
        },
        error: (err: unknown) => {
          const message = errorMessage(err);
          this.keepStderr(e, `(process ended: ${message})`);
          e.conn = undefined;
          e.lists = undefined;
          e.withheld = undefined;
          e.session = undefined;
          this.catalog.forgetSurface(name);
          if (err instanceof NeedsAuthorization) {
            // Only the user can help: no retry until they authorize (or the next pass asks again).
            this.board.update(name, { state: 'needs_auth', error: needsAuthText(name, err, this.deps.hints ?? 'library'), pid: undefined, ...NOT_CONNECTED });
            return settled?.();
          }
          this.board.update(name, { state: 'error', error: message, pid: undefined, ...NOT_CONNECTED });
          // The replacement under way takes over: no restart of the old config.
          if (e.replacing) return;
          if (!connected) {
            // A failed first attempt ends the action; a failed restart counts towards giving up.
            if (settled) return settled();
            return this.scheduleRestart(e, server, message);
          }
          // Another session restarted the shared process on purpose: follow it at once.
          if (err instanceof SharedConnectionRestarted) return this.open(e, server);
          const upFor = this.scheduler.now() - (e.connectedAt ?? 0);
          if (upFor >= this.stableAfterMs) e.failures = 0;
          this.scheduleRestart(e, server, message);
        },
      });
  }

  private scheduleRestart(e: Entry, server: WantedServer, message: string): void {
    e.failures += 1;
    // A language server's own policy (decision 148): `restartOnCrash: false`, or `maxRestarts` restarts.
    const policy = server.view.lsp;
    if (policy?.restartOnCrash === false) {
      this.board.update(server.name, { error: `${message} (not restarted: restartOnCrash is false; waiting for the next reload or /reconnect)` });
      return;
    }
    if (e.failures > (policy === undefined ? this.maxFailures - 1 : policy.maxRestarts)) {
      this.board.update(server.name, {
        error: `${message} (gave up after ${e.failures} failures in a row; waiting for the next reload or /reconnect)`,
      });
      return;
    }
    const delay = backoffDelay(e.failures, this.random);
    e.retry = timer(delay, this.scheduler).subscribe(() => {
      e.retry = undefined;
      this.open(e, server);
    });
  }

  /**
   * Closes the entry's connection, if any, in the background; completes when its process (and
   * `after`, a pool restart) is gone — or the previous close's, when there is nothing to close.
   * A close that fails counts as closed: nothing may hang on one server.
   */
  private close(e: Entry, after: Observable<void> = EMPTY): Observable<never> {
    const conn = e.conn;
    if (!conn) return e.closing ?? EMPTY;
    e.conn = undefined;
    const gone = new AsyncSubject<never>();
    const closing = gone.asObservable();
    e.closing = closing;
    const done = (): void => {
      if (e.closing === closing) e.closing = undefined;
      gone.complete();
    };
    this.closes.add(concat(from(conn.close()), after).subscribe({ complete: done, error: done }));
    return closing;
  }

  /**
   * Closes a connection that was replaced, once the requests in flight on it have ended (they
   * finish on the connection they started on), or at once on `dispose`.
   */
  private retire(conn: Connection): void {
    let closed = false;
    const gone = new Promise<void>((resolve) => {
      const closeNow = (): void => {
        if (closed) return;
        closed = true;
        this.retiring.delete(conn);
        this.closes.add(from(conn.close()).subscribe({ complete: resolve, error: () => resolve() }));
      };
      this.retiring.set(conn, closeNow);
      this.deps.inFlight.whenIdle(conn, closeNow);
    });
    this.untilGone(gone);
  }


  /** Keeps the tail of the current process's stderr beyond its life, so a crash can be read. */
  private keepStderr(e: Entry, marker: string): void {
    const tail = e.conn?.stderrTail() ?? [];
    e.pastStderr = [...e.pastStderr, ...tail, marker].slice(-STDERR_LINES);
  }

  private stopSession(e: Entry): void {
    e.retry?.unsubscribe();
    e.retry = undefined;
    // Unsubscribing ends the attempt and whatever it started (the connector's contract).
    e.replacing?.attempt.unsubscribe();
    e.replacing = undefined;
    e.session?.unsubscribe();
    e.session = undefined;
    // An attempt ended here is settled for whoever waits on it.
    if (e.settling) this.settle(e, e.settling);
  }

  private settle(e: Entry, settling: AsyncSubject<never>): void {
    if (e.settling === settling) e.settling = undefined;
    settling.complete();
  }


  /**
   * The connection once the server's pin is settled (decision 308): its first surface is compared
   * or pinned before anything of it is published. A connection given up meanwhile is closed.
   */
  private pinSettled(server: WantedServer, conn: Connection): Observable<Connection> {
    const wait = this.catalog.prepareSurface(server, conn);
    if (wait === undefined) return of(conn);
    return new Observable<Connection>((subscriber) => {
      let handedOut = false;
      void wait.then(() => {
        handedOut = true;
        subscriber.next(conn);
        subscriber.complete();
      });
      return () => {
        if (!handedOut) this.closes.add(from(conn.close()).subscribe({ error: noop }));
      };
    });
  }

  /** The status of an on-demand connection's process: `idle` without one (decision 196). */
  private activityPatch(activity: ConnectionActivity): Partial<ServerStatus> {
    if (activity.running) return { state: 'connected', idle: undefined, pid: activity.pid, error: undefined };
    return { state: 'idle', idle: activity.idle, pid: undefined, error: activity.error };
  }
}

/** What a wanted server's status says of how it is reached, whatever reason it had before. */
function wantedPatch(server: WantedServer): Partial<ServerStatus> {
  const lsp = server.view.lsp;
  return {
    languages: lsp === undefined ? undefined : languagesOf(lsp),
    reason: undefined,
    notAllowedBy: undefined,
    detail: undefined,
    warnings: serverWarnings(server),
    transport: server.resolved?.transport,
    fingerprint: server.fingerprint,
    trust: trustOf(server),
    idleTimeoutMs: server.view.lifecycle?.idleTimeoutMs,
  };
}

/** What a server shows from the moment its connect is planned or begins: `connecting`, with what it is for. */
function connectingPatch(server: WantedServer): Partial<ServerStatus> {
  return { ...wantedPatch(server), state: 'connecting', error: undefined, pid: undefined };
}

/** What an entry that cannot be connected shows (`invalid_config: …`). */
function invalidPatch(server: WantedServer): Partial<ServerStatus> {
  return {
    state: 'error',
    reason: undefined,
    notAllowedBy: undefined,
    detail: undefined,
    error: server.invalid ?? 'invalid_config',
    warnings: undefined,
    pid: undefined,
    fingerprint: server.fingerprint,
    transport: undefined,
    trust: trustOf(server),
    ...NOT_CONNECTED,
  };
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** ` (pid 12 → 34)`, or what of it is known. */
function pidChange(before: number | undefined, after: number | undefined): string {
  if (before === undefined && after === undefined) return '';
  return ` (pid ${before ?? '?'} → ${after ?? '?'})`;
}

/** The revision and era a connection speaks (decision 380), for its status; both absent when it says none. */
function protocolPatch(identity: ServerIdentity | undefined): Pick<ServerStatus, 'protocolVersion' | 'era'> {
  const protocol = identity?.protocol;
  return { protocolVersion: protocol?.version, era: protocol?.era };
}
