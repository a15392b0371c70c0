import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import { signalTree, type KillTreeDeps } from '../platform/killTree.js';
import { spawnCommand, type SpawnDeps } from '../platform/spawnCommand.js';
import type { ProcessGroupRegistry } from './processGroupRegistry.js';
import {
  descendantsOutsideGroup,
  groupHasLiveMember,
  isRunning,
  processTable,
  readProcessStat,
  signalIfRunning,
  type ProcessIdentity,
} from './processTable.js';
import type { StderrRing } from './stderrRing.js';

/**
 * The life of a server's child process, whatever protocol is spoken to it: an MCP stdio server
 * (stdioTransport.ts) and a language server (lsp/lspConnector.ts) start, die and stop alike.
 *
 *   start()                    spawn → recorded in the registry → resolved
 *   stop(askToExit)            askToExit() → exitGraceMs → SIGTERM → killGraceMs → SIGKILL; resolves once gone
 *   terminate()                stop() without asking and without the grace (an attempt given up)
 *   onclose                    once: the process exited and its pipes drained, or stop() finished
 *
 * On POSIX the child leads its own process group, and signals go to the group, so wrappers such
 * as `sh -c …` or `npx …` do not leave their grandchildren behind. A stop also ends the
 * descendants that left the group (`detached: true`), found in /proc before anything is
 * signalled (Linux). While the group runs it is recorded in a {@link ProcessGroupRegistry}, so
 * the next mcp-live can end it if this one is SIGKILLed; the kernel's parent-death signal
 * (parentDeathSignal.ts) reaches the server itself. stderr goes into a {@link StderrRing}, never
 * into our terminal.
 *
 * On win32 (decisions 270, 271) the command starts through cross-spawn (`npx`, `.cmd` shims:
 * platform/spawnCommand.ts), not detached, so libuv's kill-on-close job object ends the direct
 * child if we die; SIGTERM and SIGKILL become `taskkill /T` and `taskkill /T /F` of the tree
 * (platform/killTree.ts), and nothing is recorded (no process groups, no start times).
 */

export interface ServerLaunch {
  command: string;
  args: readonly string[];
  /** The complete environment of the child (see {@link childEnvironment}). */
  env: Record<string, string>;
  cwd?: string;
}

export interface ProcessGraces {
  /** After asking the server to exit (its protocol's way), how long it may take before SIGTERM. */
  exitGraceMs: number;
  /** After SIGTERM, how long before SIGKILL. */
  killGraceMs: number;
}

/** Where the child's process group is recorded while it runs, and under which server name. */
export interface GroupRecording {
  registry?: ProcessGroupRegistry;
  name?: string;
}

export interface ServerProcessOptions {
  recording?: GroupRecording;
  /**
   * The child's stdin and stdout: `pipe` for a server spoken to over them, `ignore` for one
   * reached over a socket. stderr is always read into the ring.
   */
  stdio?: 'pipe' | 'ignore';
  /** The platform and the spawn / taskkill behind it; tests run the win32 branch on Linux with fakes. */
  system?: SpawnDeps & KillTreeDeps;
}

export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/**
 * Why a server process went away, in words. An exit code comes with the last stderr line as its
 * cause, since a crashing server says why on stderr last ("process exited with code 1: Error:
 * boom"). A signal came from outside (the OOM killer, a user's `kill`): whatever the server wrote
 * last is no explanation of it, so that line is shown apart ("process was killed by SIGKILL
 * (last stderr: listening on 3000)").
 */
export function describeProcessExit(exit: ProcessExit | undefined, lastStderr: string | undefined): string {
  if (exit?.signal != null) {
    const how = `process was killed by ${exit.signal}`;
    return lastStderr ? `${how} (last stderr: ${lastStderr})` : how;
  }
  const how = exit?.code != null ? `process exited with code ${exit.code}` : 'process exited';
  return lastStderr ? `${how}: ${lastStderr}` : how;
}

/**
 * docs/contract.md, "Server entries": a server's child gets the process environment overlaid with
 * its entry's `env`. On win32 names are case-blind (decision 275): an entry's `PATH` replaces the
 * inherited `Path` rather than standing beside it, where which of the two the child (and
 * cross-spawn's lookup) would see is a matter of order.
 */
export function childEnvironment(
  overlay: Readonly<Record<string, string>>,
  base: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): Record<string, string> {
  const overridden = platform === 'win32' ? new Set(Object.keys(overlay).map((key) => key.toUpperCase())) : undefined;
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(base)) {
    if (value !== undefined && !overridden?.has(key.toUpperCase())) env[key] = value;
  }
  return { ...env, ...overlay };
}

/** After the exit, how long we wait for stdout/stderr to drain (a grandchild may hold them open). */
const DRAIN_AFTER_EXIT_MS = 200;

/** How often we look whether a process group has emptied (its members are not our children). */
const GROUP_POLL_MS = 50;
/** After SIGKILL, how long we wait for the rest of the group to die before we stop looking. */
const KILL_SETTLE_MS = 500;

