import { accessSync, closeSync, constants, openSync, readSync, statSync } from 'node:fs';
import { join, posix, resolve, win32 } from 'node:path';

/**
 * Where a configured command's bare name (`npx`, `node`, `uvx`) is looked up (decision 298): on
 * the ABSOLUTE directories of the child's PATH only, never in the folder the child runs in.
 *
 *   PATH ".:/usr/bin", workspace has ./npx        npx  →  /usr/bin/npx        (never ./npx)
 *   PATH ";C:\nodejs", workspace has npx.cmd       npx  →  C:\nodejs\npx.cmd   (win32, with PATHEXT)
 *   ./server.sh, bin/x, /abs/x, C:x                 as written: a path, not a name
 *
 * A server runs in the workspace (decision 63), and the usual lookups search it: execvp follows a
 * relative PATH entry (`.`, an empty one, `node_modules/.bin`) from the child's working directory,
 * and Windows (cross-spawn's `which`, libuv, cmd.exe) searches the current directory before PATH.
 * So a cloned repository could choose what a user's own server runs. Resolved here first, the
 * child is spawned by an absolute path; and what the child itself runs by name (`/usr/bin/env
 * node` in the first line of `npx`, `node` in the `npx.cmd` shim) is kept out of the workspace
 * by its environment ({@link neutralEnvironment}).
 *
 * Our own loop, not the `which` package: `which` 5 puts our process's cwd before PATH whenever it
 * was loaded on Windows, decides the platform when it is loaded, and joins an empty entry into a
 * relative path. Files are checked on this machine's file system with this machine's `join`, so a
 * test can resolve as Windows does on Linux.
 */

type Environment = Readonly<Record<string, string | undefined>>;

/** POSIX: libuv's search path when the child's environment has no PATH (glibc's `_PATH_DEFPATH`). */
const DEFAULT_POSIX_PATH = '/usr/bin:/bin';
/** Windows: what cmd.exe uses when PATHEXT is unset. */
const DEFAULT_PATHEXT = '.COM;.EXE;.BAT;.CMD';
/** The variable that keeps cmd.exe (and Windows' own lookups) from searching the current directory. */
export const NO_CURRENT_DIRECTORY = 'NoDefaultCurrentDirectoryInExePath';

/**
 * The absolute file `command` runs from: a bare name found on the absolute entries of the PATH
 * in `env` (with PATHEXT on win32), or `command` itself when it is a path. Throws `spawn X ENOENT`
 * (as `spawn` does) when a name is found nowhere, `spawn X EACCES` when only a file that cannot
 * be executed was found.
 */
export function resolveCommand(command: string, env: Environment, platform: NodeJS.Platform): string {
  if (command === '' || isPath(command, platform)) return command;
  const windows = platform === 'win32';
  const extensions = windows ? windowsExtensions(command, env) : undefined;
  let refused = false;
  for (const dir of absoluteEntries(valueOf(env, 'PATH', windows) ?? (windows ? '' : DEFAULT_POSIX_PATH), platform)) {
    for (const suffix of extensions?.suffixes ?? ['']) {
      const file = join(unquoted(dir, platform), command + suffix);
      const found = windows ? isWindowsExecutable(file, extensions!.pathExt) : isPosixExecutable(file);
      if (found === 'yes') return file;
      if (found === 'refused') refused = true;
    }
  }
  throw spawnError(command, refused ? 'EACCES' : 'ENOENT');
}

/**
 * The environment a child we start gets (decision 298): its PATH without the relative entries
 * (dropped altogether when none is left, since an empty PATH is the current directory to
 * execvp), and on win32 {@link NO_CURRENT_DIRECTORY}=1, so that cmd.exe — and a `.cmd` shim that
 * runs `node` through it — finds programs on PATH only. Windows names compare case-blind: every
 * spelling of both is handled, and ours is the only `NoDefaultCurrentDirectoryInExePath` left.
 */
export function neutralEnvironment(env: Readonly<Record<string, string>>, platform: NodeJS.Platform): Record<string, string> {
  const windows = platform === 'win32';
  const same = (a: string, b: string): boolean => (windows ? a.toUpperCase() === b.toUpperCase() : a === b);
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    if (windows && same(key, NO_CURRENT_DIRECTORY)) continue;
    if (!same(key, 'PATH')) out[key] = value;
    else {
      const kept = absoluteEntries(value, platform);
      if (kept.length > 0) out[key] = kept.join(windows ? ';' : ':');
    }
  }
  if (windows) out[NO_CURRENT_DIRECTORY] = '1';
  return out;
}

/**
 * The cmd.exe a Windows spawn runs through: `%ComSpec%` when it is an absolute path, else
 * `%SystemRoot%\System32\cmd.exe` (C:\Windows when that is unset or relative) — never a bare
 * `cmd.exe`, which libuv looks for in the current directory first.
 */
