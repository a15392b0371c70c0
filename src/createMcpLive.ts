import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  BehaviorSubject,
  Subject,
  filter,
  firstValueFrom,
  map,
  tap,
  type Observable,
  type SchedulerLike,
  type Subscription,
} from 'rxjs';
import { approvalHash } from './model/approvalHash.js';
import { assemble, type AssembleInput } from './model/assemble.js';
import type { Connector } from './model/connection.js';
import type { McpLiveEvent } from './model/events.js';
import { reasonText } from './model/messages.js';
import type { PendingApproval, QualifiedTool, ServerStatus } from './model/status.js';
import { GATED_SCOPES, type DesiredState, type NotAllowedBy, type PromptInfo, type Reason } from './model/types.js';
import { createReconciler, type Reconciler } from './reconciler.js';
import { createApprovalsStore, projectRoot, type ApprovalsRead, type ApprovalsStore } from './sinks/approvalsStore.js';
import type { ConnectionPool } from './sinks/connectionPool.js';
import { connectMcp } from './sinks/connector.js';
import { fromAllSources, type ExtraSource } from './streams/fromAllSources.js';
import type { WatchFactory } from './streams/watchFactory.js';

export type { ExtraSource } from './streams/fromAllSources.js';

/** Options of {@link createMcpLive}; every path has the default of SPEC §2. */
export interface McpLiveOptions {
  /** Workspace directory (default `process.cwd()`). */
  cwd?: string;
  /** Settings directory name: `qwen` → `.qwen` (default). */
  profile?: string;
  /** Home directory (default `os.homedir()`). */
  homeDir?: string;
  userSettings?: string;
  systemSettings?: string;
  /** `--mcp-config` files, in order. */
  mcpConfig?: readonly string[];
  approvalsFile?: string;
  trustedFoldersFile?: string;
  /** `--allowed-mcp-server-names`: an upper bound settings can only narrow. */
  allowedMcpServerNames?: readonly string[];
  debounceMs?: number;
  scheduler?: SchedulerLike;
  /** The environment `$VAR` expands from (default `process.env`). */
  env?: Record<string, string | undefined>;
  /** How servers are reached (default: the MCP SDK over stdio, SSE and Streamable HTTP). */
  connector?: Connector;
  /**
   * A connection pool shared with other sessions of this process (SPEC §10): servers are acquired
   * from it instead of spawned, and released on disconnect. Admission, approvals, the registry and
   * statuses stay per session. `dispose()` then releases this session's connections; the pool's
   * owner disposes the pool. Give either `pool` or `connector`, not both.
   */
  pool?: ConnectionPool;
  extraSources?: readonly ExtraSource[];
  /** File watching seam (default chokidar). */
  watch?: WatchFactory;
  /** Servers acted on at once within a pass (default 8). */
  concurrency?: number;
  /** `full` restarts everything on any change: the old behaviour, for comparison only. */
  strategy?: 'incremental' | 'full';
}

/** Why a server has no tools right now, in data and in words. */
export interface Unavailable {
  reason: Reason | 'error' | 'connecting';
  notAllowedBy?: NotAllowedBy;
  error?: string;
  message: string;
}

/** A prompt of a connected server. */
export interface QualifiedPrompt extends PromptInfo {
  server: string;
}

