import { lstatSync } from 'node:fs';
import { chmod, lstat, mkdir, readdir, rename, unlink } from 'node:fs/promises';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { readRegularFile } from '../files/readRegularFile.js';
import {
  descendantsOutsideGroup,
  hasExited,
  systemProcesses,
  type ProcessIdentity,
  type ProcessStat,
  type ProcessTable,
} from './processTable.js';
import { writeOwnedFile } from '../files/writeOwnedFile.js';

/**
 * Which stdio servers' process groups this mcp-live runs, kept in a per-user runtime directory,
 * so that the next mcp-live can end what a SIGKILLed one left behind. A SIGKILL ends us without
 * a chance to stop anything; the kernel's parent-death signal (parentDeathSignal.ts) reaches the
 * server itself, but not the children it started in its group (`spawn('sleep', …)`).
 *
 *   <runtimeDir>/<ownerPid>-<ownerStartTime>.json   one file per live mcp-live process, mode 0600:
 *   { version: 1, bootId, ownerPid, ownerStartTime, groups: [{ pgid, leaderStartTime, name, command }] }
 *
 * One file per process, not one shared file: each process writes only its own, so no lock is
 * needed, and a dead owner is recognisable from the file name alone. The file goes away when the
 * process's last group has ended. Linux and macOS: start times come from /proc, or from `ps` on
 * macOS (decision 280, where two checks are weaker); elsewhere nothing is recorded and nothing
 * is reaped. macOS has no parent-death signal: there a SIGKILLed mcp-live's servers themselves
 * run on until the next mcp-live starts and ends them.
 *
 * A reaper never signals a process group as a whole: a pgid is a pid and may have been recycled.
 * It signals single processes it has checked (see {@link leftoverProcesses}).
 */

export interface ProcessGroupRecord {
  /** The group's id: the pid of the server we spawned as its leader. */
  pgid: number;
  /** The leader's start time (clock ticks since boot; on macOS seconds since the epoch). */
  leaderStartTime: number;
  /** The server's name, for the log line of a reap. */
  name?: string;
  /** The server's command (without args: they may carry secrets). */
  command: string;
}

interface RecordFile {
  version: 1;
  bootId: string;
  ownerPid: number;
  ownerStartTime: number;
  groups: ProcessGroupRecord[];
}

export interface ReapOptions {
  /** After SIGTERM, how long leftovers may take to exit before SIGKILL (default 2000, as a shutdown's). */
  termGraceMs?: number;
  /** The process table (default: this machine's); tests run the macOS one on recorded or real `ps` output. */
  processes?: ProcessTable;
}

const DEFAULT_TERM_GRACE_MS = 2_000;
/** After SIGKILL, how long we wait for the kernel to finish the job. */
const KILL_SETTLE_MS = 500;
const POLL_MS = 50;

/** `<pid>-<startTime>.json`, or `<pid>-<startTime>.reaping-<ownerPid>-<ownerStartTime>.json` once claimed by a reaper. */
const RECORD_NAME = /^(\d+)-(\d+)\.(?:reaping-\d+-\d+\.)?json$/;

/**
 * `$XDG_RUNTIME_DIR/mcp-live` when that is an absolute path to a directory of ours (it is
 * per-user and emptied at logout and boot), else `<home>/.<profile>/run`.
 */
export function defaultRuntimeDir(profile: string, homeDir: string = homedir(), env = process.env): string {
  const xdg = env.XDG_RUNTIME_DIR;
  if (xdg && isAbsolute(xdg) && isOwnDirectory(xdg)) return join(xdg, 'mcp-live');
  return join(homeDir, `.${profile}`, 'run');
}

/** Records the process groups of one mcp-live process (the owner) in its file. */
export class ProcessGroupRegistry {
  /** The owner's record file; `undefined` where start times are unknown (no /proc, no ps). */
  readonly file: string | undefined;
  private readonly groups = new Map<number, ProcessGroupRecord>();
  private readonly boot: string | undefined;
  private writes: Promise<void> = Promise.resolve();
  private dirty = false;

