import { CLIENT_CAPABILITIES_META_KEY, Server, ProtocolErrorCode } from '@modelcontextprotocol/server';
import type {
  Transport,
  CallToolResult,
  CreateMessageRequestParams,
  CreateMessageResult,
  GetPromptResult,
  InputRequiredResult,
  LoggingLevel,
  LoggingMessageNotification,
  ReadResourceResult,
  RequestId,
  ServerNotification,
  ServerContext,
  ServerOptions,
} from '@modelcontextprotocol/server';
import type { McpLive, PendingElicitation } from '../../live/types.js';
import type { CallProgress, ElicitationAnswer, InputRound } from '../../model/connection.js';
import {
  exposedNameOf,
  inCallersWords,
  meantToolNames,
  type ExposedNames,
  type GatewayView,
  type ListKind,
} from '../../model/gateway/gatewayView.js';
import { exposedNamingMessage } from '../../model/tools/toolNameMessages.js';
import { lspOperationOf } from '../../model/lsp/lspTools.js';
import { traceContextOf } from '../../model/gateway/traceContext.js';
import {
  answerDescribe,
  answerSearch,
  CALL_TOOL,
  callToolTarget,
  DESCRIBE_TOOL,
  metaToolCalled,
  SEARCH_TOOLS,
  type ToolCatalog,
} from '../../model/gateway/progressiveTools.js';
import type { ResourceSubscriptions } from './resourceSubscriptions.js';
import { GatewayError } from './gatewayError.js';
import { elicitationParams, type HeldCall, type HeldCalls } from './heldCalls.js';
import { logPasses } from './logLevels.js';

/**
 * The protocol era a client speaks: `legacy` (2025: initialize, a session, server-initiated
 * requests) or `modern` (2026-07-28: every request stands alone, and a backend's question goes
 * back as `input_required` — decision 389).
 */
export type ClientEra = 'legacy' | 'modern';

export interface GatewayClientInfo {
  id: string;
  transport: 'stdio' | 'socket' | 'http';
  /** Absent: legacy (a client connected through `connect`). */
  era?: ClientEra;
  clientName?: string;
  clientVersion?: string;
}

export interface GatewaySession {
  /** Gains `clientName` / `clientVersion` once the client has initialized. */
  readonly info: GatewayClientInfo;
  /** Settles when the session is over, whichever side ended it. */
  readonly closed: Promise<void>;
  close(): Promise<void>;
}

/** What every client session of one gateway shares. */
export interface GatewayCore {
  readonly live: McpLive;
  /** How the view names tools: what an unlisted name a client calls may have meant. */
  readonly names: ExposedNames;
  /** The current view, once the live's first pass has ended. */
  view(): Promise<GatewayView>;
  /** What tools/list answers and the gateway's own tools work from, of the same view (decision 216). */
  catalog(): Promise<ToolCatalog>;
  readonly calls: CallsInFlight;
  readonly subscriptions: ResourceSubscriptions;
  /** Modern clients' calls waiting for the retry that answers their backend (decision 389). */
  readonly held: HeldCalls;
}

/** Requests from a user take as long as the user: the backend's own deadline and cancel end them. */
const NO_TIMEOUT = 2_147_483_647;

const CAPABILITIES = {
  tools: { listChanged: true },
  prompts: { listChanged: true },
  resources: { listChanged: true, subscribe: true },
  completions: {},
  logging: {},
};

/**
 * What a modern client may cache (decision 390): nothing, for no time. The gateway's lists change
 * whenever a settings file does, and a client is told on its `subscriptions/listen` stream; a
 * positive `ttlMs` would let a client that does not listen, or a cache between, serve a list from
 * before a reload. `private`: what a list holds depends on this user's settings and approvals.
 */
const NO_CACHE = { ttlMs: 0, cacheScope: 'private' } as const;
const CACHE_HINTS: ServerOptions['cacheHints'] = {
  'tools/list': NO_CACHE,
  'prompts/list': NO_CACHE,
  'resources/list': NO_CACHE,
  'resources/templates/list': NO_CACHE,
  'resources/read': NO_CACHE,
};


type Extra = ServerContext;

/** A request on a backend: its cancel, its progress, and the round it passes through (decision 372). */
type Run<T> = (signal: AbortSignal, onProgress?: (progress: CallProgress) => void, inputRound?: InputRound) => Promise<T>;

