import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StreamableHTTPReconnectionOptions } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  ErrorCode,
  McpError,
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import {
  EMPTY,
  Observable,
  Subject,
  catchError,
  from,
  groupBy,
  map,
  mergeMap,
  throwError,
  timeout,
  type Subscription,
} from 'rxjs';
import type { CallToolOptions, Connection, Connector } from '../model/connection.js';
import { createServerMasker } from '../model/secrets.js';
import { connectDeadline } from '../model/validate.js';
import { exhaustMapWithTrailing } from '../operators/exhaustMapWithTrailing.js';
import {
  DEFAULT_TIMEOUT_MS,
  type PromptInfo,
  type ResolvedServerConfig,
  type ResourceInfo,
  type ServerLists,
  type ToolInfo,
} from '../model/types.js';
import { activeProcessGroupRegistry, type ProcessGroupRegistry } from './processGroupRegistry.js';
import { StderrRing } from './stderrRing.js';
import { describeProcessExit } from './stdioTransport.js';
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
}

/** The {@link Connection} this connector hands out: its `close()` is a Promise. */
export interface McpConnection extends Connection {
  close(): Promise<void>;
}

export type McpConnector = (name: string, config: ResolvedServerConfig) => Observable<McpConnection>;

export const DEFAULT_STDIN_GRACE_MS = 500;
export const DEFAULT_KILL_GRACE_MS = 2_000;
const DEFAULT_CLIENT_INFO = { name: 'mcp-live', version: '0.1.0' };
/** Guards against a server that hands out cursors forever. */
const MAX_LIST_PAGES = 100;
/** How long close() gives a Streamable HTTP server to end its session (a courtesy, not required). */
const TERMINATE_SESSION_MS = 1_000;

export function createMcpConnector(options: McpConnectorOptions = {}): McpConnector {
  return (name, config) =>
    new Observable<McpConnection>((subscriber) => {
      let session: McpSession;
      try {
        session = new McpSession(name, config, options);
      } catch (error) {
        subscriber.error(asError(error));
        return;
      }
      const ms = session.connectTimeoutMs;
      let settled = false;
      const attempt = from(session.open())
        .pipe(timeout({ first: ms, with: () => throwError(() => new Error(timedOut(ms, 'connectTimeout'))) }))
        .subscribe({
          next: (connection) => {
            settled = true;
            subscriber.next(connection);
            subscriber.complete();
          },
          error: (error: unknown) => {
            settled = true;
            const failure = session.explain(error);
            const report = (): void => subscriber.error(failure);
            void session.abort().then(report, report);
          },
        });
      return () => {
        attempt.unsubscribe();
        if (!settled) void session.abort();
      };
    });
}

/**
 * A timeout in words, naming the field of the server's entry that sets it (SPEC §11): `timeout`
 * for a request, `connectTimeout` for the connect.
 */
export function timedOut(ms: number, field: 'timeout' | 'connectTimeout'): string {
  return `timed out after ${ms} ms (raise "${field}" in the server's entry)`;
}

/** A deadline from a config, or the default when it is missing or not a positive number. */
function deadline(ms: number | undefined, fallback: number): number {
  return ms !== undefined && Number.isFinite(ms) && ms > 0 ? ms : fallback;
}

/** The connector with default graces. */
export const connectMcp: McpConnector = createMcpConnector();

// The real connector is a Connector (checked here, where a mismatch is easiest to read).
connectMcp satisfies Connector;

type ListKind = keyof ServerLists;
type SessionState = 'connecting' | 'open' | 'closing' | 'closed' | 'dead';

const EMPTY_LISTS: ServerLists = { tools: [], prompts: [], resources: [] };

class McpSession implements McpConnection {
  /** Each request once connected (`timeout`). */
  readonly timeoutMs: number;
  /** The whole connect, and each request during it (`connectTimeout`). */
  readonly connectTimeoutMs: number;
  lists: ServerLists = EMPTY_LISTS;
  readonly lists$: Observable<Partial<ServerLists>>;

  private state: SessionState = 'connecting';
  /** Why the server went away on its own (already redacted). */
  private deathReason?: string;
  private readonly redact: (text: string) => string;
  private readonly stderr: StderrRing;
  private readonly mcp: McpTransport;
  private readonly client: Client;
  private readonly listsSubject = new Subject<Partial<ServerLists>>();
  private readonly refresh$ = new Subject<ListKind>();
  private readonly changedWhileConnecting = new Set<ListKind>();
  private refreshing?: Subscription;
  private closing?: Promise<void>;

