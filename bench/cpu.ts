/**
 * Pure CPU of one reconcile decision: assemble (sources → desired state) + the reconcile gate
 * (is it another desired state?) + admission (desiredServers, which runs admitAll and
 * resolves/fingerprints each admitted server) + plan (desired against live), for 100, 1,000 and
 * 10,000 servers, one of which changed since the last pass. No processes, no I/O: what a pass
 * costs before it touches anything. Two ways side by side, in the same run: from scratch (the
 * pure functions) and as the pipeline runs it, through a warm incremental desired state
 * (decision 102) fed what the file reader gives: a new `mcpServers` object on every read, in which
 * the entries nobody edited are the same objects as before.
 */
import { PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { assemble, type AssembleInput } from '../src/model/settings/assemble.js';
import { desiredStateEqual } from '../src/model/reconcile/equality.js';
import { createIncrementalDesired } from '../src/model/reconcile/incrementalDesired.js';
import { registerDerived } from '../src/model/reconcile/recordLineage.js';
import { createIncrementalPlan, type PassPlan } from '../src/model/reconcile/incrementalPlan.js';
import { desiredServers, keptRunning, plan, type Blocked, type LiveEntry, type WantedServer } from '../src/model/reconcile/plan.js';
import type { DesiredState } from '../src/model/types.js';
import type { CpuAtN, CpuPass, CpuResult } from './results.js';
import { round, summarize } from './stats.js';

const ENV: Record<string, string> = { HOME: '/home/bench' };

function entry(i: number, changed: boolean): Record<string, unknown> {
  return {
    command: 'node',
    args: ['/opt/servers/echo.mjs', '--port', String(4000 + i), ...(changed ? ['--changed'] : [])],
    env: { TOKEN: '$HOME/token' },
    timeout: 10_000,
    description: `server ${i}`,
  };
}

/**
 * The two inputs a pass alternates between: server `changed` in its first and its second
 * version. Every other entry is one object shared by both (as re-reads of the file give them);
 * the `mcpServers` objects, the snapshots and the inputs are new, the decisions shared.
 */
function inputs(servers: number, changed: number): [AssembleInput, AssembleInput] {
  const shared: Record<string, unknown> = {};
  for (let i = 0; i < servers; i++) shared[`server-${i}`] = entry(i, false);
  const decisions = { approvals: {}, sessionApprovals: {}, folderTrusted: true };
  const project = { scope: 'project' as const, file: '/work/.mcp.json', servers: {} };
  const version = (second: boolean): AssembleInput => {
    const map: Record<string, unknown> = {};
    for (let i = 0; i < servers; i++) map[`server-${i}`] = i === changed ? entry(i, second) : shared[`server-${i}`];
    return {
      sources: [{ scope: 'user', file: '/home/bench/.qwen/settings.json', servers: map, mcp: { excluded: ['blocked-*'] } }, project],
      ...decisions,
    };
  };
  const pair: [AssembleInput, AssembleInput] = [version(false), version(true)];
  // As the file reader registers them: each re-read is the other with one entry changed.
  const [first, second] = pair.map((input) => input.sources[0]!.servers);
  registerDerived(second!, first!, [`server-${changed}`]);
  registerDerived(first!, second!, [`server-${changed}`]);
  return pair;
}

/**
 * The live side as the planner sees it after a pass of `input` computed `way`: every server
 * connected with its fingerprint and view — the objects of that pass, as LiveServers keeps them.
 */
function liveOf(input: AssembleInput, way: Way): Map<string, LiveEntry> {
  const { wanted } = way.desiredServers(way.assemble(input));
  const live = new Map<string, LiveEntry>();
  for (const w of Object.values(wanted)) live.set(w.name, { fingerprint: w.fingerprint, view: w.view, state: 'connected' });
  return live;
}

interface Servers {
  wanted: Record<string, WantedServer>;
  blocked: Record<string, Blocked>;
  names?: readonly string[];
  changed?: ReadonlySet<string> | 'all';
}

/** How one pass computes its desired state and plan: from scratch, or incrementally. */
interface Way {
  assemble(input: AssembleInput): DesiredState;
  desiredServers(desired: DesiredState): Servers;
  /** `liveChanged`: the live entries that changed since the last plan (what `changes$` told the reconciler). */
  plan(servers: Servers, live: ReadonlyMap<string, LiveEntry>, liveChanged: readonly string[]): PassPlan;
}

const fromScratch: Way = {
  assemble,
  desiredServers: (desired) => desiredServers(desired, undefined, ENV),
  plan({ wanted, blocked }, live) {
    const steps = plan(wanted, blocked, live);
    return { steps, unchanged: steps.filter((s) => s.change === 'unchanged').length, kept: steps.filter((s) => keptRunning(s, wanted, blocked)).length };
  },
};

/** As the reconciler runs a pass: the desired side's change set and the live changes as the dirty hint. */
function incrementally(): Way {
  const state = createIncrementalDesired();
  const planner = createIncrementalPlan();
  return {
    assemble: (input) => state.assemble(input),
    desiredServers: (desired) => state.desiredServers(desired, undefined, ENV),
    plan: ({ wanted, blocked, names, changed }, live, liveChanged) =>
      planner.plan(wanted, blocked, names, changed === undefined || changed === 'all' ? 'all' : [...changed, ...liveChanged], () => live),
  };
}

export interface CpuOptions {
  ns: readonly number[];
  /** Time budget per size and way, ms (iterations = as many as fit, at least `minIterations`). */
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
  const timed = (servers: number, way: Way) => timePasses(servers, way, o, collections);
  for (const servers of o.ns) {
    const scratch = await timed(servers, fromScratch);
    const incremental = await timed(servers, incrementally());
    const atN: CpuAtN = { servers, ...scratch, incremental };
    const perServer = (x: CpuPass) => `${round(x.passUs.median / servers, 3)} µs/server`;
    o.log(
      `  cpu ${servers} servers: from scratch ${scratch.passUs.median} µs per pass (${perServer(scratch)}), incremental ${incremental.passUs.median} µs (${perServer(incremental)}; ${incremental.iterations} iterations)`,
    );
    result.ns.push(atN);
  }
  observer.disconnect();
  return result;
}

/** Passes that alternate the changed server between its two versions, timed after a warm-up. */
async function timePasses(servers: number, way: Way, o: CpuOptions, collections: PerformanceEntry[]): Promise<CpuPass> {
  const changed = Math.floor(servers / 2);
  const versions = inputs(servers, changed);
  const lives = versions.map((input) => liveOf(input, way));
  const pass: number[] = [];
  /** [start, end] of each timed pass, ms on the performance clock. */
  const windows: [number, number][] = [];
  const parts: Record<'a' | 'g' | 'd' | 'p', number[]> = { a: [], g: [], d: [], p: [] };
  let previous = way.assemble(versions[0]);
  let turn = 1;
  const once = (record: boolean) => {
    const input = versions[turn]!;
    const live = lives[1 - turn]!;
    const t0 = performance.now();
    const desired = way.assemble(input);
    const t1 = performance.now();
    const same = desiredStateEqual(previous, desired);
    const t2 = performance.now();
    const desiredServers = way.desiredServers(desired);
    const t3 = performance.now();
    const { steps, unchanged } = way.plan(desiredServers, live, [`server-${changed}`]);
    const t4 = performance.now();
    const reconnected = steps.filter((s) => s.change === 'reconnected');
    if (same || reconnected.length !== 1 || reconnected[0]!.name !== `server-${changed}` || unchanged !== servers - 1) {
      throw new Error(
        `plan for ${servers} servers: expected one reconnect of server-${changed} and ${servers - 1} unchanged, got ${reconnected.length} and ${unchanged}${same ? ' (and no change at the gate)' : ''}`,
      );
    }
    previous = desired;
    turn = 1 - turn;
    if (!record) return;
    windows.push([t0, t4]);
    pass.push((t4 - t0) * 1000);
    parts.a.push((t1 - t0) * 1000);
    parts.g.push((t2 - t1) * 1000);
    parts.d.push((t3 - t2) * 1000);
    parts.p.push((t4 - t3) * 1000);
  };
  // Warm-up: let the JIT settle (and the incremental state fill) before anything is recorded.
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
  return {
    iterations: pass.length,
    passUs: summary,
    assembleUs: summarize(parts.a),
    gateUs: summarize(parts.g),
    desiredUs: summarize(parts.d),
    planUs: summarize(parts.p),
    gcUs: summarize(gcUs),
    nsPerServer: round((summary.median * 1000) / servers, 0),
    nsPerServerWithoutGc: round((summarize(pass.map((us, i) => us - gcUs[i]!)).median * 1000) / servers, 0),
  };
}
