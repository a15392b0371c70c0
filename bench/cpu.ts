/**
 * Pure CPU of one reconcile decision: assemble (sources → desired state) + admission
 * (desiredServers, which runs admitAll and resolves/fingerprints each admitted server) + plan
 * (desired against live), for 100, 1,000 and 10,000 servers of which one changed since the live
 * state was built. No processes, no I/O: what a pass costs before it touches anything.
 */
import { PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { assemble, type AssembleInput } from '../src/model/assemble.js';
import { desiredServers, plan, type LiveEntry } from '../src/model/plan.js';
import type { CpuAtN, CpuResult } from './results.js';
import { round, summarize } from './stats.js';

const ENV: Record<string, string> = { HOME: '/home/bench' };

function input(servers: number, changed: string | undefined): AssembleInput {
  const map: Record<string, unknown> = {};
  for (let i = 0; i < servers; i++) {
    const name = `server-${i}`;
    map[name] = {
      command: 'node',
      args: ['/opt/servers/echo.mjs', '--port', String(4000 + i), ...(name === changed ? ['--changed'] : [])],
      env: { TOKEN: '$HOME/token' },
      timeout: 10_000,
      description: `server ${i}`,
    };
  }
  return {
    sources: [
      { scope: 'user', file: '/home/bench/.qwen/settings.json', servers: map, mcp: { excluded: ['blocked-*'] } },
      { scope: 'project', file: '/work/.mcp.json', servers: {} },
    ],
    approvals: {},
    sessionApprovals: {},
    folderTrusted: true,
  };
}

/** The live side as the planner sees it: every server connected with its current fingerprint. */
function liveOf(servers: number): Map<string, LiveEntry> {
  const { wanted } = desiredServers(assemble(input(servers, undefined)), undefined, ENV);
  const live = new Map<string, LiveEntry>();
  for (const w of Object.values(wanted)) live.set(w.name, { fingerprint: w.fingerprint, view: w.view, state: 'connected' });
  return live;
}

export interface CpuOptions {
  ns: readonly number[];
  /** Time budget per size, ms (iterations = as many as fit, at least `minIterations`). */
  budgetMs: number;
  minIterations: number;
  log: (line: string) => void;
}

export async function runCpu(o: CpuOptions): Promise<CpuResult> {
  const result: CpuResult = { ns: [] };
  // Garbage collections, to tell the collector's share of a pass from the model's own work.
  const collections: PerformanceEntry[] = [];
  const observer = new PerformanceObserver((list) => collections.push(...list.getEntries()));
  observer.observe({ entryTypes: ['gc'] });
  for (const servers of o.ns) {
    const live = liveOf(servers);
    const changed = `server-${Math.floor(servers / 2)}`;
    const next = input(servers, changed);
    const pass: number[] = [];
    /** [start, end] of each timed pass, ms on the performance clock. */
    const windows: [number, number][] = [];
    const a: number[] = [];
    const d: number[] = [];
    const p: number[] = [];
    const once = (record: boolean) => {
      const t0 = performance.now();
      const desired = assemble(next);
      const t1 = performance.now();
      const { wanted, blocked } = desiredServers(desired, undefined, ENV);
      const t2 = performance.now();
      const steps = plan(wanted, blocked, live);
      const t3 = performance.now();
      const reconnected = steps.filter((s) => s.change === 'reconnected');
      if (reconnected.length !== 1 || reconnected[0]!.name !== changed) {
        throw new Error(`plan for ${servers} servers: expected one reconnect of ${changed}, got ${reconnected.length}`);
      }
      if (record) {
        windows.push([t0, t3]);
        pass.push((t3 - t0) * 1000);
        a.push((t1 - t0) * 1000);
        d.push((t2 - t1) * 1000);
        p.push((t3 - t2) * 1000);
      }
    };
    // Warm-up: let the JIT settle before anything is recorded.
    const warmUntil = performance.now() + o.budgetMs / 4;
    for (let i = 0; i < 3 || performance.now() < warmUntil; i++) once(false);
    // A gc before each timed pass (when exposed): the pass is timed with its own allocations and
    // scavenges, not with a major collection of garbage left by the passes before it.
    const gc = (globalThis as { gc?: () => void }).gc;
    const until = performance.now() + o.budgetMs;
    while (pass.length < o.minIterations || performance.now() < until) {
      gc?.();
      once(true);
    }
    // Observer entries arrive asynchronously (a timer turn later, not on the next immediate); the
    // forced gc() calls fall between passes, not in them.
    await sleep(50);
    const gcUs = windows.map(([from, to]) =>
      collections
        .filter((c) => c.startTime >= from && c.startTime < to)
        .reduce((sum, c) => sum + Math.min(c.duration, to - c.startTime) * 1000, 0),
    );
    collections.length = 0;
    const summary = summarize(pass);
    const atN: CpuAtN = {
      servers,
      iterations: pass.length,
      passUs: summary,
      assembleUs: summarize(a),
      desiredUs: summarize(d),
      planUs: summarize(p),
      gcUs: summarize(gcUs),
      nsPerServer: round((summary.median * 1000) / servers, 0),
      nsPerServerWithoutGc: round((summarize(pass.map((us, i) => us - gcUs[i]!)).median * 1000) / servers, 0),
    };
    o.log(
      `  cpu ${servers} servers: ${summary.median} µs per pass (${atN.nsPerServer} ns/server, ${atN.nsPerServerWithoutGc} without gc, ${pass.length} iterations)`,
    );
    result.ns.push(atN);
  }
  observer.disconnect();
  return result;
}
