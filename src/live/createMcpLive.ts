import { basename } from 'node:path';
import { pathToFileURL } from 'node:url';
import type {
  CompleteRequestParams,
  CompleteResult,
  CreateMessageRequestParams,
  CreateMessageResult,
  LoggingMessageNotification,
} from '@modelcontextprotocol/sdk/types.js';
import {
  BehaviorSubject,
  Subject,
  combineLatest,
  defer,
  filter,
  firstValueFrom,
  from,
  map,
  mergeMap,
  skipWhile,
  takeUntil,
  tap,
  type Observable,
  type SchedulerLike,
  type Subscription,
} from 'rxjs';
import { approvalHash } from '../model/settings/approvalHash.js';
import type { AssembleInput } from '../model/settings/assemble.js';
import { createIncrementalDesired } from '../model/reconcile/incrementalDesired.js';
import type {
  CallToolOptions,
  Connector,
  ElicitationAnswer,
  RequestOptions,
  ServerRequestHandlers,
} from '../model/connection.js';
import type { McpLiveEvent } from '../model/report/events.js';
import { reasonText, type HintAudience } from '../model/report/messages.js';
import { untilAborted } from '../model/untilAborted.js';
import { serverNameProblem } from '../model/serverKeys.js';
import type { ListedPrompt, PendingApproval, QualifiedTool, ServerStatus } from '../model/report/status.js';
import {
  GATED_SCOPES,
  type ApprovalRecord,
  type ApprovalsRead,
  type ApprovalsStore,
  type DesiredState,
  type LspView,
  type NotAllowedBy,
  type Reason,
  type ResourceInfo,
  type ResourceTemplateInfo,
} from '../model/types.js';
import { distinctFlatList } from '../operators/distinctFlatList.js';
import type { ReadActivity } from '../operators/settleOnActivity.js';
import { createReconciler, type Reconciler } from './reconciler.js';
import { createApprovalsStore } from '../sinks/stores/approvalsStore.js';
import { systemPathKeys } from '../platform/systemPathKeys.js';
import { settingsPaths, type SettingsLocations } from './settingsPaths.js';
import type { ConnectionPool } from '../sinks/mcp/connectionPool.js';
import { createElicitationQueue, type PendingElicitation } from '../sinks/mcp/elicitationQueue.js';
import { createMcpConnector, type StepUpAuthorizer } from '../sinks/mcp/connector.js';
import { lazyConnector } from '../sinks/mcp/lazyConnector.js';
import { searchTools, type ToolMatch, type ToolSearchOptions } from '../model/tools/toolSearch.js';
import { createSurfaceStore } from '../sinks/stores/surfaceStore.js';
import { createPinStore } from '../sinks/stores/pinStore.js';
import { pinMarks } from '../sinks/stores/pinMarks.js';
import { LspDocuments, type FileDiagnostics, type OpenDocument } from '../sinks/lsp/documents.js';
import { LanguageServers, type LspTarget } from '../sinks/lsp/languageServers.js';
import type { LspConnector } from '../sinks/lsp/lspConnector.js';
import { lspOperationOf } from '../model/lsp/lspTools.js';
import { createOAuthManager } from '../sinks/remote/oauthManager.js';
import { createOAuthTokenStore } from '../sinks/stores/oauthTokenStore.js';
import { defaultRuntimeDir, openProcessGroupRegistry } from '../process/processGroupRegistry.js';
import { fromAllSources, type ExtraSource } from '../streams/fromAllSources.js';
import { allowedNamesWarning } from '../model/settings/allowedNamesWarning.js';
import { admit } from '../model/admission/admit.js';
import { admittedVerdict } from '../model/reconcile/plan.js';
import { setServerDisabled } from '../model/settings/serverEntryEdits.js';
import { withSessionEnablement } from '../operators/withSessionEnablement.js';
import { editJsoncFile } from '../sinks/stores/editJsoncFile.js';
import type { WatchFactory } from '../streams/watchFactory.js';
import { resolveLspConfig } from '../model/lsp/lspConfig.js';
import { lspName } from '../model/serverKeys.js';

export type { ExtraSource } from '../streams/fromAllSources.js';
export type { PendingElicitation } from '../sinks/mcp/elicitationQueue.js';

/** Options of {@link createMcpLive}; every path ({@link SettingsLocations}) has the default of SPEC §2. */
export interface McpLiveOptions extends SettingsLocations {
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
  /**
   * Where stdio servers' process groups are recorded while they run, so that a later session can
   * end what a SIGKILLed one left (default `$XDG_RUNTIME_DIR/mcp-live`, else `<home>/.<profile>/run`).
   */
  runtimeDir?: string;
  /**
   * Where fix hints are read, so they name a step that works there: `ui` (a terminal UI with
   * `/mcp`), `json` (the `--json` command protocol), `library` (default: a shell command).
   */
  hints?: HintAudience;
  /**
   * Answers a server's form (`elicitation/create`) instead of `elicitation.pending$`: resolve with the
   * user's answer; an `accept` may leave fields out, which then get their schema defaults.
   * `signal` aborts when the form is over unanswered (the entry's `timeout` passed, or the server
   * cancelled it); the server is then told `cancel`.
   */
  onElicitation?: (request: PendingElicitation, context: { signal: AbortSignal }) => Promise<ElicitationAnswer>;
  /**
   * A model for servers that ask for one (`sampling/createMessage`). Only with it is `sampling`
   * advertised; without it such a request is refused with an error saying mcp-live has no model.
   */
  onSampling?: (server: string, params: CreateMessageRequestParams, context: { signal: AbortSignal }) => Promise<CreateMessageResult>;
  /**
   * A server's log messages (`notifications/message`), as it sent them with the secrets of its
   * entry masked: for a host that shows them or passes them on (the gateway, decision 117).
   */
  onServerLog?: (server: string, message: LoggingMessageNotification['params']) => void;
  /** `notifications/resources/updated` of a resource subscribed to with {@link McpLiveResources.subscribe}. */
  onResourceUpdated?: (server: string, uri: string) => void;
  /**
   * Called with the URL the user must open to authorize a server (decision 83), for a host that
   * opens browsers itself. The `auth-required` event carries the same URL either way.
   */
  onAuthorizationUrl?: (server: string, url: string) => void;
  /**
   * Someone can complete an authorization in a browser (decision 242): a UI, or a program that
   * opens the `auth-required` URLs. A request refused for want of scope (403
   * `insufficient_scope`) then starts the authorization itself — `auth-required`, as `/mcp auth`
   * does — and is sent again once it completes, within the request's timeout. Without it the
   * request fails with "needs more authorization" and the fix. Default: true when
   * `onAuthorizationUrl` is given, else false. (Not with `pool`: its connector is the pool's.)
   */
  interactiveAuth?: boolean;
}