/** Who a backend's messages go to during a call: a legacy client's session, or a modern client's held call. */
export interface CallClient {
  canElicit(): boolean;
  canSample(): boolean;
  elicit(request: PendingElicitation, signal: AbortSignal, relatedRequestId?: RequestId): Promise<ElicitationAnswer>;
  sample(params: CreateMessageRequestParams, signal: AbortSignal, relatedRequestId?: RequestId): Promise<CreateMessageResult>;
  log(params: LoggingMessageNotification['params'], call?: Call): void;
}

/** A request of a client being served by a backend server: where that server's messages go meanwhile. */
export interface Call {
  readonly client: CallClient;
  readonly server: string;
  readonly requestId: RequestId;
  /** Sends on the request's own stream (Streamable HTTP answers on it). */
  readonly sendNotification: (notification: ServerNotification) => Promise<void>;
}

/** The requests in flight on each backend server, oldest first. */
export class CallsInFlight {
  private readonly byServer = new Map<string, Call[]>();

  /** Records `call`; the returned function ends it. */
  begin(call: Call): () => void {
    const calls = this.byServer.get(call.server) ?? [];
    calls.push(call);
    this.byServer.set(call.server, calls);
    return () => {
      const left = calls.filter((c) => c !== call);
      if (left.length > 0) this.byServer.set(call.server, left);
      else if (this.byServer.get(call.server) === calls) this.byServer.delete(call.server);
      calls.splice(0, calls.length, ...left);
    };
  }

  on(server: string): readonly Call[] {
    return this.byServer.get(server) ?? [];
  }

  /** The newest call on `server` that `where` accepts. */
  latest(server: string, where: (call: Call) => boolean): Call | undefined {
    return this.on(server).findLast(where);
  }
}

/**
 * One client: its own SDK `Server`, answered from the shared live set. A legacy client's session
 * lasts as long as its connection; a modern client's instance serves one HTTP request, or one
 * `serve --stdio` connection whose opening was modern.
 */
export class ClientSession implements GatewaySession, CallClient {
  readonly closed: Promise<void>;
  private readonly server: Server;
  private current: GatewayClientInfo;
  private initialized = false;
  /** `logging/setLevel`: the least severe level this client wants (all when unset). */
  private level?: LoggingLevel;
  private readonly era: ClientEra;

  constructor(
    private readonly core: GatewayCore,
    info: GatewayClientInfo,
    serverInfo: { name: string; version: string },
    private readonly onInfo: () => void,
  ) {
    this.current = info;
    this.era = info.era ?? 'legacy';
    this.server = new Server(serverInfo, { capabilities: CAPABILITIES, cacheHints: CACHE_HINTS });
    this.closed = new Promise<void>((resolve) => {
      // The SDK aborts the requests in flight then: their backend calls are cancelled.
      this.server.onclose = () => resolve();
    });
    this.server.oninitialized = () => {
      const version = this.server.getClientVersion();
      this.current = { ...this.current, clientName: version?.name, clientVersion: version?.version };
      this.initialized = true;
      this.onInfo();
    };
    // A modern client has no handshake: list changes reach it (on its listen stream) from the start.
    if (this.era === 'modern') this.initialized = true;
    this.answerLists();
    this.answerRequests();
  }

  get info(): GatewayClientInfo {
    return this.current;
  }

  /** A modern client names itself on each request (its envelope's `clientInfo`): the first name is kept. */
  identify(client: { name?: unknown; version?: unknown }): void {
    if (this.current.clientName !== undefined || typeof client.name !== 'string') return;
    this.current = { ...this.current, clientName: client.name, ...(typeof client.version === 'string' ? { clientVersion: client.version } : {}) };
    this.onInfo();
  }

  /** The SDK instance, for a serving entry that connects it itself (`createMcpHandler`, `serveStdio`). */
  get instance(): Server {
    return this.server;
  }

  start(transport: Transport): Promise<void> {
    return this.server.connect(transport);
  }

  async close(): Promise<void> {
    await this.server.close();
    await this.closed;
  }

  /** A modern client is asked only within its own calls (as `input_required`), never out of the blue. */
  canElicit(): boolean {
    return this.era === 'legacy' && this.server.getClientCapabilities()?.elicitation?.form !== undefined;
  }

  canSample(): boolean {
    return this.era === 'legacy' && this.server.getClientCapabilities()?.sampling !== undefined;
  }

