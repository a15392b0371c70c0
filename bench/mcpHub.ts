/**
 * mcp-hub (npm `mcp-hub`) as a contestant: `mcp-hub --watch --config FILE --port P`, driven
 * through its own config file and observed through its own REST API on loopback.
 *
 * - Usability: `GET /api/servers` → `servers[].status === 'connected'` and
 *   `capabilities.tools` not empty. Polled every {@link POLL_MS} ms while a measurement runs,
 *   and once more at once whenever its SSE stream (`GET /api/events`) reports
 *   `servers_updated`, so the moment it finished applying a change is not missed by a poll
 *   interval. An observation is stamped with the time its request was *sent*, which favours
 *   mcp-hub by at most one request's latency.
 * - Passes: one `servers_updating` … `servers_updated` pair per config change it applied.
 * - Offline: mcp-hub fetches a marketplace catalog from the internet at start unless its cache
 *   is fresh; the bench seeds that cache (in a temp `XDG_DATA_HOME`) so nothing leaves loopback.
 *   Its logs, workspace cache and state also go to temp directories.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import { get, type ClientRequest } from 'node:http';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { HUB_STABILITY_MS, type Contestant, type ContestantId } from './contestant.js';
import { ROOT, type ServerMap, sleep, writeJson } from './fixtures.js';
import { type Availability, Probe } from './probe.js';

export const HUB_PACKAGE_DIR = join(ROOT, 'node_modules', 'mcp-hub');
export const HUB_CLI = join(HUB_PACKAGE_DIR, 'dist', 'cli.js');
/** How often the REST API is polled during a measurement. */
export const POLL_MS = 20;

/** Whether mcp-hub can take part here, and what was checked. */
export interface McpHubStatus {
  available: boolean;
  version?: string;
  /** Why it cannot take part (when not available). */
  reason?: string;
  /** npm lifecycle scripts that would run at install (`preinstall`, `install`, `postinstall`). */
  installScripts: string[];
  dependencies: string[];
  checks: string[];
}

const LIFECYCLE = ['preinstall', 'install', 'postinstall'];

interface PackageJson {
  version?: string;
  scripts?: Record<string, string>;
  dependencies?: Record<string, string>;
}

/** Static checks (installed, no install scripts, its dependencies) plus a smoke run. */
export async function checkMcpHub(dir: string, fixture: ServerMap): Promise<McpHubStatus> {
  const status: McpHubStatus = { available: false, installScripts: [], dependencies: [], checks: [] };
  const manifest = join(HUB_PACKAGE_DIR, 'package.json');
  if (!existsSync(manifest) || !existsSync(HUB_CLI)) {
    status.reason = 'mcp-hub is not installed (npm install -D mcp-hub)';
    return status;
  }
  const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as PackageJson;
  status.version = pkg.version;
  status.dependencies = Object.keys(pkg.dependencies ?? {});
  const withScripts: [string, PackageJson][] = [['mcp-hub', pkg]];
  for (const dep of status.dependencies) {
    const depManifest = join(ROOT, 'node_modules', dep, 'package.json');
    if (existsSync(depManifest)) withScripts.push([dep, JSON.parse(readFileSync(depManifest, 'utf8')) as PackageJson]);
  }
  for (const [name, p] of withScripts) {
    for (const script of LIFECYCLE) if (p.scripts?.[script]) status.installScripts.push(`${name}: ${script}`);
  }
  status.checks.push(
    `installed mcp-hub ${pkg.version}: one bundled file (dist/cli.js), dependencies: ${status.dependencies.join(', ') || 'none'}`,
    status.installScripts.length === 0
      ? 'no install scripts (preinstall/install/postinstall) in mcp-hub or its dependencies, no binary download'
      : `install scripts: ${status.installScripts.join('; ')}`,
  );
  const hub = new HubContestant(dir);
  try {
    const ms = await hub.start(fixture);
    status.checks.push(
      `smoke run on Node ${process.version}: started with ${Object.keys(fixture).length} fixture server(s), all usable through GET /api/servers (over 127.0.0.1) after ${Math.round(ms)} ms; marketplace cache seeded, so no request leaves the machine`,
    );
    status.available = true;
  } catch (error) {
    status.reason = `smoke run failed: ${error instanceof Error ? error.message : String(error)}`;
  } finally {
    await hub.stop();
  }
  return status;
}

interface HubServer {
  name: string;
  status: string;
  capabilities?: { tools?: { name: string }[] };
}

