import {
  BehaviorSubject,
  EMPTY,
  Observable,
  Subject,
  asyncScheduler,
  catchError,
  from,
  lastValueFrom,
  skip,
  switchMap,
  tap,
  timer,
  type SchedulerLike,
  type Subscription,
} from 'rxjs';
import type { CompleteRequestParams } from '@modelcontextprotocol/server';
import type {
  CallToolOptions,
  Connection,
  ConnectionActivity,
  Connector,
  RequestOptions,
  ServerIdentity,
  ServerRequestHandlers,
} from '../../model/connection.js';
import { fingerprint } from '../../model/reconcile/fingerprint.js';
import { identityOf, listsOf } from '../../model/tools/surface.js';
import { type ServerSurface } from '../../model/tools/surfaceTypes.js';
import type { Lifecycle, ResolvedServerConfig, ServerLists, ViewFields } from '../../model/types.js';

/** Where the last surface of a fingerprint is read from (the surface record, decision 195). */
export interface RecordedSurfaces {
  get(fingerprint: string): { surface: ServerSurface } | undefined;
}

export interface LazyConnectorOptions {
  surfaces: RecordedSurfaces;
  scheduler?: SchedulerLike;
}

/**
 * Servers that run on demand (decision 196). An entry without `lazy` or `idleTimeout` goes to
 * `inner` untouched. Otherwise the connection handed out stands for the server whether or not a
 * process runs: a `lazy` one with a record lists the record and starts nothing; one without a
 * record is learned (connected, listed, then stopped as soon as nothing is in flight); an
 * `idleTimeout` one is stopped after that long without a request. The first request starts the
 * process — one start for every request that arrives meanwhile — and a process that dies while
 * it could be idle returns the connection to idle instead of failing it: the next request starts
 * it again.
 */
export function lazyConnector(inner: Connector, options: LazyConnectorOptions): Connector {
  return (name, config, handlers, ended) => {
    const lifecycle = config.lifecycle;
    if (config.lsp !== undefined || (lifecycle?.lazy !== true && lifecycle?.idleTimeoutMs === undefined)) return inner(name, config, handlers, ended);
    return new Observable<Connection>((subscriber) => {
      const record = lifecycle.lazy === true ? options.surfaces.get(fingerprint(config)) : undefined;
      const conn = new OnDemandConnection(inner, name, config, handlers, options.scheduler ?? asyncScheduler, record?.surface);
      if (record !== undefined) {
        subscriber.next(conn);
        subscriber.complete();
        return undefined;
      }
      // No record, or not lazy: connect now; the first connect's failure is the attempt's, as for any server.
      let handedOut = false;
      (lifecycle.lazy === true ? conn.learn() : conn.start()).then(
        () => {
          handedOut = true;
          subscriber.next(conn);
          subscriber.complete();
        },
        (error: unknown) => subscriber.error(error),
      );
      return () => {
        if (!handedOut) void conn.close();
      };
    });
  };
}

class OnDemandConnection implements Connection {
  readonly lists$: Observable<Partial<ServerLists>>;
  readonly activity$: Observable<ConnectionActivity>;
  private readonly listsSubject = new Subject<Partial<ServerLists>>();
  private readonly activityNow: BehaviorSubject<ConnectionActivity>;
  private current: ServerLists;
  private identity: ServerIdentity | undefined;
  private lifecycle: Lifecycle;
  /** The process's connection while one runs. */
  private process?: Connection;
  /** The start under way: every request that arrives meanwhile waits for this one. */
  private starting?: Promise<Connection>;
  private abandonStart?: () => void;
  /** The connect attempt and, once connected, the process's list refreshes. */
  private attempt?: Subscription;
  private inFlight = 0;
  private idleTimer?: Subscription;
  private closed = false;
  /**
   * Whether a request (or `/reconnect`) asked for the process: until then a `lazy` one stops as
   * soon as it has listed; after, it runs like any server (until its `idleTimeout`, if it has one).
   */
  private used = false;

