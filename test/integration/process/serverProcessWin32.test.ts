import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { ExecFileFunction } from '../../../src/platform/killTree.js';
import type { SpawnFunction } from '../../../src/platform/spawnCommand.js';
import { ProcessGroupRegistry } from '../../../src/process/processGroupRegistry.js';
import { ServerProcess, childEnvironment } from '../../../src/process/serverProcess.js';
import { StderrRing } from '../../../src/process/stderrRing.js';
import { cmdExeRun, loadWindowsParse } from '../../unit/platform/windowsCommandLine.js';
import { fixture } from '../mcpServers.js';
import { isAlive, waitForExit } from '../processes.js';
import { deadline } from '../../deadlines.js';

/**
 * Decisions 270 and 271: a server's life on win32, simulated here. The ServerProcess
 * runs its win32 branch — cross-spawn's parse loaded as on Windows, taskkill for the signals —
 * on a pretend Windows machine: the fake spawn reads the command line as cmd.exe would
 * (windowsCommandLine.ts) and starts the program it names, an `npx.cmd` that is node, as a real
 * process; the fake taskkill records its invocations and, forced, ends that process.
 */

const dir = mkdtempSync(join(tmpdir(), 'mcp-live-win32-'));
const bin = join(dir, 'bin');
mkdirSync(bin);
writeFileSync(join(bin, 'npx.cmd'), '@ECHO off\r\n');
writeFileSync(join(bin, 'uvx.exe'), '');
const parseForWindows = loadWindowsParse();