  /** `owner` is this process; tests give another one, and another process table. */
  constructor(
    readonly runtimeDir: string,
    private readonly owner: ProcessIdentity | undefined = systemProcesses.ownIdentity(),
    processes: ProcessTable = systemProcesses,
  ) {
    this.file = owner && join(runtimeDir, `${owner.pid}-${owner.startTime}.json`);
    this.boot = processes.bootId();
  }

  /** Records a group; resolves once the file says so (never rejects: a failed write costs only the reap). */
  add(group: ProcessGroupRecord): Promise<void> {
    this.groups.set(group.pgid, group);
    return this.save();
  }

  /** Forgets a group whose members have all exited. */
  remove(pgid: number): Promise<void> {
    if (!this.groups.delete(pgid)) return this.writes;
    return this.save();
  }

  /** Writes one after the other; a write that starts late carries every change made before it. */
  private save(): Promise<void> {
    this.dirty = true;
    this.writes = this.writes.then(() => this.writeIfDirty());
    return this.writes;
  }

  private async writeIfDirty(): Promise<void> {
    if (!this.dirty || !this.file || !this.owner || !this.boot) return;
    this.dirty = false;
    try {
      if (this.groups.size === 0) {
        await removeQuietly(this.file);
        return;
      }
      const content: RecordFile = {
        version: 1,
        bootId: this.boot,
        ownerPid: this.owner.pid,
        ownerStartTime: this.owner.startTime,
        groups: [...this.groups.values()],
      };
      // On every server start and end, on the connect path: no fsync, since a record from before
      // a reboot is discarded by its boot id anyway.
      await writeOwnedFile(this.file, `${JSON.stringify(content)}\n`, { mode: 0o600, durable: false });
    } catch {
      // The session goes on; only the cleanup after a SIGKILL of this process is lost.
    }
  }
}

const registries = new Map<string, ProcessGroupRegistry>();
let active: ProcessGroupRegistry | undefined;

/**
 * The registry the last started session opened; stdio servers record their groups in it. One per
 * process: the owner of a record is the process, so sessions of one process share it (with
 * different `runtimeDir`s, the last one opened wins).
 */
export function activeProcessGroupRegistry(): ProcessGroupRegistry | undefined {
  return active;
}

/**
 * What a session does before it starts servers: makes the runtime directory (0700), records
 * this process's groups there from now on, and ends the leftovers of dead mcp-live processes.
 * Never throws; says in `log` when it cannot work.
 */
export async function openProcessGroupRegistry(
  runtimeDir: string,
  log: (message: string) => void,
  options: ReapOptions = {},
): Promise<void> {
  const processes = options.processes ?? systemProcesses;
  if (!processes.available()) return;
  const dir = resolve(runtimeDir);
  try {
    await makePrivateDirectory(dir);
  } catch (error) {
    log(
      `cannot record server processes in ${dir} (${errorMessage(error)}): ` +
        'servers left running by an mcp-live that gets killed will not be ended by the next one',
    );
    return;
  }
  active = registries.get(dir) ?? new ProcessGroupRegistry(dir, processes.ownIdentity(), processes);
  registries.set(dir, active);
  await reapLeftoverProcessGroups(dir, log, options);
}

/**
 * Ends the recorded process groups of every mcp-live that died without ending them, one `log`
 * line per group it ended, and removes their records. Records of a live owner (another running
 * session) and of another boot are left alone and deleted respectively. Bounded: one SIGTERM
 * grace plus a short wait after SIGKILL, for all groups together. Never throws.
 */