export class ServerProcess {
  /** Called once: the process is gone and its output drained, or {@link stop} has finished. */
  onclose?: () => void;
  /** A failure of the running child (not of its start: {@link start} rejects with that). */
  onerror?: (error: Error) => void;
  /** Resolves with how the child ended (at once, with no code, when it never started). */
  readonly exited: Promise<ProcessExit>;

  private child?: ChildProcess;
  private exitInfo?: ProcessExit;
  private markExited!: (exit: ProcessExit) => void;
  private closeNotified = false;
  private stopping?: Promise<void>;
  /** Resolved by {@link terminate}: cut the asking and the exit grace short. */
  private hurry!: () => void;
  private readonly hurried: Promise<void>;
  /** The registry our group is recorded in, until the group has ended. */
  private recordedIn?: ProcessGroupRegistry;
  /** Descendants outside the group, read when the stop began; signalled with the group. */
  private outsiders: ProcessIdentity[] = [];
  /** POSIX: the child leads a process group of its own (not on win32). */
  private readonly usesProcessGroups: boolean;

  constructor(
    private readonly launch: ServerLaunch,
    private readonly stderr: StderrRing,
    private readonly graces: ProcessGraces,
    private readonly options: ServerProcessOptions = {},
  ) {
    this.exited = new Promise<ProcessExit>((resolve) => {
      this.markExited = (exit) => {
        if (this.exitInfo) return;
        this.exitInfo = exit;
        resolve(exit);
      };
    });
    this.hurried = new Promise<void>((resolve) => (this.hurry = resolve));
    this.usesProcessGroups = (options.system?.platform ?? process.platform) !== 'win32';
  }

  /** The child's pid once started. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** How the child ended, once it has. */
  get exit(): ProcessExit | undefined {
    return this.exitInfo;
  }

  /** The child's stdin (with `stdio: 'pipe'`), from the moment {@link start} was called. */
  get stdin(): Writable | undefined {
    return this.child?.stdin ?? undefined;
  }

  /** The child's stdout (with `stdio: 'pipe'`), from the moment {@link start} was called. */
  get stdout(): Readable | undefined {
    return this.child?.stdout ?? undefined;
  }

  /** Spawns the child; resolves once it runs and its group is recorded, rejects with "failed to start …". */
  start(): Promise<void> {
    if (this.child) return Promise.reject(new Error('ServerProcess already started'));
    const { command, args, env, cwd } = this.launch;
    const io = this.options.stdio ?? 'pipe';
    return new Promise<void>((resolve, reject) => {
      let child: ChildProcess;
      try {
        child = spawnCommand(
          { command, args },
          { env, cwd, stdio: [io, io, 'pipe'], shell: false, detached: this.usesProcessGroups, windowsHide: true },
          this.options.system,
        );
      } catch (error) {
        // spawn throws synchronously for arguments it cannot pass (a NUL byte, a bad cwd type);
        // spawnCommand for a command on no absolute PATH directory (decision 298), and on win32
        // for an argument cmd.exe cannot take.
        this.markExited({ code: null, signal: null });
        reject(this.startError(error));
        return;
      }
      this.child = child;
      let spawned = false;
      child.once('spawn', () => {
        spawned = true;
        // Started means recorded: a SIGKILL of ours right after still has its group ended later.
        void this.recordGroup(child).then(resolve);
      });
      child.on('error', (error) => {
        if (!spawned) {
          // Not a death: start() fails with the cause; stop() reports the close later.
          this.markExited({ code: null, signal: null });
          reject(this.startError(error));
          return;
        }
        this.onerror?.(error);
      });
      child.once('exit', (code, signal) => this.onExit(child, { code, signal }));
      child.stderr?.setEncoding('utf8');
      child.stderr?.on('data', (text: string) => this.stderr.write(text));
      child.stderr?.on('end', () => this.stderr.end());
    });
  }

  /**
   * Ends the child: `askToExit` (close stdin, an LSP `shutdown` + `exit` …), the exit grace,
   * then SIGTERM and SIGKILL to the group. Resolves once everything has exited. Idempotent: the
   * first call's `askToExit` is the one used.
   */
  stop(askToExit: () => unknown = () => undefined): Promise<void> {
    this.stopping ??= this.shutdown(askToExit);
    return this.stopping;
  }

  /** Like {@link stop}, without asking and without the exit grace: for an attempt we abandon. */
  terminate(): Promise<void> {
    this.hurry();
    return this.stop();
  }

  private async shutdown(askToExit: () => unknown): Promise<void> {
    const child = this.child;
    // Before anything ends: a dying parent's children are reparented and no longer descend from it.
    if (child?.pid !== undefined && this.usesProcessGroups) {
      this.outsiders = descendantsOutsideGroup(child.pid, processTable() ?? []);
    }
    if (child && this.groupRunning(child)) {
      await Promise.race([Promise.resolve().then(askToExit).catch(() => undefined), this.hurried]);
      await this.endWithin(() => this.groupRunning(child), this.graces.exitGraceMs, this.hurried);
    }
    if (child) {
      await this.stopGroup(child);
      await this.forgetGroup(child);
    }
    this.notifyClose();
  }

