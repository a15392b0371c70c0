import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { withParentDeathSignal } from './parentDeathSignal.js';
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
 * An MCP client transport over a child process's stdin/stdout, on the SDK's `Transport` seam.
 *
 * Why not the SDK's `StdioClientTransport`: it hides the `ChildProcess`, so the exit code and
 * signal (needed for "process exited with code 1: Error: boom") are lost; its `close()` returns
 * after SIGKILL without waiting for the exit, and it always waits 2 s after closing stdin. This
 * one follows the MCP shutdown order (close stdin → SIGTERM → SIGKILL) with our graces, resolves
 * `close()` only once the process has exited, and pipes stderr into a {@link StderrRing}
 * (never inherited into our terminal).
 *
 * On POSIX the child leads its own process group, and signals go to the group, so wrappers such
 * as `sh -c …` or `npx …` do not leave their grandchildren behind. A close also ends the
 * descendants that left the group (`detached: true`), found in /proc before anything is
 * signalled (Linux). While the group runs it is recorded in a {@link ProcessGroupRegistry}, so
 * the next mcp-live can end it if this one is SIGKILLed.
 */

export interface StdioLaunch {
  command: string;
  args: readonly string[];
  /** The complete environment of the child (the caller overlays the config on `process.env`). */
  env: Record<string, string>;
  cwd?: string;
}

export interface StdioShutdownGraces {
  /** After closing stdin, how long a server may take to exit on its own before SIGTERM. */
  stdinGraceMs: number;
  /** After SIGTERM, how long before SIGKILL. */
  killGraceMs: number;
}

/** Where the child's process group is recorded while it runs, and under which server name. */
export interface GroupRecording {
  registry?: ProcessGroupRegistry;
  name?: string;
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

/** After the exit, how long we wait for stdout/stderr to drain (a grandchild may hold them open). */
const DRAIN_AFTER_EXIT_MS = 200;

/** How often we look whether a process group has emptied (its members are not our children). */
const GROUP_POLL_MS = 50;
/** After SIGKILL, how long we wait for the rest of the group to die before we stop looking. */
const KILL_SETTLE_MS = 500;

const usesProcessGroups = process.platform !== 'win32';

export class StdioProcessTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private child?: ChildProcess;
  private readonly readBuffer = new ReadBuffer();
  /** A notification was just handed on: the next messages go after its handler ({@link deliver}). */
  private deferred = false;
  private exitInfo?: ProcessExit;
  private readonly exited: Promise<ProcessExit>;
  private markExited!: (exit: ProcessExit) => void;
  private closeNotified = false;
  private stopping?: Promise<void>;
  /** Resolved by {@link terminate}: cut the stdin grace short. */
  private hurry!: () => void;
  private readonly hurried: Promise<void>;
  /** The registry our group is recorded in, until the group has ended. */
  private recordedIn?: ProcessGroupRegistry;
  /** Descendants outside the group, read when the close began; signalled with the group. */
  private outsiders: ProcessIdentity[] = [];

  constructor(
    private readonly launch: StdioLaunch,
    private readonly stderr: StderrRing,
    private readonly graces: StdioShutdownGraces,
    private readonly recording: GroupRecording = {},
  ) {
    this.exited = new Promise<ProcessExit>((resolve) => {
      this.markExited = (exit) => {
        if (this.exitInfo) return;
        this.exitInfo = exit;
        resolve(exit);
      };
    });
    this.hurried = new Promise<void>((resolve) => (this.hurry = resolve));
  }

  /** The child's pid once started. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** How the child ended, once it has. */
  get exit(): ProcessExit | undefined {
    return this.exitInfo;
  }

