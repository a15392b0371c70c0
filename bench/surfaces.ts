/**
 * Many servers, lazily (decisions 195–198, 230–232): what a session costs when most servers sit idle.
 *
 * - **Listing**: 50 stdio servers × 30 tools, every entry `lazy: true`, recorded beforehand. A new
 *   session's `start()` → all 1,500 tools in `tools$`, and the server processes it started (the
 *   fixtures' start log and `/proc`: there should be none).
 * - **Learn**: the session before, without a record: each server started once, listed, recorded
 *   and stopped — start → all 50 idle.
 * - **Eager**: the same 50 with `lazy: false` → all connected, side by side in the same run.
 * - **First call**: a call to an idle lazy server (a fresh session each time, so it is idle)
 *   until its result, against a bare connect of the same server through the connector (spawn,
 *   initialize, list), in turns.
 * - **Progressive**: `serve --progressive`'s tools/list and its search, from bench/progressive.ts.
 * - mcp-hub has no lazy mode: it starts every configured server; its start at N = 50 is the
 *   sessions group's, not measured again here (the committed full run's figure is kept beside).
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { filter, firstValueFrom, throwError, timeout } from 'rxjs';
import { createMcpLive } from '../src/live/createMcpLive.js';
import { type McpLive } from '../src/live/types.js';
import type { QualifiedTool, ServerStatus } from '../src/model/report/status.js';
import type { ResolvedServerConfig } from '../src/model/types.js';
import { connectMcp } from '../src/sinks/mcp/connector.js';
import { FIXTURE, ROOT, type RunDir, fixtureProcesses, killPids, readStarts, serverName, waitForNoFixtures, writeJson } from './fixtures.js';
import { runProgressiveBench } from './progressive.js';
import type { SurfacesResult } from './results.js';
import { round, summarize } from './stats.js';

export interface SurfacesOptions {
  servers: number;
  toolsPerServer: number;
  /** Listings from the record (cheap: no process). */
  listReps: number;
  /** Learn and eager starts (each starts every server). */
  startReps: number;
  /** First calls and bare connects, each. */
  callReps: number;
  debounceMs: number;
  run: RunDir;
  log: (line: string) => void;
}

/** Tools the echo fixture always has (`echo`, `slow`); the rest come from `--tools`. */
const OWN_TOOLS = 2;
/** Start → every server connected or learned: 50 processes take about 17 s on 2 cores. */
const START_BUDGET_MS = 180_000;

interface Entry {
  command: string;
  args: string[];
  lazy: boolean;
  connectTimeout: number;
}

function entry(name: string, startLog: string, toolsPerServer: number, lazy: boolean): Entry {
  const extra = Array.from({ length: toolsPerServer - OWN_TOOLS }, (_, i) => `op_${String(i + 1).padStart(2, '0')}`);
  return {
    command: process.execPath,
    args: [FIXTURE, '--start-log', startLog, '--log-name', name, '--tools', extra.join(',')],
    lazy,
    // 50 processes at once on 2 cores: the default connect deadline (30 s) is not what is measured.
    connectTimeout: 120_000,
  };
}

/** One session's folder: a temp home with the user settings, a workspace, a runtime dir. */
class Place {
  readonly startLog: string;
  readonly home: string;
  readonly cwd: string;
  readonly runtimeDir: string;

  constructor(
    readonly dir: string,
    run: RunDir,
    name: string,
  ) {
    this.startLog = join(dir, 'starts.log');
    this.home = join(dir, 'home');
    this.cwd = run.folder(`${name}/project`);
    this.runtimeDir = join(dir, 'run');
  }

  configure(servers: number, toolsPerServer: number, lazy: boolean): string[] {
    const names = Array.from({ length: servers }, (_, i) => serverName(i));
    const mcpServers = Object.fromEntries(names.map((n) => [n, entry(n, this.startLog, toolsPerServer, lazy)]));
    writeJson(join(this.home, '.qwen', 'settings.json'), { mcpServers });
    return names;
  }

  open(debounceMs: number): McpLive {
    return createMcpLive({ cwd: this.cwd, homeDir: this.home, runtimeDir: this.runtimeDir, debounceMs });
  }

  starts(): number {
    return readStarts(this.startLog).length;
  }

  /** What finds this place's fixtures in /proc: its folder, with the slash (`-1/` is not `-10/`). */
  get tag(): string {
    return `${this.dir}/`;
  }

