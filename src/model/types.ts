
/**
 * The domain vocabulary of mcp-live (docs/contract.md, "Terms"). Pure data: no behaviour lives here.
 */

/** The kind of source an entry came from (docs/contract.md, "Settings sources"). */
export type Scope = 'user' | 'workspace' | 'system' | 'project' | 'cli' | 'session' | 'extension';

/** Scopes whose files arrive with a cloned repository: their servers need approval first. */
export const GATED_SCOPES: ReadonlySet<Scope> = new Set<Scope>(['project', 'workspace']);

/** Server assembly order, later wins by name (whole entry): docs/contract.md, "Precedence". */
export const SCOPE_PRECEDENCE: readonly Scope[] = [
  'extension',
  'user',
  'project',
  'workspace',
  'system',
  'cli',
  'session',
];

/**
 * One entry of an `mcpServers` map as written (docs/contract.md, "Server entries"). Unknown fields
 * are kept and ignored.
 */
export interface ServerConfig {
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
  url?: string;
  httpUrl?: string;
  /** Claude's `.mcp.json` field; `http`/`streamable-http` turn `url` into Streamable HTTP. */
  type?: string;
  headers?: Record<string, string>;
  /** Each request, in ms (default 600000); also bounds the connect when `connectTimeout` is not set. */
  timeout?: number;
  /** The connect deadline (spawn, `initialize`, first lists), in ms (default 30000). */
  connectTimeout?: number;
  trust?: boolean;
  description?: string;
  includeTools?: string[];
  excludeTools?: string[];
  disabled?: boolean;
  /** How a changed config takes over: `overlap` (default, make-before-break) or `stop-first`. */
  restart?: RestartPolicy;
  /** How to get a token for a remote server (decision 83; see `OAuthSettings`). */
  oauth?: Record<string, unknown>;
  /** The largest single message the server may send, in bytes (default 16 MiB, at most 256 MiB). */
  maxMessageBytes?: number;
  /** Start no process until the first request; list from the surface record meanwhile (decision 196). */
  lazy?: boolean;
  /** Stop the server after this many ms without a request in flight; the next request starts it again. */
  idleTimeout?: number;
  /**
   * A remote server's shell command whose stdout is a JSON object of headers, merged over
   * `headers` at each connect and again on a 401 (Claude Code's field; decision 240).
   */
  headersHelper?: string;
  /** A periodic MCP `ping` (decision 241): `true` (defaults), `false` (off), or its interval and timeout. */
  healthCheck?: boolean | { intervalMs?: number; timeoutMs?: number };
  /** The roots this server is given (decision 243): `false` = no roots capability; paths = those roots. */
  roots?: false | string[];
  [unknown: string]: unknown;
}

/** The values of `trustedFolders.json` (Gemini CLI and Qwen Code format: docs/contract.md, "Folder trust"). */
export type TrustRule = 'TRUST_FOLDER' | 'TRUST_PARENT' | 'DO_NOT_TRUST';

export type TransportKind = 'stdio' | 'sse' | 'http';

/** The request timeout of an entry without `timeout` (decision 24), as the peers have it: 10 minutes. */
export const DEFAULT_TIMEOUT_MS = 600_000;
/** The connect deadline of an entry without `connectTimeout` or a shorter `timeout` (decision 24). */
export const DEFAULT_CONNECT_TIMEOUT_MS = 30_000;
/**
 * The longest connect deadline and request timeout a config may ask for: 10 minutes. A larger
 * value is capped, so no server can hold a connect open for days (decision 17) — and Node's timers,
 * which fire at once past 2^31-1 ms, never see an overflowing value.
 */
export const MAX_TIMEOUT_MS = 600_000;

/**
 * The largest `maxMessageBytes` an entry may ask for: 256 MiB (a larger value is capped). Past it
 * one JSON text nears V8's longest string, and parsing it costs gigabytes.
 */
export const MAX_MESSAGE_BYTES_CAP = 256 * 1024 * 1024;

/** The kind of a server, by its key in the desired state (`lsp:NAME` is a language server). */
export type ServerKind = 'mcp' | 'lsp';

/** Where a socket-transport server listens. */
export type LspSocket = { port: number; host: string } | { path: string };

