import type { EntryFieldChange } from '../admission/entryChanges.js';
import type { ReviewLine } from '../admission/reviewEntry.js';
import type { SurfaceChange } from '../tools/surfaceTypes.js';
import type {
  NotAllowedBy,
  PromptInfo,
  Reason,
  ResourceInfo,
  ResourceTemplateInfo,
  Scope,
  ServerState,
  ToolInfo,
  TransportKind,
} from '../types.js';

/**
 * A tool as exposed to the agent: qualified name plus what the server said about it (title,
 * schemas, annotations, icons and `_meta` kept as listed, so a gateway shows it unchanged).
 */
export interface QualifiedTool extends Omit<ToolInfo, 'name'> {
  /** `mcp__<server>__<tool>`, sanitized and at most 64 characters. */
  name: string;
  server: string;
  /** The tool's own name on its server. */
  tool: string;
  /** The server's `trust` setting: `true` lets a host run this tool without asking each time. */
  trust: boolean;
}

/** A prompt as its server lists it, with the qualified name a gateway exposes it under. */
export interface ListedPrompt extends PromptInfo {
  /**
   * `mcp__<server>__<prompt>`, built like a tool's qualified name: unique across servers. Absent
   * for a server whose name got no unique part (its tools are withheld too).
   */
  qualifiedName?: string;
}

/** One line of a server's recent history (connects, reconnects, errors), for the detail view. */
export interface HistoryEntry {
  ts: number;
  state: ServerState;
  message?: string;
}

/**
 * Everything the session knows about one server: the value behind `servers$`, the `server`
 * NDJSON event and the UI. Never carries env or header values.
 */
export interface ServerStatus {
  /** The key of the server: its name, or `lsp:NAME` for a language server. */
  name: string;
  /** `lsp` for a language server (decision 145); absent for an MCP server. */
  kind?: 'lsp';
  scope: Scope;
  source: string;
  state: ServerState;
  reason?: Reason;
  notAllowedBy?: NotAllowedBy;
  /** The reason in words where it depends on more than the name (`settings_error`: which file, where). */
  detail?: string;
  error?: string;
  /**
   * Problems with the entry that do not stop it, in words, names only ("GITHUB_PAT is not set":
   * an unset variable expanded to ""). Absent when there are none.
   */
  warnings?: readonly string[];
  pid?: number;
  transport?: TransportKind;
  fingerprint?: string;
  /** The entry's `trust` setting, for a server the last pass wanted (absent for a blocked one). */
  trust?: boolean;
  tools: readonly QualifiedTool[];
  prompts: readonly ListedPrompt[];
  resources: readonly ResourceInfo[];
  /** The server's resource templates, when it lists any. */
  resourceTemplates?: readonly ResourceTemplateInfo[];
  /** Name and version from the server's `initialize` answer, while connected. */
  serverInfo?: { name: string; version: string; title?: string };
  /**
   * The MCP revision the connection negotiated (`2026-07-28`, `2025-11-25` …), while connected
   * (decision 380); absent for a language server.
   */
  protocolVersion?: string;
  /** The protocol era of `protocolVersion`: `modern` (2026-07-28 and later, no `initialize`) or `legacy`. */
  era?: 'modern' | 'legacy';
  /** The server's `instructions` from `initialize` (how to use it), while connected. */
  instructions?: string;
  /** A summary of what the server said it can do in `initialize`, while connected (language servers). */
  capabilities?: readonly string[];
  /** A language server's language ids (from `extensionToLanguage`), sorted, while wanted. */
  languages?: readonly string[];
  /**
   * Why a server in state `idle` has no process (decision 196): `lazy` (never started, listed from
   * its record) or `idle-timeout` (stopped after `idleTimeoutMs` without a request).
   */
  idle?: 'lazy' | 'idle-timeout';
  /** The entry's `idleTimeout`, ms, when it has one. */
  idleTimeoutMs?: number;
  /**
   * Tools (own names) this server lists but that are withheld from `tools` because their
   * definition changed since the user approved the server (decision 197); absent when none.
   */
  withheld?: readonly string[];
  history: readonly HistoryEntry[];
}

/**
 * A gated server waiting for the user's decision: what the approval dialog shows. A decision
 * names `hash`, the approval hash of exactly this entry: if the file changed since, the decision
 * is refused and the user is asked again (decision 52).
 */
export interface PendingApproval {
  name: string;
  scope: Scope;
  source: string;
  /** `command args…` or the URL it would connect to (secrets masked). */
  target: string;
  hash: string;
  /** The entry as written, `${VAR}` references kept, literal secrets masked. */
  config: unknown;
  /** The environment variables the entry reads, sorted. */
  readsEnv: readonly string[];
  /** Everything that decides what runs or where data goes, one line a fact (see `reviewEntry`). */
  review: readonly ReviewLine[];
  /**
   * Set when what waits is not the entry but its server's changed tools (decision 197): the
   * differences from the surface the user approved. `hash` then binds the entry and the new surface.
   */
  surface?: readonly SurfaceChange[];
  /**
   * Set when the entry waits again because it changed since the user approved it (decision 331):
   * the fields that changed, before → after, when the approved entry is known this session;
   * `changes` absent when it is not (approved in an earlier session, edited before this one).
   */
  edited?: { changes?: readonly EntryFieldChange[] };
}
