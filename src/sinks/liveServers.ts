import equal from 'fast-deep-equal';
import {
  BehaviorSubject,
  EMPTY,
  Observable,
  Subject,
  asyncScheduler,
  concat,
  defer,
  from,
  ignoreElements,
  lastValueFrom,
  noop,
  map,
  switchMap,
  tap,
  timer,
  type SchedulerLike,
  type Subscription,
} from 'rxjs';
import { SharedConnectionRestarted, type Connection, type Connector } from '../model/connection.js';
import type { LiveEntry, WantedServer } from '../model/plan.js';
import type { HistoryEntry, QualifiedTool, ServerStatus } from '../model/status.js';
import type { NotAllowedBy, Reason, Scope, ServerLists } from '../model/types.js';
import { filterTools, parseQualifiedToolName, qualifiedToolName, qualifyTools } from '../model/toolNames.js';
import { toolNotFoundMessage } from '../model/messages.js';
import { backoffDelay } from '../operators/backoffDelay.js';

/** Dependencies of {@link LiveServers}; everything that touches time or processes is injected. */
export interface LiveServersDeps {
  connector: Connector;
  scheduler?: SchedulerLike;
  /** Restarts in a row after which a dead server stays in `error` until the next pass. */
  maxFailures?: number;
  /** Jitter source for the backoff (tests pin it). */
  random?: () => number;
  /** A connection that stayed up this long resets the failure count (default: the 30 s cap). */
  stableAfterMs?: number;
  /** How many history lines each server keeps. */
  historyLimit?: number;
  /**
   * With a shared pool: restarts the pooled connection of a fingerprint for every session
   * (`ConnectionPool.restart`), so `/reconnect NAME` starts a fresh process instead of
   * re-attaching to the one other sessions hold. Completes when the old process is gone.
   */
  restartShared?: (fingerprint: string) => Observable<void> | undefined;
}

interface Entry {
  status: ServerStatus;
  /** What the current (or last attempted) connection was made for. */
  server?: WantedServer;
  conn?: Connection;
  /** stderr of earlier processes of this server (they died or were replaced), newest last. */
  pastStderr: readonly string[];
  lists?: ServerLists;
  /** The connect attempt and, once connected, the subscription to its `lists$`. */
  session?: Subscription;
  /** A pending supervised restart. */
  retry?: Subscription;
  failures: number;
  connectedAt?: number;
  /** Set by `/reconnect NAME`: the next pass reconnects it whatever its fingerprint. */
  forceReconnect?: boolean;
}

/** How many stderr lines a server keeps (SPEC §3). */
const STDERR_LINES = 200;

const EMPTY_LISTS: Pick<ServerStatus, 'tools' | 'prompts' | 'resources'> = {
  tools: [],
  prompts: [],
  resources: [],
};

/**
 * The live side of the reconcile table: every server's connection, lists and status.
 *
 * The only code that opens and closes connections. Each action returns a cold observable that
 * completes when the action is done (a connect when it settled, a disconnect when the process is
 * gone), so the per-server `concatMap` of a pass can order them. Status changes are pushed on
 * `changes$` synchronously, which keeps `server` events ahead of their pass's `reconcile` event.
 */
export class LiveServers {
  private readonly entries = new Map<string, Entry>();
  /** Every known name, sorted: the order of `servers$`. */
  private readonly names: string[] = [];
  private readonly statusSubject = new BehaviorSubject<readonly ServerStatus[]>([]);
  private readonly changesSubject = new Subject<ServerStatus>();
  private readonly scheduler: SchedulerLike;
  private readonly maxFailures: number;
  private readonly random: () => number;
  private readonly stableAfterMs: number;
  private readonly historyLimit: number;

  /** Every known server, sorted by name; replays the latest list. */
  readonly servers$: Observable<readonly ServerStatus[]> = this.statusSubject.asObservable();
  /** One value per status change of one server. */
  readonly changes$: Observable<ServerStatus> = this.changesSubject.asObservable();
  /** Every tool of every connected server, qualified and filtered. */
  readonly tools$: Observable<readonly QualifiedTool[]> = this.servers$.pipe(
    map((servers) => servers.flatMap((s) => s.tools)),
  );

  constructor(private readonly deps: LiveServersDeps) {
    this.scheduler = deps.scheduler ?? asyncScheduler;
    this.maxFailures = deps.maxFailures ?? 5;
    this.random = deps.random ?? Math.random;
    this.stableAfterMs = deps.stableAfterMs ?? 30_000;
    this.historyLimit = deps.historyLimit ?? 20;
  }

  /** What the planner needs to know of each server. */
  snapshot(): Map<string, LiveEntry> {
    const live = new Map<string, LiveEntry>();
    for (const [name, e] of this.entries) {
      live.set(name, {
        fingerprint: e.forceReconnect ? undefined : e.server?.fingerprint,
        view: e.server?.view,
        state: e.status.state,
        reason: e.status.reason,
      });
    }
    return live;
  }

