/**
 * Cold start: time from `start()` until all N fixture servers are connected, with
 * bounded parallelism (8 at once, the default) against one after another (concurrency 1), and
 * the memory our process holds per connected server (heap and RSS after `global.gc`).
 *
 * Also the yardstick every latency is compared with: a bare connect of one fixture through the
 * same connector (spawn, initialize, list) — the server's own connect time.
 */
import { firstValueFrom } from 'rxjs';
import { connectMcp } from '../src/sinks/mcp/connector.js';
import type { ResolvedServerConfig } from '../src/model/types.js';
import { LiveContestant } from './contestant.js';
import { FIXTURE, type RunDir, fixtureServers } from './fixtures.js';
import type { ColdStartAtN, ColdStartResult, EraConnectRow } from './results.js';
import { createMcpConnector } from '../src/sinks/mcp/connector.js';
import { eraMemory } from '../src/sinks/mcp/eraMemory.js';
import type { SurfaceRecord } from '../src/sinks/stores/surfaceStore.js';
import { join } from 'node:path';
import { round, summarize } from './stats.js';

/** ms from subscribing to the connector until one fixture is connected and listed. */
export async function bareConnect(): Promise<number> {
  const config: ResolvedServerConfig = {
    transport: 'stdio',
    command: process.execPath,
    args: [FIXTURE, '--tools', 'base'],
    env: {},
    headers: {},
    timeout: 30_000,
  };
  const t0 = performance.now();
  const connection = await firstValueFrom(connectMcp('bare', config));
  const ms = performance.now() - t0;
  await connection.close();
  return ms;
}

/** The servers of the era rows: a 2025 fixture, a modern (2026-07-28) one, a 2025 one that never answers the probe. */
const ERA_SERVERS: readonly { server: string; args: string[] }[] = [
  { server: '2025 server (answers the probe with an error)', args: [FIXTURE, '--tools', 'base'] },
  { server: '2026-07-28 server', args: [join(FIXTURE, '..', 'modern-server.mjs')] },
  { server: '2025 server that never answers the probe', args: [join(FIXTURE, '..', 'picky-legacy-server.mjs'), '--on-unknown', 'ignore'] },
];

/**
 * The era probe's cost (decision 380): per server, a connect with no verdict (the probe runs)
 * against one with the verdict the first found (no probe), in turns, `reps` each.
 */
export async function eraConnects(reps: number, log: (line: string) => void = () => undefined): Promise<EraConnectRow[]> {
  const rows: EraConnectRow[] = [];
  for (const { server, args } of ERA_SERVERS) {
    const config: ResolvedServerConfig = { transport: 'stdio', command: process.execPath, args, env: {}, headers: {}, timeout: 30_000 };
    const unknown: number[] = [];
    const known: number[] = [];
    for (let rep = 0; rep < reps; rep++) {
      const records = new Map<string, SurfaceRecord>();
      const eras = eraMemory({ get: (k) => records.get(k), put: (r) => void records.set(r.fingerprint, r) });
      const connect = createMcpConnector({ eras });
      for (const into of [unknown, known]) {
        const t0 = performance.now();
        const connection = await firstValueFrom(connect('era', config));
        into.push(performance.now() - t0);
        await connection.close();
      }
    }
    log(`  era connect, ${server}: unknown ${unknown.map(Math.round).join(', ')} ms; known ${known.map(Math.round).join(', ')} ms`);
    rows.push({ server, unknownMs: summarize(unknown), knownMs: summarize(known) });
  }
  return rows;
}

export interface ColdStartOptions {
  ns: readonly number[];
  reps: (n: number) => number;
  concurrency: number;
  debounceMs: number;
  run: RunDir;
  log: (line: string) => void;
}

const MB = 1024 * 1024;

function collect(): NodeJS.MemoryUsage {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc) {
    gc();
    gc();
  }
  return process.memoryUsage();
}

export async function runColdStart(o: ColdStartOptions): Promise<ColdStartResult> {
  const result: ColdStartResult = {
    concurrency: o.concurrency,
    ns: [],
    perServer: { heapKB: Number.NaN, rssKB: Number.NaN, between: [0, 0] },
    gcExposed: typeof (globalThis as { gc?: unknown }).gc === 'function',
  };
  for (const n of o.ns) {
    const bounded: number[] = [];
    const sequential: number[] = [];
    const heap: number[] = [];
    const rss: number[] = [];
    const bare: number[] = [];
    for (let rep = 0; rep < o.reps(n); rep++) {
      bare.push(await bareConnect());
      // Alternate which goes first, so a noisy moment does not always hit the same one.
      const order = rep % 2 === 0 ? [o.concurrency, 1] : [1, o.concurrency];
      for (const concurrency of order) {
        const dir = o.run.folder(`cold-${n}-c${concurrency}-${rep}`);
        const c = new LiveContestant({ strategy: 'incremental', dir, debounceMs: o.debounceMs, concurrency });
        const servers = fixtureServers(n, c.startLog);
        const before = collect();
        try {
          const ms = await c.start(servers);
          (concurrency === 1 ? sequential : bounded).push(ms);
          if (concurrency !== 1) {
            const after = collect();
            heap.push((after.heapUsed - before.heapUsed) / MB);
            rss.push((after.rss - before.rss) / MB);
          }
          o.log(`  cold start N=${n} concurrency=${concurrency} rep ${rep + 1}: ${Math.round(ms)} ms`);
        } catch (error) {
          o.log(`  cold start N=${n} concurrency=${concurrency} rep ${rep + 1} failed: ${String(error)}`);
        } finally {
          await c.stop();
        }
      }
    }
    const b = summarize(bounded);
    const s = summarize(sequential);
    const atN: ColdStartAtN = {
      n,
      bounded: b,
      sequential: s,
      ratio: round(s.median / b.median, 2),
      heapDeltaMB: summarize(heap),
      rssDeltaMB: summarize(rss),
      bareConnectMs: summarize(bare),
    };
    result.ns.push(atN);
  }
  const [lo, hi] = result.ns.slice(-2);
  if (lo && hi && hi.n > lo.n) {
    result.perServer = {
      heapKB: round(((hi.heapDeltaMB.median - lo.heapDeltaMB.median) * 1024) / (hi.n - lo.n)),
      rssKB: round(((hi.rssDeltaMB.median - lo.rssDeltaMB.median) * 1024) / (hi.n - lo.n)),
      between: [lo.n, hi.n],
    };
  }
  result.eras = await eraConnects(Math.max(3, o.reps(o.ns[0] ?? 1)), o.log);
  return result;
}