/** The library's face (SPEC §9). */
export interface McpLive {
  readonly cwd: string;
  readonly profile: string;
  /** Every file watched, in precedence order. */
  readonly watching: readonly string[];
  readonly servers$: Observable<readonly ServerStatus[]>;
  readonly tools$: Observable<readonly QualifiedTool[]>;
  readonly prompts$: Observable<readonly QualifiedPrompt[]>;
  readonly pendingApprovals$: Observable<readonly PendingApproval[]>;
  readonly events$: Observable<McpLiveEvent>;
  /** Starts watching and reconciling; resolves after the first pass (`ready`). */
  start(): Promise<void>;
  /** Stops watching and ends every server process (with a `pool`: releases them to the pool). */
  dispose(): Promise<void>;
  /** A manual reload: a pass now, through the same gate as the watcher. */
  reload(): void;
  reconnect(name: string): boolean;
  approve(name: string, options?: { persist?: boolean }): Promise<void>;
  /** Approves (persisted) every server waiting for a decision; returns their names. */
  approveAllPending(): Promise<string[]>;
  reject(name: string): Promise<void>;
  addSessionServer(name: string, config: Record<string, unknown>): void;
  removeSessionServer(name: string): void;
  callTool(qualifiedName: string, args?: Record<string, unknown>): Promise<unknown>;
  unavailableReason(name: string): Unavailable | undefined;
  toolNotFoundMessage(qualifiedName: string): string;
  /** The current status of every known server (for `status` and `{"cmd":"status"}`). */
  statusReport(): readonly ServerStatus[];
  /** A server's entry as written (before `$VAR` expansion), for review; show it masked. */
  serverConfig(name: string): unknown;
  /** The last stderr lines of a stdio server (at most 200, secrets masked). */
  stderrTail(name: string): readonly string[];
  /** The current promptable set. */
  pendingApprovals(): readonly PendingApproval[];
}

/** Settings file paths for a profile (SPEC §2). */
export function settingsPaths(options: McpLiveOptions) {
  const cwd = resolve(options.cwd ?? process.cwd());
  const profile = options.profile ?? 'qwen';
  const dir = `.${profile}`;
  const home = options.homeDir ?? homedir();
  return {
    cwd,
    projectRoot: safeProjectRoot(cwd),
    profile,
    user: options.userSettings ?? join(home, dir, 'settings.json'),
    workspace: join(cwd, dir, 'settings.json'),
    system: options.systemSettings,
    project: join(cwd, '.mcp.json'),
    cli: [...(options.mcpConfig ?? [])].map((f) => resolve(cwd, f)),
    extensionsDir: join(home, dir, 'extensions'),
    extensionManifest: `${profile}-extension.json`,
    approvals: options.approvalsFile ?? join(home, dir, 'mcpApprovals.json'),
    trustedFolders: options.trustedFoldersFile ?? join(home, dir, 'trustedFolders.json'),
  };
}

/**
 * The composition root: sources (settings files, `.mcp.json`, `--mcp-config`, extensions,
 * approvals, trusted folders, the session layer, extra sources) → the reconcile pipeline →
 * connections. The one place that subscribes.
 */
