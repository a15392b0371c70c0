import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { neutralEnvironment, resolveCommand, windowsShell } from '../../../src/platform/resolveCommand.js';
import { spawnCommand } from '../../../src/platform/spawnCommand.js';
import { linuxOnly } from '../../platforms.js';
import { recordingSpawn } from './recordingSpawn.js';
import { cmdExeRun, loadWindowsParse } from './windowsCommandLine.js';

/**
 * Decision 298: a bare command name is resolved on the absolute entries of the child's PATH, and
 * the child's PATH keeps only those — so a workspace (the folder a server runs in) never
 * chooses what a user's server runs. Each platform with a workspace holding a file named like
 * the command: POSIX on this file system, win32 with cross-spawn loaded as on Windows (whose
 * `which` looks in the child's cwd first: the hole this closes).
 */

const dir = mkdtempSync(join(tmpdir(), 'mcp-live-resolve-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A file, made executable (a POSIX file on PATH) unless `mode` says otherwise. Never run here. */
function put(path: string, text = 'exit 0\n', mode = 0o755): string {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  chmodSync(path, mode);
  return path;
}

/** The workspace: a file named like every command, in it and in its node_modules/.bin. */
const workspace = join(dir, 'workspace');
for (const name of ['npx', 'node', 'uvx', 'npx.cmd', 'node.exe', 'node.cmd', 'uvx.exe', 'cmd.exe', 'tool.js']) {
  put(join(workspace, name));
  put(join(workspace, 'node_modules', '.bin', name));
}

describe('POSIX: PATH with relative entries, a workspace file named like the command', () => {
  const usrBin = join(dir, 'usr', 'bin');
  put(join(usrBin, 'npx'));
  put(join(usrBin, 'uvx'));
  const notExecutable = put(join(dir, 'noexec', 'only-here'), 'x', 0o644);

  it.each([
    ['.', `.:${usrBin}`],
    ['an empty entry', `:${usrBin}`],
    ['empty entries on both sides', `::${usrBin}:`],
    ['node_modules/.bin', `node_modules/.bin:${usrBin}`],
    ['./node_modules/.bin', `./node_modules/.bin:${usrBin}`],
  ])('%s first: the absolute PATH file is spawned, never the workspace one', (_what, PATH) => {
    for (const platform of ['darwin', 'linux'] as const) {
      const { spawn, calls } = recordingSpawn();
      spawnCommand({ command: 'npx', args: ['-y', 'server'] }, { env: { PATH, HOME: '/h' }, cwd: workspace, stdio: 'pipe' }, { platform, spawn });
      const call = calls[0]!;
      // linux: through setpriv when it can work; the file it execs is the absolute one either way.
      const argv = call.command.endsWith('/setpriv') ? call.args.slice(3) : [call.command, ...call.args];
      expect(argv).toEqual([join(usrBin, 'npx'), '-y', 'server']);
      // The child's own lookups (`#!/usr/bin/env node`) see no relative entry either.
      expect(call.options.env).toEqual({ PATH: usrBin, HOME: '/h' });
      expect(call.options.cwd).toBe(workspace);
    }
  });

  it('a name found only in the workspace fails as spawn ENOENT, and nothing is spawned', () => {
    const { spawn, calls } = recordingSpawn();
    expect(() =>
      spawnCommand({ command: 'node', args: [] }, { env: { PATH: `.:node_modules/.bin:${usrBin}` }, cwd: workspace, stdio: 'pipe' }, { platform: 'linux', spawn }),
    ).toThrow(expect.objectContaining({ code: 'ENOENT', message: 'spawn node ENOENT', syscall: 'spawn node', path: 'node' }));
    expect(calls).toEqual([]);
  });

  it('a PATH of relative entries only: the child gets no PATH (an empty one is the cwd to execvp), and the system default is searched', () => {
    expect(() => resolveCommand('npx', { PATH: '.:bin' }, 'linux')).toThrow('spawn npx ENOENT');
    expect(neutralEnvironment({ PATH: '.:bin:', A: 'b' }, 'linux')).toEqual({ A: 'b' });
    const { spawn, calls } = recordingSpawn();
    spawnCommand({ command: 'sh', args: [] }, { env: { PATH: '.:bin' }, cwd: workspace, stdio: 'pipe' }, { platform: 'darwin', spawn });
    expect(calls[0]!.command).toMatch(/^\/(usr\/)?bin\/sh$/);
    expect(calls[0]!.options.env).toEqual({});
  });

  it('only a file that cannot be executed: spawn EACCES, as execvp says', () => {
    expect(() => resolveCommand('only-here', { PATH: dirname(notExecutable) }, 'linux')).toThrow(expect.objectContaining({ code: 'EACCES' }));
  });

  it('a path is left as written (an explicit file: the cwd it is relative to decides)', () => {
    for (const command of ['./npx', 'bin/npx', join(usrBin, 'npx')]) expect(resolveCommand(command, { PATH: '.' }, 'linux')).toBe(command);
  });

  it('no PATH at all: libuv\'s default search path, absolute', () => {
    expect(() => resolveCommand('no-such-command-here', {}, 'linux')).toThrow('spawn no-such-command-here ENOENT');
    expect(resolveCommand('sh', {}, 'linux')).toMatch(/^\/(usr\/)?bin\/sh$/);
  });
});

describe('win32: the workspace is searched first by Windows; not by us', () => {
  const parseForWindows = loadWindowsParse();
  const nodejs = join(dir, 'nodejs');
  put(join(nodejs, 'npx.cmd'), '@ECHO off\r\n');
  put(join(nodejs, 'node.exe'), 'MZ');
  put(join(nodejs, 'uvx.exe'), 'MZ');
  put(join(nodejs, 'tool.js'), '#!/usr/bin/env node\r\nconsole.log(1)\r\n');
  // PATHEXT in the case of the files: Windows compares it case-blind, this Linux file system does not.
  const env = { Path: `.;node_modules\\.bin;;${nodejs}`, PATHEXT: '.exe;.cmd;.js', USERPROFILE: 'C:\\Users\\me' };
  const win32 = (command: string, args: string[], extra: Record<string, string> = {}) => {
    const { spawn, calls } = recordingSpawn();
    spawnCommand({ command, args }, { env: { ...env, ...extra }, cwd: workspace, stdio: 'pipe' }, { platform: 'win32', spawn, parseForWindows });
    return calls[0]!;
  };

  it('npx: the PATH shim runs, through an absolute cmd.exe, with NoDefaultCurrentDirectoryInExePath=1 and no relative PATH entry', () => {
    const call = win32('npx', ['-y', 'server']);
    const run = cmdExeRun(call.args, env, { batch: true });
    expect(run.program).toBe(join(nodejs, 'npx.cmd'));
    expect(run.argv).toEqual(['-y', 'server']);
    expect(call.command).toBe('C:\\Windows\\System32\\cmd.exe');
    expect(call.options.env).toEqual({ Path: nodejs, PATHEXT: '.exe;.cmd;.js', USERPROFILE: 'C:\\Users\\me', NoDefaultCurrentDirectoryInExePath: '1' });
  });

  it('an .exe starts by its absolute path on PATH, not the workspace one', () => {
    expect(win32('uvx', ['mcp-server-git']).command).toBe(join(nodejs, 'uvx.exe'));
  });

  it('a #! script runs by an interpreter found on PATH, not in the workspace', () => {
    const call = win32('tool', ['--stdio']);
    expect(call.command).toBe(join(nodejs, 'node.exe'));
    expect(call.args).toEqual([join(nodejs, 'tool.js'), '--stdio']);
  });

  it('the cmd.exe: %ComSpec% when absolute, else %SystemRoot%\\System32\\cmd.exe, else C:\\Windows\\…', () => {
    expect(win32('npx', [], { ComSpec: 'D:\\Tools\\cmd.exe' }).command).toBe('D:\\Tools\\cmd.exe');
    expect(win32('npx', [], { COMSPEC: 'cmd.exe', SystemRoot: 'E:\\Win' }).command).toBe('E:\\Win\\System32\\cmd.exe');
    expect(win32('npx', [], { ComSpec: 'cmd.exe', SystemRoot: 'Windows' }).command).toBe('C:\\Windows\\System32\\cmd.exe');
    expect(windowsShell({ comspec: '\\\\server\\share\\cmd.exe' })).toBe('\\\\server\\share\\cmd.exe');
  });

  it('a name only the workspace has fails as spawn ENOENT before anything runs', () => {
    expect(() => win32('node', [], { PATHEXT: '.cmd' })).toThrow(expect.objectContaining({ code: 'ENOENT', message: 'spawn node ENOENT' }));
  });

  it('PATHEXT: the first extension found in a directory; a name with an extension is tried as it is', () => {
    expect(resolveCommand('node', { PATH: nodejs, PATHEXT: '.cmd;.exe' }, 'win32')).toBe(join(nodejs, 'node.exe'));
    expect(resolveCommand('npx.cmd', { PATH: nodejs, PATHEXT: '.exe;.cmd' }, 'win32')).toBe(join(nodejs, 'npx.cmd'));
    expect(() => resolveCommand('tool.js', { PATH: nodejs, PATHEXT: '.exe' }, 'win32')).toThrow('spawn tool.js ENOENT');
    expect(resolveCommand('C:npx', { PATH: nodejs }, 'win32')).toBe('C:npx');
  });

  it('the environment: relative PATH entries dropped, quoted ones kept, one NoDefaultCurrentDirectoryInExePath', () => {
    expect(
      neutralEnvironment({ PATH: '"C:\\Program Files\\x";.;C:bin;\\\\srv\\s\\bin;C:\\y', nodefaultcurrentdirectoryinexepath: '0' }, 'win32'),
    ).toEqual({ PATH: '"C:\\Program Files\\x";\\\\srv\\s\\bin;C:\\y', NoDefaultCurrentDirectoryInExePath: '1' });
  });
});

linuxOnly('util-linux setpriv').describe('linux with setpriv', () => {
  it('setpriv gets the absolute path', () => {
    const { spawn, calls } = recordingSpawn();
    spawnCommand({ command: 'node', args: ['x.mjs'] }, { env: { PATH: `.:${dirname(process.execPath)}` }, cwd: workspace, stdio: 'pipe' }, { platform: 'linux', spawn });
    expect(calls[0]!.command).toMatch(/\/setpriv$/);
    expect(calls[0]!.args).toEqual(['--pdeathsig', 'TERM', '--', process.execPath, 'x.mjs']);
  });
});