  listChanged(kind: ListKind): void {
    if (!this.initialized) return;
    const sent =
      kind === 'tools' ? this.server.sendToolListChanged() : kind === 'prompts' ? this.server.sendPromptListChanged() : this.server.sendResourceListChanged();
    sent.catch(ignore);
  }

  /** A backend's log message, on the stream of `call` when it came during one, if this client's level lets it through. */
  log(params: LoggingMessageNotification['params'], call?: Call): void {
    // A modern client hears logs only on the stream of its own request (held calls send those).
    if (this.era === 'modern') return;
    if (!this.initialized || (this.level !== undefined && !logPasses(params.level, this.level))) return;
    const notification: ServerNotification = { method: 'notifications/message', params };
    (call ? call.sendNotification(notification) : this.server.notification(notification)).catch(ignore);
  }

  resourceUpdated(uri: string): void {
    this.server.sendResourceUpdated({ uri }).catch(ignore);
  }

  async elicit(request: PendingElicitation, signal: AbortSignal, relatedRequestId?: RequestId): Promise<ElicitationAnswer> {
    // Under the server's name and terminal-safe: the client may print it raw (decision 169).
    const params = elicitationParams(request);
    const result = await whileRunning(signal, (scoped) => this.server.elicitInput(params, { signal: scoped, timeout: NO_TIMEOUT, relatedRequestId }));
    return result.action === 'accept' ? { action: 'accept', content: result.content ?? {} } : { action: result.action };
  }

  sample(params: CreateMessageRequestParams, signal: AbortSignal, relatedRequestId?: RequestId): Promise<CreateMessageResult> {
    return this.server.createMessage(params, { signal, timeout: NO_TIMEOUT, relatedRequestId });
  }

  private answerLists(): void {
    const view = () => this.core.view();
    this.server.setRequestHandler('tools/list', async () => ({ tools: [...(await this.core.catalog()).listed] }));
    this.server.setRequestHandler('prompts/list', async () => ({ prompts: [...(await view()).prompts] }));
    this.server.setRequestHandler('resources/list', async () => ({ resources: [...(await view()).resources] }));
    this.server.setRequestHandler('resources/templates/list', async () => ({
      resourceTemplates: [...(await view()).resourceTemplates],
    }));
  }

  private answerRequests(): void {
    const { live, subscriptions } = this.core;
    this.server.setRequestHandler('tools/call', async ({ params }, ctx) => {
      const catalog = await this.core.catalog();
      switch (metaToolCalled(params.name, catalog)) {
        case SEARCH_TOOLS:
          return answerSearch(catalog, params.arguments);
        case DESCRIBE_TOOL:
          return answerDescribe(catalog, params.arguments, (name) => this.notFoundWords(name, catalog));
        case CALL_TOOL: {
          // A tools/call in other clothes (decision 218): the same route, progress, cancel and errors.
          const target = callToolTarget(params.arguments);
          if ('error' in target) throw new GatewayError(ProtocolErrorCode.InvalidParams, target.error);
          return this.callTool(catalog, target.name, target.arguments, ctx);
        }
        case undefined:
          return this.callTool(catalog, params.name, params.arguments ?? {}, ctx);
      }
    });
    this.server.setRequestHandler('prompts/get', async ({ params }, ctx) => {
      const route = (await this.core.view()).promptRoutes.get(params.name);
      // Not listed: the library says why (no server lists it, or more than one does).
      if (route === undefined) return failed(live.prompts.get(params.name, params.arguments ?? {}), ProtocolErrorCode.InvalidParams) as Promise<GetPromptResult>;
      return this.serve(route.server, ctx, `prompts/get ${params.name}`, (signal) =>
        live.prompts.get(route.prompt, params.arguments ?? {}, { server: route.server, signal }),
      ) as Promise<GetPromptResult | InputRequiredResult>;
    });
    this.server.setRequestHandler('resources/read', async ({ params }, ctx) => {
      await this.core.view();
      const server = live.resources.serverOf(params.uri);
      // Not listed by any server: the 2026-07-28 revision's unknown resource, invalid params.
      if (server === undefined && this.era === 'modern') {
        return failed(live.resources.read(params.uri), ProtocolErrorCode.InvalidParams, { uri: params.uri }) as Promise<ReadResourceResult>;
      }
      return this.serve(server, ctx, `resources/read ${params.uri}`, (signal) => live.resources.read(params.uri, { signal })) as Promise<
        ReadResourceResult | InputRequiredResult
      >;
    });
    this.server.setRequestHandler('resources/subscribe', async ({ params }) => {
      await this.core.view();
      await failed(subscriptions.subscribe(this, params.uri), ProtocolErrorCode.InvalidParams);
      return {};
    });
    this.server.setRequestHandler('resources/unsubscribe', async ({ params }) => {
      await failed(subscriptions.unsubscribe(this, params.uri), ProtocolErrorCode.InvalidParams);
      return {};
    });
    this.server.setRequestHandler('completion/complete', async ({ params }, ctx) => {
      const { ref } = params;
      if (ref.type === 'ref/resource') return this.serveNow(live.resources.serverOf(ref.uri, 'complete'), ctx, (signal) => live.prompts.complete(params, { signal }));
      const route = (await this.core.view()).promptRoutes.get(ref.name);
      if (route === undefined) return failed(live.prompts.complete(params), ProtocolErrorCode.InvalidParams);
      const routed = { ...params, ref: { ...ref, name: route.prompt } };
      return this.serveNow(route.server, ctx, (signal) => live.prompts.complete(routed, { server: route.server, signal }));
    });
    // The SDK's own handler keeps the level per transport session; here it is per client.
    this.server.setRequestHandler('logging/setLevel', ({ params }) => {
      this.level = params.level;
      return {};
    });
  }

