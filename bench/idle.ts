/**
 * Idle: a session with N servers and no edits for a while. What does it cost to just sit
 * there? CPU over the window (mcp-live: `process.cpuUsage` delta inside the session's own
 * process; both: utime+stime from /proc, the same method for each) and memory (RSS at start and
 * end; heap after gc for mcp-live). mcp-live runs in a child process of its own
 * (`idleSession.ts`), so neither side carries the bench harness. Both sides idle in the same
 * window; fixture processes are not counted on either side.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type RunDir, fixtureServers, sleep, writeJson } from './fixtures.js';
import type { IdleChildMessage, IdleSample } from './idleSession.js';
import { HubContestant } from './mcpHub.js';
import type { IdleResult, IdleSide } from './results.js';
import { median, round } from './stats.js';

/** The idle window is read in six slices; their median is the steady cost. */
export function idleSliceSeconds(windowSeconds: number): number {
  return Math.max(1, Math.floor(windowSeconds / 6));
}

export interface IdleOptions {
  servers: number;
  seconds: number;
  /** Wait after both sides are up before the window opens (start-up work dies down). */
  settleSeconds: number;
  debounceMs: number;
  withHub: boolean;
  run: RunDir;
  log: (line: string) => void;
}

const MB = 1024 * 1024;

function clockTicks(): number {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
}

/** utime + stime of a process, in ms, from /proc/PID/stat. */
function procCpuMs(pid: number, ticks: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command (which may contain spaces) start after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  return ((utime + stime) * 1000) / ticks;
}

function procRssMB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN);
  return kb / 1024;
}

/** The mcp-live session child: started, sampled, stopped. */
class LiveChild {
  private readonly proc: ChildProcess;
  private readonly waiters: ((m: IdleChildMessage) => void)[] = [];
  private readonly inbox: IdleChildMessage[] = [];
  readonly exited: Promise<void>;

