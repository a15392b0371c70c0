import type {
  CompleteRequestParams,
  CompleteResult,
  CreateMessageRequestParams,
  CreateMessageResult,
  LoggingMessageNotification,
} from '@modelcontextprotocol/client';
import type { Observable, ObservableInput } from 'rxjs';
import type { ResolvedServerConfig, ServerLists, ViewFields } from './types.js';

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
  /**
   * A prompt of this server by its own name, with its arguments filled in (`prompts/get`).
   * Optional: a connection without it has no prompts to give (test fakes).
   */
  getPrompt?(prompt: string, args: Record<string, string>, options?: RequestOptions): Promise<unknown>;
  /** One resource by URI (`resources/read`); optional like {@link getPrompt}. */
  readResource?(uri: string, options?: RequestOptions): Promise<unknown>;
  /**
   * Asks the server to send `notifications/resources/updated` for `uri` (`resources/subscribe`),
   * which reach the session's `resourceUpdated` handler; optional like {@link getPrompt}.
   */
  subscribeResource?(uri: string, options?: RequestOptions): Promise<void>;
  /** Ends a {@link subscribeResource} (`resources/unsubscribe`). */
  unsubscribeResource?(uri: string, options?: RequestOptions): Promise<void>;
  /** Completions for an argument of a prompt or resource template of this server (`completion/complete`). */
  complete?(params: CompleteRequestParams, options?: RequestOptions): Promise<CompleteResult>;
  /** What the server said about itself in `initialize` (absent for fakes that say nothing). */
  readonly server?: ServerIdentity;
  /** The last lines the server wrote to stderr (ring buffer, at most 200). */
  stderrTail(): readonly string[];
  /**
   * Applies a server's new view fields to the live connection, without a restart (a language
   * server's `settings` and routing, decision 148). Optional: MCP connections need nothing, the
   * registry filters their lists.
   */
  reconfigure?(view: ViewFields): void;
  /**
   * Whether a process runs behind this connection (decision 196): a `lazy` or `idleTimeout`
   * server's connection lists its tools while no process runs, and starts one on the first
   * request. `activity` is the current value, `activity$` its changes after it (no replay);
   * both are absent for a connection that always has its process.
   */
  readonly activity?: ConnectionActivity;
  readonly activity$?: Observable<ConnectionActivity>;
  /** Starts the process of an idle connection now (`/reconnect NAME` on an idle server). */
  start?(): Promise<void>;
  /**
   * Closes the client and ends the child (SIGTERM, then SIGKILL). Idempotent; settles when it is
   * gone. The real connector returns a Promise; any ObservableInput is accepted so that fakes in
   * marble tests can take virtual time.
   */
  close(): ObservableInput<void>;
}

/**
 * What runs behind an on-demand connection: a process (its pid), or none — never started
 * (`lazy`), or stopped after `idleTimeout` (`idle-timeout`). `error`: why the last start or the
 * last process failed, while it waits idle for the next request.
 */
export type ConnectionActivity =
  | { running: true; pid?: number }
  | { running: false; idle: 'lazy' | 'idle-timeout'; error?: string };

/** Options of a request to a server other than a tool call. */
export interface RequestOptions {
  /** Cancels the request: it rejects with the signal's reason (the server is sent `notifications/cancelled`). */
  signal?: AbortSignal;
  /**
   * Asked once the server runs, right before the request is sent; throws to refuse it. A server
   * started on demand shows its real surface only then, and it is compared first (decision 311).
   */
  admit?: () => void;
}

/** Per-call options of {@link Connection.callTool}. */
export interface CallToolOptions extends RequestOptions {
  /**
   * How long the call may wait for the server's answer, in ms (default: the server entry's
   * `timeout`, itself 600 000 by default). Each progress notification starts it again.
   */
  timeout?: number;
  /** Called with each progress notification the server sends for this call. */
  onProgress?: (progress: CallProgress) => void;
  /**
   * Sent as the request's `_meta` (decision 392): the trace context (`traceparent`,
   * `tracestate`, `baggage`) of the request a gateway serves with this call.
   */
  meta?: Record<string, string>;
  /**
   * One round of a 2026-07-28 client's request, passed through as it is (decision 372): a
   * 2026-07-28 server's `input_required` answer is the call's result — its `inputRequests` and
   * `requestState` unchanged — instead of being answered with the session's own hooks, and the
   * retry's `inputResponses` / `requestState` reach the server as given. A 2025-era server has
   * no such round: a first round is an ordinary call (what it asks meanwhile goes to the hooks),
   * a retry fails with -32602.
   */
  inputRound?: InputRound;
}

/** What a passed-through round carries from the client that asks (see {@link CallToolOptions.inputRound}). */
export interface InputRound {
  /** The answers of a retry, by the keys of the server's `inputRequests`. */
  inputResponses?: Record<string, unknown>;
  /** The server's `requestState` of the round before, echoed as it came. */
  requestState?: string;
  /**
   * The client's own capabilities, sent in the request's envelope in place of mcp-live's: the
   * server asks only what that client can answer, and says -32021 when it needs more.
   */
  clientCapabilities?: Record<string, unknown>;
}