const started: ChildProcess[] = [];
afterEach(() => {
  for (const child of started.splice(0)) if (child.pid !== undefined && isAlive(child.pid)) child.kill('SIGKILL');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Machine {
  spawn: SpawnFunction;
  execFile: ExecFileFunction;
  spawns: { command: string; args: readonly string[]; detached: boolean | undefined }[];
  taskkills: { args: readonly string[]; at: number }[];
}

/** The pretend Windows machine: `npx.cmd` and `uvx.exe` are node; taskkill /F kills, taskkill without it cannot. */
function windowsMachine(): Machine {
  const machine: Machine = {
    spawns: [],
    taskkills: [],
    spawn: (command, args, options) => {
      machine.spawns.push({ command, args, detached: options.detached });
      const argv = /cmd\.exe$/i.test(command)
        ? programArgv(cmdExeRun(args, options.env as Record<string, string>, { batch: true }))
        : [...args];
      const { windowsVerbatimArguments: _verbatim, ...rest } = options;
      const child = spawn(process.execPath, argv, rest);
      started.push(child);
      return child;
    },
    execFile: (_file, args, _options, callback) => {
      machine.taskkills.push({ args, at: Date.now() });
      const pid = Number(args[1]);
      if (args.includes('/F')) {
        process.kill(pid, 'SIGKILL');
        setImmediate(() => callback(null));
      } else {
        // What taskkill says of a console program without a window.
        setImmediate(() => callback(new Error(`ERROR: The process with PID ${pid} could not be terminated. This process can only be terminated forcefully (with /F option).`)));
      }
    },
  };
  return machine;
}

function programArgv(run: { program: string; argv: string[] }): string[] {
  expect(basename(run.program)).toBe('npx.cmd');
  return run.argv;
}

function serverProcess(machine: Machine, command: string, args: string[], graces = { exitGraceMs: 300, killGraceMs: 400 }, registry?: ProcessGroupRegistry): ServerProcess {
  return new ServerProcess(
    { command, args, env: childEnvironment({ PATH: bin, PATHEXT: '.exe;.cmd' }) },
    new StderrRing(),
    graces,
    { recording: { registry, name: 'win' }, system: { platform: 'win32', spawn: machine.spawn, parseForWindows, execFile: machine.execFile } },
  );
}

describe('ServerProcess on win32 (simulated)', () => {
  it('starts `npx …` through cmd.exe with every argument intact, not detached, and records no process group', async () => {
    const machine = windowsMachine();
    const argvLog = join(dir, 'argv.log');
    const hostile = 'x&y|z"w %PATH% ^v & calc.exe';
    const registry = new ProcessGroupRegistry(join(dir, 'run'), { pid: 999_999, startTime: 1 });
    const server = serverProcess(machine, 'npx', [fixture('hang-server.mjs'), '--argv-log', argvLog, hostile], undefined, registry);
    await server.start();
    expect(machine.spawns[0]!.command).toMatch(/cmd\.exe$/i);
    expect(machine.spawns[0]!.detached).toBe(false);
    const giveUpAt = Date.now() + deadline(10_000);
    while (!existsSync(argvLog) && Date.now() < giveUpAt) await new Promise((r) => setTimeout(r, 20));
    expect(JSON.parse(readFileSync(argvLog, 'utf8'))).toEqual(['--argv-log', argvLog, hostile]);
    // No /proc start times and no groups on Windows: nothing to record for a reaper.
    expect(existsSync(registry.file!)).toBe(false);
    await server.terminate();
  });

  it('stop(): asks, waits the exit grace, taskkill /T, waits the kill grace, taskkill /T /F — the tree, not just the child', async () => {
    const machine = windowsMachine();
    const server = serverProcess(machine, 'npx', [fixture('hang-server.mjs')]);
    await server.start();
    const pid = server.pid!;
    let asked = 0;
    const stopAt = Date.now();
    await server.stop(() => {
      asked += 1;
      server.stdin?.end();
    });
    expect(asked).toBe(1);
    expect(machine.taskkills.map((t) => t.args)).toEqual([
      ['/PID', String(pid), '/T'],
      ['/PID', String(pid), '/T', '/F'],
    ]);
    const [polite, forced] = machine.taskkills;
    expect(polite!.at - stopAt).toBeGreaterThanOrEqual(300 - 20);
    expect(forced!.at - polite!.at).toBeGreaterThanOrEqual(400 - 20);
    expect(await waitForExit(pid)).toBe(true);
    expect(server.exit).toEqual({ code: null, signal: 'SIGKILL' });
  });

  it('a server that exits when asked (stdin EOF) runs no taskkill at all', async () => {
    const machine = windowsMachine();
    // A grace long enough for a loaded machine: the point is that no taskkill runs when it exits by itself.
    const server = serverProcess(machine, 'uvx', ['-e', "process.stdin.on('end', () => process.exit(0)); process.stdin.resume()"], { exitGraceMs: 10_000, killGraceMs: 400 });
    await server.start();
    expect(machine.spawns[0]!.command).toBe(join(bin, 'uvx.exe'));
    await server.stop(() => server.stdin?.end());
    expect(server.exit).toEqual({ code: 0, signal: null });
    expect(machine.taskkills).toEqual([]);
  });

  it('terminate(): no asking and no exit grace — taskkill /T at once, /T /F after the kill grace', async () => {
    const machine = windowsMachine();
    const server = serverProcess(machine, 'npx', [fixture('hang-server.mjs')], { exitGraceMs: 10_000, killGraceMs: 300 });
    await server.start();
    const at = Date.now();
    await server.terminate();
    expect(machine.taskkills.map((t) => t.args.slice(2))).toEqual([['/T'], ['/T', '/F']]);
    expect(machine.taskkills[0]!.at - at).toBeLessThan(2_000);
    expect(Date.now() - at).toBeLessThan(5_000);
  });

  it('a command on no directory of the PATH fails to start with spawn ENOENT', async () => {
    const machine = windowsMachine();
    const server = serverProcess(machine, 'pnpm', ['dlx', 'server']);
    await expect(server.start()).rejects.toThrow('failed to start "pnpm": spawn pnpm ENOENT');
    expect(machine.spawns).toEqual([]);
  });
});
