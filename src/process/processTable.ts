import { bootIdentity } from '../platform/bootIdentity.js';
import { processSource, type ProcessSource, type ProcessTableDeps } from '../platform/processSource.js';
import type { ProcessStat } from '../platform/processStat.js';

/**
 * What the system says about processes, enough to tell the processes we started from later ones
 * that got a recycled pid: a pid names a process only while it lives, pid + start time names it
 * for the whole boot. Linux reads /proc (start times in clock ticks since boot), macOS one `ps`
 * (whole seconds since the epoch, no session ids): platform/processSource.ts. Elsewhere (Windows)
 * every function here answers `undefined` and callers degrade.
 */

export type { ProcessStat } from '../platform/processStat.js';
export { parseProcessStat } from '../platform/processSourceLinux.js';

/** The identity of a process for the whole boot. */
export interface ProcessIdentity {
  pid: number;
  startTime: number;
}

/** The processes of one platform: the system's ({@link systemProcesses}), or a simulated one in tests. */
export class ProcessTable {
  private readonly source: ProcessSource;
  private boot: string | undefined;

  constructor(private readonly deps: ProcessTableDeps = {}) {
    this.source = processSource(deps);
  }

  /** Whether start times can be read here (/proc on Linux, ps on macOS). */
  available(): boolean {
    return this.source.available();
  }

  /** One process; `undefined` when it is gone (or nothing can be read). */
  stat(pid: number): ProcessStat | undefined {
    return this.source.stat(pid);
  }

  /** Every process, read at most once per turn of the event loop. */
  table(): readonly ProcessStat[] | undefined {
    return this.source.table();
  }

  /** The uid a process runs as. */
  uid(pid: number): number | undefined {
    return this.source.uid(pid);
  }

  /** Whether `identity` still runs: same pid, same start time, not a zombie. */
  isRunning(identity: ProcessIdentity): boolean {
    const stat = this.stat(identity.pid);
    return stat !== undefined && stat.startTime === identity.startTime && !hasExited(stat);
  }

  /**
   * Sends `signal` to each process that is still the one identified (checked first: a pid that
   * ended meanwhile may belong to someone else now); one that is gone by then is skipped.
   */
  signalIfRunning(processes: Iterable<ProcessIdentity>, signal: NodeJS.Signals): void {
    for (const p of processes) {
      if (!this.isRunning(p)) continue;
      try {
        process.kill(p.pid, signal);
      } catch {
        // Gone meanwhile.
      }
    }
  }

  /** This process's identity; `undefined` where start times cannot be read. */
  ownIdentity(): ProcessIdentity | undefined {
    const stat = this.stat(this.deps.ownPid ?? process.pid);
    return stat && { pid: stat.pid, startTime: stat.startTime };
  }

  /** Names this boot (platform/bootIdentity.ts): start times mean something only within one. */
  bootId(): string | undefined {
    if (!this.available()) return undefined;
    this.boot ??= bootIdentity(this.deps);
    return this.boot;
  }
}

/** This machine's processes. */
export const systemProcesses = new ProcessTable();

/** Whether start times can be read here: /proc on Linux, `ps` on macOS (the name is from when only /proc could). */
export function procfsAvailable(): boolean {
  return systemProcesses.available();
}

/** One process of this machine; `undefined` when it is gone (or there is no process table). */
export function readProcessStat(pid: number): ProcessStat | undefined {
  return systemProcesses.stat(pid);
}

export function hasExited(stat: ProcessStat): boolean {
  return stat.state === 'Z' || stat.state === 'X';
}

/** {@link ProcessTable.isRunning} on this machine. */
export function isRunning(identity: ProcessIdentity): boolean {
  return systemProcesses.isRunning(identity);
}

/** {@link ProcessTable.signalIfRunning} on this machine. */
export function signalIfRunning(processes: Iterable<ProcessIdentity>, signal: NodeJS.Signals): void {
  systemProcesses.signalIfRunning(processes, signal);
}

/** This process's identity; `undefined` where start times cannot be read. */
export function ownIdentity(): ProcessIdentity | undefined {
  return systemProcesses.ownIdentity();
}

/** The uid a process runs as. */
export function processUid(pid: number): number | undefined {
  return systemProcesses.uid(pid);
}

/** Names this boot: start times restart from zero at every boot. */
export function bootId(): string | undefined {
  return systemProcesses.bootId();
}

/**
 * Every process, from one scan of /proc (one `ps` on macOS). The scan is shared until the event
 * loop's next turn, so the shutdowns a `dispose()` starts together read it once, not once per server.
 */
export function processTable(): readonly ProcessStat[] | undefined {
  return systemProcesses.table();
}

/** Whether process group `pgid` has a member that has not exited. */
export function groupHasLiveMember(pgid: number, table: readonly ProcessStat[]): boolean {
  return table.some((p) => p.pgid === pgid && !hasExited(p));
}

/**
 * The live descendants of `roots` (default: group `pgid`'s leader and members) that are outside
 * the group: what a signal to the group misses, such as a child started with `detached: true`.
 * Read them before signalling: once their parent dies they are reparented and no longer
 * descend from it. The same walk on macOS, over the table `ps` gave.
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
