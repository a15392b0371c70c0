import { execFile as nodeExecFile } from 'node:child_process';
import { win32 } from 'node:path';

/**
 * Ending the process tree of a server we started, per platform (decision 271):
 *
 *   POSIX   SIGTERM | SIGKILL  → the child's process group (it leads one), else the child itself
 *   win32   SIGTERM            → taskkill /PID <pid> /T       the tree, asked (WM_CLOSE)
 *           SIGKILL            → taskkill /PID <pid> /T /F    the tree, forced; then the child itself
 *
 * Windows has no signals and no process groups for console programs: `child.kill()` is
 * TerminateProcess of the direct child alone, which leaves the real server running once
 * `cmd.exe` stands between (`npx`, a `.cmd` shim: spawnCommand.ts). taskkill walks the tree by
 * parent pid, so it runs while the child is still alive. Without `/F` it only asks, and a
 * console program that has no window cannot be asked ("can only be terminated forcefully"): that
 * step is the polite half of the sequence and its failure is expected. taskkill is run by its
 * full path under %SystemRoot%, never looked up: Windows searches the current directory first,
 * and a repository must not be able to put a `taskkill.exe` there.
 */

export type TreeSignal = 'SIGTERM' | 'SIGKILL';

/** The process whose tree ends: a ChildProcess, or a pid with no handle (a gateway daemon). */
export interface TreeRoot {
  readonly pid?: number | undefined;
  kill?(signal?: NodeJS.Signals): boolean;
}

export type ExecFileFunction = (
  file: string,
  args: readonly string[],
  options: { timeout: number; windowsHide: boolean },
  callback: (error: Error | null) => void,
) => unknown;

export interface KillTreeDeps {
  platform?: NodeJS.Platform;
  /** Node's `execFile` unless a test records the taskkill calls. */
  execFile?: ExecFileFunction;
  /** Where %SystemRoot% is read (process.env). */
  env?: NodeJS.ProcessEnv;
}

/** A taskkill that hangs (it should not) does not hold up a stop longer than this. */
const TASKKILL_TIMEOUT_MS = 10_000;

/** `taskkill.exe` under %SystemRoot%\System32 (C:\Windows when that is unset or not an absolute path). */
export function taskkillPath(env: NodeJS.ProcessEnv = process.env): string {
  const root = env.SystemRoot ?? env.SYSTEMROOT ?? env.windir;
  return win32.join(root !== undefined && win32.isAbsolute(root) ? root : 'C:\\Windows', 'System32', 'taskkill.exe');
}

/** The taskkill arguments for a signal: the tree always, forced for SIGKILL. */
export function taskkillArgs(pid: number, signal: TreeSignal): string[] {
  return ['/PID', String(pid), '/T', ...(signal === 'SIGKILL' ? ['/F'] : [])];
}

/**
 * Sends `signal` to the tree under `root` (see the module comment); resolves once it is sent
 * (on win32: once taskkill has finished). Never rejects: a tree already gone is not an error,
 * and whoever stops it waits for the exit anyway.
 */
export async function signalTree(root: TreeRoot, signal: TreeSignal, deps: KillTreeDeps = {}): Promise<void> {
  const platform = deps.platform ?? process.platform;
  if (platform === 'win32') {
    if (root.pid !== undefined) await runTaskkill(root.pid, signal, deps);
    // taskkill may be refused (another user's descendant) or missing: the child itself still ends.
    if (signal === 'SIGKILL') killQuietly(root, 'SIGKILL');
    return;
  }
  if (root.pid !== undefined) {
    try {
      process.kill(-root.pid, signal);
      return;
    } catch {
      // No such group (already gone) or not permitted: fall back to the child itself.
    }
  }
  killQuietly(root, signal);
}

function runTaskkill(pid: number, signal: TreeSignal, deps: KillTreeDeps): Promise<void> {
  const execFile = deps.execFile ?? execFileOfNode;
  return new Promise<void>((resolve) => {
    try {
      execFile(taskkillPath(deps.env), taskkillArgs(pid, signal), { timeout: TASKKILL_TIMEOUT_MS, windowsHide: true }, () => resolve());
    } catch {
      resolve();
    }
  });
}

const execFileOfNode: ExecFileFunction = (file, args, options, callback) =>
  nodeExecFile(file, [...args], options, (error) => callback(error));

function killQuietly(root: TreeRoot, signal: NodeJS.Signals): void {
  try {
    root.kill?.(signal);
  } catch {
    // Already gone.
  }
}