/**
 * What of a language server's entry is applied in place, without a restart: the settings, the
 * routing by extension, the shutdown deadline and the restart policy.
 */
export interface LspView {
  settings?: unknown;
  /** Extension (`.ts`) → language id (`typescript`). */
  extensionToLanguage: Readonly<Record<string, string>>;
  shutdownTimeout: number;
  restartOnCrash: boolean;
  maxRestarts: number;
}

/** How a language server is reached, after validation and expansion (the `lsp` block of a resolved config). */
export interface ResolvedLsp {
  transport: 'stdio' | 'socket';
  socket?: LspSocket;
  /** Absolute: the server's root, its process's cwd. */
  workspaceFolder: string;
  initializationOptions?: unknown;
  /** The view the connection starts with (later ones come with `Connection.reconfigure`). Not in the fingerprint. */
  view: LspView;
}

/** The grants mcp-live can run: the user's browser, or a machine's own credentials. */
export type OAuthGrant = 'authorization_code' | 'client_credentials' | 'jwt-bearer';

/** The identity provider of the cross-app access flow (ID-JAG token exchange, then a JWT bearer grant). */
export interface IdpSettings {
  /** The IdP's token endpoint, where the ID token is exchanged for an ID-JAG (RFC 8693). */
  tokenUrl: string;
  /** The client ID registered at the IdP. */
  clientId: string;
  clientSecret?: string;
  /** The user's ID token at the IdP (the subject token). */
  idToken: string;
}

/** An `oauth` block after validation and expansion. */
export interface OAuthSettings {
  /** `false`: never attempt OAuth; a 401 is an error (default true). */
  enabled: boolean;
  grantType: OAuthGrant;
  clientId?: string;
  clientSecret?: string;
  /** Scopes to request when neither the 401 nor the server's metadata names any. */
  scopes?: string[];
  /** Pins the loopback redirect URI (default `http://127.0.0.1:<port chosen then>/callback`). */
  redirectUri?: string;
  /** Overrides discovery of the authorization server's endpoints. */
  authorizationUrl?: string;
  tokenUrl?: string;
  /** Audiences the token is for (sent as `audience` where the server takes it). */
  audiences?: string[];
  /** An HTTPS URL of this client's metadata document (CIMD): used as client ID where supported. */
  clientMetadataUrl?: string;
  /** `client_credentials` with a private-key JWT (RFC 7523): the PEM key and its algorithm. */
  privateKey?: string;
  signingAlgorithm?: string;
  idp?: IdpSettings;
  /** Start the flow as soon as the server needs it, without waiting for `/mcp auth` (headless: emits `auth-required`). */
  autoStart: boolean;
}

/** A server config after validation and `$VAR` expansion: what a connector needs. */
export interface ResolvedServerConfig {
  transport: TransportKind;
  command?: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
  url?: string;
  headers: Record<string, string>;
  /** The request timeout, ms. */
  timeout: number;
  /**
   * The connect deadline, ms. Always set by the resolver; optional only so hand-written configs
   * (tests, hosts) stay valid — the connector then uses {@link DEFAULT_CONNECT_TIMEOUT_MS}.
   */
  connectTimeout?: number;
  /** A remote server's `oauth` block, expanded (absent: OAuth with everything discovered). */
  oauth?: OAuthSettings;
  /**
   * The largest single message the server may send, bytes (decision 182): an HTTP body, one SSE
   * event, one stdio line. Absent: the connector's default, 16 MiB.
   */
  maxMessageBytes?: number;
  /** Set for a language server (decision 148): how to speak LSP to the process `command` starts. */
  lsp?: ResolvedLsp;
  /**
   * When the process runs (decision 196): `lazy` / `idleTimeout` of the entry (or the file's
   * `mcp.lazy`). Not in the fingerprint — they change when a process runs, not what it is — and
   * repeated in the view so that a change applies to the live connection in place.
   */
  lifecycle?: Lifecycle;
  /**
   * A remote server's `headersHelper` (decision 240): the shell command as written (only the
   * built-in `${workspacePath}` / `${extensionPath}` / `${/}` expanded — the shell reads the rest
   * of the environment itself) and the directory it runs in: the workspace for a gated entry, the
   * home directory for any other (decision 299; absent: the home directory).
   */
  headersHelper?: { command: string; cwd?: string };
  /**
   * The entry's `healthCheck` (decision 241): `false` turns the default off, an object sets it.
   * Absent when not written: the connector's default applies (`healthCheckOf` in validate.ts).
   */
  healthCheck?: false | HealthCheck;
  /**
   * The entry's `roots` (decision 243): `false` advertises no roots capability; a list is what
   * `roots/list` answers, paths resolved against the workspace as `file://` URIs. Absent: the
   * session's roots (the workspace).
   */
  roots?: false | readonly Root[];
}

