import type { Observable, ObservableInput } from 'rxjs';
import type { ResolvedServerConfig, ServerLists } from './types.js';

/**
 * A live connection to one MCP server, as handed out by a {@link Connector}.
 * The pipeline owns it from the moment it is emitted until it calls `close()`.
 */
export interface Connection {
  /** The child process id for stdio servers. */
  readonly pid?: number;
  /** The server's lists right after `initialize` (unfiltered: view fields are applied by the registry). */
  readonly lists: ServerLists;
  /**
   * Refreshed lists after a `tools|prompts|resources/list_changed` notification (only the lists that changed).
   * Completes when we close the connection; **errors** when it dies on its own (process exit,
   * transport closed) with a message that includes the exit code and the last stderr line.
   */
  readonly lists$: Observable<Partial<ServerLists>>;
  /**
   * Calls one tool by its unqualified name. Rejects at once if the connection is gone, or when
   * `signal` aborts (the server is sent `notifications/cancelled`).
   */
  callTool(tool: string, args: Record<string, unknown>, options?: CallToolOptions): Promise<unknown>;
  /** The last lines the server wrote to stderr (ring buffer, at most 200). */
  stderrTail(): readonly string[];
  /**
   * Closes the client and ends the child (SIGTERM, then SIGKILL). Idempotent; settles when it is
   * gone. The real connector returns a Promise; any ObservableInput is accepted so that fakes in
   * marble tests can take virtual time.
   */
  close(): ObservableInput<void>;
}

/** Per-call options of {@link Connection.callTool}. */
export interface CallToolOptions {
  /** Cancels the call: it rejects with the signal's reason. */
  signal?: AbortSignal;
}

/**
 * Opens a connection. Subscribing starts it; the observable emits one {@link Connection} and
 * completes, or errors (spawn failure, `timed out after N ms`, protocol error). Unsubscribing
 * before the emission aborts the attempt and ends anything it started — no orphans.
 */
export type Connector = (name: string, config: ResolvedServerConfig) => Observable<Connection>;

/**
 * The error a shared connection's `lists$` ends with when one session restarted it on purpose
 * (`/reconnect NAME` in pool mode): every other holder reconnects at once — no backoff, no failure
 * counted — and attaches to the one fresh process.
 */
export class SharedConnectionRestarted extends Error {
  constructor() {
    super('restarted by /reconnect in another session');
    this.name = 'SharedConnectionRestarted';
  }
}
