import { UriTemplate } from '@modelcontextprotocol/sdk/shared/uriTemplate.js';
import equal from 'fast-deep-equal';
import {
  AsyncSubject,
  BehaviorSubject,
  EMPTY,
  Observable,
  Subject,
  asyncScheduler,
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
  Subscription,
} from 'rxjs';
import type { CompleteRequestParams, CompleteResult } from '@modelcontextprotocol/sdk/types.js';
import {
  NeedsAuthorization,
  SharedConnectionRestarted,
  type CallToolOptions,
  type Connection,
  type ConnectionActivity,
  type ServerIdentity,
  type Connector,
  type RequestOptions,
  type ServerRequestHandlers,
} from '../../model/connection.js';
import { serverWarnings, type Blocked, type LiveEntry, type WantedServer } from '../../model/reconcile/plan.js';
import type { HistoryEntry, QualifiedTool, ServerStatus } from '../../model/report/status.js';
import type { Scope, ServerLists } from '../../model/types.js';
import {
  filterTools,
  parseQualifiedToolName,
  qualifyTools,
  resolveServerParts,
  sanitisesTo,
  serverNameParts,
} from '../../model/tools/toolNames.js';
import { ambiguousToolMessage, collisionWarning, gatewayNamingMessage, libraryNameOf, renamedToolMessage } from '../../model/tools/toolNameMessages.js';
import { needsAuthText, toolNotFoundMessage, withheldPromptMessage, type HintAudience, type ToolFilter } from '../../model/report/messages.js';
import { withholdsAnything } from '../../model/tools/surfacePin.js';
import { offeredInstructions } from './offeredSurface.js';
import type { SurfaceWithheld } from './surfacePins.js';
import { untilAborted } from '../../model/untilAborted.js';
import { languagesOf } from '../../model/lsp/lspConfig.js';
import { serverKind } from '../../model/serverKeys.js';
import { backoffDelay } from '../../operators/backoffDelay.js';
import { distinctFlatList } from '../../operators/distinctFlatList.js';

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
  /** Who reads the fix hints of tool-not-found messages (default `library`). */
  hints?: HintAudience;
  /** How this session answers its servers' own requests (elicitation, sampling, roots). */
  handlers?: ServerRequestHandlers;
  /**
   * The surface record (decisions 195, 197): told every surface a connected MCP server shows,
   * it answers with the tools to withhold (changed since the user approved them).
   */
  surfaces?: SurfaceObserver;
}

/** What {@link LiveServers} tells the surface record, and asks it. */
export interface SurfaceObserver {
  /** Records what `server` lists now; returns what to withhold of it (own names). */
  observe(server: WantedServer, lists: ServerLists, identity: ServerIdentity | undefined): SurfaceWithheld;
  /** Settles the server's pin before its connection is published (decision 308); undefined when nothing to wait for. */
  prepare?(server: WantedServer, lists: ServerLists, identity: ServerIdentity | undefined): Promise<void> | undefined;
  /** `name` shows no surface any more (disconnected, blocked, failed). */
  forget(name: string): void;
}

interface Entry {
  status: ServerStatus;
  /** What the current (or last attempted) connection was made for. */
  server?: WantedServer;
  conn?: Connection;
  /** stderr of earlier processes of this server (they died or were replaced), newest last. */
  pastStderr: readonly string[];
  lists?: ServerLists;
  /** Tools, prompts (own names) and instructions of `lists` withheld until their new definition is approved (decisions 197, 311). */
  withheld?: SurfaceWithheld;
  /** The connect attempt and, once connected, the subscription to its `lists$`. */
  session?: Subscription;
  /** A pending supervised restart. */
  retry?: Subscription;
  failures: number;
  connectedAt?: number;
  /** Set by `/reconnect NAME`: the next pass reconnects it whatever its fingerprint. */
  forceReconnect?: boolean;
  /** Completes when the last process closed here is gone; the next attempt waits for it. */
  closing?: Observable<never>;
  /** Completes when the attempt `connect` started has settled (or was ended): what passes wait for. */
  settling?: AsyncSubject<never>;
  /** A new config's connect while the old connection still serves ({@link LiveServers.replace}), and what it is for. */
  replacing?: { server: WantedServer; attempt: Subscription };
  /** Known from a pass's plan, its connect not begun ({@link LiveServers.expect}): it holds nothing yet. */
  queued?: boolean;
}

/** How many stderr lines a server keeps (SPEC §3). */
const STDERR_LINES = 200;

const EMPTY_LISTS: Pick<ServerStatus, 'tools' | 'prompts' | 'resources'> = {
  tools: [],
  prompts: [],
  resources: [],
};

/** What a server that is not connected shows: no lists, and nothing of what it said in `initialize`. */
const NOT_CONNECTED: Pick<ServerStatus, ListKey | 'serverInfo' | 'instructions' | 'capabilities' | 'idle' | 'withheld'> = {
  ...EMPTY_LISTS,
  resourceTemplates: undefined,
  serverInfo: undefined,
  instructions: undefined,
  capabilities: undefined,
  idle: undefined,
  withheld: undefined,
};

