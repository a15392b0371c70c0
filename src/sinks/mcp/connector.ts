import { sharedSchemaValidator } from './schemaValidator.js';
import { roundCall } from './inputRound.js';
import { Client, ProtocolError, SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import type {
  StreamableHTTPReconnectionOptions,
  CompleteRequestParams,
  CompleteResult,
} from '@modelcontextprotocol/client';
import {
  EMPTY,
  Observable,
  Subject,
  catchError,
  from,
  groupBy,
  map,
  mergeMap,
  switchMap,
  type Subscription,
} from 'rxjs';
import type {
  CallToolOptions,
  Connection,
  Connector,
  RequestOptions,
  EraVerdict,
  ServerIdentity,
  ServerRequestHandlers,
} from '../../model/connection.js';
import { NeedsAuthorization } from '../../model/connection.js';
import { createServerMasker } from '../../model/settings/secrets.js';
import { mergeHelperHeaders, runHeadersHelper } from '../remote/headersHelper.js';
import type { OAuthManager } from '../remote/oauthManager.js';
import type { McpOAuthProvider } from '../remote/oauthProvider.js';
import { loadedRemoteParts, loadRemoteParts } from '../remote/remoteSdk.js';
import { connectDeadline, healthCheckOf } from '../../model/settings/validate.js';
import { withoutUndefined } from '../../model/withoutUndefined.js';
import { exhaustMapWithTrailing } from '../../operators/exhaustMapWithTrailing.js';
import {
  DEFAULT_TIMEOUT_MS,
  type HealthCheck,
  type ResolvedServerConfig,
  type ServerLists,
} from '../../model/types.js';
import { activeProcessGroupRegistry, type ProcessGroupRegistry } from '../../process/processGroupRegistry.js';
import { StderrRing } from '../../process/stderrRing.js';
import { MessageTooLarge } from '../../model/messageLimit.js';
import { firstDownloadNote } from '../../model/launch/launcherHint.js';
import { connectionAttempt } from './connectionAttempt.js';
import { describeProcessExit } from '../../process/serverProcess.js';
import { fetchLists, listAll, MAX_LIST_PAGES, type ListKind } from './serverLists.js';
import { callDeadline, isRoundProgress } from './callDeadline.js';
import type { EraMemory } from './eraMemory.js';
import { ListenStream } from './listenStream.js';
import { eraAfterFailure, negotiated, priorOf, probeFailureCause } from './eraConnect.js';
import { answerServerRequests, withLogLevel } from './serverRequests.js';
import { MAX_TIMER_MS } from './timerLimit.js';
import { TtlRefresh } from './ttlRefresh.js';
import { clientCapabilities, handlersFor, identityOf } from './clientCapabilities.js';
import { unknownResource } from './unknownResource.js';
import { createTransport, describeRemoteFailure, isConnectionLost, isNetworkFailure, type McpTransport } from './transports.js';

/**
 * The real {@link Connector}: one MCP SDK `Client` per subscription.
 *
 *   connectMcp(name, config):  --(spawn, initialize, list)--C|     C = Connection
 *                              --(spawn fails)--#                  # = "failed to start …"
 *                              --(connectTimeout passes)--#        # = "timed out after N ms (raise "connectTimeout" …)"
 *   connection.lists$:         ---t----p----|       close()
 *                              ---t----#            the server died ("process exited with code 1: …")
 *
 * Whatever an attempt started is ended when it fails, times out or is unsubscribed before it
 * emitted; the error is delivered only after that, so a supervisor never overlaps two processes.
 * After the emission the {@link Connection} belongs to the subscriber, who must `close()` it.
 */

export interface McpConnectorOptions {
  /** stdio: after closing stdin, how long a server may take to exit before SIGTERM (default 500). */
  stdinGraceMs?: number;
  /** stdio: after SIGTERM, how long before SIGKILL (default 2000). */
  killGraceMs?: number;
  /** Streamable HTTP: the SDK's retry of a dropped stream before the connection counts as lost. */
  httpReconnection?: StreamableHTTPReconnectionOptions;
  /** Sent in `initialize`. */
  clientInfo?: { name: string; version: string };
  /**
   * stdio: where servers' process groups are recorded while they run, so the next mcp-live can
   * end them if this one is SIGKILLed (default: the registry the started session opened, if any).
   */
  processGroups?: ProcessGroupRegistry;
  /**
   * OAuth for remote servers (decision 83): stored tokens are sent and refreshed; a server that
   * needs the user's authorization fails the connect with {@link NeedsAuthorization}. Without
   * it, a 401 is an error like any other.
   */
  oauth?: OAuthManager;
  /**
   * A step-up during a request (decision 242): a 403 `insufficient_scope` calls this, which starts
   * the authorization the request needs (the session's `auth-required` event, the browser) and
   * resolves once the new token is stored; the request is then sent again on the same connection,
   * all within the request's timeout (`signal` aborts when it passes or the caller cancels).
   * Absent — no one could complete a browser flow — the request fails with "needs more
   * authorization", as it always did.
   */
  stepUp?: StepUpAuthorizer;
  /**
   * The servers' protocol eras as earlier connects found them (decision 380): a connect with a
   * fresh verdict runs no `server/discover` probe. Without it every connect probes.
   */
  eras?: EraMemory;
}

/** See {@link McpConnectorOptions.stepUp}. */
export type StepUpAuthorizer = (server: string, config: ResolvedServerConfig, context: { signal: AbortSignal; scope?: string }) => Promise<void>;

/** The {@link Connection} this connector hands out: its `close()` is a Promise. */
export interface McpConnection extends Connection {
  close(): Promise<void>;
}

export type McpConnector = (...args: Parameters<Connector>) => Observable<McpConnection>;

export const DEFAULT_STDIN_GRACE_MS = 500;
export const DEFAULT_KILL_GRACE_MS = 2_000;
const DEFAULT_CLIENT_INFO = { name: 'mcp-live', version: '0.1.0' };
/**
 * How long the era probe of a stdio server waits for an answer (decision 380), at most half the
 * connect deadline: a 2025-era server that ignores a request it does not know is taken for one
 * after this — once, as the verdict is remembered. A remote server's probe waits the connect
 * deadline: silence there is an outage, never an era.
 */
const STDIO_PROBE_MS = 3_000;
/**
 * The most `input_required` rounds mcp-live answers in one request (decision 382): a server that
 * still asks after them gets no further answer, and the request fails saying so.
 */
export const MAX_INPUT_ROUNDS = 8;
/** How long close() gives a Streamable HTTP server to end its session (a courtesy, not required). */
const TERMINATE_SESSION_MS = 1_000;

export function createMcpConnector(options: McpConnectorOptions = {}): McpConnector {
  return (name, config, handlers = {}, ended) => {
    const attempt = connectionAttempt(() => {
      let session = new McpSession(name, config, options, handlers);
      let gaveUp = false;
      const ms = session.connectTimeoutMs;
      return {
        deadlineMs: ms,
        // A 2025-era stdio server that ends on the era probe is now known as one: the same attempt
        // starts it again, straight to initialize, so its first connect does not fail (decision 366).
        open: () =>
          session.open().catch((error: unknown) => {
            if (gaveUp || !session.endedOnProbe) throw error;
            session = new McpSession(name, config, options, handlers);
            return session.open();
          }),
        timedOut: () => new Error(session.connectTimedOut()),
        explain: (error) => session.explain(error),
        abort: () => {
          gaveUp = true;
          return session.abort();
        },
      };
    }, ended);
    // A remote server's transports and OAuth are loaded on its first attempt (decision 221).
    return config.transport === 'stdio' || loadedRemoteParts() !== undefined
      ? attempt
      : from(loadRemoteParts()).pipe(switchMap(() => attempt));
  };
}

/**
 * A timeout in words, naming the field of the server's entry that sets it: `timeout`
 * for a request, `connectTimeout` for the connect, `startupTimeout` for a language server's start.
 */
export function timedOut(ms: number, field: 'timeout' | 'connectTimeout' | 'startupTimeout'): string {
  return `timed out after ${ms} ms (raise "${field}" in the server's entry)`;
}

/** A call that outlived the `timeout` its caller gave: that option is the knob, not the entry's. */
function callTimedOut(ms: number): string {
  return `timed out after ${ms} ms (raise the call's "timeout")`;
}

/** A deadline from a config, or the default when it is missing or not a positive number. */
function deadline(ms: number | undefined, fallback: number): number {
  return ms !== undefined && Number.isFinite(ms) && ms > 0 ? ms : fallback;
}

/** The connector with default graces. */
export const connectMcp: McpConnector = createMcpConnector();

// The real connector is a Connector (checked here, where a mismatch is easiest to read).
connectMcp satisfies Connector;

type SessionState = 'connecting' | 'open' | 'closing' | 'closed' | 'dead';

const EMPTY_LISTS: ServerLists = { tools: [], prompts: [], resources: [], resourceTemplates: [] };

class McpSession implements McpConnection {
  /** Each request once connected (`timeout`). */
  readonly timeoutMs: number;
  /** The whole connect, and each request during it (`connectTimeout`). */
  readonly connectTimeoutMs: number;
  lists: ServerLists = EMPTY_LISTS;
  readonly lists$: Observable<Partial<ServerLists>>;
  server?: ServerIdentity;

  private state: SessionState = 'connecting';
  /** Why the server went away on its own (already redacted). */
  private deathReason?: string;
  private readonly redact: (text: string) => string;
  private readonly stderr: StderrRing;
  private readonly mcp: McpTransport;
  private readonly oauth?: McpOAuthProvider;
  /** What ended the connection on its own, as its `lists$` reported it. */
  private deathError?: Error;
  private readonly client: Client;
  private readonly listsSubject = new Subject<Partial<ServerLists>>();
  private readonly refresh$ = new Subject<ListKind>();
  private readonly changedWhileConnecting = new Set<ListKind>();
  private refreshing?: Subscription;
  private closing?: Promise<void>;
  private readonly stepUp?: StepUpAuthorizer;
  /**
   * With a `headersHelper` (decision 240): the headers every request sends — the entry's, with
   * the helper's last output over them. The transport holds this very object and reads it for
   * each request, so a run of the helper changes what the next request sends.
   */
  private readonly helperHeaders?: Record<string, string>;
  /** The helper's run under way: a second 401 meanwhile waits for it instead of starting another. */
  private helperRun?: Promise<boolean>;
  /** Aborted when the session ends: a helper still running is killed. */
  private readonly stopped = new AbortController();
  /** The next health check's ping (decision 241), while the connection is open. */
  private healthTimer?: NodeJS.Timeout;
  private readonly eras?: EraMemory;
  /** The server ended on the era probe and is now remembered as a 2025-era one (decision 366). */
  endedOnProbe = false;
  /** Its caller gave the connect up ({@link abort}): nothing it saw afterwards is era evidence. */
  private aborted = false;
  /** A modern connection's change notifications (decision 381). */
  private listen?: ListenStream;
  /** Per list, the refresh its `ttlMs` asks for (decision 381). */
  private readonly ttl = new TtlRefresh((kind) => this.listChanged(kind), (kind) => this.changesTold(kind));
  /** The session hears the server's log messages: a modern server is asked for them (decision 369). */
  private readonly hearsLogs: boolean;

  constructor(
    private readonly name: string,
    private readonly config: ResolvedServerConfig,
    options: McpConnectorOptions,
    handlers: ServerRequestHandlers,
  ) {
    this.timeoutMs = deadline(config.timeout, DEFAULT_TIMEOUT_MS);
    // A config built by hand (a host, a test) may lack connectTimeout: the resolver's rule applies.
    this.connectTimeoutMs = deadline(config.connectTimeout, connectDeadline(undefined, this.timeoutMs));
    // The child inherits process.env (see childEnvironment), so its secrets are this server's too.
    this.redact = createServerMasker({ resolved: config, env: process.env });
    this.stderr = new StderrRing(undefined, this.redact);
    this.lists$ = this.listsSubject.asObservable();
    this.stepUp = options.stepUp;
    if (config.headersHelper !== undefined && config.transport !== 'stdio') this.helperHeaders = { ...config.headers };
    const helper = this.helperHeaders === undefined ? {} : { helper: { headers: this.helperHeaders, refresh: () => this.refreshHeaders() } };
    this.mcp = createTransport(config, this.stderr, {
      ...helper,
      graces: {
        stdinGraceMs: options.stdinGraceMs ?? DEFAULT_STDIN_GRACE_MS,
        killGraceMs: options.killGraceMs ?? DEFAULT_KILL_GRACE_MS,
      },
      httpReconnection: options.httpReconnection,
      processGroups: { registry: options.processGroups ?? activeProcessGroupRegistry(), name },
      oauth: (this.oauth = options.oauth?.provider(name, config)),
      ...(config.maxMessageBytes === undefined ? {} : { maxMessageBytes: config.maxMessageBytes }),
      // The message is cut off mid-way and an event stream cannot resync: the server is failed,
      // connecting or not (decision 181). The SDK may not fail the request itself (an SSE answer).
      onMessageTooLarge: (error) => this.end(error),
    });
    // The entry's `roots` (decision 243) decide what this server is offered, over the session's.
    const served = handlersFor(config, handlers);
    this.eras = options.eras;
    this.client = new Client(options.clientInfo ?? DEFAULT_CLIENT_INFO, {
      capabilities: clientCapabilities(served, config.roots !== undefined),
      // One Ajv for every client, schemas compiled on first use (decision 263).
      jsonSchemaValidator: sharedSchemaValidator,
      // Either era, probed unless a verdict is known (decision 380).
      versionNegotiation: {
        mode: 'auto',
        ...(config.transport === 'stdio' ? { probe: { timeoutMs: Math.min(STDIO_PROBE_MS, Math.ceil(this.connectTimeoutMs / 2)) } } : {}),
      },
      inputRequired: { maxRounds: MAX_INPUT_ROUNDS },
      // The SDK joins a list's pages itself when asked for the first; at most as many as ours.
      listMaxPages: MAX_LIST_PAGES,
    });
    answerServerRequests(this.client, { name: this.name, timeoutMs: this.timeoutMs, redact: this.redact }, served);
    this.hearsLogs = served.log !== undefined;
    this.client.onclose = () => this.onTransportClosed();
    this.client.onerror = (error) => this.onTransportError(error);
    this.client.setNotificationHandler('notifications/tools/list_changed', () => this.listChanged('tools'));
    this.client.setNotificationHandler('notifications/prompts/list_changed', () => this.listChanged('prompts'));
    this.client.setNotificationHandler('notifications/resources/list_changed', () => {
      this.listChanged('resources');
      this.listChanged('resourceTemplates');
    });
  }

  get pid(): number | undefined {
    return this.mcp.kind === 'stdio' ? this.mcp.transport.pid : undefined;
  }

  /** Connects, fetches the lists and hands itself out. The overall deadline is the caller's. */
  async open(): Promise<McpConnection> {
    // The helper's headers go with the very first request (decision 240); a helper that fails fails the connect.
    if (this.helperHeaders !== undefined) await this.refreshHeaders();
    const known = this.eras?.recall(this.config);
    let lists: ServerLists;
    try {
      await this.client.connect(this.mcp.transport, { timeout: this.connectTimeoutMs, ...(known === undefined ? {} : { prior: priorOf(known) }) });
      const { protocol, found } = negotiated(this.client, known, Date.now());
      if (found && protocol?.verdict !== undefined) this.eras?.remember(this.name, this.config, protocol.verdict);
      this.server = { ...identityOf(this.client.getServerVersion(), this.client.getInstructions()), ...(protocol === undefined ? {} : { protocol }) };
      lists = await fetchLists(this.client, this.requestDeadline().ms, (kind, ttl) => this.ttl.listed(kind, ttl));
    } catch (error) {
      this.eraFailed(known, error);
      throw error;
    }
    if (this.state !== 'connecting') throw new Error(this.deathReason ?? 'connection closed');
    this.lists = lists;
    if (this.client.getProtocolEra() === 'modern') {
      this.listen = new ListenStream(this.client, {
        refresh: (kinds) => kinds.forEach((kind) => this.listChanged(kind)),
        lost: (error) => this.lose(error),
        timeoutMs: this.connectTimeoutMs,
      });
      await this.listen.open();
    }
    this.state = 'open';
    this.refreshing = this.refresh$
      .pipe(
        groupBy((kind) => kind),
        // Per list, one refresh at a time, and one more after it for whatever arrived meanwhile:
        // a server that notifies faster than it lists still gets its list refreshed (switchMap
        // would drop every answer while the notifications keep coming), and requests are not
        // piled up on it. A refresh that fails keeps the last good list.
        mergeMap((kind$) =>
          kind$.pipe(
            exhaustMapWithTrailing((kind) =>
              from(listAll(this.client, kind, this.requestDeadline().ms, (k, ttl) => this.ttl.listed(k, ttl))).pipe(
                map((items): Partial<ServerLists> => ({ [kind]: items })),
                catchError(() => EMPTY),
              ),
            ),
          ),
        ),
      )
      .subscribe((update) => this.listsSubject.next(update));
    for (const kind of this.changedWhileConnecting) this.refresh$.next(kind);
    this.changedWhileConnecting.clear();
    this.scheduleHealthCheck();
    return this;
  }

  /** What a failed connect says of the era (decision 380). */
  private eraFailed(known: EraVerdict | undefined, error: unknown): void {
    // A connect ended by its caller (an edit, the session's end) says nothing of the era: the
    // process it killed during the probe did not end on its own (decision 366).
    if (this.eras === undefined || this.aborted || this.state === 'closing' || this.state === 'closed' || this.authorizationNeeded(error) !== undefined) return;
    const ended = this.mcp.kind === 'stdio' && this.mcp.transport.exit !== undefined;
    const outcome = eraAfterFailure(error, known, ended, this.client);
    if (outcome === 'forget') this.eras.forget(this.config);
    else if (outcome === 'legacy') {
      this.eras.remember(this.name, this.config, { kind: 'legacy', decidedAt: Date.now() });
      this.endedOnProbe = true;
    }
  }

  /** Whether the server tells when `kind` changes: on its listen stream (modern), or unasked (`listChanged`, 2025). */
  private changesTold(kind: ListKind): boolean {
    if (this.listen !== undefined) return this.listen.covered.has(kind);
    const caps = this.client.getServerCapabilities() ?? {};
    const group = kind === 'tools' ? caps.tools : kind === 'prompts' ? caps.prompts : caps.resources;
    return group?.listChanged === true;
  }

  /** Runs the helper (one run at a time) and sends its headers from now on; true when they changed. */
  private refreshHeaders(): Promise<boolean> {
    this.helperRun ??= this.runHelper().finally(() => (this.helperRun = undefined));
    return this.helperRun;
  }

  private async runHelper(): Promise<boolean> {
    const output = await runHeadersHelper(this.config.headersHelper!, { server: this.name, url: this.config.url ?? '', signal: this.stopped.signal });
    const merged = mergeHelperHeaders(this.config.headers, output);
    const headers = this.helperHeaders!;
    const changed = Object.keys(headers).length !== Object.keys(merged).length || Object.entries(merged).some(([k, v]) => headers[k] !== v);
    for (const name of Object.keys(headers)) delete headers[name];
    // Defined, not assigned: a `__proto__` header stays a header.
    for (const [name, value] of Object.entries(merged)) Object.defineProperty(headers, name, { value, enumerable: true, writable: true, configurable: true });
    return changed;
  }

  /**
   * The next health check (decision 241): a `ping` `intervalMs` after the connect or the last
   * answer — never two at once. The timer does not keep the process alive, and ends with the
   * connection. A lazy server's idle connection has no session, hence no ping.
   */
  private scheduleHealthCheck(): void {
    const check = healthCheckOf(this.config);
    if (check === undefined || this.state !== 'open') return;
    this.healthTimer = setTimeout(() => void this.checkHealth(check), Math.min(check.intervalMs, MAX_TIMER_MS));
    this.healthTimer.unref();
  }

  /**
   * One ping. No answer in `timeoutMs`, or a server that cannot be reached, is a lost connection:
   * `lists$` errors, and the supervisor reconnects with its backoff. Any answer — an error one
   * too — says the server is there.
   */
  private async checkHealth(check: HealthCheck): Promise<void> {
    this.healthTimer = undefined;
    if (this.state !== 'open') return;
    // A 2026-07-28 server has no `ping` (decision 380): the cheapest request it has is `server/discover`.
    const modern = this.client.getProtocolEra() === 'modern';
    try {
      const timeout = Math.min(check.timeoutMs, MAX_TIMER_MS);
      await (modern ? this.client.discover({ timeout }) : this.client.ping({ timeout }));
    } catch (error) {
      if (this.state !== 'open') return;
      if (isTimeout(error)) return this.end(new Error(`connection lost: no answer to ${modern ? 'server/discover' : 'ping'} within ${check.timeoutMs} ms (healthCheck)`));
      const needsAuth = this.authorizationNeeded(error);
      if (needsAuth) {
        if (needsAuth.why !== 'scope') return this.end(needsAuth);
      } else if (isNetworkFailure(error) || (error instanceof SdkError && error.code === SdkErrorCode.ConnectionClosed)) {
        return this.lose(error);
      }
    }
    this.scheduleHealthCheck();
  }

  /** The error an attempt reports: why the server died if it did, else what went wrong, masked. */
  explain(error: unknown): Error {
    if (this.deathReason) return new Error(this.deathReason);
    // A stdio server that ended during the era probe (decision 380): the SDK held the transport's
    // close then, so the exit was not reported as a death; it is still the better message.
    if (this.mcp.kind === 'stdio' && this.mcp.transport.exit !== undefined && error instanceof SdkError && error.code === SdkErrorCode.EraNegotiationFailed) {
      return new Error(this.describeLoss());
    }
    const needsAuth = this.authorizationNeeded(error);
    if (needsAuth) return needsAuth;
    // The SDK's own request timer says "Request timed out"; one wording for every timeout, and
    // the field to raise: while connecting, every request runs under the connect deadline.
    if (isTimeout(error)) {
      return new Error(this.requestDeadline().message);
    }
    if (error instanceof SdkError && error.code === SdkErrorCode.InputRequiredRoundsExceeded) {
      return new Error(`the server still asked for input after ${MAX_INPUT_ROUNDS} rounds; mcp-live answers at most ${MAX_INPUT_ROUNDS} in one request`);
    }
    const explained = new Error(this.redact(this.describe(error)));
    // The server's own JSON-RPC error keeps its code, for a gateway that passes it on (decision 115).
    // Its `data` too (a -32021's `requiredCapabilities`, a -32602's `uri`).
    return error instanceof ProtocolError ? Object.assign(explained, { code: error.code }, error.data === undefined ? {} : { data: error.data }) : explained;
  }

  async callTool(tool: string, args: Record<string, unknown>, options: CallToolOptions = {}): Promise<unknown> {
    const { onProgress, meta } = options;
    // A passed-through round of a 2026-07-28 client's request (decision 372): its input_required is the result.
    const round = roundCall(this.name, this.client.getProtocolEra(), { name: tool, arguments: args, ...this.meta(meta) }, options.inputRound);
    const ms = Math.min(deadline(options.timeout, this.timeoutMs), MAX_TIMER_MS);
    const words = options.timeout === undefined ? undefined : callTimedOut(ms);
    // One deadline over every round of the call (decision 382); the SDK's own per-round timer stays.
    const whole = callDeadline(ms, words ?? timedOut(ms, 'timeout'), options.signal);
    try {
      return await this.request(
        (timeout) =>
          // With a signal, the SDK sends `notifications/cancelled` when it aborts and rejects with its
          // reason. Progress is always asked for, so that a server that reports it keeps a long call
          // alive (`resetTimeoutOnProgress`) whether or not the caller listens.
          this.client.callTool(round.params, {
            timeout,
            ...(round.raw ? { allowInputRequired: true } : {}),
            signal: whole.signal,
            resetTimeoutOnProgress: true,
            onprogress: ({ progress, total, message }) => {
              if (isRoundProgress(message)) return;
              whole.progressed();
              onProgress?.(withoutUndefined({ progress, total, message }));
            },
          }),
        ms,
        // The caller's own: its abort is a cancel; the deadline's is worded as a timeout.
        options.signal,
        words,
      );
    } finally {
      whole.done();
    }
  }

  async getPrompt(prompt: string, args: Record<string, string>, { signal }: RequestOptions = {}): Promise<unknown> {
    const whole = callDeadline(this.timeoutMs, timedOut(this.timeoutMs, 'timeout'), signal);
    try {
      return await this.request((timeout) => this.client.getPrompt({ name: prompt, arguments: args, ...this.meta() }, { timeout, signal: whole.signal }), this.timeoutMs, signal);
    } finally {
      whole.done();
    }
  }

  async readResource(uri: string, { signal }: RequestOptions = {}): Promise<unknown> {
    const whole = callDeadline(this.timeoutMs, timedOut(this.timeoutMs, 'timeout'), signal);
    try {
      // Never served from the SDK's cache: a read asks the server (its ttlMs is for lists here).
      return await this.request((timeout) => this.client.readResource({ uri, ...this.meta() }, { timeout, signal: whole.signal, cacheMode: 'bypass' }), this.timeoutMs, signal);
    } catch (error) {
      throw unknownResource(error, uri, this.name) ?? error;
    } finally {
      whole.done();
    }
  }

  /** 2025: `resources/subscribe`; 2026-07-28: the URI joins the listen stream's filter (decision 381). */
  async subscribeResource(uri: string, { signal }: RequestOptions = {}): Promise<void> {
    if (this.listen !== undefined) return this.listenTo(uri, true);
    await this.request((timeout) => this.client.subscribeResource({ uri }, { timeout, signal }), this.timeoutMs, signal);
  }

  async unsubscribeResource(uri: string, { signal }: RequestOptions = {}): Promise<void> {
    if (this.listen !== undefined) return this.listenTo(uri, false);
    await this.request((timeout) => this.client.unsubscribeResource({ uri }, { timeout, signal }), this.timeoutMs, signal);
  }

  private async listenTo(uri: string, wanted: boolean): Promise<void> {
    if (this.state !== 'open') throw this.notConnected();
    if (this.client.getServerCapabilities()?.resources?.subscribe !== true) throw new Error(`server "${this.name}" cannot subscribe to resources`);
    await this.listen!.subscribe(uri, wanted);
  }

  complete(params: CompleteRequestParams, { signal }: RequestOptions = {}): Promise<CompleteResult> {
    return this.request((timeout) => this.client.complete({ ...params, ...this.meta(params._meta) }, { timeout, signal }), this.timeoutMs, signal);
  }

  /** A request's `_meta`: the caller's, with the log level a modern server logs at (decision 369). */
  private meta(own?: Record<string, unknown>): { _meta?: Record<string, unknown> } {
    const meta = withLogLevel(this.client, this.hearsLogs, own);
    return meta === undefined ? {} : { _meta: meta };
  }

  /**
   * Sends one request of an open connection, `ms` its timeout, and words its failure: the
   * signal's reason when it was cancelled, "not connected" when the connection went away
   * meanwhile, `timedOutMessage` (else the entry's `timeout` wording) when it timed out. A
   * request refused for want of scope is sent again once the step-up authorization it starts
   * has completed (decision 242), within the same `ms`.
   */
  private async request<T>(send: (timeoutMs: number) => Promise<T>, ms: number, signal?: AbortSignal, timedOutMessage?: string): Promise<T> {
    if (this.state !== 'open') throw this.notConnected();
    const started = Date.now();
    try {
      return await send(ms);
    } catch (error) {
      const needsScope = this.stepUp === undefined || signal?.aborted ? undefined : this.authorizationNeeded(error);
      if (needsScope?.why !== 'scope') throw this.failure(error, signal, timedOutMessage);
      await this.stepUpWithin(needsScope, ms - (Date.now() - started), signal, timedOutMessage ?? timedOut(ms, 'timeout'));
      const left = ms - (Date.now() - started);
      if (left <= 0) throw new Error(timedOutMessage ?? timedOut(ms, 'timeout'), { cause: error });
      try {
        return await send(left);
      } catch (again) {
        throw this.failure(again, signal, timedOutMessage);
      }
    }
  }

  /**
   * Waits for the authorization a refused request needs (decision 242), at most `ms`: it starts
   * it ({@link McpConnectorOptions.stepUp}), and the token it stores is what this connection
   * sends from then on. A flow that fails, is refused or is already under way (`/mcp auth`)
   * leaves the request refused as before; one that outlasts `ms` ends the request with its timeout.
   */
  private async stepUpWithin(needed: NeedsAuthorization, ms: number, signal: AbortSignal | undefined, timedOutMessage: string): Promise<void> {
    if (ms <= 0) throw new Error(timedOutMessage);
    const deadline = AbortSignal.timeout(Math.min(ms, MAX_TIMER_MS));
    const stop = AbortSignal.any([deadline, this.stopped.signal, ...(signal === undefined ? [] : [signal])]);
    try {
      await this.stepUp!(this.name, this.config, { signal: stop, ...(needed.scope === undefined ? {} : { scope: needed.scope }) });
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      if (deadline.aborted) {
        throw new Error(`${timedOutMessage} while waiting for the authorization it needs${needed.scope ? ` (scope "${needed.scope}")` : ''}`, { cause: error });
      }
      if (this.state !== 'open') throw this.notConnected();
      throw error instanceof NeedsAuthorization ? error : needed;
    }
    if (this.state !== 'open') throw this.notConnected();
  }

  /** A request's failure in words (see {@link request}); ends the connection when the failure means it is gone. */
  private failure(error: unknown, signal: AbortSignal | undefined, timedOutMessage: string | undefined): unknown {
    if (signal?.aborted) return signal.reason;
    // The transport may have reported the refusal first (and been closed for it).
    const needsAuth = this.authorizationNeeded(error) ?? (this.deathError instanceof NeedsAuthorization ? this.deathError : undefined);
    if (needsAuth) {
      // A refused token that could not be renewed: nothing on this connection works now.
      if (needsAuth.why !== 'scope' && this.state === 'open') this.end(needsAuth);
      return needsAuth;
    }
    if (timedOutMessage !== undefined && isTimeout(error)) return new Error(timedOutMessage, { cause: error });
    // The SDK rejects calls in flight as soon as the transport closes; say why.
    if (this.state !== 'open') return this.notConnected();
    // A remote server that resets or refuses the request's connection is gone, whether or not
    // its event stream has noticed yet.
    if (this.mcp.kind !== 'stdio' && isNetworkFailure(error)) {
      this.lose(error);
      return this.notConnected();
    }
    return this.explain(error);
  }

  stderrTail(): readonly string[] {
    return this.stderr.lines();
  }

  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  /** Ends an attempt that never handed out a connection: no stdin grace for the child. */
  abort(): Promise<void> {
    this.aborted = true;
    if (this.mcp.kind === 'stdio') void this.mcp.transport.terminate();
    return this.close();
  }

  private async shutdown(): Promise<void> {
    const wasOpen = this.state === 'open';
    if (this.state !== 'dead') this.state = 'closing';
    this.refreshing?.unsubscribe();
    this.stopWork();
    if (wasOpen && this.mcp.kind === 'http') await this.terminateHttpSession();
    await this.client.close().catch(() => undefined);
    // Protocol.close() skips the transport when it never got that far; ours is idempotent.
    await this.mcp.transport.close().catch(() => undefined);
    if (this.state === 'closing') {
      this.state = 'closed';
      this.listsSubject.complete();
    }
  }

  private async terminateHttpSession(): Promise<void> {
    if (this.mcp.kind !== 'http' || this.mcp.transport.sessionId === undefined) return;
    let timer: NodeJS.Timeout | undefined;
    const giveUp = new Promise<void>((resolve) => (timer = setTimeout(resolve, TERMINATE_SESSION_MS)));
    await Promise.race([this.mcp.transport.terminateSession().catch(() => undefined), giveUp]);
    clearTimeout(timer);
  }

  private onTransportClosed(): void {
    if (this.state === 'closing' || this.state === 'closed') return;
    // A remote transport that closes while connecting does so because the SDK gave up on it:
    // the error that made it give up is the better message, and open() rejects with it.
    if (this.state === 'connecting' && this.mcp.kind !== 'stdio') return;
    this.die(this.describeLoss());
  }

  private onTransportError(error: Error): void {
    if (error instanceof MessageTooLarge) return this.end(error);
    const needsAuth = this.state === 'open' ? this.authorizationNeeded(error) : undefined;
    if (needsAuth && needsAuth.why !== 'scope') return this.end(needsAuth);
    if (this.state === 'open' && isConnectionLost(this.mcp.kind, error)) this.lose(error);
  }

  /** A remote connection is gone: report it, then close the transport (which rejects calls in flight). */
  private lose(error: unknown): void {
    this.end(new Error(`connection lost: ${this.redact(this.describe(error))}`));
  }

  /** Ends the connection for `why` (what `lists$` errors with), then closes the transport. */
  private end(why: Error): void {
    this.die(why.message, why);
    void this.mcp.transport.close().catch(() => undefined);
  }

  /**
   * Whether a failure means that only the user can help (decision 83): the SDK gave up for want of
   * an authorization (`UnauthorizedError`), or our provider declined to start one in the
   * background. A 403 `insufficient_scope` on a working token asks for more scope (`scope`).
   */
  private authorizationNeeded(error: unknown): NeedsAuthorization | undefined {
    if (error instanceof NeedsAuthorization) return error;
    const remote = loadedRemoteParts();
    if (this.oauth === undefined || remote === undefined) return undefined;
    const { stepUp, scope } = this.oauth.challenge;
    // The SDK tries a step-up once per challenge; asked again before a new token came, it says
    // "Server returned 403 after trying upscoping" — the same need for more scope.
    if (stepUp === true && error instanceof remote.SdkHttpError && error.status === 403) return new NeedsAuthorization('scope', scope);
    if (!(error instanceof remote.UnauthorizedError || error instanceof remote.AuthorizationRequired)) return undefined;
    if (stepUp === true) return new NeedsAuthorization('scope', scope);
    return new NeedsAuthorization(this.state === 'open' ? 'refused' : 'required', scope);
  }

  private die(reason: string, error: Error = new Error(reason)): void {
    if (this.state === 'dead') return;
    this.deathError = error;
    this.state = 'dead';
    this.deathReason = reason;
    this.refreshing?.unsubscribe();
    this.stopWork();
    this.listsSubject.error(error);
  }

  /** Stops what runs beside the requests: the health check's timer, a helper still running, a step-up's wait. */
  private stopWork(): void {
    clearTimeout(this.healthTimer);
    this.healthTimer = undefined;
    this.ttl.stop();
    this.listen?.close();
    this.stopped.abort(new Error(`server "${this.name}" is not connected`));
  }

  private describeLoss(): string {
    if (this.mcp.kind !== 'stdio') return 'connection closed';
    return describeProcessExit(this.mcp.transport.exit, this.stderr.lastLine());
  }

  /** A failure in words; a remote server that could not be reached is named by its host. */
  private describe(error: unknown): string {
    return describeRemoteFailure(probeFailureCause(error), this.mcp.kind === 'stdio' ? undefined : this.config.url);
  }

  /** The timeout of a request sent now: the connect deadline while connecting, else `timeout`. */
  private requestDeadline(): { ms: number; message: string } {
    const [ms, field] =
      this.state === 'connecting' ? [this.connectTimeoutMs, 'connectTimeout' as const] : [this.timeoutMs, 'timeout' as const];
    return { ms, message: field === 'connectTimeout' ? this.connectTimedOut() : timedOut(ms, field) };
  }

  /** The connect deadline passed: which field to raise, and for a package runner that a first download may be the cause (decision 323). */
  connectTimedOut(): string {
    const words = timedOut(this.connectTimeoutMs, 'connectTimeout');
    const note = this.config.transport === 'stdio' ? firstDownloadNote(this.config.command, this.config.args) : undefined;
    return note === undefined ? words : `${words}; ${note}`;
  }

  private notConnected(): Error {
    const why = this.deathReason ? `: ${this.deathReason}` : '';
    return new Error(`server "${this.name}" is not connected${why}`);
  }

  private listChanged(kind: ListKind): void {
    if (this.state === 'connecting') this.changedWhileConnecting.add(kind);
    else if (this.state === 'open') this.refresh$.next(kind);
  }
}

function isTimeout(error: unknown): boolean {
  return error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout;
}

