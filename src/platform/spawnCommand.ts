import { spawn as nodeSpawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import crossSpawn from 'cross-spawn';
import { withParentDeathSignal, type Launch } from './parentDeathSignal.js';
import { followShebang, neutralEnvironment, resolveCommand, windowsShell } from './resolveCommand.js';

/**
 * How a configured server command (an MCP stdio server, a language server) is spawned, per
 * platform (decision 270):
 *
 *   linux     spawn(setpriv --pdeathsig TERM -- /abs/command args…)   (parentDeathSignal.ts, when it can work)
 *   darwin…   spawn(/abs/command, args)
 *   win32     cross-spawn's parse: an .exe/.com runs as it is; `npx`, `pnpm`, `uvx`, a `.cmd`
 *             shim of an npm-installed language server run through `cmd.exe /d /s /c "…"` with
 *             every argument quoted and its metacharacters escaped, never as shell text
 *
 * Node runs neither a PATHEXT name nor a `.cmd` without a shell on Windows (`spawn npx ENOENT`;
 * `EINVAL` for a `.cmd` since Node 20.12.2), and `shell: true` would hand the arguments to cmd.exe
 * unquoted. cross-spawn — the library the MCP SDK's own stdio transport uses, so a config that
 * works in Qwen Code or Gemini CLI works here — resolves the command on the child's PATH with
 * PATHEXT, follows a shebang, and escapes for cmd.exe (batch-file arguments by quoting alone,
 * since a `.cmd` shim parses them a second time; `%` neutralised; a line break refused).
 *
 * On every platform a bare command name is first resolved on the absolute entries of the child's
 * PATH (resolveCommand.ts, decision 298) and spawned by that path (`/abs/command` above), so
 * neither execvp nor Windows' current-directory-first search can pick a file of the workspace the
 * child runs in; the child's PATH keeps only its absolute entries. On win32 cross-spawn gets that
 * absolute path (its own lookup then searches nothing) — a `#!` script's interpreter resolved
 * the same way first —, the cmd.exe it runs through is an absolute path too, and the child's
 * environment has `NoDefaultCurrentDirectoryInExePath=1`, so what a `.cmd` shim runs (`node`) is
 * found on PATH only.
 *
 * The cross-spawn import stays inside this module: nothing exported here names its types.
 */

/** What cross-spawn's parse gives: the command and arguments to hand to `spawn`, and the file it resolved. */
export interface ParsedCommand {
  command: string;
  args: string[];
  options: SpawnOptions;
  /** The file the command resolved to on the child's PATH; absent when it was not found. */
  file?: string;
}

export type SpawnFunction = (command: string, args: readonly string[], options: SpawnOptions) => ChildProcess;
export type ParseForWindows = (command: string, args: readonly string[], options: SpawnOptions) => ParsedCommand;

export interface SpawnDeps {
  platform?: NodeJS.Platform;
  /** Node's `spawn` unless a test records the calls. */
  spawn?: SpawnFunction;
  /**
   * cross-spawn's Windows parse. It decides the platform when it is loaded, so on Linux a test
   * gives one loaded as on Windows (see the test's `loadWindowsParse`).
   */
  parseForWindows?: ParseForWindows;
}

/** The environment and working directory the child gets, with the spawn options. */
export type CommandSpawnOptions = SpawnOptions & { env: Record<string, string> };

/**
 * Spawns `launch` as the platform needs (see the module comment). Throws, as `spawn` does for a
 * NUL byte, where the command cannot be started at all: a bare name that is on no absolute
 * directory of the child's PATH (`spawn npx ENOENT`, before anything runs; `spawn x EACCES` when
 * only a file that cannot be executed is there), and on win32 an argument with a line break
 * (cmd.exe cannot take one literally).
 */
export function spawnCommand(launch: Launch, options: CommandSpawnOptions, deps: SpawnDeps = {}): ChildProcess {
  const platform = deps.platform ?? process.platform;
  const spawn = deps.spawn ?? nodeSpawn;
  const env = neutralEnvironment(options.env, platform);
  const resolved: Launch = { command: resolveCommand(launch.command, env, platform), args: launch.args };
  if (platform === 'win32') {
    const cwd = options.cwd?.toString();
    const target = followShebang(resolved, env, cwd);
    const parsed = (deps.parseForWindows ?? windowsParse)(target.command, [...target.args], { ...options, env, shell: false });
    // cmd.exe would say "'x' is not recognized…" with exit code 1: fail as a missing command does elsewhere.
    if (parsed.file === undefined) throw notFound(launch.command);
    // Only cross-spawn's cmd.exe branch asks for verbatim arguments; it names the shell by our
    // process's `%comspec%`, or a bare `cmd.exe`: an absolute one instead.
    const command = parsed.options.windowsVerbatimArguments === true ? windowsShell(env) : parsed.command;
    return spawn(command, parsed.args, parsed.options);
  }
  const wrapped = platform === 'linux' ? withParentDeathSignal(resolved, env, options.cwd?.toString()) : resolved;
  return spawn(wrapped.command, [...wrapped.args], { ...options, env });
}

/** `crossSpawn._parse`: exported by cross-spawn 7 for wrappers that spawn themselves (execa did). */
function windowsParse(command: string, args: readonly string[], options: SpawnOptions): ParsedCommand {
  const parse = (crossSpawn as unknown as { _parse?: ParseForWindows })._parse;
  if (typeof parse !== 'function') throw new Error('cross-spawn has no _parse: a cross-spawn 7 is needed');
  return parse(command, args, options);
}

function notFound(command: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`spawn ${command} ENOENT`), { code: 'ENOENT', syscall: `spawn ${command}`, path: command });
}