  constructor(
    private readonly inner: Connector,
    private readonly name: string,
    private readonly config: ResolvedServerConfig,
    private readonly handlers: ServerRequestHandlers | undefined,
    private readonly scheduler: SchedulerLike,
    recorded: ServerSurface | undefined,
  ) {
    this.lifecycle = config.lifecycle ?? {};
    this.current = recorded === undefined ? { tools: [], prompts: [], resources: [], resourceTemplates: [] } : listsOf(recorded);
    this.identity = recorded === undefined ? undefined : identityOf(recorded);
    this.activityNow = new BehaviorSubject<ConnectionActivity>({ running: false, idle: this.idleKind() });
    this.lists$ = this.listsSubject.asObservable();
    this.activity$ = this.activityNow.pipe(skip(1));
  }

  get activity(): ConnectionActivity {
    return this.activityNow.getValue();
  }

  get pid(): number | undefined {
    return this.process?.pid;
  }

  get lists(): ServerLists {
    return this.current;
  }

  get server(): ServerIdentity | undefined {
    return this.identity;
  }

  stderrTail(): readonly string[] {
    return this.process?.stderrTail() ?? [];
  }

  callTool(tool: string, args: Record<string, unknown>, options?: CallToolOptions): Promise<unknown> {
    return this.run((c) => c.callTool(tool, args, options), options?.admit);
  }

  getPrompt(prompt: string, args: Record<string, string>, options?: RequestOptions): Promise<unknown> {
    return this.run((c) => (c.getPrompt ? c.getPrompt(prompt, args, options) : Promise.reject(new Error(`server "${this.name}" cannot give prompts`))), options?.admit);
  }

  readResource(uri: string, options?: RequestOptions): Promise<unknown> {
    return this.run((c) => (c.readResource ? c.readResource(uri, options) : Promise.reject(new Error(`server "${this.name}" cannot read resources`))));
  }

  subscribeResource(uri: string, options?: RequestOptions): Promise<void> {
    return this.run((c) => (c.subscribeResource ? c.subscribeResource(uri, options) : Promise.reject(new Error(`server "${this.name}" cannot subscribe to resources`))));
  }

  unsubscribeResource(uri: string, options?: RequestOptions): Promise<void> {
    return this.run((c) => (c.unsubscribeResource ? c.unsubscribeResource(uri, options) : Promise.reject(new Error(`server "${this.name}" cannot subscribe to resources`))));
  }

  complete(params: CompleteRequestParams, options?: RequestOptions) {
    return this.run((c) => (c.complete ? c.complete(params, options) : Promise.reject(new Error(`server "${this.name}" cannot complete arguments`))));
  }

  reconfigure(view: ViewFields): void {
    this.lifecycle = view.lifecycle ?? {};
    if (this.lifecycle.lazy !== true && this.lifecycle.idleTimeoutMs === undefined) {
      // No longer on demand: it runs like any other server from now on.
      this.idleTimer?.unsubscribe();
      if (!this.process) this.start().catch(() => undefined);
      return;
    }
    this.scheduleIdle();
  }

  /** Starts the process (or joins the start under way) to run like any server's; resolves when it has listed. */
  async start(): Promise<void> {
    this.used = true;
    await this.ensureStarted();
    this.scheduleIdle();
  }

  /** A lazy server without a record: connects once for its lists, then stops as soon as nothing is in flight. */
  async learn(): Promise<void> {
    await this.ensureStarted();
    this.scheduleIdle();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.idleTimer?.unsubscribe();
    await this.stop();
    this.listsSubject.complete();
    this.activityNow.complete();
  }

  /** `idle-timeout` once a stop came from the timeout: a lazy server never used, or without one, is `lazy`. */
  private idleKind(): 'lazy' | 'idle-timeout' {
    return this.lifecycle.idleTimeoutMs !== undefined && (this.used || this.lifecycle.lazy !== true) ? 'idle-timeout' : 'lazy';
  }

