import { spawn, type ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { signalTree, taskkillArgs, taskkillPath, type ExecFileFunction } from '../../../src/platform/killTree.js';

/**
 * Decision 271: ending a server's tree. win32 runs here against a fake execFile
 * recording the taskkill invocations; POSIX against real processes.
 */

interface TaskkillCall {
  file: string;
  args: readonly string[];
}

function recordingExecFile(outcome: (call: TaskkillCall) => Error | null = () => null): { execFile: ExecFileFunction; calls: TaskkillCall[] } {
  const calls: TaskkillCall[] = [];
  const execFile: ExecFileFunction = (file, args, options, callback) => {
    expect(options.windowsHide).toBe(true);
    calls.push({ file, args });
    const error = outcome({ file, args });
    setImmediate(() => callback(error));
  };
  return { execFile, calls };
}

function fakeChild(pid: number): { pid: number; kill: (signal?: NodeJS.Signals) => boolean; kills: (NodeJS.Signals | undefined)[] } {
  const kills: (NodeJS.Signals | undefined)[] = [];
  return { pid, kills, kill: (signal) => (kills.push(signal), true) };
}

const WINDOWS_ENV = { SystemRoot: 'C:\\Windows' };

describe('signalTree on win32 (taskkill)', () => {
  it('SIGTERM asks the tree: taskkill /PID <pid> /T, by its full path, and leaves the child alone', async () => {
    const { execFile, calls } = recordingExecFile();
    const child = fakeChild(4242);
    await signalTree(child, 'SIGTERM', { platform: 'win32', execFile, env: WINDOWS_ENV });
    expect(calls).toEqual([{ file: 'C:\\Windows\\System32\\taskkill.exe', args: ['/PID', '4242', '/T'] }]);
    expect(child.kills).toEqual([]);
  });

  it('SIGKILL forces the tree (/T /F), then ends the child itself in case taskkill could not', async () => {
    // taskkill exits 1 when it is refused; the child must end all the same.
    const { execFile, calls } = recordingExecFile(() => new Error('Command failed: taskkill … Access is denied.'));
    const child = fakeChild(77);
    await signalTree(child, 'SIGKILL', { platform: 'win32', execFile, env: WINDOWS_ENV });
    expect(calls).toEqual([{ file: 'C:\\Windows\\System32\\taskkill.exe', args: ['/PID', '77', '/T', '/F'] }]);
    expect(child.kills).toEqual(['SIGKILL']);
  });

  it('resolves when execFile itself throws (no taskkill at all)', async () => {
    const execFile: ExecFileFunction = () => {
      throw new Error('spawn EPERM');
    };
    const child = fakeChild(5);
    await expect(signalTree(child, 'SIGKILL', { platform: 'win32', execFile, env: WINDOWS_ENV })).resolves.toBeUndefined();
    expect(child.kills).toEqual(['SIGKILL']);
  });

  it('a child that never got a pid runs no taskkill', async () => {
    const { execFile, calls } = recordingExecFile();
    await signalTree({ kill: () => true }, 'SIGTERM', { platform: 'win32', execFile, env: WINDOWS_ENV });
    expect(calls).toEqual([]);
  });

  it('finds taskkill under %SystemRoot%, never on the PATH or relative to the current directory', () => {
    expect(taskkillPath({ SystemRoot: 'D:\\WINNT' })).toBe('D:\\WINNT\\System32\\taskkill.exe');
    expect(taskkillPath({ windir: 'E:\\Windows' })).toBe('E:\\Windows\\System32\\taskkill.exe');
    expect(taskkillPath({ SystemRoot: '.\\evil' })).toBe('C:\\Windows\\System32\\taskkill.exe');
    expect(taskkillPath({})).toBe('C:\\Windows\\System32\\taskkill.exe');
    expect(taskkillArgs(9, 'SIGTERM')).toEqual(['/PID', '9', '/T']);
  });
});

describe('signalTree on POSIX (real processes)', () => {
  const children: ChildProcess[] = [];
  const grandchildren: number[] = [];
  afterEach(() => {
    for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    for (const pid of grandchildren.splice(0)) if (alive(pid)) process.kill(pid, 'SIGKILL');
  });

  /** A node that ignores SIGTERM and starts a grandchild in its group; resolves with the grandchild's pid. */
  async function groupWithGrandchild(detached: boolean): Promise<{ child: ChildProcess; grandchild: number }> {
    const script = `
      process.on('SIGTERM', () => {});
      const g = require('node:child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
      console.log(g.pid);
      setInterval(() => {}, 1000);`;
    const child = spawn(process.execPath, ['-e', script], { detached, stdio: ['ignore', 'pipe', 'ignore'] });
    children.push(child);
    const grandchild = await new Promise<number>((resolve) => child.stdout.once('data', (d: Buffer) => resolve(Number(String(d).trim()))));
    grandchildren.push(grandchild);
    return { child, grandchild };
  }

  function alive(pid: number): boolean {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  }

  async function gone(pid: number): Promise<boolean> {
    const deadline = Date.now() + 5_000;
    while (alive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    return !alive(pid);
  }

  it('signals the whole group the child leads, grandchild included', async () => {
    const { child, grandchild } = await groupWithGrandchild(true);
    const exit = new Promise((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
    await signalTree(child, 'SIGKILL', { platform: process.platform });
    expect(await exit).toBe('SIGKILL');
    expect(await gone(grandchild)).toBe(true);
  });

  it('falls back to the child itself when it leads no group', async () => {
    const { child, grandchild } = await groupWithGrandchild(false);
    const exit = new Promise((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
    await signalTree(child, 'SIGKILL', { platform: process.platform });
    expect(await exit).toBe('SIGKILL');
    // Not in a group of its own: the grandchild is not reached (which is why servers get one).
    expect(alive(grandchild)).toBe(true);
  });
});
