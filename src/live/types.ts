/**
 * The library's face: what `createMcpLive` returns and takes. Hosts (the terminal UI, the
 * gateway, the CLI) and embedders speak in these types; none of them needs the composition root.
 */
import type {
  CompleteRequestParams,
  CompleteResult,
  CreateMessageRequestParams,
  CreateMessageResult,
  LoggingMessageNotification,
} from '@modelcontextprotocol/client';
import type { Observable } from 'rxjs';
import type { CallToolOptions, Connector, ElicitationAnswer, RequestOptions } from '../model/connection.js';
import type { McpLiveEvent } from '../model/report/events.js';
import type { ListedPrompt, PendingApproval, QualifiedTool, ServerStatus } from '../model/report/status.js';
import type { NotAllowedBy, Reason, ResourceInfo, ResourceTemplateInfo } from '../model/types.js';
import type { ToolMatch, ToolSearchOptions } from '../model/tools/toolSearch.js';
import type { ConnectionPool } from '../sinks/mcp/connectionPool.js';
import type { PendingElicitation } from '../sinks/mcp/elicitationQueue.js';
import type { FileDiagnostics, OpenDocument } from '../sinks/lsp/documents.js';
import type { LspTarget } from '../sinks/lsp/languageServers.js';
import type { ExtraSource } from '../streams/fromAllSources.js';
import type { WatchFactory } from '../streams/watchFactory.js';
import type { ReconcilerDeps } from './reconciler.js';
import type { SettingsLocations } from './settingsPaths.js';

export type { ExtraSource, PendingElicitation };

/**
 * The options the session passes on to the reconcile pipeline as they are (decision 348): each is
 * written and documented once, on {@link ReconcilerDeps}.
 */
export type PipelineOptions = Pick<ReconcilerDeps, 'allowedMcpServerNames' | 'env' | 'scheduler' | 'debounceMs' | 'concurrency' | 'strategy' | 'hints'>;

/**
 * Options of `createMcpLive`: where the files are ({@link SettingsLocations}, each with a default
 * under the home directory or the workspace), what the pipeline takes as it is
 * ({@link PipelineOptions}), and the session's own below.
 */
export interface McpLiveOptions extends SettingsLocations, PipelineOptions {
  /** How servers are reached (default: the MCP SDK over stdio, SSE and Streamable HTTP). */
  connector?: Connector;
  /**
   * A connection pool shared with other sessions of this process: servers are acquired
   * from it instead of spawned, and released on disconnect. Admission, approvals, the registry and
   * statuses stay per session. `dispose()` then releases this session's connections; the pool's
   * owner disposes the pool. Give either `pool` or `connector`, not both.
   */
  pool?: ConnectionPool;
  extraSources?: readonly ExtraSource[];
  /** File watching seam (default chokidar). */
  watch?: WatchFactory;
  /**
   * Where stdio servers' process groups are recorded while they run, so that a later session can
   * end what a SIGKILLed one left (default `$XDG_RUNTIME_DIR/mcp-live`, else `<home>/.<profile>/run`).
   */
  runtimeDir?: string;
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
   * Every level comes, the host filters (decision 369): with it, a 2026-07-28 server's requests
   * ask for its log messages, which such a server sends only when asked.
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
  /** The language servers' statuses: the `lsp:NAME` part of `servers.list$`. */
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

/** The servers of the session: their statuses, their entries, and what to do about one. */
export interface McpLiveServers {
  /** Every known server (MCP and language servers), published together once per pass. */
  readonly list$: Observable<readonly ServerStatus[]>;
  /** The current status of every known server (for `status` and `{"cmd":"status"}`). */
  readonly status: () => readonly ServerStatus[];
  /** A server's entry as written (before `$VAR` expansion), for review; show it masked. */
  readonly config: (name: string) => unknown;
  /** The last stderr lines of a stdio server (at most 200, secrets masked). */
  readonly stderrTail: (name: string) => readonly string[];
  /** Restarts one server (`/reconnect NAME`); an idle one is started instead (decision 196). */
  readonly reconnect: (name: string) => boolean;
  /** Why a server has no tools right now, in data and in words; undefined when it has them (or is idle). */
  readonly unavailable: (name: string) => Unavailable | undefined;
}

/** The tools of connected servers: the list, calls, search, and the words for a tool that is not there. */
export interface McpLiveTools {
  /** The tools of connected servers (and the `lsp__*` tools while a language server can answer them). */
  readonly list$: Observable<readonly QualifiedTool[]>;
  /**
   * Calls a tool by its qualified name. A tool not listed yet while the first pass has not ended
   * waits until it is listed or that pass has ended (a call made at start must not be told that
   * its server is not configured, decision 325); a listed one is called at once, whatever other
   * servers are still doing. Before `start()` it rejects. An aborted `signal` rejects at once
   * with its reason and cancels the request.
   */
  readonly call: (qualifiedName: string, args?: Record<string, unknown>, options?: CallToolOptions) => Promise<unknown>;
  /**
   * The tools of `list$` that best match `query` (decisions 215, 312, 313: BM25-like over the
   * tool's name, its server's name, its description and its parameters, with light stemming; no
   * network, no model; a server cannot buy rank with its own text), best first — what
   * `serve --progressive` answers `search_tools` with. Withheld and unapproved tools are never
   * among them. Default limit 5, at most 50.
   */
  readonly search: (query: string, options?: ToolSearchOptions) => ToolMatch[];
  /**
   * The configured server a qualified tool name belongs to, whether or not it lists that tool
   * now (a pending or failed server lists none): whose {@link McpLiveServers.unavailable} applies.
   */
  readonly serverOf: (qualifiedName: string) => string | undefined;
  /** What a call to a tool that is not there is told: the reason and the fix. */
  readonly notFoundMessage: (qualifiedName: string) => string;
}

/**
 * The library's face: the session's facts and its lifecycle at the top level, everything else in
 * groups (decisions 286, 346). Group members are plain functions: they work destructured
 * (`const { approve } = live.approvals`, `const { call } = live.tools`).
 */
export interface McpLive {
  readonly cwd: string;
  readonly profile: string;
  /** Every file watched, in precedence order. */
  readonly watching: readonly string[];
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
  /**
   * Why no server may connect, when a user or system settings file has never parsed (admission
   * fails closed, reason `settings_error`); undefined when all is well.
   */
  settingsError(): string | undefined;
  readonly servers: McpLiveServers;
  readonly tools: McpLiveTools;
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