type ListKey = 'tools' | 'prompts' | 'resources' | 'resourceTemplates';
const LIST_KEYS: readonly ListKey[] = ['tools', 'prompts', 'resources', 'resourceTemplates'];

/**
 * The live side of the reconcile table: every server's connection, lists and status.
 *
 * The only code that opens and closes connections. Each action returns a cold observable that
 * completes when the action is done (a connect when it settled, a disconnect when the process is
 * gone), so the per-server `concatMap` of a pass can order them. Status changes are pushed on
 * `changes$` synchronously, which keeps `server` events ahead of their pass's `reconcile` event;
 * `servers$` publishes them together (decision 171): once per pass ({@link flush}), and changes
 * outside a pass on the scheduler, so a burst costs one list of all N statuses, not one per change.
 */
export class LiveServers {
  private readonly entries = new Map<string, Entry>();
  /** Every known name: the order of `servers$` once sorted ({@link namesSorted}). */
  private readonly names: string[] = [];
  /** Whether {@link names} is sorted: a new name is appended, and sorted in when the list is next built. */
  private namesSorted = true;
  /** Every status in name order, as {@link list} last built it. */
  private current: readonly ServerStatus[] = [];
  /** A status changed (or a name came) since {@link current} was built. */
  private stale = false;
  /** A status changed since `servers$` last published. */
  private unpublished = false;
  /** A publication of changes is scheduled ({@link publish}), and its action to cancel. */
  private publishScheduled = false;
  private publication?: Subscription;
  /** When `servers$` last published (scheduler time). */
  private publishedAt = -Infinity;
  /** Holds of {@link hold} not released yet: while any is, changes wait for the holder's {@link flush}. */
  private holds = 0;
  private readonly statusSubject = new BehaviorSubject<readonly ServerStatus[]>([]);
  private readonly changesSubject = new Subject<ServerStatus>();
  private readonly scheduler: SchedulerLike;
  private readonly maxFailures: number;
  private readonly random: () => number;
  private readonly stableAfterMs: number;
  private readonly historyLimit: number;
  /** Closes in flight: they belong here, not to the pass that asked, so a superseded pass cannot cut one short. */
  private readonly closes = new Subscription();
  /** Requests in flight per connection: a replaced connection closes once its own have ended. */
  private readonly inFlight = new InFlight();
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
  /** Every configured name (see {@link setConfiguredNames}). */
  private configured = new Set<string>();
  /** Server → the server part of its qualified tool names; a configured name missing here has none. */
  private parts = new Map<string, string>();
  /** Collisions warned about, so each is reported once while it lasts. */
  private collisions = new Set<string>();

  /** Every known server, sorted by name; replays the latest list. */
  readonly servers$: Observable<readonly ServerStatus[]> = this.statusSubject.asObservable();
  /** One value per status change of one server. */
  readonly changes$: Observable<ServerStatus> = this.changesSubject.asObservable();
  /** Every tool of every connected server, qualified and filtered; only when that list changed. */
  readonly tools$: Observable<readonly QualifiedTool[]> = this.servers$.pipe(distinctFlatList((s) => s.tools));

  constructor(private readonly deps: LiveServersDeps) {
    this.scheduler = deps.scheduler ?? asyncScheduler;
    this.maxFailures = deps.maxFailures ?? 5;
    this.random = deps.random ?? Math.random;
    this.stableAfterMs = deps.stableAfterMs ?? 30_000;
    this.historyLimit = deps.historyLimit ?? 20;
  }

