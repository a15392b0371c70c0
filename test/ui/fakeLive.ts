import { BehaviorSubject, Subject, map, of } from 'rxjs';
import type { McpLive, PendingElicitation, QualifiedPrompt, Unavailable } from '../../src/createMcpLive.js';
import type { McpLiveEvent } from '../../src/model/events.js';
import type { PendingApproval, QualifiedTool, ServerStatus } from '../../src/model/status.js';

/** One recorded method call of the fake. */
export interface Call {
  method: string;
  args: unknown[];
}

/**
 * A controllable {@link McpLive}: its observables are subjects the test pushes to, and its
 * methods record what they were called with. `callResult`, `approveError` etc. steer answers.
 */
export function fakeLive(init: { servers?: readonly ServerStatus[]; pending?: readonly PendingApproval[] } = {}) {
  const servers = new BehaviorSubject<readonly ServerStatus[]>(init.servers ?? []);
  const tools = new BehaviorSubject<readonly QualifiedTool[]>((init.servers ?? []).flatMap((s) => s.tools));
  const prompts = new BehaviorSubject<readonly QualifiedPrompt[]>([]);
  const pending = new BehaviorSubject<readonly PendingApproval[]>(init.pending ?? []);
  const elicitations = new BehaviorSubject<readonly PendingElicitation[]>([]);
  const events = new Subject<McpLiveEvent>();
  const calls: Call[] = [];
  const steer: {
    callResult: unknown;
    callError?: Error;
    approveError?: Error;
    approveAllError?: Error;
    enableError?: Error;
    enableResult?: { file?: string; stillBlocked?: string };
    reconnectable: boolean;
    stderr: Record<string, readonly string[]>;
    configs: Record<string, unknown>;
    notFound: (q: string) => string;
    promptResult?: unknown;
    resourceResult?: unknown;
    requestError?: Error;
    /** `authenticate`: the URL to hand out (none: a machine grant), or a refusal. */
    authUrl?: string;
    authError?: Error;
    forgotten: number;
  } = {
    authUrl: 'https://auth.example.com/authorize?client_id=x&state=s',
    forgotten: 1,
    callResult: { content: [{ type: 'text', text: 'pong' }] },
    reconnectable: true,
    stderr: {},
    configs: {},
    notFound: (q) => `Tool "${q}" is not available: MCP server "beta" needs approval – approve it with /mcp.`,
  };
  const record = (method: string, ...args: unknown[]) => calls.push({ method, args });

  const live: McpLive = {
    cwd: '/work/demo',
    profile: 'qwen',
    watching: [],
    servers$: servers.asObservable(),
    tools$: tools.asObservable(),
    prompts$: prompts.asObservable(),
    pendingApprovals$: pending.asObservable(),
    elicitation$: elicitations.asObservable(),
    events$: events.asObservable(),
    lspServers$: servers.pipe(map((all) => all.filter((s) => s.kind === 'lsp'))),
    diagnostics$: of([]),
    lspRequest: (method, params, target) => {
      record('lspRequest', method, params, target);
      return Promise.reject(new Error('no language server in the fake'));
    },
    openDocument: (path, text) => {
      record('openDocument', path, text);
      return Promise.resolve({ path, uri: `file://${path}`, text: text ?? '', version: 1 });
    },
    changeDocument: (path, text) => {
      record('changeDocument', path, text);
      return { path, uri: `file://${path}`, text, version: 2 };
    },
    closeDocument: (path) => {
      record('closeDocument', path);
      return true;
    },
    start: () => {
      record('start');
      return Promise.resolve();
    },
    planned: () => Promise.resolve(),
    dispose: () => {
      record('dispose');
      return Promise.resolve();
    },
    reload: () => void record('reload'),
    reconnect: (name) => {
      record('reconnect', name);
      return steer.reconnectable;
    },
    approve: (name, options) => {
      record('approve', name, options);
      return steer.approveError ? Promise.reject(steer.approveError) : Promise.resolve();
    },
    // Recorded as called: a decision from the dialog names the hash (or set) it showed.
    approveAllPending: (...args) => {
      record('approveAllPending', ...args);
      if (steer.approveAllError) return Promise.reject(steer.approveAllError);
      return Promise.resolve((args[0] ?? pending.getValue()).map((p) => p.name));
    },
    reject: (...args) => {
      record('reject', ...args);
      return Promise.resolve();
    },
    addSessionServer: (name, config) => void record('addSessionServer', name, config),
    removeSessionServer: (name) => void record('removeSessionServer', name),
    addSessionLspServer: (name, config) => void record('addSessionLspServer', name, config),
    removeSessionLspServer: (name) => void record('removeSessionLspServer', name),
    callTool: (name, args) => {
      record('callTool', name, args);
      return steer.callError ? Promise.reject(steer.callError) : Promise.resolve(steer.callResult);
    },
    // Answering takes the form off the list, as the real queue does.
    answerElicitation: (id, answer) => {
      record('answerElicitation', id, answer);
      elicitations.next(elicitations.getValue().filter((e) => e.id !== id));
    },
    getPrompt: (name, args, options) => {
      record('getPrompt', name, args, options);
      return steer.requestError ? Promise.reject(steer.requestError) : Promise.resolve(steer.promptResult);
    },
    readResource: (uri, options) => {
      record('readResource', uri, options);
      return steer.requestError ? Promise.reject(steer.requestError) : Promise.resolve(steer.resourceResult);
    },
    listResources: () => servers.getValue().flatMap((s) => s.resources.map((r) => ({ ...r, server: s.name }))),
    listResourceTemplates: () => servers.getValue().flatMap((s) => (s.resourceTemplates ?? []).map((t) => ({ ...t, server: s.name }))),
    unavailableReason: (): Unavailable | undefined => undefined,
    // The UI neither subscribes nor completes: these exist for the gateway (decision 118).
    subscribeResource: () => Promise.reject(new Error('not in the fake')),
    unsubscribeResource: () => Promise.reject(new Error('not in the fake')),
    complete: () => Promise.reject(new Error('not in the fake')),
    serverOfTool: () => undefined,
    serverOfResource: () => undefined,
    searchTools: (query) => {
      record('searchTools', query);
      return [];
    },
    toolNotFoundMessage: (q) => {
      record('toolNotFoundMessage', q);
      return steer.notFound(q);
    },
    statusReport: () => servers.getValue(),
    pendingApprovals: () => pending.getValue(),
    stderrTail: (name) => steer.stderr[name] ?? [],
    serverConfig: (name) => steer.configs[name],
    settingsError: () => undefined,
    enable: (name, options) => {
      record('enable', name, options);
      return steer.enableError ? Promise.reject(steer.enableError) : Promise.resolve({ server: name, enabled: true, ...steer.enableResult });
    },
    disable: (name, options) => {
      record('disable', name, options);
      return Promise.resolve({ server: name, enabled: false, ...(options?.persist ? { file: '/home/u/.qwen/settings.json' } : {}) });
    },
    authenticate: (name) => {
      record('authenticate', name);
      if (steer.authError) return Promise.reject(steer.authError);
      return Promise.resolve({ ...(steer.authUrl === undefined ? {} : { url: steer.authUrl }), completed: Promise.resolve() });
    },
    logout: (name) => {
      record('logout', name);
      return Promise.resolve(steer.forgotten);
    },
  };

  /** Replaces the servers (and the tools they carry). */
  const setServers = (next: readonly ServerStatus[]) => {
    servers.next(next);
    tools.next(next.flatMap((s) => s.tools));
  };
  const callsOf = (method: string) => calls.filter((c) => c.method === method).map((c) => c.args);
  return { live, servers, tools, pending, elicitations, events, calls, callsOf, steer, setServers };
}