  /** Records the child's group (POSIX with /proc, and a registry given). */
  private async recordGroup(child: ChildProcess): Promise<void> {
    const registry = this.options.recording?.registry;
    if (!this.usesProcessGroups || !registry || child.pid === undefined || this.exitInfo) return;
    const leader = readProcessStat(child.pid);
    if (!leader || leader.pgid !== child.pid) return;
    this.recordedIn = registry;
    await registry.add({
      pgid: child.pid,
      leaderStartTime: leader.startTime,
      name: this.options.recording?.name,
      command: this.launch.command,
    });
  }

  /** Drops the record once nothing of the group runs (a member that survived SIGKILL stays recorded). */
  private async forgetGroup(child: ChildProcess): Promise<void> {
    const registry = this.recordedIn;
    if (!registry || child.pid === undefined || this.groupRunning(child)) return;
    this.recordedIn = undefined;
    await registry.remove(child.pid);
  }

  /**
   * SIGTERM, then SIGKILL after the grace, until the child, everything in its group and the
   * descendants outside it are gone (win32: `taskkill /T`, then `taskkill /T /F`).
   */
  private async stopGroup(child: ChildProcess): Promise<void> {
    const running = () => this.running(child);
    if (!running()) return;
    await this.signal(child, 'SIGTERM');
    if (await this.endWithin(running, this.graces.killGraceMs)) return;
    await this.signal(child, 'SIGKILL');
    await this.exited;
    // SIGKILL cannot be refused; give the kernel a moment to deliver it to the rest of the group.
    await this.endWithin(running, KILL_SETTLE_MS);
  }

  /** {@link groupRunning}, or a descendant outside the group still runs. */
  private running(child: ChildProcess): boolean {
    return this.groupRunning(child) || this.outsiders.some(isRunning);
  }

  /** Whether the child — or, on POSIX, anything left in its process group — still runs. */
  private groupRunning(child: ChildProcess): boolean {
    if (!this.exitInfo) return true;
    if (!this.usesProcessGroups || child.pid === undefined) return false;
    return groupAlive(child.pid);
  }

  /** Waits up to `ms` (or until `cutShort`) for `running` to turn false; returns whether it did. */
  private async endWithin(running: () => boolean, ms: number, cutShort?: Promise<void>): Promise<boolean> {
    const deadline = Date.now() + ms;
    let cut = false;
    void cutShort?.then(() => (cut = true));
    while (running() && !cut && Date.now() < deadline) {
      // The leader's exit arrives as an event; a grandchild's only shows when we look again.
      let timer: NodeJS.Timeout | undefined;
      const tick = new Promise<void>((resolve) => (timer = setTimeout(resolve, Math.min(GROUP_POLL_MS, deadline - Date.now()))));
      const leaderExit = this.exitInfo ? [] : [this.exited];
      await Promise.race([...leaderExit, tick, ...(cutShort ? [cutShort] : [])]);
      clearTimeout(timer);
    }
    return !running();
  }

  private async signal(child: ChildProcess, signal: 'SIGTERM' | 'SIGKILL'): Promise<void> {
    signalIfRunning(this.outsiders, signal);
    // The group on POSIX, the tree on win32; the child itself where neither can be reached.
    await signalTree(child, signal, this.options.system);
  }

  private onExit(child: ChildProcess, exit: ProcessExit): void {
    this.markExited(exit);
    // The server died on its own: whatever it left in its group (a wrapper's children) goes too.
    if (!this.stopping) void this.stopGroup(child).then(() => this.forgetGroup(child));
    // Report the close after the pipes drained, so the last stderr line is in the ring.
    const timer = setTimeout(() => this.notifyClose(), DRAIN_AFTER_EXIT_MS);
    child.once('close', () => {
      clearTimeout(timer);
      this.notifyClose();
    });
  }

  private notifyClose(): void {
    if (this.closeNotified) return;
    this.closeNotified = true;
    this.stderr.end();
    this.onclose?.();
  }

  private startError(error: unknown): Error {
    const { command, cwd } = this.launch;
    const code = (error as NodeJS.ErrnoException | undefined)?.code;
    // Node reports a missing cwd as `spawn CMD ENOENT`, which blames the command.
    const detail =
      code === 'ENOENT' && cwd !== undefined && !existsSync(cwd)
        ? `working directory "${cwd}" does not exist`
        : asError(error).message;
    return new Error(`failed to start "${command}": ${detail}`);
  }
}

/**
 * Whether a process group has a member that has not exited. `kill(-pgid, 0)` alone also counts
 * zombies: grandchildren that died after their parent wait for init to reap them, which can take
 * seconds. On Linux, /proc tells the two apart.
 */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch {
    return false;
  }
  const table = processTable();
  return table === undefined || groupHasLiveMember(pgid, table);
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
