import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnCommand } from '../../../src/platform/spawnCommand.js';
import { recordingSpawn } from './recordingSpawn.js';
import { cmdExeRun, loadWindowsParse, splitCRuntime } from './windowsCommandLine.js';

/**
 * Decision 270: how a configured command is spawned on each platform. The win32
 * branch runs here with cross-spawn loaded as on Windows, a fake spawn that records what it
 * would start, and a model of cmd.exe reading that command line.
 */

const dir = mkdtempSync(join(tmpdir(), 'mcp-live-spawn-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A directory on the child's PATH with `npx.cmd` (the npm shim), `uvx.exe`, and a project's `node_modules/.bin` shim. */
const bin = join(dir, 'bin');
const projectBin = join(dir, 'project', 'node_modules', '.bin');
for (const file of [join(bin, 'npx.cmd'), join(bin, 'uvx.exe'), join(projectBin, 'typescript-language-server.cmd')]) {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, '@ECHO off\r\n');
}
// PATHEXT in the case of the files: Windows compares it case-blind, this Linux file system does not.
const env = { PATH: `${bin};${projectBin}`, PATHEXT: '.exe;.cmd', SECRET_PATH: 'C:\\secret' };

/** A POSIX directory on PATH with an executable `npx`. */
const posixBin = join(dir, 'posix-bin');
mkdirSync(posixBin);
writeFileSync(join(posixBin, 'npx'), '#!/bin/sh\n', { mode: 0o755 });
const posixEnv = { PATH: posixBin };

const parseForWindows = loadWindowsParse();

/** The hostile argument: every cmd.exe metacharacter, a variable reference, quotes and backslashes. */
const HOSTILE = 'a&b|c"d %PATH% ^e <f> (g) !h! %SECRET_PATH% \\"i\\ & calc.exe';

describe('spawnCommand on win32 (cross-spawn)', () => {
  it('runs an npm shim (npx.cmd) through cmd.exe, each argument reaching npx literally, none as an operator', () => {
    const { spawn, calls } = recordingSpawn();
    const args = ['-y', '@scope/server', HOSTILE, 'plain', ''];
    spawnCommand({ command: 'npx', args }, { env, stdio: 'pipe' }, { platform: 'win32', spawn, parseForWindows });
    expect(calls).toHaveLength(1);
    const [call] = calls;
    expect(call!.command).toBe('C:\\Windows\\System32\\cmd.exe');
    expect(call!.options.windowsVerbatimArguments).toBe(true);
    expect(call!.options.shell).toBe(false);
    expect(call!.options.env).toEqual({ ...env, NoDefaultCurrentDirectoryInExePath: '1' });
    // The batch file reads its arguments twice (cmd.exe's line, then its own %*): both parse them
    // literally, and %PATH% / %SECRET_PATH% (both set in env) are not expanded.
    const run = cmdExeRun(call!.args, env, { batch: true });
    expect(run.program).toBe(join(bin, 'npx.cmd'));
    expect(run.argv).toEqual(args);
  });

  it('a project shim in node_modules/.bin (typescript-language-server.cmd) gets its arguments literally too', () => {
    const { spawn, calls } = recordingSpawn();
    const args = ['--stdio', HOSTILE];
    spawnCommand({ command: 'typescript-language-server', args }, { env, stdio: 'pipe' }, { platform: 'win32', spawn, parseForWindows });
    const run = cmdExeRun(calls[0]!.args, env, { batch: true });
    expect(run.program).toBe(join(projectBin, 'typescript-language-server.cmd'));
    expect(run.argv).toEqual(args);
  });

  it('the model catches an unescaped argument: a plain join would let cmd.exe run "calc.exe", or expand %SECRET_PATH%', () => {
    const naive = ['/d', '/e:on', '/v:off', '/s', '/c', `"npx ${HOSTILE}"`];
    expect(() => cmdExeRun(naive, env, { batch: true })).toThrow(/operator/);
    const quotedOnly = ['/d', '/e:on', '/v:off', '/s', '/c', '""npx" "%SECRET_PATH%""'];
    expect(cmdExeRun(quotedOnly, env, { batch: true }).argv).toEqual(['C:\\secret']);
  });

  it('starts an .exe directly, by its path, without cmd.exe, the arguments as they are (Node quotes them for the C runtime)', () => {
    const { spawn, calls } = recordingSpawn();
    spawnCommand({ command: 'uvx', args: ['mcp-server-git', HOSTILE] }, { env, stdio: 'pipe' }, { platform: 'win32', spawn, parseForWindows });
    expect(calls[0]!.command).toBe(join(bin, 'uvx.exe'));
    expect(calls[0]!.args).toEqual(['mcp-server-git', HOSTILE]);
    expect(calls[0]!.options.windowsVerbatimArguments).toBeUndefined();
  });

  it('a command on no directory of the child PATH fails as spawn ENOENT, before any cmd.exe runs', () => {
    const { spawn, calls } = recordingSpawn();
    expect(() =>
      spawnCommand({ command: 'no-such-server', args: [] }, { env, stdio: 'pipe' }, { platform: 'win32', spawn, parseForWindows }),
    ).toThrow(expect.objectContaining({ code: 'ENOENT', message: 'spawn no-such-server ENOENT' }));
    expect(calls).toEqual([]);
  });

  it('refuses an argument with a line break, which cmd.exe would read as the end of the command', () => {
    const { spawn, calls } = recordingSpawn();
    expect(() =>
      spawnCommand({ command: 'npx', args: ['server', 'x\r\ncalc.exe'] }, { env, stdio: 'pipe' }, { platform: 'win32', spawn, parseForWindows }),
    ).toThrow(/line breaks/);
    expect(calls).toEqual([]);
  });

  it('resolves on the PATH the child gets, not ours', () => {
    const { spawn } = recordingSpawn();
    expect(() =>
      spawnCommand({ command: 'npx', args: [] }, { env: { PATH: join(dir, 'empty'), PATHEXT: '.cmd' }, stdio: 'pipe' }, { platform: 'win32', spawn, parseForWindows }),
    ).toThrow(/ENOENT/);
  });
});

describe('spawnCommand elsewhere', () => {
  it('darwin: the command by its path on PATH, its arguments as they are', () => {
    const { spawn, calls } = recordingSpawn();
    spawnCommand({ command: 'npx', args: ['-y', HOSTILE] }, { env: posixEnv, stdio: 'pipe', detached: true }, { platform: 'darwin', spawn, parseForWindows });
    expect(calls).toEqual([{ command: join(posixBin, 'npx'), args: ['-y', HOSTILE], options: { env: posixEnv, stdio: 'pipe', detached: true } }]);
  });

  it.skipIf(process.platform !== 'linux')('linux: wrapped in setpriv --pdeathsig where that can work (needs util-linux setpriv)', () => {
    const { spawn, calls } = recordingSpawn();
    const nodeEnv = { PATH: dirname(process.execPath) };
    spawnCommand({ command: 'node', args: ['server.mjs'] }, { env: nodeEnv, stdio: 'pipe' }, { platform: 'linux', spawn });
    expect(calls[0]!.command).toMatch(/\/setpriv$/);
    expect(calls[0]!.args).toEqual(['--pdeathsig', 'TERM', '--', process.execPath, 'server.mjs']);
  });
});

describe('the C runtime model', () => {
  it('reads quotes, backslashes and doubled quotes as MSVC does', () => {
    expect(splitCRuntime('a "b c" d\\e "f\\"g" "h\\\\" "i""j"')).toEqual(['a', 'b c', 'd\\e', 'f"g', 'h\\', 'i"j']);
  });
});