  /** What the planner needs to know of each server. */
  snapshot(names?: ReadonlySet<string>): Map<string, LiveEntry> {
    const live = new Map<string, LiveEntry>();
    const wanted = names === undefined ? this.entries : [...names].flatMap((n) => (this.entries.has(n) ? [[n, this.entries.get(n)!] as const] : []));
    for (const [name, e] of wanted) {
      live.set(name, {
        // A replacement under way counts as the config wanted now: a pass that wants it too keeps it.
        fingerprint: e.forceReconnect ? undefined : (e.replacing?.server ?? e.server)?.fingerprint,
        view: (e.replacing?.server ?? e.server)?.view,
        state: e.status.state,
        reason: e.status.reason,
        detail: e.status.detail,
        ...(e.queued === true ? { queued: true } : {}),
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

  /** A request's failure for want of authorization, with the server's name and the way to authorize. */
  private async worded<T>(e: Entry, conn: Connection, request: Promise<T>): Promise<T> {
    const done = this.inFlight.begin(conn);
    try {
      return await request;
    } catch (error) {
      if (!(error instanceof NeedsAuthorization)) throw error;
      throw new Error(`MCP server "${e.status.name}" ${needsAuthText(e.status.name, error, this.deps.hints ?? 'library')}`, { cause: error });
    } finally {
      done();
    }
  }

  /**
   * Runs `request` on `name`'s current connection, counted as in flight (a replaced connection
   * closes when its own requests have ended, like a tool call's). Undefined when it is not connected.
   */
  withConnection<T>(name: string, request: (conn: Connection) => Promise<T>): Promise<T> | undefined {
    const e = this.entries.get(name);
    if (e?.conn === undefined || (e.status.state !== 'connected' && e.status.state !== 'idle')) return undefined;
    return this.worded(e, e.conn, request(e.conn));
  }

  /** `name`'s current connection while it is connected (a language server's, for its routing and capabilities). */
  connection(name: string): Connection | undefined {
    const e = this.entries.get(name);
    return e?.status.state === 'connected' ? e.conn : undefined;
  }

  /** How `name` is reached as the last pass wanted it (undefined when no pass wants it now). */
  wanted(name: string): WantedServer | undefined {
    return this.entries.get(name)?.server;
  }

  status(name: string): ServerStatus | undefined {
    return this.entries.get(name)?.status;
  }

  /** Every known server, sorted by name, as of now (also what `servers$` has yet to publish). */
  list(): readonly ServerStatus[] {
    if (!this.stale) return this.current;
    if (!this.namesSorted) {
      this.names.sort();
      this.namesSorted = true;
    }
    this.current = this.names.map((n) => this.entries.get(n)!.status);
    this.stale = false;
    return this.current;
  }

  /**
   * Holds back publications of changes until released (a pass applying its blocks over several
   * event-loop tasks, decision 174), so the pass publishes once; the release schedules what waits.
   */
  hold(): Subscription {
    this.holds += 1;
    return new Subscription(() => {
      this.holds -= 1;
      if (this.holds === 0 && this.unpublished) this.schedulePublication();
    });
  }

  /**
   * Publishes on `servers$` what changed since it last did, now: the end of a pass's decisions
   * (its blocks applied) is one publication, whatever the number of servers it changed.
   */
  flush(): void {
    this.publishScheduled = false;
    this.publication?.unsubscribe();
    this.publication = undefined;
    if (!this.unpublished) return;
    this.unpublished = false;
    this.publishedAt = this.scheduler.now();
    this.statusSubject.next(this.list());
  }

  /** Keeps scope and source current for a known server whose entry moved between files. */
  describe(name: string, scope: Scope, source: string): void {
    if (this.entries.has(name)) this.update(name, { scope, source });
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
      const e = this.ensure(server.name, server.scope, server.source);
      e.queued = undefined;
      e.forceReconnect = false;
      e.failures = 0;
      this.stopSession(e);
      // The plan disconnects before it reconnects; a connection still held here is closed first
      // (the attempt waits for it, see `open`).
      this.close(e);
      e.server = server;
      if (server.invalid !== undefined || server.resolved === undefined) {
        this.update(server.name, invalidPatch(server));
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
    if (this.entries.has(server.name)) return;
    const e = this.ensure(server.name, server.scope, server.source);
    e.queued = true;
    this.update(server.name, server.invalid !== undefined || server.resolved === undefined ? invalidPatch(server) : connectingPatch(server));
  }

  /** Completes when the attempt a `connect` started for `name` has settled; at once if there is none. */
  settled(name: string): Observable<never> {
    return defer(() => this.entries.get(name)?.settling?.asObservable() ?? EMPTY);
  }

  /** Disconnects and removes the server's tools, prompts and resources; completes when its process is gone. */
  disconnect(name: string): Observable<never> {
    return defer(() => {
      const e = this.entries.get(name);
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
      this.deps.surfaces?.forget(name);
      // Tools go first: a call is refused from here on, however long the process takes to end.
      this.update(name, { state: 'disconnected', pid: undefined, error: undefined, trust: undefined, ...NOT_CONNECTED });
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
      const e = this.entries.get(server.name);
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
            this.note(e, `the new config did not start while the old process ran (${errorMessage(err)}); stopping the old one and trying again`);
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
      const e = this.entries.get(server.name);
      if (!e) return EMPTY;
      // A replacement under way is what the new view belongs to: it applies at the swap.
      if (e.replacing?.server.fingerprint === server.fingerprint) {
        e.replacing.server = server;
        return EMPTY;
      }
      e.server = server;
      // A language server takes its new settings and routing on the live connection (decision 148).
      e.conn?.reconfigure?.(server.view);
      this.update(server.name, { ...this.listsPatch(server.name, e), ...wantedPatch(server) });
      return EMPTY;
    });
  }

  /** Marks a server as not connected for a reason (`removed` reads as `disconnected`). */
  block(name: string, scope: Scope, source: string, why: Blocked): Observable<never> {
    return defer(() => {
      this.ensure(name, scope, source).queued = undefined;
      this.deps.surfaces?.forget(name);
      this.update(name, {
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
    const e = this.entries.get(name);
    if (e?.status.state !== 'idle' || e.conn?.start === undefined) return undefined;
    return e.conn.start();
  }

  /**
   * Asks the surface record again what to withhold of `name`'s lists (after the user approved
   * its new surface): the tools it lets through are published at once.
   */
  reobserve(name: string): void {
    const e = this.entries.get(name);
    if (!e?.lists || !e.server || !e.conn) return;
    this.observeSurface(e, e.server, e.conn);
    this.update(name, { ...this.listsPatch(name, e), instructions: offeredInstructions(e.conn.server, e.withheld) });
  }

  /** Asks the next pass to reconnect this server whatever its state (`/reconnect NAME`). */
  markForReconnect(name: string): boolean {
    const e = this.entries.get(name);
    // A queued server (decision 325) is connected by the pass this asks for: it holds nothing yet.
    if (!e?.server) return e?.queued === true;
    e.forceReconnect = true;
    return true;
  }

  /**
   * Every configured server's name, blocked and pending ones included (decision 57): qualified
   * tool names are unique across all of them, so approving or unblocking a server never renames
   * another's tools. A server whose part changed re-publishes its tools under the new names; one
   * no longer configured keeps its part while it still has tools (its disconnect is coming).
   * Returns a warning for each collision that is new since the last call.
   */
  setConfiguredNames(names: Iterable<string>): string[] {
    const configured = new Set(names);
    const { parts, collisions } = resolveServerParts(configured);
    for (const [name, part] of this.parts) {
      if (!configured.has(name) && this.entries.get(name)?.lists !== undefined) parts.set(name, part);
    }
    const before = this.parts;
    this.configured = configured;
    this.parts = parts;
    for (const [name, e] of this.entries) {
      if (e.lists !== undefined && before.get(name) !== parts.get(name)) this.update(name, this.listsPatch(name, e));
    }
    const seen = this.collisions;
    this.collisions = new Set(collisions.map((group) => group.join('\0')));
    return collisions.filter((group) => !seen.has(group.join('\0'))).map((group) => collisionWarning(group, parts));
  }

  /**
   * Routes a call by qualified tool name, exactly: an unknown or stale name rejects with the reason
   * and the fix, and a name more than one server lists is refused, never routed by guess. An
   * aborted `signal` rejects at once with its reason (and the server is told, where the connection
   * can), whatever the server does with the request.
   */
  async callTool(qualified: string, args: Record<string, unknown>, options: CallToolOptions = {}): Promise<unknown> {
    options.signal?.throwIfAborted();
    const owners = [...this.entries.values()].filter((e) => e.status.tools.some((t) => t.name === qualified));
    if (owners.length > 1) throw new Error(ambiguousToolMessage(qualified, owners.map((e) => e.status.name)));
    const e = owners[0];
    const tool = e?.status.tools.find((t) => t.name === qualified);
    // A lazy server compares the surface its process shows before the call is sent (decision 311).
    const admit = (): void => {
      if (e?.withheld?.tools.has(tool!.tool)) throw new Error(this.toolNotFoundMessage(qualified));
    };
    if (tool && e?.conn) return untilAborted(this.worded(e, e.conn, e.conn.callTool(tool.tool, args, { ...options, admit })), options.signal);
    throw new Error(this.toolNotFoundMessage(qualified));
  }

  /**
   * Gets a prompt by its name as the servers list it. `server` picks the server; without it, the
   * one connected server that lists the prompt — a name more than one lists is refused, never
   * routed by guess.
   */
  async getPrompt(prompt: string, args: Record<string, string>, options: RequestOptions & { server?: string } = {}): Promise<unknown> {
    options.signal?.throwIfAborted();
    const withholding = this.withholdingPrompt(prompt, options.server);
    if (withholding !== undefined) throw new Error(withheldPromptMessage(prompt, withholding.status.name, this.deps.hints, withholding.withheld?.reason));
    const e = this.routeTo(options.server, `prompt "${prompt}"`, (s) => s.prompts.some((p) => p.name === prompt));
    if (!e.conn?.getPrompt) throw new Error(`server "${e.status.name}" cannot give prompts`);
    const admit = (): void => {
      if (e.withheld?.prompts.has(prompt)) throw new Error(withheldPromptMessage(prompt, e.status.name, this.deps.hints, e.withheld.reason));
    };
    return untilAborted(this.worded(e, e.conn, e.conn.getPrompt(prompt, args, { ...options, admit })), options.signal);
  }

  /**
   * Reads a resource from the connected server that lists its URI, else from the one whose
   * resource template matches it; `server` picks the server (which may serve URIs it does not
   * list). A URI more than one server lists or matches is refused.
   */
  async readResource(uri: string, options: RequestOptions & { server?: string } = {}): Promise<unknown> {
    options.signal?.throwIfAborted();
    const e = this.resourceOwner(uri, options.server);
    if (!e.conn?.readResource) throw new Error(`server "${e.status.name}" cannot read resources`);
    return untilAborted(this.worded(e, e.conn, e.conn.readResource(uri, options)), options.signal);
  }

  /**
   * Subscribes to a resource's updates (`resources/subscribe`) at the server that lists its URI,
   * else the one whose template matches it (routed like {@link readResource}).
   */
  async subscribeResource(uri: string, options: RequestOptions & { server?: string } = {}): Promise<void> {
    const e = this.resourceOwner(uri, options.server);
    if (!e.conn?.subscribeResource) throw new Error(`server "${e.status.name}" cannot subscribe to resources`);
    await untilAborted(this.worded(e, e.conn, e.conn.subscribeResource(uri, options)), options.signal);
  }

  async unsubscribeResource(uri: string, options: RequestOptions & { server?: string } = {}): Promise<void> {
    const e = this.resourceOwner(uri, options.server);
    if (!e.conn?.unsubscribeResource) throw new Error(`server "${e.status.name}" cannot subscribe to resources`);
    await untilAborted(this.worded(e, e.conn, e.conn.unsubscribeResource(uri, options)), options.signal);
  }

  /**
   * Completions (`completion/complete`) from the server a reference belongs to: a prompt's, by
   * its own name as listed; a resource template's, by its URI template (or a listed URI).
   */
  async complete(params: CompleteRequestParams, options: RequestOptions & { server?: string } = {}): Promise<CompleteResult> {
    options.signal?.throwIfAborted();
    const { ref } = params;
    const e =
      ref.type === 'ref/prompt'
        ? this.routeTo(options.server, `prompt "${ref.name}"`, (s) => s.prompts.some((p) => p.name === ref.name))
        : this.templateOwner(ref.uri, options.server);
    if (!e.conn?.complete) throw new Error(`server "${e.status.name}" cannot complete arguments`);
    return untilAborted(this.worded(e, e.conn, e.conn.complete(params, options)), options.signal);
  }

  /**
   * The server a request about `uri` goes to, as {@link readResource} (`read`) or {@link complete}
   * with a resource reference (`complete`) routes it; undefined when none or more than one would.
   */
  serverOfResource(uri: string, request: 'read' | 'complete' = 'read'): string | undefined {
    try {
      return (request === 'read' ? this.resourceOwner(uri, undefined) : this.templateOwner(uri, undefined)).status.name;
    } catch {
      return undefined;
    }
  }

  /**
   * The configured server a qualified tool name points at, listed or not (its server part says
   * which): what a caller asks {@link status} about when the tool is not there.
   */
  serverOfTool(qualified: string): string | undefined {
    const parsed = parseQualifiedToolName(qualified);
    return parsed === undefined ? undefined : this.findServerForQualified(parsed.server);
  }

  toolNotFoundMessage(qualified: string): string {
    const parsed = parseQualifiedToolName(qualified);
    // The gateway's name of a listed tool (`clock__now`): the name to call it by here (decision 322).
    const libraryName = parsed === undefined ? libraryNameOf(qualified, [...this.entries.values()].flatMap((e) => e.status.tools)) : undefined;
    if (libraryName !== undefined) return gatewayNamingMessage(qualified, libraryName);
    const server = parsed ? this.findServerForQualified(parsed.server) : undefined;
    if (parsed && server === undefined) {
      // A name from before a suffix: point at the servers' current names instead of "no such server".
      const renamed = [...this.parts].filter(([name, part]) => part !== parsed.server && sanitisesTo(name, parsed.server));
      if (renamed.length > 0) return renamedToolMessage(qualified, renamed);
    }
    const e = server === undefined ? undefined : this.entries.get(server);
    return toolNotFoundMessage(qualified, server ?? parsed?.server, e?.status, {
      audience: this.deps.hints,
      filteredOut: server === undefined || e === undefined ? undefined : this.filteredOut(server, e, qualified),
      withheldBecause: e?.withheld?.reason,
    });
  }

  /** Ends every connection; resolves when every process is gone. */
  async dispose(): Promise<void> {
    // Replaced connections stop waiting for their requests: the session is ending.
    for (const closeNow of this.retiring.values()) closeNow();
    const closing: Promise<void>[] = [];
    for (const e of this.entries.values()) {
      this.stopSession(e);
      // Also the closes still in flight from passes that did not wait for them.
      closing.push(lastValueFrom(this.close(e), { defaultValue: undefined }).then(noop, noop));
    }
    // And what is still ending: retired connections, and the attempts given up before they
    // connected (the lines above among them).
    closing.push(...this.ending);
    await Promise.all(closing);
    this.flush();
    this.changesSubject.complete();
  }

  // --- internals -------------------------------------------------------------------------

  /** The server a completion of resource template `uri` goes to: `server`, else the one that lists that template (or that URI). */
  private templateOwner(uri: string, server: string | undefined): Entry {
    return this.routeTo(
      server,
      `resource template "${uri}"`,
      (s) => (s.resourceTemplates ?? []).some((t) => t.uriTemplate === uri) || s.resources.some((r) => r.uri === uri),
    );
  }

  /** The server a request about `uri` goes to: `server`, else the one that lists it, else the one whose template matches it. */
  private resourceOwner(uri: string, server: string | undefined): Entry {
    const listed = (s: ServerStatus) => s.resources.some((r) => r.uri === uri);
    const matched = (s: ServerStatus) => (s.resourceTemplates ?? []).some((t) => matchesTemplate(t.uriTemplate, uri));
    const what = `resource "${uri}"`;
    return server !== undefined || this.connected().some(listed)
      ? this.routeTo(server, what, listed, server !== undefined)
      : this.routeTo(undefined, what, matched);
  }

  private connected(): ServerStatus[] {
    return [...this.entries.values()].filter((e) => e.conn !== undefined).map((e) => e.status);
  }

  /**
   * The connected server a request goes to: `server` when given (`anyItem`: whether or not it
   * lists the item), else the one server that `has` the item.
   */
  private routeTo(server: string | undefined, what: string, has: (s: ServerStatus) => boolean, anyItem = false): Entry {
    if (server !== undefined) {
      const e = this.entries.get(server);
      if (!e?.conn) throw new Error(`server "${server}" is not connected${e ? ` (${e.status.state})` : ''}`);
      if (!anyItem && !has(e.status)) throw new Error(`server "${server}" lists no ${what}`);
      return e;
    }
    const owners = [...this.entries.values()].filter((e) => e.conn !== undefined && has(e.status));
    if (owners.length === 1) return owners[0]!;
    if (owners.length === 0) throw new Error(`no connected server lists ${what}`);
    const names = owners.map((e) => e.status.name).join(', ');
    throw new Error(`${what} is listed by more than one server (${names}): name the server`);
  }

  /**
   * The tool `qualified` would name if the server's view fields let it through, and the field
   * that hides it: the server offers it (its unfiltered list has it) but the view removes it.
   */
  private filteredOut(name: string, e: Entry, qualified: string): { tool: string; by: ToolFilter } | undefined {
    const part = this.partOf(name);
    if (e.lists === undefined || part === undefined) return undefined;
    const offered = e.lists.tools;
    const tool = offered[qualifyTools(name, offered.map((t) => t.name), part).indexOf(qualified)];
    if (tool === undefined) return undefined;
    if (e.withheld?.tools.has(tool.name)) return { tool: tool.name, by: 'withheld' };
    const view = e.server?.view ?? {};
    // Through filterTools itself, one field at a time, so the answer matches what the list shows.
    if (filterTools([tool], { excludeTools: view.excludeTools }).length === 0) return { tool: tool.name, by: 'excludeTools' };
    if (filterTools([tool], { includeTools: view.includeTools }).length === 0) return { tool: tool.name, by: 'includeTools' };
    return undefined;
  }

  /** The server whose qualified names have this server part (parts are unique), if any. */
  private findServerForQualified(part: string): string | undefined {
    for (const [name, p] of this.parts) if (p === part) return name;
    for (const name of this.entries.keys()) if (!this.parts.has(name) && this.partOf(name) === part) return name;
    return undefined;
  }

  /**
   * The server part of a server's tool names: from {@link setConfiguredNames}; a configured name
   * without one (no unique part) has none, so its tools are withheld; a name never configured
   * (LiveServers used on its own) has the part it would have alone.
   */
  private partOf(name: string): string | undefined {
    return this.parts.get(name) ?? (this.configured.has(name) ? undefined : serverNameParts([name]).get(name));
  }

  private ensure(name: string, scope: Scope, source: string): Entry {
    let e = this.entries.get(name);
    if (!e) {
      e = {
        status: { name, ...(serverKind(name) === 'lsp' ? { kind: 'lsp' as const } : {}), scope, source, state: 'disconnected', ...EMPTY_LISTS, history: [] },
        failures: 0,
        pastStderr: [],
      };
      this.entries.set(name, e);
      // Appended, sorted once when the list is next built: an insert in place costs O(servers) each.
      if (this.namesSorted && this.names.length > 0 && this.names[this.names.length - 1]! > name) this.namesSorted = false;
      this.names.push(name);
      this.stale = true;
    }
    return e;
  }

  private open(e: Entry, server: WantedServer, settled?: () => void): void {
    const name = server.name;
    const resolved = server.resolved!;
    this.update(name, connectingPatch(server));
    // A process of this server that is still closing goes first: never two at once (SPEC §6).
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
          this.observeSurface(e, server, conn);
          // An on-demand connection says whether a process runs: in this update, then as it changes.
          const activity = conn.activity;
          this.update(name, {
            ...patch,
            state: 'connected',
            pid: conn.pid,
            error: undefined,
            serverInfo: conn.server?.info,
            instructions: offeredInstructions(conn.server, e.withheld),
            capabilities: conn.server?.capabilities,
            ...this.listsPatch(name, e),
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
          if ('activity' in change) return this.update(name, this.activityPatch(change.activity));
          const lists = change;
          e.lists = { ...(e.lists ?? { tools: [], prompts: [], resources: [] }), ...lists };
          if (e.conn) this.observeSurface(e, server, e.conn);
          // A process that started behind an idle connection may say more about itself than the record.
          const identity = e.conn?.server;
          this.update(name, {
            ...this.listsPatch(name, e),
            ...(identity === undefined ? {} : { serverInfo: identity.info, instructions: offeredInstructions(identity, e.withheld), capabilities: identity.capabilities }),
          });
        },
        error: (err: unknown) => {
          const message = errorMessage(err);
          this.keepStderr(e, `(process ended: ${message})`);
          e.conn = undefined;
          e.lists = undefined;
          e.withheld = undefined;
          e.session = undefined;
          this.deps.surfaces?.forget(name);
          if (err instanceof NeedsAuthorization) {
            // Only the user can help: no retry until they authorize (or the next pass asks again).
            this.update(name, { state: 'needs_auth', error: needsAuthText(name, err, this.deps.hints ?? 'library'), pid: undefined, ...NOT_CONNECTED });
            return settled?.();
          }
          this.update(name, { state: 'error', error: message, pid: undefined, ...NOT_CONNECTED });
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
      this.update(server.name, { error: `${message} (not restarted: restartOnCrash is false; waiting for the next reload or /reconnect)` });
      return;
    }
    if (e.failures > (policy === undefined ? this.maxFailures - 1 : policy.maxRestarts)) {
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
      this.inFlight.whenIdle(conn, closeNow);
    });
    this.untilGone(gone);
  }

  /** A line in the server's history that no state change brings: what happened, in words. */
  private note(e: Entry, message: string): void {
    const line: HistoryEntry = { ts: this.scheduler.now(), state: e.status.state, message };
    this.publish(e, { ...e.status, history: [...e.status.history, line].slice(-this.historyLimit) });
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
   * The server that withholds prompt `prompt` (decision 311): by its own name, or by the name a
   * gateway would have given it (qualified, or without `mcp__`), since a gateway asks the library
   * for a name it no longer lists.
   */
  private withholdingPrompt(prompt: string, server: string | undefined): Entry | undefined {
    for (const e of this.entries.values()) {
      const withheld = e.withheld?.prompts;
      if (!withheld?.size || !e.lists || (server !== undefined && server !== e.status.name)) continue;
      if (withheld.has(prompt)) return e;
      const part = this.partOf(e.status.name);
      const names = e.lists.prompts.map((p) => p.name);
      const qualified = part === undefined ? [] : qualifyTools(e.status.name, names, part);
      if (qualified.some((q, i) => withheld.has(names[i]!) && (q === prompt || q.replace(/^mcp__/, '') === prompt))) return e;
    }
    return undefined;
  }

  /**
   * The connection once the server's pin is settled (decision 308): its first surface is compared
   * or pinned before anything of it is published. A connection given up meanwhile is closed.
   */
  private pinSettled(server: WantedServer, conn: Connection): Observable<Connection> {
    const wait = serverKind(server.name) === 'lsp' ? undefined : this.deps.surfaces?.prepare?.(server, conn.lists, conn.server);
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

  /** Tells the surface record what a connected MCP server lists now, and keeps what it withholds. */
  private observeSurface(e: Entry, server: WantedServer, conn: Connection): void {
    if (!this.deps.surfaces || !e.lists || serverKind(server.name) === 'lsp') return;
    const withheld = this.deps.surfaces.observe(server, e.lists, conn.server);
    e.withheld = withholdsAnything(withheld) ? withheld : undefined;
  }

  /** The status of an on-demand connection's process: `idle` without one (decision 196). */
  private activityPatch(activity: ConnectionActivity): Partial<ServerStatus> {
    if (activity.running) return { state: 'connected', idle: undefined, pid: activity.pid, error: undefined };
    return { state: 'idle', idle: activity.idle, pid: undefined, error: activity.error };
  }

  private listsPatch(name: string, e: Entry): Pick<ServerStatus, ListKey | 'withheld'> {
    if (!e.lists) return { ...EMPTY_LISTS, resourceTemplates: undefined, withheld: undefined };
    const view = e.server?.view ?? {};
    const part = this.partOf(name);
    const withheld = e.withheld;
    const offered = withheld === undefined ? e.lists.tools : e.lists.tools.filter((t) => !withheld.tools.has(t.name));
    const tools = part === undefined ? [] : filterTools(offered, view);
    const names = qualifyTools(name, tools.map((t) => t.name), part);
    const trust = trustOf(e.server);
    const prompts = withheld === undefined ? e.lists.prompts : e.lists.prompts.filter((p) => !withheld.prompts.has(p.name));
    const promptNames = part === undefined ? [] : qualifyTools(name, prompts.map((p) => p.name), part);
    return {
      tools: tools.map((t, i) => ({ ...t, name: names[i]!, server: name, tool: t.name, trust })),
      prompts: part === undefined ? prompts : prompts.map((p, i) => ({ ...p, qualifiedName: promptNames[i]! })),
      resources: e.lists.resources,
      resourceTemplates: e.lists.resourceTemplates?.length ? e.lists.resourceTemplates : undefined,
      withheld: withheld === undefined || withheld.tools.size === 0 ? undefined : [...withheld.tools].sort(),
    };
  }

  /** `note`: a line for the history that no state change brings, in the same update. */
  private update(name: string, patch: Partial<ServerStatus>, note?: string): void {
    const e = this.entries.get(name);
    if (!e) return;
    const before = e.status;
    const next = patched(before, patch);
    // An equal list keeps its reference: `tools$` and `prompts$` compare lists by reference.
    for (const key of LIST_KEYS) {
      if (next[key] !== before[key] && equal(next[key], before[key])) Object.assign(next, { [key]: before[key] });
    }
    if (next.state !== before.state || next.error !== before.error) {
      const line: HistoryEntry = { ts: this.scheduler.now(), state: next.state };
      if (next.error !== undefined) line.message = next.error;
      next.history = [...before.history, line].slice(-this.historyLimit);
    }
    if (note !== undefined) next.history = [...next.history, { ts: this.scheduler.now(), state: next.state, message: note }].slice(-this.historyLimit);
    if (equal(next, before)) return;
    this.publish(e, next);
  }

  /**
   * Makes `next` the entry's status, tells `changes$` at once and `servers$` soon: on the
   * scheduler, with this change's frame (a virtual-time test sees no delay), spaced by
   * {@link PUBLISH_SPACING_MS_PER_SERVER} from the last publication — each costs O(servers) in
   * every subscriber, so a long burst of single changes (connects settling one by one) takes a
   * bounded share of the CPU instead of O(N²) (decision 171).
   */
  private publish(e: Entry, next: ServerStatus): void {
    e.status = next;
    this.stale = true;
    this.unpublished = true;
    this.changesSubject.next(next);
    this.schedulePublication();
  }

  private schedulePublication(): void {
    if (this.publishScheduled || this.holds > 0) return;
    this.publishScheduled = true;
    const spacing = this.entries.size * PUBLISH_SPACING_MS_PER_SERVER;
    const wait = Math.max(0, this.publishedAt + spacing - this.scheduler.now());
    const action = this.scheduler.schedule(() => this.flush(), wait);
    // Kept to be cancelled by an earlier flush, unless a synchronous scheduler ran it already.
    if (this.publishScheduled) this.publication = action;
  }
}

/**
 * `{ ...before, ...patch }` without its undefined keys, in the same key order. Copied key by key:
 * two spreads and a `delete` per undefined key cost 30–80 µs per update in V8 (a second spread
 * takes the slow path, a `delete` turns the object into a dictionary) — seconds for the N
 * updates of one pass (decision 171); this costs about one.
 */
function patched(before: ServerStatus, patch: Partial<ServerStatus>): ServerStatus {
  const from = before as unknown as Record<string, unknown>;
  const changes = patch as Record<string, unknown>;
  const next: Record<string, unknown> = {};
  for (const key of Object.keys(from)) {
    const value = Object.hasOwn(changes, key) ? changes[key] : from[key];
    if (value !== undefined) next[key] = value;
  }
  for (const key of Object.keys(changes)) if (!Object.hasOwn(from, key) && changes[key] !== undefined) next[key] = changes[key];
  return next as unknown as ServerStatus;
}

/** 1 µs per server between two publications of changes made outside a pass: 20 ms at 20,000 servers, nothing at a few. */
const PUBLISH_SPACING_MS_PER_SERVER = 0.001;

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

/** The entry's `trust` view field (false for a server not wanted now). */
function trustOf(server: WantedServer | undefined): boolean {
  return server?.view.trust === true;
}

/** Whether `uri` is one of the URIs an RFC 6570 template describes (a malformed template matches none). */
function matchesTemplate(template: string, uri: string): boolean {
  try {
    return new UriTemplate(template).match(uri) !== null;
  } catch {
    return false;
  }
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Requests in flight per connection, so a replaced one is closed only when its own have ended. */
class InFlight {
  private readonly counts = new Map<Connection, number>();
  private readonly idle = new Map<Connection, () => void>();

  /** Counts one request on `conn`; call the returned function when it has ended. */
  begin(conn: Connection): () => void {
    this.counts.set(conn, (this.counts.get(conn) ?? 0) + 1);
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      const left = (this.counts.get(conn) ?? 1) - 1;
      if (left > 0) return void this.counts.set(conn, left);
      this.counts.delete(conn);
      const onIdle = this.idle.get(conn);
      this.idle.delete(conn);
      onIdle?.();
    };
  }

  /** Runs `then` once `conn` has no request in flight: at once when it has none. */
  whenIdle(conn: Connection, then: () => void): void {
    if (!this.counts.has(conn)) return then();
    this.idle.set(conn, then);
  }
}

/** ` (pid 12 → 34)`, or what of it is known. */
function pidChange(before: number | undefined, after: number | undefined): string {
  if (before === undefined && after === undefined) return '';
  return ` (pid ${before ?? '?'} → ${after ?? '?'})`;
}