  /** Fixture processes of this place still running. */
  running(): number[] {
    return fixtureProcesses(this.tag);
  }
}

function until(live: McpLive, test: (all: readonly ServerStatus[]) => boolean, what: string): Promise<readonly ServerStatus[]> {
  return firstValueFrom(
    live.servers.list$.pipe(
      filter(test),
      timeout({ first: START_BUDGET_MS, with: () => throwError(() => new Error(`${what}: not within ${START_BUDGET_MS / 1000} s`)) }),
    ),
  );
}

const allIn = (names: readonly string[], state: ServerStatus['state']) => (all: readonly ServerStatus[]) =>
  names.every((n) => all.some((s) => s.name === n && s.state === state));

/** Disposes, then waits for the place's processes to be gone; kills and reports any left. */
async function close(live: McpLive, place: Place): Promise<number[]> {
  await live.dispose();
  const left = await waitForNoFixtures(place.tag, 5_000);
  killPids(left);
  return left;
}

/** Start → every server learned (started, listed, recorded, stopped) and idle; then dispose (the record written). */
async function learn(place: Place, names: readonly string[], o: SurfacesOptions): Promise<{ ms: number; starts: number; left: number[] }> {
  const before = place.starts();
  const live = place.open(o.debounceMs);
  const t0 = performance.now();
  try {
    await live.start();
    await until(live, allIn(names, 'idle'), 'learn');
    const ms = performance.now() - t0;
    // Learned servers stop as soon as nothing is in flight: wait for their processes to end.
    const stillRunning = await waitForNoFixtures(place.tag, 10_000);
    if (stillRunning.length > 0) o.log(`  learn: ${stillRunning.length} process(es) still running 10 s after all were idle`);
    return { ms, starts: place.starts() - before, left: await close(live, place) };
  } catch (error) {
    await close(live, place);
    throw error;
  }
}

/** Start → all connected, every server started (lazy false). */
async function eager(place: Place, names: readonly string[], o: SurfacesOptions): Promise<{ ms: number; starts: number; left: number[] }> {
  const before = place.starts();
  const live = place.open(o.debounceMs);
  const t0 = performance.now();
  try {
    await live.start();
    await until(live, allIn(names, 'connected'), 'eager start');
    const ms = performance.now() - t0;
    return { ms, starts: place.starts() - before, left: await close(live, place) };
  } catch (error) {
    await close(live, place);
    throw error;
  }
}

/** A new session on a recorded place: start() → every tool in tools$, and the processes it started. */
async function listing(
  place: Place,
  tools: number,
  o: SurfacesOptions,
): Promise<{ ms: number; startMs: number; passMs: number; listed: number; starts: number; running: number; left: number[] }> {
  const before = place.starts();
  const live = place.open(o.debounceMs);
  // The first pass's own time (its `reconcile` event): the rest of start() is the debounce it waits and the reads.
  let passMs = Number.NaN;
  const passes = live.events$.subscribe((e) => {
    if (e.type === 'reconcile' && Number.isNaN(passMs)) passMs = e.ms;
  });
  let listedAt = Number.NaN;
  let listed = 0;
  const t0 = performance.now();
  const all = new Promise<void>((resolve) => {
    const sub = live.tools.list$.subscribe((list: readonly QualifiedTool[]) => {
      listed = list.length;
      if (list.length >= tools && Number.isNaN(listedAt)) {
        listedAt = performance.now();
        resolve();
        queueMicrotask(() => sub.unsubscribe());
      }
    });
  });
  try {
    await live.start();
    const startMs = performance.now() - t0;
    await Promise.race([all, new Promise<void>((_, reject) => setTimeout(() => reject(new Error(`listing: ${listed} of ${tools} tools after 10 s`)), 10_000))]);
    const ms = listedAt - t0;
    // Nothing should have started: read the log and /proc once the tools are listed (not timed).
    const starts = place.starts() - before;
    const running = place.running().length;
    passes.unsubscribe();
    return { ms, startMs, passMs, listed, starts, running, left: await close(live, place) };
  } catch (error) {
    passes.unsubscribe();
    await close(live, place);
    throw error;
  }
}

/** The connector's own connect of `config` (spawn, initialize, list), as bench/coldStart.ts's bareConnect. */
async function bareConnect(config: ResolvedServerConfig): Promise<number> {
  const t0 = performance.now();
  const connection = await firstValueFrom(connectMcp('bare', config));
  const ms = performance.now() - t0;
  await connection.close();
  return ms;
}

