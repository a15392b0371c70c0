import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import type { ProcessStat } from './processStat.js';

/**
 * The process table from Linux's /proc (moved here unchanged from sinks/process/processTable.ts, decision 280):
 * `/proc/<pid>/stat` gives state, parent, group, session and the start time in clock ticks since
 * boot; the owner of `/proc/<pid>` is the process's uid.
 */

/** Whether there is a /proc to read (some sandboxes hide it). */
export function procfsPresent(): boolean {
  return existsSync('/proc/self/stat');
}

/** `/proc/<pid>/stat` parsed; `undefined` when the process is gone. */
export function readLinuxProcessStat(pid: number): ProcessStat | undefined {
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

/** Every process, from one scan of /proc. */
export function scanProcfs(): ProcessStat[] {
  const table: ProcessStat[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readLinuxProcessStat(Number(entry));
    if (stat) table.push(stat);
  }
  return table;
}

/** The uid a process runs as (the owner of its /proc directory). */
export function linuxProcessUid(pid: number): number | undefined {
  try {
    return statSync(`/proc/${pid}`).uid;
  } catch {
    return undefined;
  }
}