/** An authorization under way ({@link McpLiveAuth.authenticate}). */
export interface Authorization {
  /** Where the user authorizes; undefined for a grant that needs no browser (client credentials). */
  url?: string;
  /** Settles when the token is stored and the server reconnects, or with why not. */
  completed: Promise<void>;
}

/** Why a server has no tools right now, in data and in words. */
export interface Unavailable {
  reason: Reason | 'error' | 'needs_auth' | 'connecting';
  notAllowedBy?: NotAllowedBy;
  error?: string;
  message: string;
}

/** A prompt of a connected server (`qualifiedName`: the unique name a gateway exposes it under). */
export interface QualifiedPrompt extends ListedPrompt {
  server: string;
}

/** A resource of a connected server. */
export interface QualifiedResource extends ResourceInfo {
  server: string;
}

/** A resource template of a connected server. */
export interface QualifiedResourceTemplate extends ResourceTemplateInfo {
  server: string;
}

/** Which server a prompt or resource request goes to, when the name alone does not say. */
export interface ServerRequestOptions extends RequestOptions {
  server?: string;
}

/**
 * The approval gate (decision 52): entries of gated scopes (project, workspace) and changed tool
 * surfaces wait here for a decision, bound to the hash of what was shown.
 */
export interface McpLiveApprovals {
  /** The promptable set: gated servers strictly pending and changed surfaces, on each change. */
  readonly pending$: Observable<readonly PendingApproval[]>;
  /** The current promptable set. */
  readonly pending: () => readonly PendingApproval[];
  /**
   * Approves `name`'s entry as it was shown: `hash` (from `pending$` / the
   * `approval-required` event) or, without it, the entry as the last pass saw it — never a newer
   * read. Refused ("… changed since it was shown; review it again", and the user is asked again)
   * when the entry now in the file has another hash.
   */
  readonly approve: (name: string, options?: { persist?: boolean; hash?: string }) => Promise<void>;
  /**
   * Approves (persisted, one write) exactly the set that was shown — `shown`, or the current
   * promptable set — and returns their names. Refused as a whole if any of them changed since.
   */
  readonly approveAll: (shown?: readonly { name: string; hash: string }[]) => Promise<string[]>;
  /** Rejects the entry that was shown (`hash`, else as of the last pass). */
  readonly reject: (name: string, options?: { hash?: string }) => Promise<void>;
}

/** OAuth of remote servers (decision 83). */
export interface McpLiveAuth {
  /**
   * Authorizes a remote server now (`/mcp auth NAME`, `{"cmd":"auth"}`): resolves with the URL
   * the user must open (also emitted as `auth-required` and given to `onAuthorizationUrl`) once
   * it is known; `completed` settles when the browser came back, the token is stored and the
   * server reconnects. Refused for a server that is not admitted (pending approval, untrusted,
   * excluded …): nothing is contacted for it before approval.
   */
  readonly authenticate: (name: string, options?: { signal?: AbortSignal }) => Promise<Authorization>;
  /** Forgets the stored tokens and registered clients of `name`; resolves with how many records went. */
  readonly logout: (name: string) => Promise<number>;
}

/** Language servers (decision 145): their statuses, the session's open documents, LSP requests. */
export interface McpLiveLsp {
  /** The language servers' statuses: the `lsp:NAME` part of `servers$`. */
  readonly servers$: Observable<readonly ServerStatus[]>;
  /**
   * Diagnostics language servers published (pushed) or were asked for (pulled), per server and
   * document, the whole cache on each change; replays the current one.
   */
  readonly diagnostics$: Observable<readonly FileDiagnostics[]>;
  /**
   * One LSP request (`textDocument/hover`, …) to the language server a file's extension routes to
   * (`{ file }`; opened there first if the host has not) or to one by name (`{ server }`). Rejects
   * with why none can answer. Positions are the LSP's (0-based, UTF-16).
   */
  readonly request: <R = unknown>(method: string, params: unknown, target: LspTarget, options?: RequestOptions) => Promise<R>;
  /** Opens a document for the language servers that take it (`text`, else the file's content); kept across their restarts. */
  readonly open: (path: string, text?: string) => Promise<OpenDocument>;
  /** A new full text of an open document (`didChange`). */
  readonly change: (path: string, text: string) => OpenDocument;
  /** Closes an open document (`didClose`); false when it was not open. */
  readonly close: (path: string) => boolean;
  /** Adds a language server for this session (scope `session`, `.lsp.json` entry format); it is `lsp:NAME` from then on. */
  readonly addSession: (name: string, config: Record<string, unknown>) => void;
  /** Removes a language server {@link McpLiveLsp.addSession} added (by its own name, or `lsp:NAME`). */
  readonly removeSession: (name: string) => void;
}