/** A fresh session with `name` idle (recorded): its first call until the result; then dispose. */
async function firstCall(place: Place, name: string, o: SurfacesOptions): Promise<{ ms: number; starts: number; left: number[] }> {
  const live = place.open(o.debounceMs);
  try {
    await live.start();
    await until(live, allIn([name], 'idle'), 'first call');
    // Let the session settle (its watcher's set-up), as a server sits idle before its first call.
    await new Promise((r) => setTimeout(r, 200));
    const before = place.starts();
    const t0 = performance.now();
    const result = (await live.tools.call(`mcp__${name}__echo`, { text: 'first' })) as { content?: { text?: string }[] };
    const ms = performance.now() - t0;
    if (result.content?.[0]?.text !== 'first') throw new Error(`first call: unexpected result ${JSON.stringify(result)}`);
    return { ms, starts: place.starts() - before, left: await close(live, place) };
  } catch (error) {
    await close(live, place);
    throw error;
  }
}

/** mcp-hub's start of 50 servers in the committed full run (its sessions group), kept as a reference. */
function hubReference(n: number): SurfacesResult['mcpHub']['reference'] {
  const source = 'HEAD:bench/results/full.json';
  try {
    const text = execFileSync('git', ['show', source], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], maxBuffer: 64 * 1024 * 1024 });
    const before = JSON.parse(text) as { startedAt?: string; sessions?: { n: number; entrants: Record<string, { coldStartMs?: number } | undefined> }[] };
    const ms = before.sessions?.find((s) => s.n === n)?.entrants['mcp-hub']?.coldStartMs;
    return ms === undefined ? undefined : { source: `git show ${source}`, startedAt: before.startedAt ?? 'unknown', n, coldStartMs: ms };
  } catch {
    return undefined;
  }
}

