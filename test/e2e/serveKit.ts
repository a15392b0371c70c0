import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CLI, processesMentioning, waitUntil, Workspace, type OnFinished, type Proc } from './cliSession.js';

/**
 * What the `mcp-live serve` end-to-end files share: a workspace per test whose gateway, relays
 * and servers are found by their command lines (they all name the test's temp directory: the
 * daemon is detached, so it is no descendant of ours) and ended with the test, and the client a
 * client's config launches (`serve --stdio`).
 */

/** The root of every workspace gatewayWorkspace made: a file's afterAll checks no process names one. */
export const gatewayRoots: string[] = [];
const clientsOf = new WeakMap<Workspace, Client[]>();

/**
 * The gateway daemons of `w`. A child a daemon is starting shows the daemon's command line until
 * it has exec'd its own (fork, then exec): not a daemon, so never one whose parent is one.
 */
export function daemons(w: Workspace): Proc[] {
  const found = processesMentioning(w.root).filter((p) => p.command.includes('serve --daemon'));
  const pids = new Set(found.map((p) => p.pid));
  return found.filter((p) => !pids.has(p.ppid));
}
export const backends = (w: Workspace): Proc[] => processesMentioning(w.startLog).filter((p) => p.command.includes('echo-server.mjs'));

export const gatewayEnv = (w: Workspace): Record<string, string> => ({ ...(process.env as Record<string, string>), HOME: w.home });

/**
 * The workspace of one test. Tests can run side by side: each has its own HOME, so its own socket
 * and gateway. When one ends, its sessions are stopped and its clients closed, its gateway
 * stopped, whatever still mentions its directory after that killed, and the directory removed.
 */
export function gatewayWorkspace(onFinished: OnFinished): Workspace {
  const created = new Workspace();
  gatewayRoots.push(created.root);
  clientsOf.set(created, []);
  onFinished(async () => {
    await Promise.all(created.sessions.splice(0).map((session) => session.stop()));
    await Promise.all(clientsOf.get(created)!.map((c) => c.close().catch(() => undefined)));
    // A gateway ends on SIGTERM as on `serve --stop`, its servers with it (one CLI start less).
    for (const daemon of daemons(created)) signal(daemon.pid, 'SIGTERM');
    await waitUntil(() => processesMentioning(created.root).length === 0, 'the test’s processes gone', 10_000).catch(() => undefined);
    for (const p of processesMentioning(created.root)) signal(p.pid, 'SIGKILL');
    created.cleanup();
  });
  return created;
}

/** A client the test made itself, closed when the test ends. */
export function trackClient(w: Workspace, client: Client): void {
  clientsOf.get(w)!.push(client);
}

/** What a client's config launches: `mcp-live serve --stdio --cwd …`. */
export async function stdioClient(w: Workspace, extra: string[] = [], name = 'serve-e2e'): Promise<{ client: Client; transport: StdioClientTransport }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'serve', '--stdio', '--cwd', w.cwd, '--debounce', '100', ...extra],
    env: gatewayEnv(w),
    stderr: 'pipe',
  });
  const client = new Client({ name, version: '1.0.0' });
  trackClient(w, client);
  await client.connect(transport);
  return { client, transport };
}

/** Signals `pid` unless it has gone meanwhile. */
function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // It ended between the look and the signal.
  }
}