  /**
   * A call of the tool exposed as `name`, as a client's tools/call of it: progress under the
   * client's token, the request's trace context passed on (decision 392), the backend's result
   * unchanged.
   */
  private async callTool(catalog: ToolCatalog, name: string, args: Record<string, unknown>, ctx: Extra): Promise<CallToolResult | InputRequiredResult> {
    const route = catalog.routes.get(name);
    if (route === undefined) throw this.toolUnavailable(name, catalog);
    const meta = traceContextOf(ctx.mcpReq._meta);
    const result = await this.serve(
      route.server,
      ctx,
      `tools/call ${name}`,
      (signal, onProgress, inputRound) =>
        this.core.live.tools.call(route.qualified, args, { signal, onProgress, ...(meta === undefined ? {} : { meta }), ...(inputRound === undefined ? {} : { inputRound }) }),
      true,
    );
    return result as CallToolResult | InputRequiredResult;
  }

  /**
   * Runs a request of this client on a backend `server`: at once for a legacy client; for a
   * modern one as a held call (decision 389), so that what a 2025-era backend asks meanwhile goes
   * back as `input_required` and the retry named `key` resumes it. A request that `passes`
   * (decision 372) is also a round of its own on a 2026-07-28 backend: that backend's
   * `input_required` goes back to the client unchanged, and a retry whose `requestState` this
   * gateway did not mint goes to the backend as it came — nothing of it is kept here.
   */
  private async serve<T>(server: string | undefined, ctx: Extra, key: string, run: Run<T>, passes = false): Promise<T | InputRequiredResult> {
    if (this.era === 'legacy') return this.serveNow(server, ctx, run);
    const state = ctx.mcpReq.requestState<unknown>();
    if (passes && state !== undefined && !this.core.held.holds(state)) {
      return this.serveNow(server, ctx, (signal, onProgress) => run(signal, onProgress, roundOf(ctx, state)));
    }
    return (await this.core.held.round(ctx, key, (held) =>
      this.serveHeld(server, ctx.mcpReq.id, held, (signal, onProgress) => run(signal, onProgress, passes ? roundOf(ctx) : undefined)),
    )) as T | InputRequiredResult;
  }

  /**
   * Runs a request of this client on a backend `server` (when known): it counts as in flight
   * there (the server's elicitations, sampling and logs come to this client meanwhile), is
   * cancelled when the client cancels it or goes away, and fails with the backend's code.
   * Progress goes out under the request's token, the last of it before the answer: a client
   * stops listening for a token once answered.
   */
  private async serveNow<T>(server: string | undefined, ctx: Extra, run: Run<T>): Promise<T> {
    const token = ctx.mcpReq._meta?.progressToken;
    let progressSent = Promise.resolve();
    const onProgress =
      token === undefined
        ? undefined
        : (p: CallProgress) => {
            const notification: ServerNotification = { method: 'notifications/progress', params: { progressToken: token, ...p } };
            progressSent = progressSent.then(() => ctx.mcpReq.notify(notification)).catch(ignore);
          };
    const end =
      server === undefined ? ignore : this.core.calls.begin({ client: this, server, requestId: ctx.mcpReq.id, sendNotification: ctx.mcpReq.notify });
    try {
      return await failed(run(ctx.mcpReq.signal, onProgress), ProtocolErrorCode.InternalError);
    } finally {
      end();
      await progressSent;
    }
  }

