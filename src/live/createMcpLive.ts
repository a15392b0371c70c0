import { filter, firstValueFrom, type Subscription } from 'rxjs';
import type { PendingApproval, QualifiedTool } from '../model/report/status.js';
import { resolveLspConfig } from '../model/lsp/lspConfig.js';
import type { LspView } from '../model/types.js';
import { defaultRuntimeDir, openProcessGroupRegistry } from '../process/processGroupRegistry.js';
import { LspDocuments } from '../sinks/lsp/documents.js';
import { LanguageServers } from '../sinks/lsp/languageServers.js';
import { createOAuthManager } from '../sinks/remote/oauthManager.js';
import { createApprovalsStore } from '../sinks/stores/approvalsStore.js';
import { createOAuthTokenStore } from '../sinks/stores/oauthTokenStore.js';
import { pinMarks } from '../sinks/stores/pinMarks.js';
import { createPinStore } from '../sinks/stores/pinStore.js';
import { createSurfaceStore } from '../sinks/stores/surfaceStore.js';
import { approvalsGroup } from './groups/approvalsGroup.js';
import { authGroup } from './groups/authGroup.js';
import { elicitationGroup } from './groups/elicitationGroup.js';
import { lspGroup } from './groups/lspGroup.js';
import { promptsGroup } from './groups/promptsGroup.js';
import { resourcesGroup } from './groups/resourcesGroup.js';
import { serversGroup } from './groups/serversGroup.js';
import { sessionGroup } from './groups/sessionGroup.js';
import { toolsGroup } from './groups/toolsGroup.js';
import { createReconciler } from './reconciler.js';
import { sessionConnector } from './sessionConnector.js';
import { sessionEvents } from './sessionEvents.js';
import { sessionHandlers } from './sessionHandlers.js';
import { sessionInputs } from './sessionInputs.js';
import { sessionLayers } from './sessionLayers.js';
import { settingsPaths, watchedFiles } from './settingsPaths.js';
import type { McpLive, McpLiveOptions } from './types.js';

/** A language server entry's view as written (undefined when it is not valid), for words about a blocked one. */
function writtenView(config: unknown, workspace: string): LspView | undefined {
  if (config === undefined) return undefined;
  const resolution = resolveLspConfig(config, {}, workspace);
  return resolution.ok ? resolution.resolved.lsp.view : undefined;
}

/**
 * The composition root (decision 345): sources (settings files, `.mcp.json`, `--mcp-config`,
 * extensions, approvals, trusted folders, the session layer, extra sources) → the reconcile
 * pipeline → connections, and the face's groups over them. The one place that subscribes.
 */