/** A server status with sensible defaults. */
export function server(name: string, patch: Partial<ServerStatus> = {}): ServerStatus {
  return {
    name,
    scope: 'user',
    source: `/home/u/.qwen/settings.json`,
    state: 'connected',
    tools: [],
    prompts: [],
    resources: [],
    history: [],
    ...patch,
  };
}

export function tool(serverName: string, toolName: string, description?: string): QualifiedTool {
  return { name: `mcp__${serverName}__${toolName}`, server: serverName, tool: toolName, description, trust: false };
}

export function pendingApproval(name: string, patch: Partial<PendingApproval> = {}): PendingApproval {
  return {
    name,
    scope: 'workspace',
    source: '/work/demo/.qwen/settings.json',
    target: `node ${name}-server.mjs`,
    hash: `hash-${name}`,
    config: { command: 'node', args: [`${name}-server.mjs`] },
    readsEnv: [],
    review: [{ label: 'command', value: `node ${name}-server.mjs` }],
    ...patch,
  };
}

/** Key sequences as a terminal sends them. */
export const KEY = {
  up: '\u001B[A',
  down: '\u001B[B',
  left: '\u001B[D',
  right: '\u001B[C',
  pageUp: '\u001B[5~',
  pageDown: '\u001B[6~',
  home: '\u001B[H',
  end: '\u001B[F',
  enter: '\r',
  escape: '\u001B',
  tab: '\t',
  backspace: '\u007F',
  ctrlC: '\u0003',
} as const;

export const tick = (ms = 50) => new Promise((resolve) => setTimeout(resolve, ms));

/** A frame without colour codes, so assertions read the words. */
export function plain(frame: string | undefined): string {
  // eslint-disable-next-line no-control-regex
  return (frame ?? '').replace(/\u001B\[[0-9;]*m/g, '');
}