/** A free loopback port (asked of the OS, then released for mcp-hub to take). */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export class HubContestant implements Contestant {
  readonly id: ContestantId = 'mcp-hub';
  readonly floorMs = HUB_STABILITY_MS;
  readonly startLog: string;
  readonly probe = new Probe();
  private readonly configFile: string;
  private readonly stateHome: string;
  private proc?: ChildProcess;
  private exited?: Promise<void>;
  private port = 0;
  private events?: ClientRequest;
  private updating: number[] = [];
  private readonly updated: number[] = [];
  private watching = false;
  private pollLoop?: Promise<void>;
  private pollNow = false;
  private wake?: () => void;

  constructor(private readonly dir: string) {
    this.startLog = join(dir, 'starts.log');
    this.configFile = join(dir, 'mcp-hub.json');
    this.stateHome = join(dir, 'xdg');
  }

  get pid(): number | undefined {
    return this.proc?.pid;
  }

  async start(servers: ServerMap): Promise<number> {
    this.write(servers);
    this.seedMarketplaceCache();
    this.port = await freePort();
    const log = openSync(join(this.dir, 'mcp-hub.log'), 'a');
    const t0 = performance.now();
    const proc = spawn(process.execPath, [HUB_CLI, '--port', String(this.port), '--config', this.configFile, '--watch'], {
      cwd: this.dir,
      env: {
        ...process.env,
        HOME: join(this.dir, 'home'),
        XDG_STATE_HOME: join(this.stateHome, 'state'),
        XDG_DATA_HOME: join(this.stateHome, 'data'),
        XDG_CONFIG_HOME: join(this.stateHome, 'config'),
      },
      stdio: ['ignore', log, log],
    });
    closeSync(log);
    this.proc = proc;
    this.exited = new Promise((resolve) => proc.once('exit', () => resolve()));
    const names = Object.keys(servers);
    const deadline = Date.now() + 60_000 + names.length * 1_500;
    for (;;) {
      if (proc.exitCode !== null) throw new Error(`mcp-hub exited with code ${proc.exitCode} (see ${join(this.dir, 'mcp-hub.log')})`);
      if (Date.now() > deadline) throw new Error(`mcp-hub: not all ${names.length} servers usable within the deadline`);
      await this.pollOnce().catch(() => undefined);
      if (this.probe.allUp(names)) break;
      await sleep(100);
    }
    const ms = performance.now() - t0;
    this.listen();
    return ms;
  }

  write(servers: ServerMap): void {
    writeJson(this.configFile, { mcpServers: servers });
  }

  passesEndedSince(since: number): number {
    return this.updated.filter((t) => t >= since).length;
  }

  lastPassEndedAt(): number {
    return this.updated.at(-1) ?? 0;
  }

  passesInFlight(): number {
    return Math.max(0, this.updating.length - this.updated.length);
  }

  /** Polls the REST API every {@link POLL_MS} while on. */
  watch(on: boolean): void {
    if (on === this.watching) return;
    this.watching = on;
    if (on) this.pollLoop = this.runPollLoop();
    else this.wake?.();
  }

  async stop(): Promise<void> {
    this.watch(false);
    await this.pollLoop;
    this.events?.destroy();
    this.events = undefined;
    const proc = this.proc;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    proc.kill('SIGTERM');
    const killer = setTimeout(() => proc.kill('SIGKILL'), 20_000);
    await this.exited;
    clearTimeout(killer);
  }

  /** A catalog younger than its 1 h TTL: mcp-hub then makes no request to the internet. */
  private seedMarketplaceCache(): void {
    writeJson(join(this.stateHome, 'data', 'mcp-hub', 'cache', 'registry.json'), {
      registry: {
        version: 'bench',
        generatedAt: Date.now(),
        totalServers: 1,
        servers: [{ id: 'bench-placeholder', name: 'placeholder', description: 'seeded by the mcp-live benchmark' }],
      },
      lastFetchedAt: Date.now(),
      serverDocumentation: {},
    });
  }

  /** Subscribes to its SSE stream for `servers_updating` / `servers_updated`. */
  private listen(): void {
    const req = get({ host: '127.0.0.1', port: this.port, path: '/api/events', headers: { Accept: 'text/event-stream' } }, (res) => {
      res.setEncoding('utf8');
      let buffer = '';
      res.on('data', (chunk: string) => {
        buffer += chunk;
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          this.onEvent(buffer.slice(0, end));
          buffer = buffer.slice(end + 2);
        }
      });
      res.on('error', () => undefined);
    });
    req.on('error', () => undefined);
    this.events = req;
  }

  private onEvent(block: string): void {
    const data = block.split('\n').find((l) => l.startsWith('data: '));
    if (!data) return;
    let type: unknown;
    try {
      type = (JSON.parse(data.slice(6)) as { type?: unknown }).type;
    } catch {
      return;
    }
    const now = performance.now();
    if (type === 'servers_updating') this.updating.push(now);
    if (type === 'servers_updated') {
      this.updated.push(now);
      this.pollNow = true;
      this.wake?.();
    }
  }

  private async runPollLoop(): Promise<void> {
    while (this.watching) {
      await this.pollOnce().catch(() => undefined);
      if (!this.watching) break;
      if (this.pollNow) {
        this.pollNow = false;
        continue;
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, POLL_MS);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = undefined;
    }
  }

  private async pollOnce(): Promise<void> {
    const sent = performance.now();
    const res = await fetch(`http://127.0.0.1:${this.port}/api/servers`);
    const body = (await res.json()) as { servers?: HubServer[] };
    const snapshot = new Map<string, Availability>();
    for (const s of body.servers ?? []) {
      const tools = s.status === 'connected' ? (s.capabilities?.tools ?? []).map((t) => t.name) : [];
      snapshot.set(s.name, { up: s.status === 'connected' && tools.length > 0, tools });
    }
    this.probe.observe(sent, snapshot);
  }
}