export function createMcpLive(options: McpLiveOptions = {}): McpLive {
  if (options.pool && options.connector) {
    throw new Error('createMcpLive: give either `pool` or `connector`, not both (a pool brings its own connector)');
  }
  const paths = settingsPaths(options);
  const root = paths.projectRoot;
  const store = createApprovalsStore(paths.approvals);
  const oauth = createOAuthManager(createOAuthTokenStore(paths.oauthTokens));
  const { scheduler, pool } = options;
  const events = sessionEvents(scheduler);
  const { now, warn } = events;
  const layers = sessionLayers();
  const inputs = sessionInputs(paths, store, layers, events, options);
  const { desired } = inputs;
  /** Ends every authorization still waiting for a browser when the session ends. */
  const sessionEnded = new AbortController();
  const announce = (server: string, url: string): void => {
    events.emit({ type: 'auth-required', server, url, ts: now() });
    options.onAuthorizationUrl?.(server, url);
  };
  const { handlers, elicitations } = sessionHandlers(paths.cwd, events, options);
  // Language servers (decision 153): the one document store of the session.
  const documents = new LspDocuments({ base: paths.cwd });
  const surfaces = createSurfaceStore(paths.surfaces, { onWarning: warn });
  // Pins apart from the cache (decision 307), and the approvals' pin markers (decision 309).
  const pins = createPinStore(paths.pins, { onWarning: warn });
  const approvalMarks = pinMarks(() => inputs.latest()?.approvals, store, root, warn, async () => inputs.written.next(await store.read(root)));
  const connector = sessionConnector({ options, oauth, documents, surfaces, scheduler, sessionEnded: sessionEnded.signal, announce });
  const r = createReconciler(inputs.inputs$, {
    ...options,
    connector,
    surfaces,
    pins,
    approvalMarks,
    restartShared: pool ? (key) => pool.restart(key) : undefined,
    cwd: paths.cwd,
    home: paths.home,
    activity$: inputs.activity$,
    assembly: inputs.assembly,
    handlers,
  });

  const languageServers = new LanguageServers({
    workspace: paths.cwd,
    documents,
    servers$: r.board.servers$,
    list: () => r.board.list(),
    connection: (name) => r.requests.connection(name),
    withConnection: (name, request) => r.requests.withConnection(name, request),
    // As the last pass wants it; for one it blocks, as written (so "pending approval" can be told).
    view: (name) => r.resolvedConfig(name)?.lsp?.view ?? writtenView(desired()?.servers[name]?.config, paths.cwd),
  });

  let promptable: readonly PendingApproval[] = [];
  let currentTools: readonly QualifiedTool[] = [];
  let subscription: Subscription | undefined;
  /** The one dispose (see {@link McpLive.dispose}). */
  let disposed: Promise<void> | undefined;
  /** Settles when the first pass has ended (`ready`); set by `start()`. */
  let firstPass: Promise<void> | undefined;
  const reloadSession = () => r.reload('session');
  const { auth, autoStart } = authGroup({ board: r.board, reconciler: r, oauth, sessionEnded: sessionEnded.signal, announce, warn });
  const tools = toolsGroup({ board: r.board, requests: r.requests, languageServers, firstPass: () => firstPass, current: () => currentTools });

  const live: McpLive = {
    cwd: paths.cwd,
    profile: paths.profile,
    watching: watchedFiles(paths),
    events$: events.events$,
    servers: serversGroup({ board: r.board, reconciler: r, desired, warn }),
    tools,
    approvals: approvalsGroup({ reconciler: r, promptable: () => promptable, desired, store, root, written: inputs.written, sessionApprovals: layers.approvals }),
    auth,
    lsp: lspGroup({ languageServers, layer: layers.lsp, reload: reloadSession }),
    resources: resourcesGroup({ board: r.board, requests: r.requests }),
    prompts: promptsGroup({ board: r.board, requests: r.requests }),
    session: sessionGroup({
      desired,
      layer: layers.servers,
      reload: reloadSession,
      enablement: layers.enablement,
      admission: { allowedMcpServerNames: options.allowedMcpServerNames, env: options.env, cwd: paths.cwd, home: paths.home, userSettings: paths.user },
    }),
    elicitation: elicitationGroup(elicitations),

    async start() {
      if (subscription) return;
      const ready = firstValueFrom(events.events$.pipe(filter((e) => e.type === 'ready'))).then(() => undefined);
      firstPass = ready;
      subscription = r.pendingApprovals$.subscribe((p) => (promptable = p));
      // The same list object while it is unchanged: the search index is built once per change.
      subscription.add(tools.list$.subscribe((t) => (currentTools = t)));
      subscription.add(r.events$.subscribe(events.emit));
      subscription.add(r.board.changes$.subscribe(autoStart));
      subscription.add(languageServers.pullOnConnect());
      events.emit({ type: 'started', ts: now(), cwd: paths.cwd, profile: paths.profile, watching: [...live.watching] });
      // Before our servers start: end what a SIGKILLed mcp-live left running (bounded, ~2.5 s at
      // most), and read the surface record a lazy server is listed from.
      await Promise.all([
        openProcessGroupRegistry(options.runtimeDir ?? defaultRuntimeDir(paths.profile, options.homeDir), warn),
        surfaces.load(),
        pins.load(),
      ]);
      if (subscription) r.start(); // not after a dispose() that came meanwhile
      await ready;
    },

    dispose() {
      disposed ??= (async () => {
        subscription?.unsubscribe();
        subscription = undefined;
        sessionEnded.abort(new Error('the session ended'));
        elicitations.dispose();
        await r.dispose();
        // A pin written at the end calls back into the surface records and the approval's pin
        // marker: both are written after it, so they are waited for after it, and nothing of this
        // session is written after dispose() resolves.
        await pins.flush();
        await Promise.all([surfaces.flush(), approvalMarks.flush()]);
        events.complete();
        layers.complete();
        inputs.complete();
      })();
      return disposed;
    },

    planned: () => r.planned(),
    reload: () => r.reload('reload'),
    settingsError: () => desired()?.settingsError,
  };
  return live;
}