export function windowsShell(env: Environment): string {
  const comspec = valueOf(env, 'ComSpec', true);
  if (comspec !== undefined && isAbsoluteWindowsPath(comspec)) return comspec;
  const root = valueOf(env, 'SystemRoot', true) ?? valueOf(env, 'windir', true);
  return win32.join(root !== undefined && isAbsoluteWindowsPath(root) ? root : 'C:\\Windows', 'System32', 'cmd.exe');
}

/**
 * Windows: a script with a `#!` line runs by its interpreter, found as {@link resolveCommand}
 * finds a command — `#!/usr/bin/env node` → `C:\nodejs\node.exe script args…`. cross-spawn would
 * look the interpreter up itself, in the child's cwd first. A file without one is `launch`.
 */
export function followShebang(
  launch: { command: string; args: readonly string[] },
  env: Environment,
  cwd: string | undefined,
): { command: string; args: readonly string[] } {
  const line = firstLine(resolve(cwd ?? process.cwd(), launch.command));
  if (line === undefined) return launch;
  // As shebang-command reads it: `env X` runs X; `/bin/bash -e` runs bash with -e.
  const [path = '', argument] = line.trimEnd().replace(/^#! ?/, '').split(' ');
  const binary = path.split('/').pop() ?? '';
  const [name, extra] = binary === 'env' ? [argument ?? '', []] : [binary, argument === undefined ? [] : [argument]];
  if (name === '') return launch;
  return { command: resolveCommand(name, env, 'win32'), args: [...extra, launch.command, ...launch.args] };
}

/** A name with a directory part is a path: resolved from the child's cwd, as written. */
function isPath(command: string, platform: NodeJS.Platform): boolean {
  return platform === 'win32' ? /[\\/:]/.test(command) : command.includes('/');
}

/**
 * The entries of a PATH value that name a directory by themselves: `/usr/bin`, `C:\nodejs`,
 * `\\server\share\bin` (and `\bin`, of the current drive). Not `.`, `bin`, `node_modules/.bin`,
 * an empty entry, nor `C:bin` (the current directory of drive C).
 */
function absoluteEntries(value: string, platform: NodeJS.Platform): string[] {
  const windows = platform === 'win32';
  return value.split(windows ? ';' : ':').filter((entry) => (windows ? win32 : posix).isAbsolute(unquoted(entry, platform)));
}

/** Windows allows a PATH entry in quotes (`"C:\Program Files\x"`). */
function unquoted(entry: string, platform: NodeJS.Platform): string {
  return platform === 'win32' ? entry.replace(/^"(.*)"$/, '$1') : entry;
}

/** A drive-absolute (`C:\x`) or UNC (`\\server\share`) path. */
function isAbsoluteWindowsPath(path: string): boolean {
  return /^[A-Za-z]:[\\/]/.test(path) || /^[\\/]{2}[^\\/]/.test(path);
}

/** `env[name]`; on win32 the name compares case-blind and the last spelling wins (as path-key reads it). */
function valueOf(env: Environment, name: string, caseBlind: boolean): string | undefined {
  if (!caseBlind) return env[name];
  const key = Object.keys(env)
    .reverse()
    .find((k) => k.toUpperCase() === name.toUpperCase());
  return key === undefined ? undefined : env[key];
}

/**
 * The suffixes tried after a name on win32: PATHEXT's extensions (as written and in lower case,
 * since this file system may not be case-blind), after the name as it is when it has an extension.
 */
function windowsExtensions(command: string, env: Environment): { suffixes: string[]; pathExt: string[] } {
  const pathExt = (valueOf(env, 'PATHEXT', true) || DEFAULT_PATHEXT).split(';');
  const spelled = pathExt.filter((ext) => ext !== '').flatMap((ext) => [ext, ext.toLowerCase()]);
  return { suffixes: [...new Set(command.includes('.') ? ['', ...spelled] : spelled)], pathExt: pathExt.map((ext) => ext.toLowerCase()) };
}

type Found = 'yes' | 'no' | 'refused';

/** A regular file we may execute; `refused` for one we may not (execvp's EACCES). */
function isPosixExecutable(file: string): Found {
  if (!isFile(file)) return 'no';
  try {
    accessSync(file, constants.X_OK);
    return 'yes';
  } catch {
    return 'refused';
  }
}

/** A file whose extension is one of PATHEXT (Windows has no execute bit). */
function isWindowsExecutable(file: string, pathExt: readonly string[]): Found {
  if (!isFile(file)) return 'no';
  const lower = file.toLowerCase();
  return pathExt.some((ext) => ext === '' || lower.endsWith(ext)) ? 'yes' : 'no';
}

function isFile(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/** The `#!` line of a file (its first 150 bytes, as cross-spawn reads them); undefined without one. */
function firstLine(file: string): string | undefined {
  const buffer = Buffer.alloc(150);
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const read = readSync(fd, buffer, 0, buffer.length, 0);
    return /^#!(.*)/.exec(buffer.toString('utf8', 0, read))?.[0];
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function spawnError(command: string, code: 'ENOENT' | 'EACCES'): NodeJS.ErrnoException {
  return Object.assign(new Error(`spawn ${command} ${code}`), { code, syscall: `spawn ${command}`, path: command });
}