export async function reapLeftoverProcessGroups(
  runtimeDir: string,
  log: (message: string) => void,
  options: ReapOptions = {},
): Promise<void> {
  try {
    const processes = options.processes ?? systemProcesses;
    const me = processes.ownIdentity();
    const boot = processes.bootId();
    if (!me || !boot || !isPrivateDirectory(runtimeDir)) return;
    const claimed = await claimDeadRecords(runtimeDir, me, boot, processes);
    if (claimed.length === 0) return;
    const table = processes.table() ?? [];
    const leftovers = claimed.flatMap(({ record }) =>
      record.groups.map((group) => ({ record, group, members: leftoverProcesses(group, table, processes) })),
    );
    await endProcesses(
      leftovers.flatMap((l) => l.members),
      options.termGraceMs ?? DEFAULT_TERM_GRACE_MS,
      processes,
    );
    for (const { record, group, members } of leftovers) {
      if (members.length === 0) continue;
      const what = group.name !== undefined ? `server "${group.name}"` : `"${group.command}"`;
      const count = members.length === 1 ? '1 leftover process' : `${members.length} leftover processes`;
      log(`ended ${count} of ${what} (pgid ${group.pgid}) from an mcp-live that died (pid ${record.ownerPid})`);
    }
    await Promise.all(claimed.map(({ path }) => removeQuietly(path)));
  } catch {
    // Reaping is a courtesy; a session must start whatever the runtime directory holds.
  }
}

/**
 * The record files whose holder (owner, or a reaper that claimed them) is dead, each renamed to
 * ours first: of two sessions starting at once, only one reaps (and logs) a record.
 */
async function claimDeadRecords(
  dir: string,
  me: ProcessIdentity,
  boot: string,
  processes: ProcessTable,
): Promise<{ path: string; record: RecordFile }[]> {
  const claimed: { path: string; record: RecordFile }[] = [];
  for (const name of await readdir(dir)) {
    const match = RECORD_NAME.exec(name);
    if (!match) continue;
    const path = join(dir, name);
    const record = await readRecordFile(path);
    // Another boot: every process it names is gone, and its start times mean nothing now.
    if (record && record.bootId !== boot) {
      await removeQuietly(path);
      continue;
    }
    if (processes.isRunning({ pid: Number(match[1]), startTime: Number(match[2]) })) continue;
    if (!record) {
      await removeQuietly(path);
      continue;
    }
    const target = join(dir, `${me.pid}-${me.startTime}.reaping-${record.ownerPid}-${record.ownerStartTime}.json`);
    try {
      await rename(path, target);
    } catch {
      continue; // Another session claimed it first.
    }
    claimed.push({ path: target, record });
  }
  return claimed;
}

/**
 * The live processes of a recorded group that are certainly ours: the members our server's group
 * still has, and the processes they started outside it (`detached: true`).
 *
 * A member must be in the group and in its session (the server was started as a session leader,
 * so both ids are its pid), must have started no earlier than the leader, and run as us. A pgid is
 * reused only after the group has emptied and its number came round again as a pid, and then the
 * new leader (or its zombie) holds that pid with another start time: such a group is skipped
 * whole. Our leader itself may be gone while its children live on (it got the parent-death
 * signal, they did not). A descendant of a member, found by its current parent, is ours as well.
 *
 * On macOS the session is not known (`ps` gives no session id, decision 280): a member is then
 * checked by group, start time and uid alone.
 */
export function leftoverProcesses(
  group: ProcessGroupRecord,
  table: readonly ProcessStat[],
  processes: ProcessTable = systemProcesses,
): ProcessIdentity[] {
  const holder = table.find((p) => p.pid === group.pgid);
  if (holder && holder.startTime !== group.leaderStartTime) return [];
  const mayEnd = (pid: number) => mayEndProcess(pid, processes);
  const members = table.filter(
    (p) =>
      p.pgid === group.pgid &&
      (p.sid === undefined || p.sid === group.pgid) &&
      !hasExited(p) &&
      p.startTime >= group.leaderStartTime &&
      mayEnd(p.pid),
  );
  const outside = descendantsOutsideGroup(group.pgid, table, members.map((p) => p.pid)).filter((p) => mayEnd(p.pid));
  return [...members.map(({ pid, startTime }) => ({ pid, startTime })), ...outside];
}