  /** The backend call of a held call: in flight across the rounds, its messages to the round in progress. */
  private async serveHeld<T>(
    server: string | undefined,
    requestId: RequestId,
    held: HeldCall,
    run: Run<T>,
  ): Promise<T> {
    const end = server === undefined ? ignore : this.core.calls.begin({ client: held, server, requestId, sendNotification: (n) => held.notify(n) });
    try {
      return await failed(
        run(held.signal, (p) => held.progress(p)),
        ProtocolErrorCode.InternalError,
      );
    } finally {
      end();
    }
  }

  /**
   * A tool that is not listed — never configured, its server removed, pending, failed, withheld
   * — is the MCP specification's unknown tool: invalid params, in the library's words (decision 224).
   */
  private toolUnavailable(name: string, catalog: ToolCatalog): GatewayError {
    return new GatewayError(ProtocolErrorCode.InvalidParams, this.notFoundWords(name, catalog));
  }

  /**
   * Why `name` is not listed, in the library's words about the name the client meant (under
   * `server`, `a__x` is `mcp__a__x` to the library), naming the tool as the client did.
   */
  private notFoundWords(name: string, catalog: ToolCatalog): string {
    const { live } = this.core;
    // A listed tool by another naming (`mcp__clock__now` for `clock__now`): the name it is listed under (decision 322).
    const exposed = exposedNameOf(name, catalog.routes);
    if (exposed !== undefined) return exposedNamingMessage(name, exposed, this.core.names);
    const meant = meantToolNames(name, this.core.names, (n) => lspOperationOf(n) !== undefined);
    const known = meant.find((m) => live.tools.serverOf(m) !== undefined) ?? meant[0]!;
    return inCallersWords(live.tools.notFoundMessage(known), known, name);
  }
}

/**
 * `request`, its failure as a {@link GatewayError}: a backend's JSON-RPC error keeps its code,
 * message and data; any other failure is the library's own words, with `code` and `data`.
 */
async function failed<T>(request: Promise<T>, code: number, data?: unknown): Promise<T> {
  try {
    return await request;
  } catch (error) {
    if (error instanceof GatewayError) throw error;
    const message = error instanceof Error ? error.message : String(error);
    const { code: own, data: ownData } = error as { code?: unknown; data?: unknown };
    if (typeof own === 'number' && Number.isSafeInteger(own)) {
      const prefix = `MCP error ${own}: `;
      throw new GatewayError(own, message.startsWith(prefix) ? message.slice(prefix.length) : message, ownData ?? data);
    }
    throw new GatewayError(code, message, data);
  }
}

/**
 * Runs `run` with a signal that aborts when `signal` does — while it runs only. The SDK never
 * takes its abort listener off a request's signal, and the library aborts a form's signal once
 * it is answered: passed on as it is, that would send the client a stray `notifications/cancelled`.
 */
async function whileRunning<T>(signal: AbortSignal, run: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const scoped = new AbortController();
  const abort = (): void => scoped.abort(signal.reason);
  if (signal.aborted) abort();
  else signal.addEventListener('abort', abort, { once: true });
  try {
    return await run(scoped.signal);
  } finally {
    signal.removeEventListener('abort', abort);
  }
}

/**
 * The round of a modern client's request as its backend gets it (decision 372): the client's
 * own capabilities (what it can answer), and on a retry its answers and the backend's state.
 */
function roundOf(ctx: Extra, state?: unknown): InputRound {
  const capabilities = (ctx.mcpReq.envelope as Readonly<Record<string, unknown>> | undefined)?.[CLIENT_CAPABILITIES_META_KEY];
  const { inputResponses } = ctx.mcpReq;
  return {
    ...(capabilities !== null && typeof capabilities === 'object' ? { clientCapabilities: capabilities as Record<string, unknown> } : {}),
    ...(typeof state === 'string' ? { requestState: state } : {}),
    // A backend may mint no state at all: a retry is then known by its answers only.
    ...(inputResponses === undefined ? {} : { inputResponses }),
  };
}

function ignore(): void {}