  /**
   * Runs `request` on the process, starting it first if needed. `admit` is asked once it runs: the
   * process has listed its surface by then (its lists went out synchronously in {@link adopt}), so
   * a request the surface now withholds is refused before it is sent (decision 311).
   */
  private async run<T>(request: (conn: Connection) => Promise<T>, admit?: () => void): Promise<T> {
    this.inFlight += 1;
    this.idleTimer?.unsubscribe();
    try {
      this.used = true;
      const conn = await this.ensureStarted();
      admit?.();
      return await request(conn);
    } finally {
      this.inFlight -= 1;
      this.scheduleIdle();
    }
  }

  private ensureStarted(): Promise<Connection> {
    if (this.closed) return Promise.reject(new Error(`server "${this.name}" is disconnected`));
    if (this.process) return Promise.resolve(this.process);
    this.starting ??= new Promise<Connection>((resolve, reject) => {
      let connected = false;
      // A stop (close, or an idle stop racing a request) during the start fails its waiters, never leaves them hanging.
      this.abandonStart = () => reject(new Error(`server "${this.name}" was stopped before it started`));
      this.attempt = this.inner(this.name, this.config, this.handlers)
        .pipe(
          tap((conn) => {
            connected = true;
            this.process = conn;
            this.starting = undefined;
            this.adopt(conn);
            resolve(conn);
          }),
          // The process's refreshes are this connection's; its death returns it to idle.
          switchMap((conn) =>
            conn.lists$.pipe(
              tap((lists) => {
                this.current = { ...this.current, ...lists };
                this.listsSubject.next(lists);
              }),
              catchError((error: unknown) => {
                this.died(conn, error);
                return EMPTY;
              }),
            ),
          ),
        )
        .subscribe({
        error: (error: unknown) => {
          this.starting = undefined;
          this.attempt = undefined;
          if (!connected) this.activityNow.next({ running: false, idle: this.idleKind(), error: messageOf(error) });
          reject(error instanceof Error ? error : new Error(String(error)));
        },
      });
    });
    return this.starting;
  }

  /** The process is up: what it lists now is what this connection lists, in one refresh. */
  private adopt(conn: Connection): void {
    this.identity = conn.server;
    const lists = conn.lists;
    this.current = { resourceTemplates: [], ...lists };
    this.activityNow.next({ running: true, pid: conn.pid });
    this.listsSubject.next(this.current);
  }

  /** A process that ended on its own: idle again, with why; the next request starts another. */
  private died(conn: Connection, error: unknown): void {
    if (this.process !== conn) return;
    this.process = undefined;
    this.attempt?.unsubscribe();
    this.attempt = undefined;
    this.idleTimer?.unsubscribe();
    if (!this.closed) this.activityNow.next({ running: false, idle: this.idleKind(), error: messageOf(error) });
  }

  /** Stops the process when nothing is in flight: at once for a learned lazy one, else after `idleTimeout`. */
  private scheduleIdle(): void {
    this.idleTimer?.unsubscribe();
    if (this.closed || !this.process || this.inFlight > 0) return;
    const wait = this.lifecycle.idleTimeoutMs ?? (this.lifecycle.lazy === true && !this.used ? 0 : undefined);
    if (wait === undefined) return;
    this.idleTimer = timer(wait, this.scheduler).subscribe(() => {
      if (this.inFlight > 0) return;
      void this.stop().then(() => {
        if (!this.closed) this.activityNow.next({ running: false, idle: this.idleKind() });
      });
    });
  }

  /** Ends the process (or the start under way); settles when it is gone. */
  private async stop(): Promise<void> {
    const conn = this.process;
    this.process = undefined;
    this.attempt?.unsubscribe();
    this.attempt = undefined;
    if (this.starting !== undefined) this.abandonStart?.();
    this.starting = undefined;
    this.abandonStart = undefined;
    if (conn) await lastValueFrom(from(conn.close()), { defaultValue: undefined }).catch(() => undefined);
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