export function createMcpLive(options: McpLiveOptions = {}): McpLive {
  if (options.pool && options.connector) {
    throw new Error('createMcpLive: give either `pool` or `connector`, not both (a pool brings its own connector)');
  }
  const paths = settingsPaths(options);
  const root = paths.projectRoot;
  const store: ApprovalsStore = createApprovalsStore(paths.approvals);
  const scheduler = options.scheduler;
  const now = () => scheduler?.now() ?? Date.now();

  const events = new Subject<McpLiveEvent>();
  const session = new BehaviorSubject<Record<string, unknown>>(Object.create(null) as Record<string, unknown>);
  const sessionApprovals = new BehaviorSubject<Readonly<Record<string, string>>>({});
  const written = new Subject<ApprovalsRead>();
  let latestInput: AssembleInput | undefined;
  let latestDesired: DesiredState | undefined;
  /** The desired state of the latest inputs, assembled once per change of them. */
  const desiredNow = (): DesiredState | undefined => {
    if (latestInput && !latestDesired) latestDesired = assemble(latestInput);
    return latestDesired;
  };
  let promptable: readonly PendingApproval[] = [];
  let subscription: Subscription | undefined;

  const inputs$ = fromAllSources(
    paths,
    {
      store,
      session$: session,
      sessionApprovals$: sessionApprovals,
      written$: written,
      extraSources: options.extraSources,
      watch: options.watch,
      onNotice: (n) => events.next({ ...n, ts: now() }),
    },
  ).pipe(
    tap((input) => {
      latestInput = input;
      latestDesired = undefined;
    }),
  );

  const pool = options.pool;
  const r: Reconciler = createReconciler(inputs$, {
    connector: options.pool?.connector ?? options.connector ?? connectMcp,
    restartShared: pool ? (key) => pool.restart(key) : undefined,
    allowedMcpServerNames: options.allowedMcpServerNames,
    env: options.env,
    scheduler,
    debounceMs: options.debounceMs,
    concurrency: options.concurrency,
    strategy: options.strategy,
  });

  /** The approval hash of a gated server as assembled now. */
  const currentHash = (name: string): string => {
    const server = desiredNow()?.servers[name];
    if (!server) throw new Error(`server "${name}" is not configured`);
    if (!GATED_SCOPES.has(server.scope)) {
      throw new Error(`server "${name}" comes from ${server.scope} settings, which need no approval`);
    }
    return approvalHash(server.config);
  };

  const persist = async (name: string, status: 'approved' | 'rejected'): Promise<void> => {
    const hash = currentHash(name);
    await store.decide(root, name, { hash, status });
    written.next(await store.read(root));
  };

  const live: McpLive = {
    cwd: paths.cwd,
    profile: paths.profile,
    watching: [
      paths.extensionsDir,
      paths.user,
      paths.project,
      paths.workspace,
      ...(paths.system ? [paths.system] : []),
      ...paths.cli,
      paths.approvals,
      paths.trustedFolders,
    ],
    servers$: r.servers$,
    tools$: r.tools$,
    prompts$: r.servers$.pipe(
      map((servers) => servers.flatMap((s) => s.prompts.map((p) => ({ ...p, server: s.name })))),
    ),
    pendingApprovals$: r.pendingApprovals$,
    events$: events.asObservable(),

    async start() {
      if (subscription) return;
      const ready = firstValueFrom(events.pipe(filter((e) => e.type === 'ready')));
      subscription = r.pendingApprovals$.subscribe((p) => (promptable = p));
      subscription.add(r.events$.subscribe((e) => events.next(e)));
      events.next({ type: 'started', ts: now(), cwd: paths.cwd, profile: paths.profile, watching: [...live.watching] });
      r.start();
      await ready;
    },

    async dispose() {
      subscription?.unsubscribe();
      subscription = undefined;
      await r.dispose();
      events.complete();
      session.complete();
      sessionApprovals.complete();
      written.complete();
    },

    reload: () => r.reload('reload'),
    reconnect: (name) => r.reconnect(name),

    async approve(name, { persist: keep = true } = {}) {
      if (keep) await persist(name, 'approved');
      else sessionApprovals.next({ ...sessionApprovals.getValue(), [name]: currentHash(name) });
      r.reload('approval');
    },

    async approveAllPending() {
      const names = promptable.map((p) => p.name);
      for (const name of names) await persist(name, 'approved');
      if (names.length > 0) r.reload('approval');
      return names;
    },

    async reject(name) {
      await persist(name, 'rejected');
      const { [name]: _dropped, ...rest } = sessionApprovals.getValue();
      sessionApprovals.next(rest);
      r.reload('approval');
    },

    addSessionServer(name, config) {
      session.next({ ...session.getValue(), [name]: config });
      r.reload('session');
    },

    removeSessionServer(name) {
      const next = { ...session.getValue() };
      delete next[name];
      session.next(next);
      r.reload('session');
    },

    callTool: (qualifiedName, args = {}) => r.callTool(qualifiedName, args),

    unavailableReason(name) {
      const s = r.status(name);
      if (!s || s.state === 'connected') return undefined;
      if (s.reason) {
        return { reason: s.reason, notAllowedBy: s.notAllowedBy, message: reasonText(s.reason, s.notAllowedBy) };
      }
      if (s.state === 'error') return { reason: 'error', error: s.error, message: s.error ?? 'error' };
      return { reason: 'connecting', message: s.state };
    },

    toolNotFoundMessage: (q) => r.toolNotFoundMessage(q),
    statusReport: () => r.list(),
    pendingApprovals: () => promptable,
    stderrTail: (name) => r.stderrTail(name),
    serverConfig: (name) => desiredNow()?.servers[name]?.config,
  };
  return live;
}

/** realpath of the workspace; a workspace that does not exist yet keys by its resolved path. */
function safeProjectRoot(cwd: string): string {
  try {
    return projectRoot(cwd);
  } catch {
    return cwd;
  }
}