/** A periodic `ping` of a live connection (decision 241). */
export interface HealthCheck {
  /** From one answer (or the connect) to the next ping, ms. */
  intervalMs: number;
  /** How long a ping may go unanswered before the connection counts as lost, ms. */
  timeoutMs: number;
}

/** One root as `roots/list` gives it. */
export interface Root {
  uri: string;
  name?: string;
}

/** A remote server's health check when its entry says nothing (decision 241): a ping a minute. */
export const DEFAULT_HEALTH_CHECK: HealthCheck = { intervalMs: 60_000, timeoutMs: 10_000 };
/** The shortest `healthCheck.intervalMs`: a second (a ping is a request the server answers). */
export const MIN_HEALTH_CHECK_INTERVAL_MS = 1_000;

/** When a server's process runs: started on first use (`lazy`), stopped after `idleTimeoutMs` without a request. */
export interface Lifecycle {
  lazy?: boolean;
  idleTimeoutMs?: number;
}

/** Fields that change what a connected server shows, not how it is reached. */
export interface ViewFields {
  includeTools?: string[];
  excludeTools?: string[];
  trust?: boolean;
  description?: string;
  /**
   * How a changed config takes over (decision 101): `overlap` (default) starts the new process while
   * the old one serves and swaps them once it has listed; `stop-first` stops the old one first
   * (a server that holds a port or a lock). Not a view field strictly, but like them it changes
   * nothing about the connection: it is read when a change comes, never reconnects by itself.
   */
  restart?: RestartPolicy;
  /** A language server's fields applied in place (decision 148): settings, routing, shutdown, restart policy. */
  lsp?: LspView;
  /** `lazy` / `idleTimeout`, applied to the live connection in place (decision 196). */
  lifecycle?: Lifecycle;
}

export type RestartPolicy = 'overlap' | 'stop-first';

/** The `mcp` key of a settings file, as far as admission is concerned. */
export interface McpSettings {
  allowed?: string[];
  excluded?: string[];
  serverCommand?: string;
  /** The default of `lazy` for the entries of this file (decision 196); an entry's own `lazy` wins. */
  lazy?: boolean;
  /** `strict`: a user-scope server's changed tools are withheld like a gated one's (decision 197). */
  pinTools?: 'strict' | 'report';
}

/** The `lsp` key of a settings file: the same admission lists, for language servers (decision 147). */
export interface LspSettings {
  allowed?: string[];
  excluded?: string[];
}

/**
 * One source's current content (docs/contract.md, "Settings sources"). Settings files also carry
 * their `mcp` admission keys and folder-trust switch; `.mcp.json`, `--mcp-config`, extensions and
 * the session carry servers only.
 */
export interface SourceSnapshot {
  scope: Scope;
  /** Path of the file (or a label such as `session` / `extension:NAME`). */
  file: string;
  /** Raw `mcpServers` entries as written; validated later, per entry. */
  servers: Record<string, unknown>;
  /**
   * Raw language server entries (`lspServers` of a settings file or manifest, a `.lsp.json`),
   * keyed by their own names (without `lsp:`): assembly keys them `lsp:NAME` (decision 145).
   */
  lspServers?: Record<string, unknown>;
  /** An extension's directory (scope `extension`): what `${extensionPath}` expands to. */
  extensionPath?: string;
  mcp?: McpSettings;
  /** `lsp.allowed` / `lsp.excluded` of a settings file. */
  lsp?: LspSettings;
  /**
   * Set by assembly on the layer it makes of a source's `lspServers` (keys `lsp:NAME`), so the
   * incremental assembly keeps the two layers of one file apart. Readers never set it.
   */
  layer?: 'lsp';
  /** `security.folderTrust.enabled`, honoured from user and system settings only. */
  folderTrustEnabled?: boolean;
  /**
   * Set while a settings file has never been read whole: it did not parse on its first read, or
   * an admission key (`mcp`, `security`) had the wrong type, so there is no last good content.
   * The message names the file and the position. Honoured for user and system settings, whose
   * admission keys (`mcp.excluded`, folder trust) guard everything: admission fails closed.
   */
  broken?: string;
}