  start(): Promise<void> {
    if (this.child) return Promise.reject(new Error('StdioProcessTransport already started'));
    const { command, args, env, cwd } = this.launch;
    return new Promise<void>((resolve, reject) => {
      let child: ChildProcess;
      try {
        const launch = withParentDeathSignal({ command, args }, env, cwd);
        child = spawn(launch.command, [...launch.args], {
          env,
          cwd,
          stdio: ['pipe', 'pipe', 'pipe'],
          shell: false,
          detached: usesProcessGroups,
          windowsHide: true,
        });
      } catch (error) {
        // spawn throws synchronously for arguments it cannot pass (a NUL byte, a bad cwd type).
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
          // Not a death: start() fails with the cause; close() reports the close later.
          this.markExited({ code: null, signal: null });
          reject(this.startError(error));
          return;
        }
        this.onerror?.(error);
      });
      child.once('exit', (code, signal) => this.onExit(child, { code, signal }));

      child.stdout?.on('data', (chunk: Buffer) => this.onStdout(chunk));
      child.stdout?.on('error', (error) => this.onerror?.(error));
      // EPIPE once the child is gone: the exit handler reports that; requests fail via send().
      child.stdin?.on('error', (error) => this.onerror?.(error));
      child.stderr?.setEncoding('utf8');
      child.stderr?.on('data', (text: string) => this.stderr.write(text));
      child.stderr?.on('end', () => this.stderr.end());
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const stdin = this.child?.stdin;
      if (!stdin || this.exitInfo || !stdin.writable) {
        reject(new Error('Not connected'));
        return;
      }
      stdin.write(serializeMessage(message), (error) => (error ? reject(error) : resolve()));
    });
  }

  /** Ends the child gracefully: close stdin, then SIGTERM, then SIGKILL. Resolves once it has exited. */
  close(): Promise<void> {
    this.stopping ??= this.shutdown();
    return this.stopping;
  }

  /** Like {@link close}, but skips the stdin grace: for an attempt we abandon before it connected. */
  terminate(): Promise<void> {
    this.hurry();
    return this.close();
  }

  private async shutdown(): Promise<void> {
    const child = this.child;
    // Before anything ends: a dying parent's children are reparented and no longer descend from it.
    if (child?.pid !== undefined && usesProcessGroups) {
      this.outsiders = descendantsOutsideGroup(child.pid, processTable() ?? []);
    }
    if (child && this.groupRunning(child)) {
      try {
        child.stdin?.end();
      } catch {
        // The pipe may already be broken; the signals below still apply.
      }
      await this.endWithin(() => this.groupRunning(child), this.graces.stdinGraceMs, this.hurried);
    }
    if (child) {
      await this.stopGroup(child);
      await this.forgetGroup(child);
    }
    this.readBuffer.clear();
    this.notifyClose();
  }

  /** Records the child's group (POSIX with /proc, and a registry given). */
  private async recordGroup(child: ChildProcess): Promise<void> {
    const registry = this.recording.registry;
    if (!usesProcessGroups || !registry || child.pid === undefined || this.exitInfo) return;
    const leader = readProcessStat(child.pid);
    if (!leader || leader.pgid !== child.pid) return;
    this.recordedIn = registry;
    await registry.add({
      pgid: child.pid,
      leaderStartTime: leader.startTime,
      name: this.recording.name,
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
   * descendants outside it are gone.
   */
  private async stopGroup(child: ChildProcess): Promise<void> {
    const running = () => this.running(child);
    if (!running()) return;
    this.signal(child, 'SIGTERM');
    if (await this.endWithin(running, this.graces.killGraceMs)) return;
    this.signal(child, 'SIGKILL');
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
    if (!usesProcessGroups || child.pid === undefined) return false;
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

  private signal(child: ChildProcess, signal: NodeJS.Signals): void {
    signalIfRunning(this.outsiders, signal);
    if (usesProcessGroups && child.pid !== undefined) {
      try {
        process.kill(-child.pid, signal);
        return;
      } catch {
        // No such group (already gone) or not permitted: fall back to the child itself.
      }
    }
    try {
      child.kill(signal);
    } catch {
      // Already gone.
    }
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

  private onStdout(chunk: Buffer): void {
    try {
      this.readBuffer.append(chunk);
    } catch (error) {
      this.onerror?.(asError(error));
      void this.close();
      return;
    }
    this.deliver();
  }

  /**
   * Hands the buffered messages on, in order. After a notification the rest wait one microtask:
   * the SDK runs a notification's handler a microtask late but a response at once, so a call's
   * last progress notification, read in the same chunk as its answer, would reach the SDK after
   * the answer had removed the call's progress handler, and be dropped (typescript-sdk#2580).
   */
  private deliver(): void {
    if (this.deferred) return;
    for (;;) {
      let message: JSONRPCMessage | null;
      try {
        message = this.readBuffer.readMessage();
      } catch (error) {
        // A line that is not JSON-RPC (a server logging to stdout): skip it, keep reading.
        this.onerror?.(asError(error));
        continue;
      }
      if (message === null) return;
      this.onmessage?.(message);
      if ('method' in message && !('id' in message)) {
        this.deferred = true;
        queueMicrotask(() => {
          this.deferred = false;
          this.deliver();
        });
        return;
      }
    }
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