/** The resources of connected servers (`resources/*`). */
export interface McpLiveResources {
  /** Every resource of every connected server, with its URI. */
  readonly list: () => readonly QualifiedResource[];
  /** Every resource template of every connected server (RFC 6570 URI templates). */
  readonly templates: () => readonly QualifiedResourceTemplate[];
  /**
   * Reads a resource (`resources/read`) from the server that lists its URI, else the one whose
   * template matches it; `server` picks one (which may serve URIs it does not list).
   */
  readonly read: (uri: string, options?: ServerRequestOptions) => Promise<unknown>;
  /**
   * Subscribes to updates of a resource (`resources/subscribe`) at the server that would read it;
   * they arrive at the `onResourceUpdated` option. Lost when that server reconnects.
   */
  readonly subscribe: (uri: string, options?: ServerRequestOptions) => Promise<void>;
  /** Ends a subscription of {@link McpLiveResources.subscribe} (`resources/unsubscribe`). */
  readonly unsubscribe: (uri: string, options?: ServerRequestOptions) => Promise<void>;
  /**
   * The server a request about `uri` goes to, as {@link McpLiveResources.read} (`read`) or
   * {@link McpLivePrompts.complete} with a resource template reference (`complete`) would route
   * it; undefined when none or more than one would.
   */
  readonly serverOf: (uri: string, request?: 'read' | 'complete') => string | undefined;
}

/** The prompts of connected servers, and argument completions. */
export interface McpLivePrompts {
  /** Every prompt of every connected server, flattened, filtered like tools; never a value equal to the previous one. */
  readonly list$: Observable<readonly QualifiedPrompt[]>;
  /**
   * Gets a prompt by its name as `list$` lists it, its arguments filled in (`prompts/get`).
   * `server` picks the server; it is needed only when more than one lists that name.
   */
  readonly get: (name: string, args?: Record<string, string>, options?: ServerRequestOptions) => Promise<unknown>;
  /**
   * Completions for an argument (`completion/complete`): a prompt reference by its name as
   * `list$` lists it, a resource reference by its URI template; `server` picks the server.
   */
  readonly complete: (params: CompleteRequestParams, options?: ServerRequestOptions) => Promise<CompleteResult>;
}

/** This session's own changes to the servers: the session layer and session enablement. */
export interface McpLiveSession {
  /** Adds an MCP server for this session (scope `session`); throws for a name it would not serve (`lsp:…`, whitespace, controls). */
  readonly add: (name: string, config: Record<string, unknown>) => void;
  /** Removes an MCP server {@link McpLiveSession.add} added. */
  readonly remove: (name: string) => void;
  /**
   * Enables `name` for this session (`/mcp enable`, `{"cmd":"enable"}`): lifts a session disable,
   * and a `disabled: true` in its file no longer blocks it — nothing else does: exclusion, allow
   * lists, folder trust and approval still apply. `persist` instead removes `disabled` from the
   * file the entry came from, which must be the user settings file (refused otherwise); the
   * running session applies it through its watcher.
   */
  readonly enable: (name: string, options?: { persist?: boolean }) => Promise<EnablementChange>;
  /**
   * Disables `name` for this session (reason `disabled`, "disabled for this session"), or with
   * `persist` writes `disabled: true` into the user settings file it came from.
   */
  readonly disable: (name: string, options?: { persist?: boolean }) => Promise<EnablementChange>;
}

/** Forms servers ask the user to fill in (`elicitation/create`). */
export interface McpLiveElicitation {
  /**
   * The forms waiting for {@link McpLiveElicitation.answer}; replays the latest list. Empty with
   * an `onElicitation` option (that hook answers instead).
   */
  readonly pending$: Observable<readonly PendingElicitation[]>;
  /**
   * Answers a form of `pending$` (or of the `elicitation` event): `{action: 'accept', content}`
   * (fields left out get their defaults), `decline` or `cancel`. Throws when no such form waits, or
   * when an accept leaves a required field empty (the form keeps waiting).
   */
  readonly answer: (id: string, answer: ElicitationAnswer) => void;
}

/**
 * The library's face (SPEC §9): the everyday surface at the top level — the session's facts,
 * servers and tools, calls, the lifecycle — and the rest in groups (decision 286). Group members
 * are plain functions: they work destructured (`const { approve } = live.approvals`).
 */
