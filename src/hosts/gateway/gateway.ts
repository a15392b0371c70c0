import type { Transport, CreateMessageResult, Server, ServerEvent, SubscriptionFilter } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { BehaviorSubject, combineLatest, filter, firstValueFrom, map, Subject, take, type Observable } from 'rxjs';
import type { McpLive, McpLiveOptions } from '../../live/types.js';
import type { QualifiedTool } from '../../model/report/status.js';
import { EMPTY_VIEW, changedLists, gatewayView, type ExposedNames, type GatewayView } from '../../model/gateway/gatewayView.js';
import { keptOrder } from '../../model/gateway/toolOrder.js';
import { distinctFlatList } from '../../operators/distinctFlatList.js';
import { CallsInFlight, ClientSession, type CallClient, type GatewayClientInfo, type GatewayCore, type GatewaySession } from './clientSession.js';
import { HeldCalls } from './heldCalls.js';
import { ListenWatchingTransport } from './listenWatch.js';
import { GatewayError } from './gatewayError.js';
import {
  DEFAULT_PROGRESSIVE_THRESHOLDS,
  toolCatalog,
  type ProgressiveMode,
  type ProgressiveThresholds,
  type ToolCatalog,
} from '../../model/gateway/progressiveTools.js';
import { ResourceSubscriptions } from './resourceSubscriptions.js';
import { ProtocolErrorCode } from '@modelcontextprotocol/server';

/**
 * The gateway core: one MCP server per connected client, all fronting one
 * {@link McpLive}. Transport-agnostic: `mcp-live serve` hands it stdio, socket and HTTP
 * transports. What a backend asks of its client (elicitation, sampling) and what it tells it
 * (logs, resource updates, progress) goes to the client whose request it serves.
 *
 *   live lists ──view(names)──▶ tools/prompts/resources(/templates)/list   ──▶ every client
 *              │               (tools: the three of progressive discovery, when on — decision 216;
 *              │                in the order kept across reloads — decision 358)
 *              └─changed?─────▶ notifications/<kind>/list_changed
 *   client ──tools/call──▶ live.tools.call ──progress──▶ that client (its token)
 *   backend ──elicitation/sampling/log──▶ the client with a request in flight there
 *
 * Both protocol eras (decision 387): a legacy (2025) client holds a session (`connect`); a modern
 * (2026-07-28) client's requests each get an instance of their own (`requestServer`), its list
 * changes come from {@link Gateway.changes$} on its `subscriptions/listen` stream, and what a
 * backend asks during its call goes back as `input_required` (decision 389). `serveConnection`
 * lets a connection's opening decide (`serve --stdio`).
 */

/** The hooks the gateway gives {@link createMcpLive}: each routes a backend's message to a client. */
export interface GatewayHooks {
  onElicitation: McpLiveOptions['onElicitation'];
  onSampling: McpLiveOptions['onSampling'];
  onServerLog: McpLiveOptions['onServerLog'];
  onResourceUpdated: McpLiveOptions['onResourceUpdated'];
}

export interface GatewayOptions {
  /**
   * 'server' (default, decision 222): tools and prompts as `server__tool`, the library's
   * qualified names without `mcp__`. 'qualified': the library's qualified names (tools.list$ names,
   * mcp__server__tool). 'original': a tool's/prompt's own name when no other live server lists
   * that name, else the qualified one (needed so the official conformance suite can call
   * `test_simple_text` through the gateway). Every name matches `^[A-Za-z0-9_-]{1,64}$`.
   */
  names?: ExposedNames;
  /**
   * Progressive discovery (decision 216): tools/list shows `search_tools`, `call_tool` and
   * `describe_tool` instead of every tool — `always`, or in `auto` while the full list would be
   * over {@link progressiveThresholds}. Absent: every tool is listed, as ever.
   */
  progressive?: ProgressiveMode;
  /** For `auto`: default 40 tools or 10,000 estimated tokens (decision 217). */
  progressiveThresholds?: Partial<ProgressiveThresholds>;
  serverInfo?: { name: string; version: string };
}

export interface Gateway {
  readonly live: McpLive;
  /** Serves one legacy (2025) client over `transport` until either side closes. */
  connect(transport: Transport, kind: GatewayClientInfo['transport']): Promise<GatewaySession>;
  /**
   * Serves one connection whose opening decides its era (`initialize`: legacy; an opening with
   * the 2026-07-28 `_meta` envelope: modern), until either side closes.
   */
  serveConnection(transport: Transport, kind: GatewayClientInfo['transport']): { close(): Promise<void> };
  /** A fresh instance for one modern request (the HTTP endpoint's `createMcpHandler` factory). */
  requestServer(): Server;
  /** The input schema of the tool listed as `name`, if one is (its `x-mcp-header` arguments, decision 374). */
  toolInputSchema(name: string): Promise<unknown>;
  /**
   * The change events of modern clients' `subscriptions/listen` streams: list changes and the
   * updates of resources some stream holds ({@link listening}).
   */
  readonly changes$: Observable<ServerEvent>;
  /**
   * A modern client's `subscriptions/listen` stream opened with `filter`: the backends are
   * asked for the resources it names, and it counts as a connected client, until the returned
   * function is called.
   */
  listening(filter: SubscriptionFilter, kind: GatewayClientInfo['transport'], client?: { name?: unknown; version?: unknown }): () => void;
  /** The clients connected now; replays the current list. */
  readonly clients$: Observable<readonly GatewayClientInfo[]>;
  /** Closes every client session; does NOT dispose the McpLive (the caller owns that). */
  close(): Promise<void>;
}