/** One `notifications/progress` of a call. */
export interface CallProgress {
  progress: number;
  total?: number;
  message?: string;
}

/** A server's `initialize` answer, as far as a user reads it. */
export interface ServerIdentity {
  info?: { name: string; version: string; title?: string };
  /** How to use the server, for a model's context: the server's `instructions`. */
  instructions?: string;
  /** What the server can do, one word each (a language server's `hover`, `definition` …), sorted. */
  capabilities?: readonly string[];
  /**
   * The MCP revision the connection negotiated (`2026-07-28`, `2025-11-25` …) and its era, with
   * the verdict the connect used or found (decision 380); absent for a language server or a fake.
   */
  protocol?: { version: string; era: 'modern' | 'legacy'; verdict?: EraVerdict };
}

/**
 * Which protocol era a server speaks, as learned once by a connect (decision 380) and kept with
 * its surface record, per connection fingerprint: `modern` (2026-07-28 and later, no
 * `initialize`) with the server's `server/discover` answer, or `legacy` (the 2025 `initialize`
 * handshake). `decidedAt` is when a probe decided it (epoch ms): a connect that used the verdict
 * keeps that date, so only a fresh probe renews it.
 */
export type EraVerdict =
  | { kind: 'modern'; discover: Record<string, unknown>; decidedAt: number }
  | { kind: 'legacy'; decidedAt: number };

/** A form the server asks the user to fill in (`elicitation/create`, form mode). */
export interface ElicitationForm {
  message: string;
  /** A flat JSON Schema object: `properties` of strings, numbers, booleans and enums, `required`. */
  requestedSchema: ElicitationSchema;
}

export interface ElicitationSchema {
  type: 'object';
  properties: Record<string, ElicitationField>;
  required?: string[];
}

/** One field of an {@link ElicitationSchema} (the MCP's primitive schema definitions, loosely). */
export interface ElicitationField {
  type?: string;
  title?: string;
  description?: string;
  default?: unknown;
  enum?: unknown[];
  [keyword: string]: unknown;
}

/** The user's answer to an {@link ElicitationForm}. */
export interface ElicitationAnswer {
  action: 'accept' | 'decline' | 'cancel';
  /** With `accept`: the fields filled in; the ones left out get their schema defaults. */
  content?: Record<string, string | number | boolean | string[]>;
}

/**
 * What a session answers when a server asks the client something (server → client requests).
 * A connector advertises exactly the capabilities whose handler is here: no handler, no capability.
 */
export interface ServerRequestHandlers {
  /** `elicitation/create`: ask the user. `signal` aborts when the server cancels the request. */
  elicit?: (server: string, form: ElicitationForm, context: { signal: AbortSignal; timeoutMs: number }) => Promise<ElicitationAnswer>;
  /** `sampling/createMessage`: only a host with a model has one. */
  sample?: (server: string, params: CreateMessageRequestParams, context: { signal: AbortSignal }) => Promise<CreateMessageResult>;
  /** `roots/list`: the directories the session works in. */
  roots?: () => readonly { uri: string; name?: string }[];
  /**
   * The server's log messages (`notifications/message`), secrets of its entry masked. A
   * notification, not a request: no capability depends on it.
   */
  log?: (server: string, message: LoggingMessageNotification['params']) => void;
  /** `notifications/resources/updated`: a resource subscribed to with `subscribeResource` changed. */
  resourceUpdated?: (server: string, uri: string) => void;
}

/**
 * Told of an attempt given up before it connected: `gone` resolves once whatever the attempt
 * started has exited. An unsubscribe cannot wait for that; whoever must (a session's dispose)
 * waits for `gone`.
 */
export type AttemptEnded = (gone: Promise<void>) => void;

/**
 * Opens a connection, answering the server's own requests with `handlers`. Subscribing starts it;
 * the observable emits one {@link Connection} and completes, or errors (spawn failure, `timed out after N ms`, protocol error). Unsubscribing
 * before the emission aborts the attempt and ends anything it started — no orphans — and hands
 * the end to `ended`.
 */
export type Connector = (
  name: string,
  config: ResolvedServerConfig,
  handlers?: ServerRequestHandlers,
  ended?: AttemptEnded,
) => Observable<Connection>;

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

/**
 * Why a remote server cannot be used until the user authorizes it (decision 83): no token, a token
 * the server refuses and that cannot be refreshed, or (`scope`) a call that needs more scope
 * than the token has. A connect or a connection that ends with it puts the server in
 * `needs_auth`, which is not retried on its own; a call that fails with it leaves the server up.
 */
export class NeedsAuthorization extends Error {
  constructor(
    /** `in_progress`: a connect while an interactive authorization is open, which it must not disturb (decision 187). */
    readonly why: 'required' | 'refused' | 'scope' | 'in_progress',
    /** The scope the server asked for (`scope`: the scope the call needs). */
    readonly scope?: string,
  ) {
    super(
      why === 'scope'
        ? `needs more authorization${scope ? ` (scope "${scope}")` : ''}`
        : why === 'refused'
          ? 'the server no longer accepts the stored token'
          : why === 'in_progress'
            ? 'authorization in progress'
            : 'the server requires authorization',
    );
    this.name = 'NeedsAuthorization';
  }
}