export interface McpLive {
  readonly cwd: string;
  readonly profile: string;
  /** Every file watched, in precedence order. */
  readonly watching: readonly string[];
  /** Every known server (MCP and language servers), published together once per pass. */
  readonly servers$: Observable<readonly ServerStatus[]>;
  /** The tools of connected servers (and the `lsp__*` tools while a language server can answer them). */
  readonly tools$: Observable<readonly QualifiedTool[]>;
  readonly events$: Observable<McpLiveEvent>;
  /** Starts watching and reconciling; resolves after the first pass (`ready`). */
  start(): Promise<void>;
  /**
   * Resolves once the first pass has decided about every server — blocks applied, approval
   * prompt out, connects started — which a hung connect does not hold back (unlike `start()`);
   * rejects when disposed before.
   */
  planned(): Promise<void>;
  /**
   * Stops watching and ends every server process (with a `pool`: releases them to the pool). Safe
   * to call more than once: every call resolves when the first one's work is done.
   */
  dispose(): Promise<void>;
  /** A manual reload: a pass now, through the same gate as the watcher. */
  reload(): void;
  /** Restarts one server (`/reconnect NAME`); an idle one is started instead (decision 196). */
  reconnect(name: string): boolean;
  /**
   * Calls a tool by its qualified name. A tool not listed yet while the first pass has not ended
   * waits until it is listed or that pass has ended (a call made at start must not be told that
   * its server is not configured, decision 325); a listed one is called at once, whatever other
   * servers are still doing. Before
   * `start()` it rejects. An aborted `signal` rejects at once with its reason and cancels the request.
   */
  callTool(qualifiedName: string, args?: Record<string, unknown>, options?: CallToolOptions): Promise<unknown>;
  /** Why a server has no tools right now, in data and in words; undefined when it has them (or is idle). */
  unavailableReason(name: string): Unavailable | undefined;
  /**
   * The configured server a qualified tool name belongs to, whether or not it lists that tool
   * now (a pending or failed server lists none): whose {@link unavailableReason} applies.
   */
  serverOfTool(qualifiedName: string): string | undefined;
  /** What a call to a tool that is not there is told: the reason and the fix. */
  toolNotFoundMessage(qualifiedName: string): string;
  /**
   * The tools of `tools$` that best match `query` (decisions 215, 312, 313: BM25-like over the
   * tool's name, its server's name, its description and its parameters, with light stemming; no
   * network, no model; a server cannot buy rank with its own text), best first — what
   * `serve --progressive` answers `search_tools` with. Withheld and unapproved tools are never
   * among them. Default limit 5, at most 50.
   */
  searchTools(query: string, options?: ToolSearchOptions): ToolMatch[];
  /** The current status of every known server (for `status` and `{"cmd":"status"}`). */
  statusReport(): readonly ServerStatus[];
  /** A server's entry as written (before `$VAR` expansion), for review; show it masked. */
  serverConfig(name: string): unknown;
  /** The last stderr lines of a stdio server (at most 200, secrets masked). */
  stderrTail(name: string): readonly string[];
  /**
   * Why no server may connect, when a user or system settings file has never parsed (admission
   * fails closed, reason `settings_error`); undefined when all is well.
   */
  settingsError(): string | undefined;
  readonly approvals: McpLiveApprovals;
  readonly auth: McpLiveAuth;
  readonly lsp: McpLiveLsp;
  readonly resources: McpLiveResources;
  readonly prompts: McpLivePrompts;
  readonly session: McpLiveSession;
  readonly elicitation: McpLiveElicitation;
}

/** What `enable` / `disable` did. */
export interface EnablementChange {
  server: string;
  enabled: boolean;
  /** The file written (`persist`). */
  file?: string;
  /** After a session enable: what still blocks the server, in words (e.g. "needs approval"). */
  stillBlocked?: string;
}

/** A language server entry's view as written (undefined when it is not valid), for words about a blocked one. */
function writtenView(config: unknown, workspace: string): LspView | undefined {
  if (config === undefined) return undefined;
  const resolution = resolveLspConfig(config, {}, workspace);
  return resolution.ok ? resolution.resolved.lsp.view : undefined;
}

