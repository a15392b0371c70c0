import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';

/**
 * What Linux's /proc says about processes, enough to tell the processes we started from later
 * ones that got a recycled pid: a pid names a process only while it lives, pid + start time
 * (`/proc/<pid>/stat` field 22, clock ticks since boot) names it for the whole boot. Without
 * /proc (macOS, Windows) every function here answers `undefined` and callers degrade.
 */

export interface ProcessStat {
  pid: number;
  /** R, S, D, T, … ; Z and X have exited (a zombie only waits to be reaped). */
  state: string;
  ppid: number;
  pgid: number;
  /** Session id: a process can join only a process group of its own session. */
  sid: number;
  /** Clock ticks since boot. */
  startTime: number;
}

/** The identity of a process for the whole boot. */
export interface ProcessIdentity {
  pid: number;
  startTime: number;
}

let procfs: boolean | undefined;

export function procfsAvailable(): boolean {
  procfs ??= process.platform === 'linux' && existsSync('/proc/self/stat');
  return procfs;
}

/** `/proc/<pid>/stat` parsed; `undefined` when the process is gone (or there is no /proc). */
export function readProcessStat(pid: number): ProcessStat | undefined {
  if (!procfsAvailable()) return undefined;
  try {
    return parseProcessStat(pid, readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return undefined;
  }
}

/**
 * "pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime
 * cutime cstime priority nice threads itrealvalue starttime …". comm may hold spaces and
 * parentheses, so the fields are counted from the last ')'.
 */
export function parseProcessStat(pid: number, text: string): ProcessStat | undefined {
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  // By the field numbers of proc(5): the split starts at field 3.
  const field = (n: number) => Number(fields[n - 3]);
  const stat = { pid, state: fields[0] ?? '', ppid: field(4), pgid: field(5), sid: field(6), startTime: field(22) };
  const complete = stat.state !== '' && [stat.ppid, stat.pgid, stat.sid, stat.startTime].every(Number.isInteger);
  return complete ? stat : undefined;
}

export function hasExited(stat: ProcessStat): boolean {
  return stat.state === 'Z' || stat.state === 'X';
}

/** Whether `identity` still runs: same pid, same start time, not a zombie. */
export function isRunning(identity: ProcessIdentity): boolean {
  const stat = readProcessStat(identity.pid);
  return stat !== undefined && stat.startTime === identity.startTime && !hasExited(stat);
}

/**
 * Sends `signal` to each process that is still the one identified (checked first: a pid that
 * ended meanwhile may belong to someone else now); one that is gone by then is skipped.
 */
export function signalIfRunning(processes: Iterable<ProcessIdentity>, signal: NodeJS.Signals): void {
  for (const p of processes) {
    if (!isRunning(p)) continue;
    try {
      process.kill(p.pid, signal);
    } catch {
      // Gone meanwhile.
    }
  }
}

/** This process's identity; `undefined` without /proc. */
export function ownIdentity(): ProcessIdentity | undefined {
  const stat = readProcessStat(process.pid);
  return stat && { pid: stat.pid, startTime: stat.startTime };
}

/** The uid a process runs as (the owner of its /proc directory). */
export function processUid(pid: number): number | undefined {
  try {
    return statSync(`/proc/${pid}`).uid;
  } catch {
    return undefined;
  }
}

let boot: string | undefined;

/** Names this boot: start times restart from zero at every boot. */
export function bootId(): string | undefined {
  if (!procfsAvailable()) return undefined;
  if (boot !== undefined) return boot;
  try {
    boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    // Some sandboxes hide it; the boot time in seconds names the boot as well.
    const btime = /^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'))?.[1];
    boot = btime ? `btime:${btime}` : undefined;
  }
  return boot;
}

let snapshot: ProcessStat[] | undefined;

/**
 * Every process, from one scan of /proc. The scan is shared until the event loop's next turn,
 * so the shutdowns a `dispose()` starts together read /proc once, not once per server.
 */
export function processTable(): readonly ProcessStat[] | undefined {
  if (!procfsAvailable()) return undefined;
  if (snapshot) return snapshot;
  const table: ProcessStat[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readProcessStat(Number(entry));
    if (stat) table.push(stat);
  }
  snapshot = table;
  setImmediate(() => (snapshot = undefined));
  return table;
}

/** Whether process group `pgid` has a member that has not exited. */
export function groupHasLiveMember(pgid: number, table: readonly ProcessStat[]): boolean {
  return table.some((p) => p.pgid === pgid && !hasExited(p));
}

/**
 * The live descendants of `roots` (default: group `pgid`'s leader and members) that are outside
 * the group: what a signal to the group misses, such as a child started with `detached: true`.
 * Read them before signalling: once their parent dies they are reparented and no longer
 * descend from it.
 */
export function descendantsOutsideGroup(
  pgid: number,
  table: readonly ProcessStat[],
  roots: readonly number[] = [pgid, ...table.filter((p) => p.pgid === pgid).map((p) => p.pid)],
): ProcessIdentity[] {
  const children = new Map<number, ProcessStat[]>();
  for (const p of table) {
    const siblings = children.get(p.ppid);
    if (siblings) siblings.push(p);
    else children.set(p.ppid, [p]);
  }
  const queue = [...roots];
  const seen = new Set(queue);
  const found: ProcessIdentity[] = [];
  while (queue.length > 0) {
    for (const child of children.get(queue.shift()!) ?? []) {
      if (seen.has(child.pid)) continue;
      seen.add(child.pid);
      queue.push(child.pid);
      if (child.pgid !== pgid && !hasExited(child)) found.push({ pid: child.pid, startTime: child.startTime });
    }
  }
  return found;
}