/** One assembled entry: the winning config for a name, tagged with where it came from. */
export interface AssembledServer {
  /** The key in the desired state: the MCP server's name, or `lsp:NAME` for a language server. */
  name: string;
  scope: Scope;
  /** The source file the entry came from. */
  source: string;
  /** The entry as written (before expansion). Not guaranteed valid. */
  config: unknown;
  /** The extension's directory, for an entry of an extension ({@link SourceSnapshot.extensionPath}). */
  extensionPath?: string;
  /** `mcp.lazy` of the file the entry came from: its `lazy` when it has none (decision 196). */
  lazyDefault?: boolean;
}

export type ApprovalStatus = 'approved' | 'rejected';

/** One stored decision, bound to an approval hash (docs/contract.md, "Approvals"). */
export interface ApprovalRecord {
  hash: string;
  status: ApprovalStatus;
  /**
   * The digest (`pinDigest`, 64 hex) of the pin recorded for the approved server's surface
   * (decision 309): set once it was pinned, and again when the user approves a changed surface. A
   * server with no pin for its fingerprint is offered only when its surface has this very pin.
   */
  pin?: string;
}

/** Decisions for one project root: server name → record. */
export type ApprovalDecisions = Readonly<Record<string, ApprovalRecord>>;

/** The approval state of a gated server for its current hash. */
export type ApprovalState = 'pending' | ApprovalStatus;

/**
 * The admission lists that the reconcile gate compares (`mcpGatingEqual`; docs/contract.md, "Passes").
 * `allowed` absent = allow all; `[]` = deny all. `rejected` is ours: a reject must
 * update the reason shown even though the pending set did not change (decision 1).
 */
export interface Gating {
  allowed?: readonly string[];
  excluded?: readonly string[];
  /** `lsp.allowed` / `lsp.excluded` merged (decision 147): the bounds of language servers, by their own names. */
  lspAllowed?: readonly string[];
  lspExcluded?: readonly string[];
  pending?: readonly string[];
  rejected?: readonly string[];
  /** Names disabled for this session (`/mcp disable`): blocked as `disabled`, whatever the file says. */
  sessionDisabled?: readonly string[];
  /**
   * Names enabled for this session (`/mcp enable`): a `disabled: true` in the file is ignored —
   * only that; exclusion, allow lists, folder trust and approval still apply.
   */
  sessionEnabled?: readonly string[];
  /** `mcp.pinTools` of the user / system settings: `strict` withholds every server's changed tools (decision 197). */
  pinTools?: 'strict' | 'report';
  /**
   * Present while no record trusts the workspace (decision 302): the user's own servers that
   * start a process there wait for a yes when the folder could change what they run (decision 301).
   */
  launch?: LaunchHold;
}

/**
 * What holds the user's own servers in a folder the user has not said yes to (decision 301):
 * present in the gating while no record trusts the workspace (decision 302), absent once one does.
 */
export interface LaunchHold {
  /** The workspace, resolved: the folder in question. */
  workspace: string;
  /** The launcher files found in it and its ancestors below the home directory: absolute paths, sorted, distinct. */
  files: readonly string[];
  /** Where the file system ignores case (decision 283): paths compare case-blind. */
  ignoresCase: boolean;
  /** Windows paths: `\` separates too, and `C:\x` is absolute. */
  windows: boolean;
}