  constructor(
    private readonly name: string,
    private readonly config: ResolvedServerConfig,
    options: McpConnectorOptions,
  ) {
    this.timeoutMs = deadline(config.timeout, DEFAULT_TIMEOUT_MS);
    // A config built by hand (a host, a test) may lack connectTimeout: the resolver's rule applies.
    this.connectTimeoutMs = deadline(config.connectTimeout, connectDeadline(undefined, this.timeoutMs));
    // The child inherits process.env (see childEnvironment), so its secrets are this server's too.
    this.redact = createServerMasker({ resolved: config, env: process.env });
    this.stderr = new StderrRing(undefined, this.redact);
    this.lists$ = this.listsSubject.asObservable();
    this.mcp = createTransport(config, this.stderr, {
      graces: {
        stdinGraceMs: options.stdinGraceMs ?? DEFAULT_STDIN_GRACE_MS,
        killGraceMs: options.killGraceMs ?? DEFAULT_KILL_GRACE_MS,
      },
      httpReconnection: options.httpReconnection,
      processGroups: { registry: options.processGroups ?? activeProcessGroupRegistry(), name },
    });
    this.client = new Client(options.clientInfo ?? DEFAULT_CLIENT_INFO, { capabilities: {} });
    this.client.onclose = () => this.onTransportClosed();
    this.client.onerror = (error) => this.onTransportError(error);
    this.client.setNotificationHandler(ToolListChangedNotificationSchema, () => this.listChanged('tools'));
    this.client.setNotificationHandler(PromptListChangedNotificationSchema, () => this.listChanged('prompts'));
    this.client.setNotificationHandler(ResourceListChangedNotificationSchema, () => this.listChanged('resources'));
  }

  get pid(): number | undefined {
    return this.mcp.kind === 'stdio' ? this.mcp.transport.pid : undefined;
  }

