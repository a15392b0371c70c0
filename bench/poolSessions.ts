/**
 * Shared pool (decisions 36 and 158): 10 sessions × the same 10 servers in one process. With
 * the pool there should be 10 server processes, without it 100. Reports processes and memory
 * (ours: RSS and heap; the servers': the sum of their RSS) side by side, pool on vs off.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { filter, firstValueFrom, throwError, timeout } from 'rxjs';
import { createMcpLive } from '../src/live/createMcpLive.js';
import { type McpLive } from '../src/live/types.js';
import { connectMcp } from '../src/sinks/mcp/connector.js';
import { createConnectionPool } from '../src/sinks/mcp/connectionPool.js';
import { RunDir, fixtureProcesses, fixtureServers, readStarts, waitForNoFixtures, writeJson } from './fixtures.js';

export interface PoolModeResult {
  sessions: number;
  serversPerSession: number;
  processes: number;
  startsLogged: number;
  /** Sum of the server processes' resident memory. */
  serversRssMb: number;
  /** Our own process, after a GC. */
  ownRssMb: number;
  ownHeapMb: number;
  /** start() of every session until all are connected. */
  connectMs: number;
}

export interface PoolResult {
  pooled: PoolModeResult;
  unpooled: PoolModeResult;
}

function rssOf(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** How long all sessions may take to connect (about 35 s here for 100 processes on 2 cores). */
const CONNECT_BUDGET_MS = 180_000;

async function runMode(dir: RunDir, pooled: boolean, sessions: number, servers: number): Promise<PoolModeResult> {
  const root = dir.folder(pooled ? 'pool-on' : 'pool-off');
  const startLog = join(root, 'starts.log');
  const home = join(root, 'home');
  // 100 processes starting at once take about 30 s on 2 cores without the pool: the default connect
  // deadline (30 s) would fail one now and then, and this measures processes and memory, not deadlines.
  const entries = Object.fromEntries(Object.entries(fixtureServers(servers, startLog)).map(([name, entry]) => [name, { ...entry, connectTimeout: 120_000 }]));
  writeJson(join(home, '.qwen', 'settings.json'), { mcpServers: entries });
  const pool = pooled ? createConnectionPool({ connector: connectMcp, idleGraceMs: 1000 }) : undefined;
  const lives: McpLive[] = [];
  // One workspace for all: sessions of one project (windows, agents) are what a pool shares
  // processes between — a stdio server's working directory is part of its fingerprint, so
  // sessions in different workspaces never share one (decision 158).
  const cwd = dir.folder(`${pooled ? 'pool-on' : 'pool-off'}/project`);
  for (let i = 0; i < sessions; i++) lives.push(createMcpLive({ cwd, homeDir: home, debounceMs: 50, ...(pool ? { pool } : {}) }));
  const t0 = performance.now();
  await Promise.all(lives.map((l) => l.start()));
  // Bounded: a server that never connects fails the run with every state, instead of hanging it.
  await Promise.all(
    lives.map((l) =>
      firstValueFrom(
        l.servers.list$.pipe(
          filter((s) => s.filter((x) => x.state === 'connected').length === servers),
          timeout({
            first: CONNECT_BUDGET_MS,
            with: () => {
              const states = l.servers.status().map((x) => `${x.name} ${x.state}${x.error ? ` (${x.error})` : ''}`);
              return throwError(() => new Error(`pool bench: not every server connected within ${CONNECT_BUDGET_MS / 1000} s: ${states.join('; ')}`));
            },
          }),
        ),
      ),
    ),
  );
  const connectMs = performance.now() - t0;
  const pids = fixtureProcesses(root);
  global.gc?.();
  const mem = process.memoryUsage();
  const result: PoolModeResult = {
    sessions,
    serversPerSession: servers,
    processes: pids.length,
    startsLogged: readStarts(startLog).length,
    serversRssMb: Math.round(pids.reduce((sum, pid) => sum + rssOf(pid), 0)),
    ownRssMb: Math.round(mem.rss / 2 ** 20),
    ownHeapMb: Math.round(mem.heapUsed / 2 ** 20),
    connectMs: Math.round(connectMs),
  };
  await Promise.all(lives.map((l) => l.dispose()));
  await pool?.dispose();
  const left = await waitForNoFixtures(root, 5000);
  if (left.length > 0) throw new Error(`pool bench left ${left.length} server processes`);
  return result;
}

/** Pool off first (it is the heavier run), then on, in the same process. */
export async function runPoolSessions(dir: RunDir, sessions = 10, servers = 10): Promise<PoolResult> {
  const unpooled = await runMode(dir, false, sessions, servers);
  const pooled = await runMode(dir, true, sessions, servers);
  return { pooled, unpooled };
}