/** What the sources say should be running (docs/contract.md, "Terms"). */
export interface DesiredState {
  servers: Readonly<Record<string, AssembledServer>>;
  gating: Gating;
  /** False only when folder trust is enabled and this folder is not trusted. */
  trusted: boolean;
  /**
   * Why no server may connect: a user or system settings file that has never parsed
   * ({@link SourceSnapshot.broken}), in words with the file and position. Absent when all is well.
   */
  settingsError?: string;
}

/** Why a server is not connected (docs/contract.md, "Admission"; `removed` included). */
export type Reason =
  | 'settings_error'
  | 'untrusted_folder'
  | 'excluded'
  | 'not_allowed'
  | 'disabled'
  | 'rejected'
  | 'pending_approval'
  | 'untrusted_launch'
  | 'removed';

/** Which bound a `not_allowed` came from, for the words shown to the user. */
export type NotAllowedBy = 'flag' | 'settings';

/**
 * `idle`: a `lazy` server listed from its surface record, or one stopped after `idleTimeout`: no
 * process, its tools listed, the next request starts it (decision 196).
 * `needs_auth`: a remote server answered 401 and no stored token works; it waits for the user to
 * authorize (`/mcp auth NAME`) and is not retried until then (decision 83).
 */
export type ServerState = 'connecting' | 'connected' | 'idle' | 'disconnected' | 'error' | 'blocked' | 'needs_auth';

/**
 * What a server says about an item besides its name and description, kept as it gave them so
 * that a gateway (decision 111) shows the item exactly as the server listed it.
 */
export interface ListedExtras {
  title?: string;
  icons?: readonly unknown[];
  _meta?: Record<string, unknown>;
}

/** A tool as the server lists it. */
export interface ToolInfo extends ListedExtras {
  name: string;
  description?: string;
  inputSchema?: unknown;
  outputSchema?: unknown;
  annotations?: Record<string, unknown>;
  /** Task support (`taskSupport`); a gateway passes it on but offers no tasks itself. */
  execution?: Record<string, unknown>;
}

export interface PromptInfo extends ListedExtras {
  name: string;
  description?: string;
  arguments?: readonly { name: string; description?: string; required?: boolean }[];
}

export interface ResourceInfo extends ListedExtras {
  uri: string;
  name?: string;
  description?: string;
  mimeType?: string;
  size?: number;
  annotations?: Record<string, unknown>;
}

/** A family of resources (`resources/templates/list`): `uriTemplate` is an RFC 6570 URI template. */
export interface ResourceTemplateInfo extends ListedExtras {
  uriTemplate: string;
  name?: string;
  description?: string;
  mimeType?: string;
  annotations?: Record<string, unknown>;
}

/** Lists of one server, as reported by it (unfiltered). */
export interface ServerLists {
  tools: readonly ToolInfo[];
  prompts: readonly PromptInfo[];
  resources: readonly ResourceInfo[];
  /** Absent from a connection that never lists them (test fakes): no templates. */
  resourceTemplates?: readonly ResourceTemplateInfo[];
}

/** Decisions for one project root (the approvals file's: docs/contract.md, "Approvals"), and why some could not be read. */
export interface ApprovalsRead {
  decisions: ApprovalDecisions;
  /** Set when the file (or part of it) was unusable and read as "no decision". */
  warning?: string;
}

/** The approvals file (docs/contract.md, "Approvals"), as sinks/stores/approvalsStore.ts keeps it. */
export interface ApprovalsStore {
  readonly file: string;
  read(projectRoot: string): Promise<ApprovalsRead>;
  /** Stores `record` for `server` in `projectRoot`; `undefined` forgets the decision. */
  decide(projectRoot: string, server: string, record: ApprovalRecord | undefined): Promise<void>;
  /** Stores every decision of the list in one locked read-modify-write ("approve all"). */
  decideAll(projectRoot: string, decisions: readonly ApprovalChange[]): Promise<void>;
  /** Records `pin` (a pin's digest) in the approval of `server` for `hash` (decision 309); nothing when it is not that approval any more. */
  markPinned?(projectRoot: string, server: string, hash: string, pin: string): Promise<void>;
}

/** One decision for {@link ApprovalsStore.decideAll}; `record: undefined` forgets it. */
export interface ApprovalChange {
  server: string;
  record: ApprovalRecord | undefined;
}
