/** One process as the platform's process table gives it (processSource.ts). */
export interface ProcessStat {
  pid: number;
  /** R, S, D, T, I, … ; Z and X have exited (a zombie only waits to be reaped). */
  state: string;
  ppid: number;
  pgid: number;
  /** Session id: a process can join only a process group of its own session. Not known on macOS. */
  sid?: number;
  /** Linux: clock ticks since boot. macOS: seconds since the epoch. */
  startTime: number;
  /** The effective uid, where the table gives it (macOS); on Linux see {@link ProcessSource.uid}. */
  uid?: number;
}
