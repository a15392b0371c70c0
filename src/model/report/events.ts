import type { EntryFieldChange } from '../admission/entryChanges.js';
import type { SurfaceChange } from '../tools/surfaceTypes.js';
import type { Scope, ServerState, Reason } from '../types.js';

/** What started a reconcile pass. */
export type Trigger = 'initial' | 'watch' | 'reload' | 'approval' | 'session' | 'reconnect';

interface Stamped {
  /** Epoch ms. */
  ts: number;
}

export interface StartedEvent extends Stamped {
  type: 'started';
  cwd: string;
  profile: string;
  watching: string[];
}

export interface ServerEvent extends Stamped {
  type: 'server';
  /** The server's key: its name, or `lsp:NAME` for a language server. */
  name: string;
  /** `mcp`, or `lsp` for a language server (decision 145). */
  kind: 'mcp' | 'lsp';
  scope: Scope;
  source: string;
  state: ServerState;
  reason?: Reason;
  /** The reason in words where it depends on more than the name (`settings_error`). */
  detail?: string;
  pid?: number;
  tools?: string[];
  prompts?: string[];
  /** The MCP revision a connected (or idle) server speaks, and its era (decision 380). */
  protocolVersion?: string;
  era?: 'modern' | 'legacy';
  /** A connected language server's language ids and capability summary. */
  languages?: string[];
  capabilities?: string[];
  error?: string;
}

/**
 * One pass. Names per change kind; `unchanged` is a count (it can be large): every name the pass
 * left as it was, blocked ones included; `kept` only those of them whose server runs on
 * (connected, connecting or idle — decision 329), the log's `kept N`.
 */
export interface ReconcileEvent extends Stamped {
  type: 'reconcile';
  generation: number;
  trigger: Trigger;
  added: string[];
  removed: string[];
  reconnected: string[];
  updated: string[];
  unchanged: number;
  kept: number;
  blocked: string[];
  ms: number;
}

/** One server of `approval-required`: where it comes from, the hash a decision names, the entry as written. */
export interface ApprovalRequest {
  name: string;
  scope: Scope;
  source: string;
  /** Pass it back with `{"cmd":"approve","server":…,"hash":…}`: a changed entry is refused. */
  hash: string;
  /** The entry as written (`${VAR}` references kept, literal secrets masked). */
  config: unknown;
  /** The environment variables the entry reads. */
  readsEnv: string[];
  /** A changed surface waits, not the entry (decision 197): what changed since it was approved. */
  surface?: SurfaceChange[];
  /**
   * The entry waits again because it changed since it was approved (decision 331): the fields that
   * changed, before → after, when the approved entry is known this session; `{}` when it is not.
   */
  edited?: { changes?: EntryFieldChange[] };
}

/**
 * A server shows another surface than the one recorded for it (decision 197): a tool added or
 * removed, a description, schema or annotations changed. `withheld`: the tools kept from the
 * agent until the user approves the new surface (gated servers, or `mcp.pinTools: "strict"`).
 */
export interface SurfaceChangedEvent extends Stamped {
  type: 'surface-changed';
  server: string;
  changes: SurfaceChange[];
  withheld?: string[];
}

export interface ApprovalRequiredEvent extends Stamped {
  type: 'approval-required';
  servers: ApprovalRequest[];
}

export interface SettingsErrorEvent extends Stamped {
  type: 'settings-error';
  file: string;
  /** The message, starting with `file:line:column:` when the position is known. */
  error: string;
  line?: number;
  column?: number;
}

/**
 * A file that raised `settings-error` reads cleanly again (it parses, every known key has its
 * type, or it is gone): once per recovery, so a UI can clear that file's error line.
 */
export interface SettingsOkEvent extends Stamped {
  type: 'settings-ok';
  file: string;
}

export interface RestartRequiredEvent extends Stamped {
  type: 'restart-required';
  file: string;
  keys: string[];
}

/**
 * The user must open `url` to authorize `server` (decision 83): emitted when an authorization starts
 * (`/mcp auth`, `{"cmd":"auth"}`, `oauth.autoStart`). Whoever opens it in a browser completes it;
 * mcp-live listens for the browser's return on 127.0.0.1 and then reconnects the server.
 */
export interface AuthRequiredEvent extends Stamped {
  type: 'auth-required';
  server: string;
  url: string;
}

export interface ReadyEvent extends Stamped {
  type: 'ready';
}

export interface ResultEvent extends Stamped {
  type: 'result';
  id?: string | number;
  ok: boolean;
  data?: unknown;
  error?: string;
}

/**
 * A server asks the user to fill in a form (`elicitation/create`). Answer it with
 * `{"cmd":"elicit","id":…,"action":"accept|decline|cancel","content":{…}}` before the server
 * entry's `timeout` passes; after it, the server is told `cancel`.
 */
export interface ElicitationEvent extends Stamped {
  type: 'elicitation';
  id: string;
  server: string;
  message: string;
  /** The form: a flat JSON Schema object (`properties` with `type`, `title`, `default`, `enum`; `required`). */
  schema: unknown;
}

/** A `call` in flight reports progress (`id` is the command's). */
export interface ProgressEvent extends Stamped {
  type: 'progress';
  id?: string | number;
  progress: number;
  total?: number;
  message?: string;
}

export interface LogEvent extends Stamped {
  type: 'log';
  level: 'debug' | 'info' | 'warn' | 'error';
  message: string;
}

/**
 * `mcp-live serve` accepts clients (decision 132): where, never how to authenticate (the token is
 * printed only by `serve --print-token`). `url` is missing when no HTTP endpoint runs.
 */
export interface GatewayListeningEvent extends Stamped {
  type: 'gateway-listening';
  url?: string;
  /** The local socket `serve --stdio` attaches through. */
  socket: string;
}

/** A client of `mcp-live serve`, as the gateway knows it (name and version once it has initialized). */
export interface GatewayClientFields {
  /** The gateway's id of the connection: unique for the gateway's life. */
  client: string;
  transport: 'stdio' | 'socket' | 'http';
  clientName?: string;
  clientVersion?: string;
  /** Clients connected after this event. */
  clients: number;
}

export interface ClientConnectedEvent extends Stamped, GatewayClientFields {
  type: 'client-connected';
}

export interface ClientDisconnectedEvent extends Stamped, GatewayClientFields {
  type: 'client-disconnected';
}

/** Every event (docs/contract.md, "Events"), as emitted by `events$` and written as NDJSON by `--json`. */
export type McpLiveEvent =
  | StartedEvent
  | ServerEvent
  | ReconcileEvent
  | ApprovalRequiredEvent
  | SurfaceChangedEvent
  | SettingsErrorEvent
  | SettingsOkEvent
  | RestartRequiredEvent
  | ReadyEvent
  | AuthRequiredEvent
  | ResultEvent
  | ElicitationEvent
  | ProgressEvent
  | LogEvent
  | GatewayListeningEvent
  | ClientConnectedEvent
  | ClientDisconnectedEvent;
