import { linuxProcessUid, procfsPresent, readLinuxProcessStat, scanProcfs } from './processSourceLinux.js';
import { parsePsTable, PS_ARGS, PS_ENV, PS_FILE } from './processSourceDarwin.js';
import type { ProcessStat } from './processStat.js';
import { runCommand, type RunCommand } from './runCommand.js';

/**
 * Where the process table comes from, per platform (decision 280):
 *
 *   linux    /proc/<pid>/stat, one file per process        start time in clock ticks since boot, with sid
 *   darwin   one `ps -axo pid=,ppid=,pgid=,uid=,stat=,lstart=` for the whole table   start time in whole
 *            seconds since the epoch, no sid (processSourceDarwin.ts)
 *   others   nothing: every answer is `undefined`, and callers degrade (nothing recorded, nothing reaped)
 *
 * A table is read at most once per turn of the event loop: the shutdowns a `dispose()` starts
 * together read /proc (or run ps) once, not once per server. On macOS a single process is looked
 * up in that table too, so a check costs one ps per turn whatever it asks.
 */

/** The process table of one platform. */
export interface ProcessSource {
  /** Whether processes and their start times can be read here at all. Asked once, then kept. */
  available(): boolean;
  /** One process; `undefined` when it is gone (or nothing can be read). */
  stat(pid: number): ProcessStat | undefined;
  /** Every process. */
  table(): readonly ProcessStat[] | undefined;
  /** The uid a process runs as. */
  uid(pid: number): number | undefined;
}

export interface ProcessTableDeps {
  /** Default `process.platform`. */
  platform?: NodeJS.Platform;
  /** Runs `ps` and `sysctl` (macOS); tests give recorded outputs. */
  run?: RunCommand;
  /** This process's pid (default `process.pid`); a test reading a recorded table names one in it. */
  ownPid?: number;
}

export function processSource(deps: ProcessTableDeps = {}): ProcessSource {
  const platform = deps.platform ?? process.platform;
  if (platform === 'linux') return linuxSource();
  if (platform === 'darwin') return darwinSource(deps.run ?? runCommand, deps.ownPid ?? process.pid);
  return { available: () => false, stat: () => undefined, table: () => undefined, uid: () => undefined };
}

function linuxSource(): ProcessSource {
  let procfs: boolean | undefined;
  const available = () => (procfs ??= procfsPresent());
  const table = sharedForOneTurn(() => (available() ? scanProcfs() : undefined));
  return {
    available,
    stat: (pid) => (available() ? readLinuxProcessStat(pid) : undefined),
    table,
    uid: linuxProcessUid,
  };
}

function darwinSource(run: RunCommand, ownPid: number): ProcessSource {
  const read = sharedForOneTurn(() => {
    const output = run(PS_FILE, PS_ARGS, PS_ENV);
    if (output === undefined) return undefined;
    const table = parsePsTable(output);
    return { table, byPid: new Map(table.map((p) => [p.pid, p])) };
  });
  let works: boolean | undefined;
  // It works when the table it gives has us in it: a ps that runs but lists nothing readable does not.
  const available = () => (works ??= read()?.byPid.has(ownPid) ?? false);
  return {
    available,
    stat: (pid) => (available() ? read()?.byPid.get(pid) : undefined),
    table: () => (available() ? read()?.table : undefined),
    uid: (pid) => (available() ? read()?.byPid.get(pid)?.uid : undefined),
  };
}

/** `read`'s answer, shared by every call until the event loop's next turn. */
function sharedForOneTurn<T>(read: () => T | undefined): () => T | undefined {
  let snapshot: T | undefined;
  return () => {
    if (snapshot !== undefined) return snapshot;
    const value = read();
    if (value === undefined) return undefined;
    snapshot = value;
    setImmediate(() => (snapshot = undefined));
    return value;
  };
}