export async function runSurfaces(o: SurfacesOptions): Promise<SurfacesResult> {
  const tools = o.servers * o.toolsPerServer;
  const left: number[] = [];
  const notes: string[] = [];

  // 1. Learn (fresh homes) and eager (fresh homes), in turns; then listings from the records.
  const learnMs: number[] = [];
  const learnStarts: number[] = [];
  const eagerMs: number[] = [];
  const eagerStarts: number[] = [];
  const learned: { place: Place; names: string[] }[] = [];
  for (let rep = 0; rep < o.startReps; rep++) {
    const order = rep % 2 === 0 ? (['learn', 'eager'] as const) : (['eager', 'learn'] as const);
    for (const kind of order) {
      const name = `surfaces-${kind}-${rep}`;
      const place = new Place(o.run.folder(name), o.run, name);
      const names = place.configure(o.servers, o.toolsPerServer, kind === 'learn');
      try {
        const r = kind === 'learn' ? await learn(place, names, o) : await eager(place, names, o);
        (kind === 'learn' ? learnMs : eagerMs).push(r.ms);
        (kind === 'learn' ? learnStarts : eagerStarts).push(r.starts);
        left.push(...r.left);
        if (kind === 'learn') learned.push({ place, names });
        o.log(`  ${kind} ${o.servers} servers rep ${rep + 1}: ${Math.round(r.ms)} ms, ${r.starts} process(es) started`);
      } catch (error) {
        (kind === 'learn' ? learnMs : eagerMs).push(Number.NaN);
        o.log(`  ${kind} rep ${rep + 1} failed: ${String(error)}`);
      }
    }
  }

  const listMs: number[] = [];
  const listStartMs: number[] = [];
  const listPassMs: number[] = [];
  const listed: number[] = [];
  const listStarts: number[] = [];
  const listRunning: number[] = [];
  if (learned.length === 0) notes.push('no learn succeeded: the listing from the record was not measured');
  for (let rep = 0; rep < o.listReps && learned.length > 0; rep++) {
    const { place } = learned[rep % learned.length]!;
    try {
      const r = await listing(place, tools, o);
      listMs.push(r.ms);
      listStartMs.push(r.startMs);
      listPassMs.push(r.passMs);
      listed.push(r.listed);
      listStarts.push(r.starts);
      listRunning.push(r.running);
      left.push(...r.left);
      o.log(`  listing from the record rep ${rep + 1}: ${r.listed} tools in ${r.ms.toFixed(1)} ms (start() ${r.startMs.toFixed(1)} ms, its first pass ${r.passMs.toFixed(1)} ms), ${r.starts} process(es) started, ${r.running} running`);
    } catch (error) {
      listMs.push(Number.NaN);
      o.log(`  listing rep ${rep + 1} failed: ${String(error)}`);
    }
  }

  // 2. First call on an idle lazy server vs a bare connect of the same server, in turns.
  const callPlace = new Place(o.run.folder('surfaces-first-call'), o.run, 'surfaces-first-call');
  const [callName] = callPlace.configure(1, o.toolsPerServer, true);
  const bareEntry = entry(callName!, join(callPlace.dir, 'bare-starts.log'), o.toolsPerServer, false);
  const bareConfig: ResolvedServerConfig = { transport: 'stdio', command: bareEntry.command, args: bareEntry.args, env: {}, headers: {}, timeout: 30_000 };
  const callMs: number[] = [];
  const bareMs: number[] = [];
  const callStarts: number[] = [];
  try {
    const l = await learn(callPlace, [callName!], o);
    left.push(...l.left);
    for (let rep = 0; rep < o.callReps; rep++) {
      const order = rep % 2 === 0 ? (['call', 'bare'] as const) : (['bare', 'call'] as const);
      for (const kind of order) {
        try {
          if (kind === 'bare') {
            bareMs.push(await bareConnect(bareConfig));
            const stray = await waitForNoFixtures(callPlace.tag, 5_000);
            killPids(stray);
            left.push(...stray);
          } else {
            const r = await firstCall(callPlace, callName!, o);
            callMs.push(r.ms);
            callStarts.push(r.starts);
            left.push(...r.left);
          }
        } catch (error) {
          (kind === 'bare' ? bareMs : callMs).push(Number.NaN);
          o.log(`  ${kind} rep ${rep + 1} failed: ${String(error)}`);
        }
      }
      o.log(`  first call rep ${rep + 1}: ${num(callMs.at(-1))} ms, bare connect ${num(bareMs.at(-1))} ms`);
    }
  } catch (error) {
    notes.push(`first call: learning the server failed: ${String(error)}`);
  }

  // 3. Progressive discovery: pure computation over the synthetic 1,500-tool catalog.
  const progressive = await runProgressiveBench();
  o.log(`  progressive: tools/list ${progressive.fullTokens} → ${progressive.progressiveTokens} tokens (${(progressive.reduction * 100).toFixed(1)} % smaller), recall@3 ${(progressive.recallAt3 * 100).toFixed(1)} %`);

  // Everything above was disposed and waited for: any fixture of this group still running is a leak.
  const stray = fixtureProcesses(join(o.run.root, 'surfaces-')).filter((p) => !left.includes(p));
  if (stray.length > 0) {
    killPids(stray);
    left.push(...stray);
  }
  if (left.length > 0) notes.push(`${left.length} fixture process(es) outlived their session's dispose and were killed: ${left.join(', ')}`);

  const call = summarize(callMs);
  const bare = summarize(bareMs);
  return {
    servers: o.servers,
    toolsPerServer: o.toolsPerServer,
    tools,
    learn: { ms: summarize(learnMs, 0), starts: learnStarts },
    listing: {
      ms: summarize(listMs),
      startMs: summarize(listStartMs),
      debounceMs: o.debounceMs,
      passMs: summarize(listPassMs),
      listed,
      starts: listStarts,
      running: listRunning,
    },
    eager: { ms: summarize(eagerMs, 0), starts: eagerStarts },
    firstCall: {
      reps: o.callReps,
      toolsOfServer: o.toolsPerServer,
      callMs: call,
      bareConnectMs: bare,
      overheadMs: round(call.median - bare.median, 1),
      starts: callStarts,
      samples: { callMs: callMs.map((v) => round(v, 1)), bareConnectMs: bareMs.map((v) => round(v, 1)) },
    },
    progressive,
    mcpHub: {
      note: `mcp-hub has no lazy mode: it starts every configured server at its start (all ${o.servers} here); its start at N = ${o.servers} is the sessions group's (mcp-hub's start), not measured again`,
      reference: hubReference(o.servers),
    },
    leftover: left,
    notes,
  };
}

function num(v: number | undefined): string {
  return v === undefined || !Number.isFinite(v) ? '–' : v.toFixed(1);
}
