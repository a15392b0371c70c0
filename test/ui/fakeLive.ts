import { BehaviorSubject, Subject, map, of } from 'rxjs';
import { vi } from 'vitest';
import type { McpLive, PendingElicitation, QualifiedPrompt, Unavailable } from '../../src/live/types.js';
import type { McpLiveEvent } from '../../src/model/report/events.js';
import type { PendingApproval, QualifiedTool, ServerStatus } from '../../src/model/report/status.js';
import { deadline } from '../deadlines.js';

/** One recorded method call of the fake (`start`; a group's as `tools.call`). */
export interface Call {
  method: string;
  args: unknown[];
}

/** The names the fake records calls under: the top level's, and a group's as `group.member`. */
const RECORDED: ReadonlySet<string> = new Set([
  'start', 'dispose', 'reload', 'servers.reconnect', 'tools.call', 'tools.search', 'tools.notFoundMessage',
  'approvals.approve', 'approvals.approveAll', 'approvals.reject', 'auth.authenticate', 'auth.logout',
  'lsp.request', 'lsp.open', 'lsp.change', 'lsp.close', 'lsp.addSession', 'lsp.removeSession',
  'resources.read', 'prompts.get', 'session.add', 'session.remove', 'session.enable', 'session.disable', 'elicitation.answer',
]);

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
    /** `auth.authenticate`: the URL to hand out (none: a machine grant), or a refusal. */
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
    events$: events.asObservable(),
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
    servers: {
      list$: servers.asObservable(),
      status: () => servers.getValue(),
      config: (name) => steer.configs[name],
      stderrTail: (name) => steer.stderr[name] ?? [],
      reconnect: (name) => {
        record('servers.reconnect', name);
        return steer.reconnectable;
      },
      unavailable: (): Unavailable | undefined => undefined,
    },
    tools: {
      list$: tools.asObservable(),
      call: (name, args) => {
        record('tools.call', name, args);
        return steer.callError ? Promise.reject(steer.callError) : Promise.resolve(steer.callResult);
      },
      search: (query) => {
        record('tools.search', query);
        return [];
      },
      serverOf: () => undefined,
      notFoundMessage: (q) => {
        record('tools.notFoundMessage', q);
        return steer.notFound(q);
      },
    },
    settingsError: () => undefined,
    approvals: {
      pending$: pending.asObservable(),
      pending: () => pending.getValue(),
      approve: (name, options) => {
        record('approvals.approve', name, options);
        return steer.approveError ? Promise.reject(steer.approveError) : Promise.resolve();
      },
      // Recorded as called: a decision from the dialog names the hash (or set) it showed.
      approveAll: (...args) => {
        record('approvals.approveAll', ...args);
        if (steer.approveAllError) return Promise.reject(steer.approveAllError);
        return Promise.resolve((args[0] ?? pending.getValue()).map((p) => p.name));
      },
      reject: (...args) => {
        record('approvals.reject', ...args);
        return Promise.resolve();
      },
    },
    auth: {
      authenticate: (name) => {
        record('auth.authenticate', name);
        if (steer.authError) return Promise.reject(steer.authError);
        return Promise.resolve({ ...(steer.authUrl === undefined ? {} : { url: steer.authUrl }), completed: Promise.resolve() });
      },
      logout: (name) => {
        record('auth.logout', name);
        return Promise.resolve(steer.forgotten);
      },
    },
    lsp: {
      servers$: servers.pipe(map((all) => all.filter((s) => s.kind === 'lsp'))),
      diagnostics$: of([]),
      request: (method, params, target) => {
        record('lsp.request', method, params, target);
        return Promise.reject(new Error('no language server in the fake'));
      },
      open: (path, text) => {
        record('lsp.open', path, text);
        return Promise.resolve({ path, uri: `file://${path}`, text: text ?? '', version: 1 });
      },
      change: (path, text) => {
        record('lsp.change', path, text);
        return { path, uri: `file://${path}`, text, version: 2 };
      },
      close: (path) => {
        record('lsp.close', path);
        return true;
      },
      addSession: (name, config) => void record('lsp.addSession', name, config),
      removeSession: (name) => void record('lsp.removeSession', name),
    },
    resources: {
      list: () => servers.getValue().flatMap((s) => s.resources.map((r) => ({ ...r, server: s.name }))),
      templates: () => servers.getValue().flatMap((s) => (s.resourceTemplates ?? []).map((t) => ({ ...t, server: s.name }))),
      read: (uri, options) => {
        record('resources.read', uri, options);
        return steer.requestError ? Promise.reject(steer.requestError) : Promise.resolve(steer.resourceResult);
      },
      // The UI neither subscribes nor completes: these exist for the gateway (decision 118).
      subscribe: () => Promise.reject(new Error('not in the fake')),
      unsubscribe: () => Promise.reject(new Error('not in the fake')),
      serverOf: () => undefined,
    },
    prompts: {
      list$: prompts.asObservable(),
      get: (name, args, options) => {
        record('prompts.get', name, args, options);
        return steer.requestError ? Promise.reject(steer.requestError) : Promise.resolve(steer.promptResult);
      },
      complete: () => Promise.reject(new Error('not in the fake')),
    },
    session: {
      add: (name, config) => void record('session.add', name, config),
      remove: (name) => void record('session.remove', name),
      enable: (name, options) => {
        record('session.enable', name, options);
        return steer.enableError ? Promise.reject(steer.enableError) : Promise.resolve({ server: name, enabled: true, ...steer.enableResult });
      },
      disable: (name, options) => {
        record('session.disable', name, options);
        return Promise.resolve({ server: name, enabled: false, ...(options?.persist ? { file: '/home/u/.qwen/settings.json' } : {}) });
      },
    },
    elicitation: {
      pending$: elicitations.asObservable(),
      // Answering takes the form off the list, as the real queue does.
      answer: (id, answer) => {
        record('elicitation.answer', id, answer);
        elicitations.next(elicitations.getValue().filter((e) => e.id !== id));
      },
    },
  };

  /** Replaces the servers (and the tools they carry). */
  const setServers = (next: readonly ServerStatus[]) => {
    servers.next(next);
    tools.next(next.flatMap((s) => s.tools));
  };
  // A name the fake never records would make `callsOf(…)).toEqual([])` pass whatever happened.
  const callsOf = (method: string) => {
    if (!RECORDED.has(method)) throw new Error(`fakeLive records no "${method}"`);
    return calls.filter((c) => c.method === method).map((c) => c.args);
  };
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

/**
 * `vi.waitFor` polling every 5 ms instead of its default 50: a render lands a millisecond or two
 * after the key or the emission, and a test waits for dozens of them. The timeout is vi.waitFor's
 * (1 s) unless given, scaled like every deadline of the suite (decision 316).
 */
export function waitFor<T>(check: () => T | Promise<T>, options: { timeout?: number } = {}): Promise<T> {
  return vi.waitFor(check, { interval: 5, timeout: deadline(options.timeout ?? 1_000) });
}

/** A frame without colour codes, so assertions read the words. */
export function plain(frame: string | undefined): string {
  // eslint-disable-next-line no-control-regex
  return (frame ?? '').replace(/\u001B\[[0-9;]*m/g, '');
}