/** Never this process; never another user's. */
function mayEndProcess(pid: number, processes: ProcessTable): boolean {
  const uid = process.getuid?.();
  return pid !== process.pid && (uid === undefined || processes.uid(pid) === uid);
}

/** SIGTERM, then SIGKILL after `graceMs` to what is left; each process checked before each signal. */
async function endProcesses(leftovers: readonly ProcessIdentity[], graceMs: number, processes: ProcessTable): Promise<void> {
  const allGoneWithin = async (ms: number): Promise<boolean> => {
    const deadline = Date.now() + ms;
    while (leftovers.some((p) => processes.isRunning(p))) {
      if (Date.now() >= deadline) return false;
      await sleep(POLL_MS);
    }
    return true;
  };
  if (leftovers.length === 0) return;
  processes.signalIfRunning(leftovers, 'SIGTERM');
  if (await allGoneWithin(graceMs)) return;
  processes.signalIfRunning(leftovers, 'SIGKILL');
  await allGoneWithin(KILL_SETTLE_MS);
}

async function readRecordFile(path: string): Promise<RecordFile | undefined> {
  try {
    const bytes = await readRegularFile(path, { ownerUid: process.getuid?.() });
    return asRecordFile(JSON.parse(Buffer.from(bytes).toString('utf8')));
  } catch {
    return undefined;
  }
}

function asRecordFile(value: unknown): RecordFile | undefined {
  const v = value as Partial<RecordFile> | null;
  if (typeof v !== 'object' || v === null || v.version !== 1 || typeof v.bootId !== 'string') return undefined;
  if (!isCount(v.ownerPid) || !isCount(v.ownerStartTime) || !Array.isArray(v.groups)) return undefined;
  const groups = (v.groups as unknown[]).filter(
    (g): g is ProcessGroupRecord =>
      typeof g === 'object' &&
      g !== null &&
      isCount((g as ProcessGroupRecord).pgid) &&
      (g as ProcessGroupRecord).pgid > 1 &&
      isCount((g as ProcessGroupRecord).leaderStartTime) &&
      typeof (g as ProcessGroupRecord).command === 'string' &&
      ['string', 'undefined'].includes(typeof (g as ProcessGroupRecord).name),
  );
  return { version: 1, bootId: v.bootId, ownerPid: v.ownerPid, ownerStartTime: v.ownerStartTime, groups };
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

/** mkdir -p with mode 0700; an existing directory must be ours (not a link), and is narrowed to 0700. */
export async function makePrivateDirectory(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const stats = await lstat(dir);
  if (stats.isSymbolicLink()) throw new Error('it is a symbolic link');
  if (!stats.isDirectory()) throw new Error('it is not a directory');
  const uid = process.getuid?.();
  if (uid !== undefined && stats.uid !== uid) throw new Error(`it is owned by uid ${stats.uid}, not you (uid ${uid})`);
  if ((stats.mode & 0o077) !== 0) await chmod(dir, 0o700);
}

/** Only records nobody else could have written are believed: ours, and not writable by others. */
function isPrivateDirectory(dir: string): boolean {
  return isOwnDirectory(dir) && (lstatSync(dir).mode & 0o022) === 0;
}

function isOwnDirectory(dir: string): boolean {
  try {
    const stats = lstatSync(dir);
    const uid = process.getuid?.();
    return stats.isDirectory() && (uid === undefined || stats.uid === uid);
  } catch {
    return false;
  }
}

/** Removes a file, if it can: a record left over is read again, and judged again, by the next reap. */
async function removeQuietly(path: string): Promise<void> {
  await unlink(path).catch(() => undefined);
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