/** Authorizations `oauth.autoStart` begins in a row for one server before it waits for the user. */
const MAX_AUTO_STARTS = 3;

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
  const oauth = createOAuthManager(createOAuthTokenStore(paths.oauthTokens));
  const scheduler = options.scheduler;
  const now = () => scheduler?.now() ?? Date.now();

  const events = new Subject<McpLiveEvent>();
  const session = new BehaviorSubject<Record<string, unknown>>(Object.create(null) as Record<string, unknown>);
  const sessionLsp = new BehaviorSubject<Record<string, unknown>>(Object.create(null) as Record<string, unknown>);
  const sessionApprovals = new BehaviorSubject<Readonly<Record<string, string>>>({});
  /** `/mcp enable|disable` without `persist`: name → enabled, for this session only. */
  const sessionEnablement = new BehaviorSubject<Readonly<Record<string, boolean>>>({});
  const written = new Subject<ApprovalsRead>();
  /** The watchers' changes and reads, from the sources to the debounce (decision 105). */
  const activity = new Subject<ReadActivity>();
  let latestInput: AssembleInput | undefined;
  let latestDesired: DesiredState | undefined;
  /** Assembles what changed since the last assembly only (decision 102): it runs on every input when the allow flag is set. */
  const assembly = createIncrementalDesired();
  /** The desired state of the latest inputs, assembled once per change of them. */
  const desiredNow = (): DesiredState | undefined => {
    if (latestInput && !latestDesired) latestDesired = assembly.assemble(latestInput);
    return latestDesired;
  };
  let promptable: readonly PendingApproval[] = [];
  let currentTools: readonly QualifiedTool[] = [];
  let subscription: Subscription | undefined;
  /** The one dispose (see {@link McpLive.dispose}). */
  let disposed: Promise<void> | undefined;
  /** Settles when the first pass has ended (`ready`); set by `start()`. */
  let firstPass: Promise<void> | undefined;

  /** The `--allowed-mcp-server-names` warning logged last: logged again only when it changes. */
  let allowedWarning: string | undefined;
  const warnUnmatchedAllowedNames = (): void => {
    if (options.allowedMcpServerNames === undefined) return;
    const warning = allowedNamesWarning(options.allowedMcpServerNames, Object.keys(desiredNow()?.servers ?? {}));
    if (warning !== undefined && warning !== allowedWarning) events.next({ type: 'log', level: 'warn', message: warning, ts: now() });
    allowedWarning = warning;
  };

  const inputs$ = fromAllSources(
    paths,
    {
      store,
      pathKeys: systemPathKeys,
      session$: session,
      sessionLsp$: sessionLsp,
      sessionApprovals$: sessionApprovals,
      written$: written,
      extraSources: options.extraSources,
      watch: options.watch,
      onNotice: (n) => events.next({ ...n, ts: now() }),
      onActivity: (a) => activity.next(a),
    },
  ).pipe(
    withSessionEnablement(sessionEnablement),
    tap((input) => {
      latestInput = input;
      latestDesired = undefined;
      warnUnmatchedAllowedNames();
    }),
  );

  const elicitations = createElicitationQueue({
    onAsked: (request) =>
      events.next({ type: 'elicitation', id: request.id, server: request.server, message: request.message, schema: request.requestedSchema, ts: now() }),
    onGone: (request, reason) =>
      events.next({
        type: 'log',
        level: 'warn',
        message: `form ${request.id} of "${request.server}" ${reason instanceof Error ? reason.message : 'was cancelled by its server'}`,
        ts: now(),
      }),
  });
  let asked = 0;
  const { onElicitation, onSampling, onServerLog, onResourceUpdated } = options;
  const handlers: ServerRequestHandlers = {
    elicit: onElicitation
      ? (server, form, { signal }) => onElicitation({ id: `elicit-${++asked}`, server, ...form }, { signal })
      : elicitations.ask,
    // The workspace is the one root: a server that works on files works on these.
    roots: () => [{ uri: pathToFileURL(paths.cwd).href, name: basename(paths.cwd) }],
    ...(onSampling ? { sample: onSampling } : {}),
    ...(onServerLog ? { log: onServerLog } : {}),
    ...(onResourceUpdated ? { resourceUpdated: onResourceUpdated } : {}),
  };

  const pool = options.pool;
  // Language servers (decision 153): the one document store of the session, and their connector beside the MCP one.
  const documents = new LspDocuments({ base: paths.cwd });
  // A step-up during a request starts its own authorization, without a reconnect: the connection
  // sends the new token from then on (decision 242).
  const stepUp: StepUpAuthorizer = (name, config, { signal }) =>
    oauth.authenticate(name, config, {
      signal: AbortSignal.any([signal, sessionEnded.signal]),
      onAuthorizationUrl: (url) => {
        events.next({ type: 'auth-required', server: name, url, ts: now() });
        options.onAuthorizationUrl?.(name, url);
      },
    });
  const interactiveAuth = options.interactiveAuth ?? options.onAuthorizationUrl !== undefined;
  const mcpConnector = options.pool?.connector ?? options.connector ?? createMcpConnector({ oauth, ...(interactiveAuth ? { stepUp } : {}) });
  // Loaded with the first language server: the LSP library costs a session without one ~20 MB of
  // RSS and its load time (measured by the idle and cold-start benches).
  let lspConnector: Promise<LspConnector> | undefined;
  const connectLsp: Connector = (name, config, _handlers, ended) =>
    defer(() => (lspConnector ??= import('../sinks/lsp/lspConnector.js').then(({ createLspConnector }) => createLspConnector({ documents })))).pipe(
      mergeMap((connect) => connect(name, config, ended)),
    );
  const warnLog = (message: string): void => events.next({ type: 'log', level: 'warn', message, ts: now() });
  const surfaces = createSurfaceStore(paths.surfaces, { onWarning: warnLog });
  // Pins apart from the cache (decision 307), and the approvals' pin markers (decision 309).
  const pins = createPinStore(paths.pins, { onWarning: warnLog });
  const approvalMarks = pinMarks(() => latestInput?.approvals, store, root, warnLog, async () => written.next(await store.read(root)));
  // `lazy` and `idleTimeout` servers run on demand, listed from their record meanwhile (decision 196).
  const onDemand = lazyConnector(mcpConnector, { surfaces, scheduler });
  const connector: Connector = (name, config, serverHandlers, ended) =>
    config.lsp !== undefined ? connectLsp(name, config, undefined, ended) : onDemand(name, config, serverHandlers, ended);
  const r: Reconciler = createReconciler(inputs$, {
    connector,
    surfaces,
    pins,
    approvalMarks,
    restartShared: pool ? (key) => pool.restart(key) : undefined,
    allowedMcpServerNames: options.allowedMcpServerNames,
    env: options.env,
    cwd: paths.cwd,
    home: paths.home,
    scheduler,
    debounceMs: options.debounceMs,
    activity$: activity.asObservable(),
    concurrency: options.concurrency,
    assembly,
    strategy: options.strategy,
    hints: options.hints,
    handlers,
  });

  const languageServers = new LanguageServers({
    workspace: paths.cwd,
    documents,
    servers$: r.board.servers$,
    list: () => r.board.list(),
    connection: (name) => r.requests.connection(name),
    withConnection: (name, request) => r.requests.withConnection(name, request),
    // As the last pass wants it; for one it blocks, as written (so "pending approval" can be told).
    view: (name) => r.resolvedConfig(name)?.lsp?.view ?? writtenView(desiredNow()?.servers[name]?.config, paths.cwd),
  });

  /** The approval hash of a gated server as assembled now, from the latest read of every file. */
  const currentHash = (name: string): string => {
    const server = desiredNow()?.servers[name];
    if (!server) throw new Error(`server "${name}" is not configured`);
    if (!GATED_SCOPES.has(server.scope)) {
      throw new Error(`server "${name}" comes from ${server.scope} settings, which need no approval`);
    }
    return approvalHash(server.config);
  };

  /**
   * The hash a decision about `name` is bound to: the one the user was shown, checked against
   * the file as it is now. A mismatch — the file was rewritten after it was shown — refuses the
   * decision and asks again, so an approval never applies to an entry nobody saw (decision 52).
   */
  const shownHash = (name: string, hash: string | undefined): string => {
    const now = currentHash(name);
    const shown = hash ?? r.shownHash(name);
    if (shown !== now) {
      r.reprompt();
      throw new Error(`${name} changed since it was shown; review it again`);
    }
    return shown;
  };

  /**
   * A session override, or (`persist`) the entry's `disabled` in the user settings file — the only
   * file that is the user's own: `.mcp.json` and workspace settings come with a repository,
   * extension manifests with an extension. A persisted change clears the override: the file decides.
   */
  const setEnablement = async (name: string, enabled: boolean, keep: boolean): Promise<EnablementChange> => {
    const server = desiredNow()?.servers[name];
    if (!server) throw new Error(`server "${name}" is not configured`);
    const { [name]: _previous, ...others } = sessionEnablement.getValue();
    if (keep) {
      if (server.scope !== 'user') {
        throw new Error(
          `${name} comes from ${server.scope} settings (${server.source}); --persist writes only your user settings ` +
            `(${paths.user}): edit that file yourself, or ${enabled ? 'enable' : 'disable'} it for this session only`,
        );
      }
      await editJsoncFile(server.source, (text) => setServerDisabled(text, name, !enabled, server.source));
      sessionEnablement.next(others);
      return { server: name, enabled, file: server.source };
    }
    sessionEnablement.next({ ...others, [name]: enabled });
    const desired = desiredNow();
    const admission = enabled && desired ? admit(name, server, desired, options.allowedMcpServerNames) : undefined;
    if (admission?.admitted === false) return { server: name, enabled, stillBlocked: reasonText(admission.reason, admission.notAllowedBy, admission.detail) };
    // Admitted, it may still be held in this folder (decision 303).
    const verdict = enabled && desired ? admittedVerdict(server, desired, options.env ?? process.env, paths.cwd, paths.home) : undefined;
    return verdict === undefined || 'wanted' in verdict
      ? { server: name, enabled }
      : { server: name, enabled, stillBlocked: reasonText(verdict.blocked.reason, undefined, verdict.blocked.detail) };
  };

  /** Authorizations under way, by server: a second `/mcp auth NAME` joins the first. */
  const authorizing = new Map<string, Promise<Authorization>>();
  /** Ends every authorization still waiting for a browser when the session ends. */
  const sessionEnded = new AbortController();

  const authenticate = (name: string, signal?: AbortSignal): Promise<Authorization> => {
    const running = authorizing.get(name);
    if (running) return running;
    const status = r.board.status(name);
    const config = r.resolvedConfig(name);
    if (status === undefined || config === undefined || status.state === 'blocked') {
      const why = status?.reason === undefined ? 'is not configured' : `is not admitted (${reasonText(status.reason, status.notAllowedBy, status.detail)})`;
      return Promise.reject(new Error(`server "${name}" ${why}; nothing is contacted for it until it is`));
    }
    const started = new Promise<Authorization>((resolveUrl, rejectUrl) => {
      let announced = false;
      const completed = oauth
        .authenticate(name, config, {
          signal: signal === undefined ? sessionEnded.signal : AbortSignal.any([signal, sessionEnded.signal]),
          onAuthorizationUrl: (url) => {
            announced = true;
            events.next({ type: 'auth-required', server: name, url, ts: now() });
            options.onAuthorizationUrl?.(name, url);
            resolveUrl({ url, completed });
          },
        })
        .then(() => {
          // The reconnect starts with `connecting`; its outcome is the first state after that —
          // this server's own changes, followed before the reconnect begins (not every server's list).
          const outcome = firstValueFrom(
            r.board.changes$.pipe(
              filter((s) => s.name === name),
              skipWhile((s) => s.state !== 'connecting'),
              filter((s) => s.state !== 'connecting' && s.state !== 'disconnected'),
            ),
          );
          r.reconnect(name);
          return outcome;
        })
        .then((after) => {
          if (after?.state !== 'connected') throw new Error(`server "${name}" did not connect after authorization: ${after?.error ?? after?.state ?? 'gone'}`);
        })
        .finally(() => authorizing.delete(name));
      completed.catch(() => undefined);
      // A machine grant needs no browser: the authorization is under way already.
      void completed.then(
        () => !announced && resolveUrl({ completed }),
        (error: unknown) => (announced ? undefined : rejectUrl(error instanceof Error ? error : new Error(String(error)))),
      );
    });
    authorizing.set(name, started);
    started.catch(() => authorizing.delete(name));
    return started;
  };

  /**
   * `oauth.autoStart`: a server that comes to need authorization starts it at once (headless:
   * `auth-required` goes out without a command). At most {@link MAX_AUTO_STARTS} times in a row
   * without a connect in between, so a server that refuses every token cannot loop the user
   * through the browser.
   */
  const autoStarts = new Map<string, number>();
  /** Per change of one server (decision 171: never a scan of every server per change). */
  const autoStartAuthorization = (s: ServerStatus): void => {
    if (s.state === 'connected') autoStarts.delete(s.name);
    if (s.state !== 'needs_auth' || authorizing.has(s.name) || r.resolvedConfig(s.name)?.oauth?.autoStart !== true) return;
    const count = autoStarts.get(s.name) ?? 0;
    if (count >= MAX_AUTO_STARTS) return;
    autoStarts.set(s.name, count + 1);
    authenticate(s.name).then(
      ({ completed }) => completed.catch(() => undefined),
      (error: unknown) => events.next({ type: 'log', level: 'warn', message: `authorization of ${s.name} did not start: ${error instanceof Error ? error.message : String(error)}`, ts: now() }),
    );
  };

  /**
   * A changed surface that waits (decision 197) is approved by the hash that was shown with it —
   * or, without one, the one waiting now, which is what the dialog shows. Returns false when what
   * waits for `name` is not a surface (its entry is approved the usual way); throws when the
   * surface changed again since it was shown.
   */
  const approveSurface = (name: string, hash: string | undefined): boolean => {
    const waiting = r.surfaceWaiting(name);
    if (waiting === undefined) return false;
    if (hash !== undefined && hash !== waiting.hash) {
      const entryHash = (() => {
        try {
          return currentHash(name);
        } catch {
          return undefined;
        }
      })();
      // The entry's own hash: a decision about the entry, not about its tools.
      if (hash === entryHash) return false;
      throw new Error(`the tools of ${name} changed since they were shown; review them again`);
    }
    return r.approveSurface(name, waiting.hash);
  };

  const persist = async (decisions: readonly { server: string; record: ApprovalRecord }[]): Promise<void> => {
    if (decisions.length === 0) return;
    await store.decideAll(root, decisions);
    written.next(await store.read(root));
  };

  /** Sets (`config`) or drops (`undefined`) one entry of a session layer, then runs a pass. */
  const editSessionLayer = (layer: BehaviorSubject<Record<string, unknown>>, name: string, config: Record<string, unknown> | undefined): void => {
    const next = { ...layer.getValue() };
    if (config === undefined) delete next[name];
    else next[name] = config;
    layer.next(next);
    r.reload('session');
  };

  // The groups are objects of closures (decision 286): a member works destructured.
  const approvals: McpLiveApprovals = {
    pending$: r.pendingApprovals$,
    pending: () => promptable,

    approve: async (name, { persist: keep = true, hash } = {}) => {
      if (approveSurface(name, hash)) return;
      const bound = shownHash(name, hash);
      if (keep) await persist([{ server: name, record: { hash: bound, status: 'approved' } }]);
      else sessionApprovals.next({ ...sessionApprovals.getValue(), [name]: bound });
      r.reload('approval');
    },

    approveAll: async (all = promptable) => {
      // Changed surfaces first, each by the hash that was shown; the entries in one write after.
      const surfacesShown = all.filter((p) => r.surfaceWaiting(p.name)?.hash === p.hash);
      const shown = all.filter((p) => !surfacesShown.includes(p));
      const changed = shown.filter((p) => {
        try {
          return currentHash(p.name) !== p.hash;
        } catch {
          return true;
        }
      });
      if (changed.length > 0) {
        r.reprompt();
        const names = changed.map((p) => p.name).join(', ');
        throw new Error(`${names} changed since ${changed.length === 1 ? 'it was' : 'they were'} shown; review again`);
      }
      for (const p of surfacesShown) approveSurface(p.name, p.hash);
      // One locked write for the whole set, however large.
      await persist(shown.map((p) => ({ server: p.name, record: { hash: p.hash, status: 'approved' as const } })));
      if (shown.length > 0) r.reload('approval');
      return all.map((p) => p.name);
    },

    reject: async (name, { hash } = {}) => {
      const surface = r.surfaceWaiting(name);
      if (surface !== undefined && (hash === undefined || hash === surface.hash)) {
        r.rejectSurface(name, surface.hash);
        return;
      }
      // Rejecting what was shown, even if the file changed since: the newer entry stays pending.
      const now = currentHash(name);
      const bound = hash ?? r.shownHash(name) ?? now;
      await persist([{ server: name, record: { hash: bound, status: 'rejected' } }]);
      const { [name]: _dropped, ...rest } = sessionApprovals.getValue();
      sessionApprovals.next(rest);
      r.reload('approval');
    },
  };

  const auth: McpLiveAuth = {
    authenticate: (name, { signal } = {}) => authenticate(name, signal),
    logout: (name) => oauth.logout(name),
  };

  const lsp: McpLiveLsp = {
    servers$: languageServers.servers$,
    diagnostics$: languageServers.diagnostics$,
    request: (method, params, target, requestOptions) => languageServers.request(method, params, target, requestOptions),
    open: (path, text) => languageServers.openDocument(path, text),
    change: (path, text) => languageServers.changeDocument(path, text),
    close: (path) => languageServers.closeDocument(path),

    addSession: (name, config) => editSessionLayer(sessionLsp, lspName(name), config),
    removeSession: (name) => editSessionLayer(sessionLsp, lspName(name), undefined),
  };

  const resources: McpLiveResources = {
    list: () => r.board.list().flatMap((s) => s.resources.map((resource) => ({ ...resource, server: s.name }))),
    templates: () => r.board.list().flatMap((s) => (s.resourceTemplates ?? []).map((template) => ({ ...template, server: s.name }))),
    read: (uri, requestOptions) => r.requests.readResource(uri, requestOptions),
    subscribe: (uri, requestOptions) => r.requests.subscribeResource(uri, requestOptions),
    unsubscribe: (uri, requestOptions) => r.requests.unsubscribeResource(uri, requestOptions),
    serverOf: (uri, request) => r.requests.serverOfResource(uri, request),
  };

  const prompts: McpLivePrompts = {
    list$: r.board.servers$.pipe(distinctFlatList((s) => s.prompts, (p, s) => ({ ...p, server: s.name }))),
    get: (name, args = {}, requestOptions) => r.requests.getPrompt(name, args, requestOptions),
    complete: (params, requestOptions) => r.requests.complete(params, requestOptions),
  };

  const sessionLayer: McpLiveSession = {
    add: (name, config) => {
      // A name the assembly would drop (`lsp:`) or no command could name is refused, not lost (decision 193).
      const badName = serverNameProblem(name);
      if (badName !== undefined) throw new Error(`session.add: ${badName}`);
      editSessionLayer(session, name, config);
    },

    remove: (name) => editSessionLayer(session, name, undefined),

    enable: (name, { persist = false } = {}) => setEnablement(name, true, persist),
    disable: (name, { persist = false } = {}) => setEnablement(name, false, persist),
  };

  const elicitation: McpLiveElicitation = {
    pending$: elicitations.pending$,
    answer: (id, answer) => elicitations.answer(id, answer),
  };

  const live: McpLive = {
    cwd: paths.cwd,
    profile: paths.profile,
    watching: [
      ...new Set([
        paths.extensionsDir,
        paths.user,
        paths.project,
        paths.lspProject,
        ...(paths.workspace === undefined ? [] : [paths.workspace]),
        ...(paths.system ? [paths.system] : []),
        ...paths.cli,
        ...paths.lspCli,
        paths.approvals,
        paths.trustedFolders,
        // The other records of the user's yes to this folder (decision 302).
        ...paths.launchTrust.peers,
        paths.launchTrust.claude,
      ]),
    ],
    servers$: r.board.servers$,
    // The agent's `lsp__*` tools follow the MCP servers' tools, while a language server can answer them.
    tools$: combineLatest([r.board.tools$, languageServers.tools$]).pipe(map(([mcp, lspTools]) => (lspTools.length === 0 ? mcp : [...mcp, ...lspTools]))),
    events$: events.asObservable(),
    approvals,
    auth,
    lsp,
    resources,
    prompts,
    session: sessionLayer,
    elicitation,

    async start() {
      if (subscription) return;
      const ready = firstValueFrom(events.pipe(filter((e) => e.type === 'ready'))).then(() => undefined);
      firstPass = ready;
      subscription = r.pendingApprovals$.subscribe((p) => (promptable = p));
      // The same list object while it is unchanged: the search index is built once per change.
      subscription.add(live.tools$.subscribe((t) => (currentTools = t)));
      subscription.add(r.events$.subscribe((e) => events.next(e)));
      subscription.add(r.board.changes$.subscribe(autoStartAuthorization));
      subscription.add(languageServers.pullOnConnect());
      events.next({ type: 'started', ts: now(), cwd: paths.cwd, profile: paths.profile, watching: [...live.watching] });
      // Before our servers start: end what a SIGKILLed mcp-live left running (bounded, ~2.5 s at
      // most), and read the surface record a lazy server is listed from.
      await Promise.all([
        openProcessGroupRegistry(options.runtimeDir ?? defaultRuntimeDir(paths.profile, options.homeDir), (message) =>
          events.next({ type: 'log', level: 'warn', message, ts: now() }),
        ),
        surfaces.load(),
        pins.load(),
      ]);
      if (subscription) r.start(); // not after a dispose() that came meanwhile
      await ready;
    },

    dispose() {
      disposed ??= (async () => {
        subscription?.unsubscribe();
        subscription = undefined;
        sessionEnded.abort(new Error('the session ended'));
        elicitations.dispose();
        await r.dispose();
        // A pin written at the end calls back into the surface records and the approval's pin
        // marker: both are written after it, so they are waited for after it, and nothing of this
        // session is written after dispose() resolves.
        await pins.flush();
        await Promise.all([surfaces.flush(), approvalMarks.flush()]);
        events.complete();
        session.complete();
        sessionLsp.complete();
        sessionApprovals.complete();
        sessionEnablement.complete();
        written.complete();
        activity.complete();
      })();
      return disposed;
    },

    planned: () => r.planned(),
    reload: () => r.reload('reload'),
    // An idle server is started, not reconnected: its record is what a reconnect would list (decision 196).
    reconnect: (name) => {
      const waking = r.wake(name);
      if (waking === undefined) return r.reconnect(name);
      waking.catch((error: unknown) =>
        events.next({ type: 'log', level: 'warn', message: `${name} did not start: ${error instanceof Error ? error.message : String(error)}`, ts: now() }),
      );
      return true;
    },

    async callTool(qualifiedName, args = {}, callOptions = {}) {
      if (firstPass === undefined) throw new Error('mcp-live is not started: call start() first');
      if (lspOperationOf(qualifiedName) !== undefined) {
        // Asked at start: the language servers of the first pass may still be connecting.
        await untilAborted(firstPass.catch(() => undefined), callOptions.signal);
        return languageServers.callTool(qualifiedName, args, callOptions);
      }
      const lists = (s: ServerStatus) => s.tools.some((t) => t.name === qualifiedName);
      if (!r.board.list().some(lists)) {
        // Until it is listed or the first pass has ended (decision 325): a server that connects is
        // called at once, whatever another one is still doing (a first `npx` download).
        const ended = firstPass.catch(() => {
          throw new Error('mcp-live was disposed before its first pass ended');
        });
        const listed = firstValueFrom(r.board.changes$.pipe(filter(lists), map(() => undefined), takeUntil(from(ended.catch(() => undefined)))), {
          defaultValue: undefined,
        });
        await untilAborted(Promise.race([listed, ended]), callOptions.signal);
      }
      return r.requests.callTool(qualifiedName, args, callOptions);
    },

    unavailableReason(name) {
      const s = r.board.status(name);
      // An idle server is available: the first call starts it (decision 196).
      if (!s || s.state === 'connected' || s.state === 'idle') return undefined;
      if (s.reason) {
        return { reason: s.reason, notAllowedBy: s.notAllowedBy, message: reasonText(s.reason, s.notAllowedBy, s.detail) };
      }
      if (s.state === 'error') return { reason: 'error', error: s.error, message: s.error ?? 'error' };
      if (s.state === 'needs_auth') return { reason: 'needs_auth', message: s.error ?? 'needs authentication' };
      return { reason: 'connecting', message: s.state };
    },

    serverOfTool: (q) => r.requests.serverOfTool(q),
    toolNotFoundMessage: (q) => r.requests.toolNotFoundMessage(q),
    searchTools: (query, searchOptions) => searchTools(currentTools, query, searchOptions),
    statusReport: () => r.board.list(),
    stderrTail: (name) => r.board.stderrTail(name),
    serverConfig: (name) => desiredNow()?.servers[name]?.config,
    settingsError: () => desiredNow()?.settingsError,
  };
  return live;
}