  /** The last stderr lines of a server's current or last process (secrets masked). */
  stderrTail(name: string): readonly string[] {
    const e = this.entries.get(name);
    if (!e) return [];
    return [...e.pastStderr, ...(e.conn?.stderrTail() ?? [])].slice(-STDERR_LINES);
  }

  status(name: string): ServerStatus | undefined {
    return this.entries.get(name)?.status;
  }

  list(): readonly ServerStatus[] {
    return this.statusSubject.getValue();
  }

  /** Keeps scope and source current for a known server whose entry moved between files. */
  describe(name: string, scope: Scope, source: string): void {
    if (this.entries.has(name)) this.update(name, { scope, source });
  }

  /** Connects; completes once the first attempt settled (connected or error). */
  connect(server: WantedServer): Observable<never> {
    return defer(() => {
      const e = this.ensure(server.name, server.scope, server.source);
      e.forceReconnect = false;
      e.failures = 0;
      this.stopSession(e);
      // The plan disconnects before it reconnects; a connection still held here is closed first.
      const stale = e.conn;
      e.conn = undefined;
      e.server = server;
      if (server.invalid !== undefined || server.resolved === undefined) {
        this.update(server.name, {
          state: 'error',
          reason: undefined,
          notAllowedBy: undefined,
          error: server.invalid ?? 'invalid_config',
          pid: undefined,
          fingerprint: server.fingerprint,
          transport: undefined,
          ...EMPTY_LISTS,
        });
        return EMPTY;
      }
      const open = new Observable<never>((done) => {
        this.open(e, server, () => done.complete());
      });
      return stale ? concat(from(stale.close()).pipe(ignoreElements()), open) : open;
    });
  }

  /** Disconnects and removes the server's tools, prompts and resources; completes when its process is gone. */
  disconnect(name: string): Observable<never> {
    return defer(() => {
      const e = this.entries.get(name);
      if (!e) return EMPTY;
      this.stopSession(e);
      const conn = e.conn;
      if (conn) this.keepStderr(e, '(process stopped)');
      // `/reconnect NAME` on a pooled server: end the shared process, not only our hold on it.
      const restarting = conn && e.forceReconnect && e.server ? this.deps.restartShared?.(e.server.fingerprint) : undefined;
      e.conn = undefined;
      e.lists = undefined;
      e.server = undefined;
      this.update(name, { state: 'disconnected', pid: undefined, error: undefined, ...EMPTY_LISTS });
      return conn ? concat(from(conn.close()), restarting ?? EMPTY).pipe(ignoreElements()) : EMPTY;
    });
  }

  /** Applies new view fields to a connected server: its connection and process stay. */
  refilter(server: WantedServer): Observable<never> {
    return defer(() => {
      const e = this.entries.get(server.name);
      if (!e) return EMPTY;
      e.server = server;
      this.update(server.name, this.listsPatch(server.name, e));
      return EMPTY;
    });
  }

  /** Marks a server as not connected for a reason (`removed` reads as `disconnected`). */
  block(name: string, scope: Scope, source: string, reason: Reason, notAllowedBy?: NotAllowedBy): Observable<never> {
    return defer(() => {
      this.ensure(name, scope, source);
      this.update(name, {
        scope,
        source,
        state: reason === 'removed' ? 'disconnected' : 'blocked',
        reason,
        notAllowedBy,
        error: undefined,
        pid: undefined,
        ...EMPTY_LISTS,
      });
      return EMPTY;
    });
  }

  /** Asks the next pass to reconnect this server whatever its state (`/reconnect NAME`). */
  markForReconnect(name: string): boolean {
    const e = this.entries.get(name);
    if (!e?.server) return false;
    e.forceReconnect = true;
    return true;
  }

  /** Routes a call by qualified tool name; an unknown name rejects with the reason and the fix. */
  async callTool(qualified: string, args: Record<string, unknown>): Promise<unknown> {
    for (const e of this.entries.values()) {
      const tool = e.status.tools.find((t) => t.name === qualified);
      if (tool && e.conn) return e.conn.callTool(tool.tool, args);
    }
    throw new Error(this.toolNotFoundMessage(qualified));
  }

  toolNotFoundMessage(qualified: string): string {
    const parsed = parseQualifiedToolName(qualified);
    const server = parsed ? this.findServerForQualified(parsed.server) : undefined;
    const status = server ? this.entries.get(server)?.status : undefined;
    return toolNotFoundMessage(qualified, server ?? parsed?.server, status);
  }

