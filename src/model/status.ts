import type {
  NotAllowedBy,
  PromptInfo,
  Reason,
  ResourceInfo,
  Scope,
  ServerState,
  TransportKind,
} from './types.js';

/** A tool as exposed to the agent: qualified name plus what the server said about it. */
export interface QualifiedTool {
  /** `mcp__<server>__<tool>`, sanitized and at most 64 characters. */
  name: string;
  server: string;
  /** The tool's own name on its server. */
  tool: string;
  description?: string;
  inputSchema?: unknown;
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
  name: string;
  scope: Scope;
  source: string;
  state: ServerState;
  reason?: Reason;
  notAllowedBy?: NotAllowedBy;
  error?: string;
  pid?: number;
  transport?: TransportKind;
  fingerprint?: string;
  tools: readonly QualifiedTool[];
  prompts: readonly PromptInfo[];
  resources: readonly ResourceInfo[];
  history: readonly HistoryEntry[];
}

/** A gated server waiting for the user's decision: what the approval dialog shows. */
export interface PendingApproval {
  name: string;
  scope: Scope;
  source: string;
  /** `command args…` or the URL it would connect to (never env or header values). */
  target: string;
  hash: string;
}