const DEFAULT_SERVER_INFO = { name: 'mcp-live', version: '0.1.0' };

/**
 * The gateway builds its own McpLive through `makeLive`, passing the hooks it needs
 * (elicitation/sampling/log passthrough routed to the right client). The caller starts the live
 * (`gateway.live.start()`) and disposes it; lists and calls wait for its first pass.
 */
export function createGateway(makeLive: (hooks: GatewayHooks) => McpLive, options: GatewayOptions = {}): Gateway {
  const names = options.names ?? 'server';
  const progressive = options.progressive;
  const thresholds: ProgressiveThresholds = { ...DEFAULT_PROGRESSIVE_THRESHOLDS, ...options.progressiveThresholds };
  const serverInfo = options.serverInfo ?? DEFAULT_SERVER_INFO;
  /** Connected clients, oldest first: who is asked when no request is in flight. */
  const sessions = new Set<ClientSession>();
  const clients = new BehaviorSubject<readonly GatewayClientInfo[]>([]);
  const calls = new CallsInFlight();
  const held = new HeldCalls();
  const changes = new Subject<ServerEvent>();
  /** Modern clients' listen streams, shown as clients while open. */
  const listeners = new Map<object, GatewayClientInfo>();
  let counter = 0;

  /** The client a backend's request goes to: the latest that has one in flight there, else the oldest; only a capable one. */
  const askable = (server: string, capable: (s: CallClient) => boolean) =>
    calls.latest(server, (c) => capable(c.client)) ?? firstOf(sessions, capable);

  const hooks: GatewayHooks = {
    onElicitation: (request, { signal }) => {
      const target = askable(request.server, (s) => s.canElicit());
      // Nobody to ask: the form is dismissed, as a user who closed it.
      if (target === undefined) return Promise.resolve({ action: 'cancel' });
      return target.client.elicit(request, signal, target.requestId);
    },
    onSampling: (server, params, { signal }): Promise<CreateMessageResult> => {
      const target = askable(server, (s) => s.canSample());
      if (target === undefined) {
        return Promise.reject(
          new GatewayError(ProtocolErrorCode.MethodNotFound, 'no client connected to the mcp-live gateway can sample (none declared the sampling capability)'),
        );
      }
      return target.client.sample(params, signal, target.requestId);
    },
    onServerLog: (server, message) => {
      // During requests, their clients hear the server's log (each once, on its latest request's
      // stream); else every client does.
      const byClient = new Map(calls.on(server).map((call) => [call.client, call]));
      if (byClient.size > 0) for (const [client, call] of byClient) client.log(message, call);
      else for (const s of sessions) s.log(message);
    },
    onResourceUpdated: (_server, uri) => {
      subscriptions.updated(uri);
      // Once: each listen stream that names the URI hears it (the SDK filters per stream).
      changes.next({ kind: 'resource_updated', uri });
    },
  };
  const live = makeLive(hooks);
  const subscriptions = new ResourceSubscriptions(live.resources);

  const ready = firstValueFrom(live.events$.pipe(filter((e) => e.type === 'ready')), { defaultValue: undefined });
  let view: GatewayView = EMPTY_VIEW;
  let catalog: ToolCatalog = toolCatalog(EMPTY_VIEW, [], progressive, thresholds);
  let catalogOf: readonly unknown[] = [];
  /**
   * The order tools/list keeps (decision 358): the library's own until the first pass has ended
   * (a fresh gateway starts from it, whatever order its servers connected in), then each list
   * keeps the one before. One per gateway: every client sees the same.
   */
  let firstPassOver = false;
  let orderedFrom: readonly QualifiedTool[] | undefined;
  let ordered: readonly QualifiedTool[] = [];
  const inKeptOrder = (tools: readonly QualifiedTool[]): readonly QualifiedTool[] => {
    // tools.list$ keeps its array while the tools are unchanged: so does the order (the catalog below needs it).
    if (tools === orderedFrom) return ordered;
    const previous = firstPassOver ? ordered.map((t) => t.name) : undefined;
    orderedFrom = tools;
    ordered = keptOrder(previous, tools, (t) => t.name);
    return ordered;
  };
  const watching = combineLatest({
    tools: live.tools.list$.pipe(map(inKeptOrder)),
    prompts: live.prompts.list$,
    resources: live.servers.list$.pipe(distinctFlatList((s) => s.resources, (r, s) => ({ ...r, server: s.name }))),
    resourceTemplates: live.servers.list$.pipe(distinctFlatList((s) => s.resourceTemplates ?? [], (t, s) => ({ ...t, server: s.name }))),
  })
    .pipe(map((lists) => ({ next: gatewayView(lists, names), tools: lists.tools })))
    .subscribe(({ next, tools }) => {
      const changed = changedLists(view, next);
      // tools.list$ keeps its array while the tools are unchanged: so does the catalog, and its search index.
      const nextCatalog = tools === catalogOf ? catalog : toolCatalog(next, tools, progressive, thresholds);
      catalogOf = tools;
      // `auto` switching between the full list and the three changes what tools/list answers (decision 217).
      if (nextCatalog.progressive !== catalog.progressive && !changed.includes('tools')) changed.push('tools');
      view = next;
      catalog = nextCatalog;
      for (const kind of changed) {
        for (const s of sessions) s.listChanged(kind);
        changes.next({ kind: `${kind}_list_changed` });
      }
    });
  watching.add(
    live.events$.pipe(filter((e) => e.type === 'ready'), take(1)).subscribe(() => {
      firstPassOver = true;
    }),
  );

  const core: GatewayCore = {
    live,
    names,
    calls,
    subscriptions,
    // Lists and calls wait for the first pass, so a client started with the gateway sees its
    // servers' tools in its first tools/list (many clients never re-list).
    view: () => ready.then(() => view),
    catalog: () => ready.then(() => catalog),
    held,
  };

  const publishClients = (): void => clients.next([...[...sessions].map((s) => s.info), ...listeners.values()]);

  /** A session in the set of connected clients while it lasts. */
  const join = (session: ClientSession): void => {
    sessions.add(session);
    void session.closed.then(() => {
      sessions.delete(session);
      subscriptions.dropClient(session);
      publishClients();
    });
  };

  return {
    live,
    clients$: clients.asObservable(),
    changes$: changes.asObservable(),
    async connect(transport, kind) {
      const session = new ClientSession(core, { id: `${kind}-${++counter}`, transport: kind }, serverInfo, publishClients);
      join(session);
      try {
        await session.start(transport);
      } catch (error) {
        sessions.delete(session);
        await transport.close().catch(() => undefined);
        throw error;
      }
      publishClients();
      return session;
    },
    serveConnection(transport, kind) {
      const id = `${kind}-${++counter}`;
      let pinned: ClientSession | undefined;
      let named: { name?: unknown; version?: unknown } | undefined;
      // The resources a modern client's listen streams name, asked of the backends while they are
      // open; serveStdio routes the instance's resources/updated onto the stream (decision 388).
      const streams = new Map<unknown, readonly string[]>();
      const subscriber = { resourceUpdated: (uri: string) => pinned?.resourceUpdated(uri) };
      const watched = new ListenWatchingTransport(transport, {
        onListen: (requestId, uris) => {
          streams.set(requestId, uris);
          for (const uri of uris) subscriptions.subscribe(subscriber, uri).catch(ignore);
        },
        onListenEnd: (requestId) => {
          for (const uri of streams.get(requestId) ?? []) subscriptions.unsubscribe(subscriber, uri).catch(ignore);
          streams.delete(requestId);
        },
        onClientInfo: (client) => {
          named ??= client;
          if (pinned?.info.era === 'modern') pinned.identify(client);
        },
        onEnd: () => subscriptions.dropClient(subscriber),
      });
      return serveStdio(
        ({ era }) => {
          // A modern opening may be a probe whose client then falls back to initialize: the
          // entry closes that instance, and the session leaves the set.
          const session = new ClientSession(core, { id, transport: kind, era }, serverInfo, publishClients);
          pinned = session;
          join(session);
          if (era === 'modern' && named !== undefined) session.identify(named);
          publishClients();
          return session.instance;
        },
        { transport: watched },
      );
    },
    async toolInputSchema(name) {
      return (await core.view()).tools.find((tool) => tool.name === name)?.inputSchema;
    },
    requestServer() {
      return new ClientSession(core, { id: 'http-request', transport: 'http', era: 'modern' }, serverInfo, ignore).instance;
    },
    listening(filter, kind, client) {
      const token = {};
      const subscriber = { resourceUpdated: ignore };
      listeners.set(token, {
        id: `${kind}-${++counter}`,
        transport: kind,
        era: 'modern',
        ...(typeof client?.name === 'string' ? { clientName: client.name } : {}),
        ...(typeof client?.version === 'string' ? { clientVersion: client.version } : {}),
      });
      publishClients();
      for (const uri of filter.resourceSubscriptions ?? []) subscriptions.subscribe(subscriber, uri).catch(ignore);
      let ended = false;
      return () => {
        if (ended) return;
        ended = true;
        subscriptions.dropClient(subscriber);
        listeners.delete(token);
        publishClients();
      };
    },
    async close() {
      watching.unsubscribe();
      held.close();
      await Promise.all([...sessions].map((s) => s.close()));
      changes.complete();
      clients.complete();
    },
  };
}

function ignore(): void {}

function firstOf<T>(items: Iterable<T>, where: (item: T) => boolean): { client: T; requestId?: undefined } | undefined {
  for (const item of items) if (where(item)) return { client: item };
  return undefined;
}