  /** Ends every connection; resolves when every process is gone. */
  async dispose(): Promise<void> {
    const closing: Promise<void>[] = [];
    for (const e of this.entries.values()) {
      this.stopSession(e);
      if (e.conn) {
        const conn = e.conn;
        e.conn = undefined;
        // A close that fails still counts as closed: dispose must not hang on one server.
        closing.push(lastValueFrom(from(conn.close()), { defaultValue: undefined }).then(noop, noop));
      }
    }
    await Promise.all(closing);
    this.changesSubject.complete();
  }

  // --- internals -------------------------------------------------------------------------

  /** A qualified name's server part is sanitized; map it back to a configured name. */
  private findServerForQualified(sanitized: string): string | undefined {
    if (this.entries.has(sanitized)) return sanitized;
    for (const name of this.entries.keys()) {
      if (qualifiedToolName(name, 'x').startsWith(`mcp__${sanitized}__`)) return name;
    }
    return undefined;
  }

  private ensure(name: string, scope: Scope, source: string): Entry {
    let e = this.entries.get(name);
    if (!e) {
      e = {
        status: { name, scope, source, state: 'disconnected', ...EMPTY_LISTS, history: [] },
        failures: 0,
        pastStderr: [],
      };
      this.entries.set(name, e);
      // Kept sorted on insert, so publishing a change costs O(servers), not a sort.
      this.names.splice(sortedIndex(this.names, name), 0, name);
    }
    return e;
  }

  private open(e: Entry, server: WantedServer, settled?: () => void): void {
    const name = server.name;
    const resolved = server.resolved!;
    this.update(name, {
      state: 'connecting',
      reason: undefined,
      notAllowedBy: undefined,
      error: undefined,
      pid: undefined,
      transport: resolved.transport,
      fingerprint: server.fingerprint,
    });
    let connected = false;
    e.session = this.deps
      .connector(name, resolved)
      .pipe(
        tap((conn) => {
          connected = true;
          e.conn = conn;
          e.lists = conn.lists;
          e.connectedAt = this.scheduler.now();
          this.update(name, { state: 'connected', pid: conn.pid, error: undefined, ...this.listsPatch(name, e) });
          settled?.();
        }),
        switchMap((conn) => conn.lists$),
      )
      .subscribe({
        next: (lists) => {
          e.lists = { ...(e.lists ?? { tools: [], prompts: [], resources: [] }), ...lists };
          this.update(name, this.listsPatch(name, e));
        },
        error: (err: unknown) => {
          const message = errorMessage(err);
          this.keepStderr(e, `(process ended: ${message})`);
          e.conn = undefined;
          e.lists = undefined;
          e.session = undefined;
          this.update(name, { state: 'error', error: message, pid: undefined, ...EMPTY_LISTS });
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
    if (e.failures >= this.maxFailures) {
      this.update(server.name, {
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

  /** Keeps the tail of the current process's stderr beyond its life, so a crash can be read. */
  private keepStderr(e: Entry, marker: string): void {
    const tail = e.conn?.stderrTail() ?? [];
    e.pastStderr = [...e.pastStderr, ...tail, marker].slice(-STDERR_LINES);
  }

  private stopSession(e: Entry): void {
    e.retry?.unsubscribe();
    e.retry = undefined;
    e.session?.unsubscribe();
    e.session = undefined;
  }

  private listsPatch(name: string, e: Entry): Pick<ServerStatus, 'tools' | 'prompts' | 'resources'> {
    if (!e.lists) return EMPTY_LISTS;
    const view = e.server?.view ?? {};
    const tools = filterTools(e.lists.tools, view);
    const names = qualifyTools(name, tools.map((t) => t.name));
    return {
      tools: tools.map((t, i) => ({
        name: names[i]!,
        server: name,
        tool: t.name,
        description: t.description,
        inputSchema: t.inputSchema,
      })),
      prompts: e.lists.prompts,
      resources: e.lists.resources,
    };
  }

  private update(name: string, patch: Partial<ServerStatus>): void {
    const e = this.entries.get(name);
    if (!e) return;
    const before = e.status;
    const next: ServerStatus = { ...before, ...patch };
    for (const key of Object.keys(next) as (keyof ServerStatus)[]) {
      if (next[key] === undefined) delete next[key];
    }
    if (next.state !== before.state || next.error !== before.error) {
      const line: HistoryEntry = { ts: this.scheduler.now(), state: next.state };
      if (next.error !== undefined) line.message = next.error;
      next.history = [...before.history, line].slice(-this.historyLimit);
    }
    if (equal(next, before)) return;
    e.status = next;
    this.statusSubject.next(this.names.map((n) => this.entries.get(n)!.status));
    this.changesSubject.next(next);
  }
}

/** Where `name` goes in the sorted `names` (binary search). */
function sortedIndex(names: readonly string[], name: string): number {
  let lo = 0;
  let hi = names.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (names[mid]! < name) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