  constructor(script: string, cwd: string, home: string, debounceMs: number) {
    this.proc = fork(script, [cwd, home, String(debounceMs)], { execArgv: ['--expose-gc'], stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    this.proc.on('message', (m: IdleChildMessage) => {
      const waiter = this.waiters.shift();
      if (waiter) waiter(m);
      else this.inbox.push(m);
    });
    this.exited = new Promise((resolve) =>
      this.proc.once('exit', (code) => {
        for (const waiter of this.waiters.splice(0)) waiter({ type: 'failed', error: `exited with code ${code}` });
        resolve();
      }),
    );
  }

  get pid(): number {
    return this.proc.pid!;
  }

  next(): Promise<IdleChildMessage> {
    const waiting = this.inbox.shift();
    if (waiting) return Promise.resolve(waiting);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  async sample(gc = false): Promise<IdleSample> {
    const reply = this.next();
    this.proc.send({ type: 'sample', gc });
    const m = await reply;
    if (m.type !== 'sample') throw new Error(`idle child: expected a sample, got ${m.type}`);
    return m;
  }

  async stop(): Promise<void> {
    if (this.proc.exitCode !== null) return;
    const stopped = this.next();
    this.proc.send({ type: 'stop' });
    const killer = setTimeout(() => this.proc.kill('SIGKILL'), 20_000);
    await Promise.race([stopped, this.exited]);
    await this.exited;
    clearTimeout(killer);
  }
}

export async function runIdle(o: IdleOptions): Promise<IdleResult> {
  const ticks = clockTicks();
  const result: IdleResult = { servers: o.servers, seconds: o.seconds, sides: {}, notes: [] };
  const liveDir = o.run.folder('idle-mcp-live');
  const home = join(liveDir, 'home');
  writeJson(join(home, '.qwen', 'settings.json'), { mcpServers: fixtureServers(o.servers, join(liveDir, 'starts.log')) });
  // The workspace must exist: servers start in it (a missing one fails every server's start).
  const child = new LiveChild(join(import.meta.dirname, 'idleSession.js'), o.run.folder('idle-mcp-live/project'), home, o.debounceMs);
  const hub = o.withHub ? new HubContestant(o.run.folder('idle-mcp-hub')) : undefined;
  try {
    const ready = await child.next();
    if (ready.type !== 'ready') throw new Error(`idle child: ${ready.type === 'failed' ? ready.error : ready.type}`);
    if (ready.connected !== o.servers) result.notes.push(`mcp-live: ${ready.connected} of ${o.servers} servers connected`);
    let hubStartMs = Number.NaN;
    if (hub) hubStartMs = await hub.start(fixtureServers(o.servers, hub.startLog));
    o.log(`  idle: both sides up with ${o.servers} servers; settling ${o.settleSeconds} s, then ${o.seconds} s idle`);
    await sleep(o.settleSeconds * 1000);

    // The same method for both sides: utime + stime from /proc, read from outside, in slices; no
    // forced gc and no sampling inside the processes during the window (mcp-live's own
    // process.cpuUsage is read once at each end, for a finer total).
    const sliceS = idleSliceSeconds(o.seconds);
    const pids = { live: child.pid, hub: hub?.pid };
    const liveRssStart = procRssMB(pids.live);
    const hubRssStart = pids.hub ? procRssMB(pids.hub) : 0;
    const liveStart = await child.sample();
    const first = { live: procCpuMs(pids.live, ticks), hub: pids.hub ? procCpuMs(pids.hub, ticks) : 0 };
    const last = { ...first };
    const slices = { live: [] as number[], hub: [] as number[] };
    const t0 = performance.now();
    for (let at = sliceS; at <= o.seconds; at += sliceS) {
      await sleep(t0 + at * 1000 - performance.now());
      const live = procCpuMs(pids.live, ticks);
      slices.live.push((live - last.live) / sliceS);
      last.live = live;
      if (pids.hub) {
        const hubNow = procCpuMs(pids.hub, ticks);
        slices.hub.push((hubNow - last.hub) / sliceS);
        last.hub = hubNow;
      }
    }
    const windowMs = performance.now() - t0;
    const liveRssEnd = procRssMB(pids.live);
    const hubRssEnd = pids.hub ? procRssMB(pids.hub) : 0;
    const liveEnd = await child.sample();
    const withGc = await child.sample(true);

    const cpuOf = (x: IdleSample) => (x.cpu.user + x.cpu.system) / 1000;
    const liveCpu = last.live - first.live;
    const live: IdleSide = {
      cpuMs: round(liveCpu, 1),
      cpuUsageMs: round(cpuOf(liveEnd) - cpuOf(liveStart), 2),
      steadyMsPerS: round(median(slices.live), 2),
      maxSliceMs: round(Math.max(...slices.live) * sliceS, 1),
      cpuPercent: round((liveCpu / windowMs) * 100, 3),
      rssStartMB: round(liveRssStart),
      rssEndMB: round(liveRssEnd),
      heapUsedMB: round((withGc.heapAfterGc ?? withGc.memory.heapUsed) / MB),
      startMs: round(ready.ms),
    };
    result.sides['mcp-live'] = live;
    if (pids.hub) {
      const hubCpu = last.hub - first.hub;
      result.sides['mcp-hub'] = {
        cpuMs: round(hubCpu, 1),
        steadyMsPerS: round(median(slices.hub), 2),
        maxSliceMs: round(Math.max(...slices.hub) * sliceS, 1),
        cpuPercent: round((hubCpu / windowMs) * 100, 3),
        rssStartMB: round(hubRssStart),
        rssEndMB: round(hubRssEnd),
        startMs: round(hubStartMs),
      };
    }
    result.notes.push(
      `CPU of both sides: utime + stime from /proc/PID/stat, read from outside (resolution ${1000 / ticks} ms, CLK_TCK ${ticks}); mcp-live's process.cpuUsage() over the same window (µs resolution) is given beside it.`,
      `The window opened ${o.settleSeconds} s after both sides were up. Steady = median of ${sliceS}-second slices, in ms per second; the total also holds one-off work such as the memory-reducing GC that V8 runs some seconds after start-up.`,
      'mcp-hub keeps one SSE client (the bench) connected during the window; it sends a heartbeat every 10 s.',
    );
    o.log(
      `  idle: mcp-live ${live.cpuMs} ms CPU (cpuUsage ${live.cpuUsageMs} ms, steady ${live.steadyMsPerS} ms/s), RSS ${live.rssEndMB} MB; mcp-hub ${result.sides['mcp-hub']?.cpuMs ?? '–'} ms CPU (steady ${result.sides['mcp-hub']?.steadyMsPerS ?? '–'} ms/s), RSS ${result.sides['mcp-hub']?.rssEndMB ?? '–'} MB`,
    );
  } finally {
    await child.stop();
    await hub?.stop();
  }
  return result;
}