  /** Connects, fetches the lists and hands itself out. The overall deadline is the caller's. */
  async open(): Promise<McpConnection> {
    await this.client.connect(this.mcp.transport, { timeout: this.connectTimeoutMs });
    const lists = await this.fetchLists();
    if (this.state !== 'connecting') throw new Error(this.deathReason ?? 'connection closed');
    this.lists = lists;
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
              from(this.listAll(kind)).pipe(
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
    return this;
  }

  /** The error an attempt reports: why the server died if it did, else what went wrong, masked. */
  explain(error: unknown): Error {
    if (this.deathReason) return new Error(this.deathReason);
    // The SDK's own request timer says "Request timed out"; one wording for every timeout, and
    // the field to raise: while connecting, every request runs under the connect deadline.
    if (error instanceof McpError && error.code === (ErrorCode.RequestTimeout as number)) {
      return new Error(this.requestDeadline().message);
    }
    return new Error(this.redact(this.describe(error)));
  }

  async callTool(tool: string, args: Record<string, unknown>, { signal }: CallToolOptions = {}): Promise<unknown> {
    if (this.state !== 'open') throw this.notConnected();
    try {
      // With a signal, the SDK sends `notifications/cancelled` when it aborts and rejects with its reason.
      return await this.client.callTool({ name: tool, arguments: args }, undefined, { timeout: this.timeoutMs, signal });
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      // The SDK rejects calls in flight as soon as the transport closes; say why.
      if (this.state !== 'open') throw this.notConnected();
      // A remote server that resets or refuses the request's connection is gone, whether or not
      // its event stream has noticed yet.
      if (this.mcp.kind !== 'stdio' && isNetworkFailure(error)) {
        this.lose(error);
        throw this.notConnected();
      }
      throw this.explain(error);
    }
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
    if (this.mcp.kind === 'stdio') void this.mcp.transport.terminate();
    return this.close();
  }

  private async shutdown(): Promise<void> {
    const wasOpen = this.state === 'open';
    if (this.state !== 'dead') this.state = 'closing';
    this.refreshing?.unsubscribe();
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
    if (this.state === 'open' && isConnectionLost(this.mcp.kind, error)) this.lose(error);
  }

  /** A remote connection is gone: report it, then close the transport (which rejects calls in flight). */
  private lose(error: unknown): void {
    this.die(`connection lost: ${this.redact(this.describe(error))}`);
    void this.mcp.transport.close().catch(() => undefined);
  }

  private die(reason: string): void {
    if (this.state === 'dead') return;
    this.state = 'dead';
    this.deathReason = reason;
    this.refreshing?.unsubscribe();
    this.listsSubject.error(new Error(reason));
  }

  private describeLoss(): string {
    if (this.mcp.kind !== 'stdio') return 'connection closed';
    return describeProcessExit(this.mcp.transport.exit, this.stderr.lastLine());
  }

  /** A failure in words; a remote server that could not be reached is named by its host. */
  private describe(error: unknown): string {
    return describeRemoteFailure(error, this.mcp.kind === 'stdio' ? undefined : this.config.url);
  }

  /** The timeout of a request sent now: the connect deadline while connecting, else `timeout`. */
  private requestDeadline(): { ms: number; message: string } {
    const [ms, field] =
      this.state === 'connecting' ? [this.connectTimeoutMs, 'connectTimeout' as const] : [this.timeoutMs, 'timeout' as const];
    return { ms, message: timedOut(ms, field) };
  }

  private notConnected(): Error {
    const why = this.deathReason ? `: ${this.deathReason}` : '';
    return new Error(`server "${this.name}" is not connected${why}`);
  }

  private listChanged(kind: ListKind): void {
    if (this.state === 'connecting') this.changedWhileConnecting.add(kind);
    else if (this.state === 'open') this.refresh$.next(kind);
  }

  /** The lists the server advertises; a list the server answers with an error counts as empty. */
  private async fetchLists(): Promise<ServerLists> {
    const capabilities = this.client.getServerCapabilities() ?? {};
    const fetch = (kind: ListKind, advertised: unknown) =>
      advertised ? this.listAll(kind).catch(emptyOnServerError) : Promise.resolve([]);
    const [tools, prompts, resources] = await Promise.all([
      fetch('tools', capabilities.tools),
      fetch('prompts', capabilities.prompts),
      fetch('resources', capabilities.resources),
    ]);
    return { tools, prompts, resources } as ServerLists;
  }

  private listAll(kind: 'tools'): Promise<ToolInfo[]>;
  private listAll(kind: ListKind): Promise<ToolInfo[] | PromptInfo[] | ResourceInfo[]>;
  private async listAll(kind: ListKind): Promise<ToolInfo[] | PromptInfo[] | ResourceInfo[]> {
    const options = { timeout: this.requestDeadline().ms };
    const pages = async <T>(page: (cursor?: string) => Promise<{ items: T[]; nextCursor?: string }>) => {
      const items: T[] = [];
      const seen = new Set<string>();
      let cursor: string | undefined;
      for (let i = 0; i < MAX_LIST_PAGES; i++) {
        const result = await page(cursor);
        items.push(...result.items);
        cursor = result.nextCursor;
        if (!cursor || seen.has(cursor)) break;
        seen.add(cursor);
      }
      return items;
    };
    switch (kind) {
      case 'tools':
        return pages(async (cursor) => {
          const r = await this.client.listTools(cursor ? { cursor } : undefined, options);
          return { items: r.tools.map(toToolInfo), nextCursor: r.nextCursor };
        });
      case 'prompts':
        return pages(async (cursor) => {
          const r = await this.client.listPrompts(cursor ? { cursor } : undefined, options);
          return { items: r.prompts.map(toPromptInfo), nextCursor: r.nextCursor };
        });
      case 'resources':
        return pages(async (cursor) => {
          const r = await this.client.listResources(cursor ? { cursor } : undefined, options);
          return { items: r.resources.map(toResourceInfo), nextCursor: r.nextCursor };
        });
    }
  }
}

/**
 * A server that advertises a list and then answers a `…/list` request with a JSON-RPC error still works
 * for everything else, so that list counts as empty. A timeout or a lost connection is not the
 * server's answer: it fails the connect.
 */
function emptyOnServerError(error: unknown): [] {
  if (
    error instanceof McpError &&
    error.code !== (ErrorCode.RequestTimeout as number) &&
    error.code !== (ErrorCode.ConnectionClosed as number)
  ) {
    return [];
  }
  throw error;
}

function toToolInfo(tool: { name: string; description?: string; inputSchema?: unknown }): ToolInfo {
  return withoutUndefined({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema });
}

function toPromptInfo(prompt: { name: string; description?: string }): PromptInfo {
  return withoutUndefined({ name: prompt.name, description: prompt.description });
}

function toResourceInfo(resource: { uri: string; name?: string; description?: string }): ResourceInfo {
  return withoutUndefined({ uri: resource.uri, name: resource.name, description: resource.description });
}

function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
