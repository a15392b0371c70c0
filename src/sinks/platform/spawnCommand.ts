import { spawn as nodeSpawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import crossSpawn from 'cross-spawn';
import { withParentDeathSignal, type Launch } from './parentDeathSignal.js';

/**
 * How a configured server command (an MCP stdio server, a language server) is spawned, per
 * platform (decision 270):
 *
 *   linux     spawn(setpriv --pdeathsig TERM -- command args…)   (parentDeathSignal.ts, when it can work)
 *   darwin…   spawn(command, args)                               unchanged
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
 * NUL byte, where the command cannot be started at all: on win32 a command that is not on the
 * child's PATH (`spawn npx ENOENT`, before any cmd.exe runs) and an argument with a line break
 * (cmd.exe cannot take one literally).
 */
export function spawnCommand(launch: Launch, options: CommandSpawnOptions, deps: SpawnDeps = {}): ChildProcess {
  const platform = deps.platform ?? process.platform;
  const spawn = deps.spawn ?? nodeSpawn;
  if (platform === 'win32') {
    const parsed = (deps.parseForWindows ?? windowsParse)(launch.command, [...launch.args], { ...options, shell: false });
    // cmd.exe would say "'npx' is not recognized…" with exit code 1: fail as a missing command does elsewhere.
    if (parsed.file === undefined) throw notFound(launch.command);
    return spawn(parsed.command, parsed.args, parsed.options);
  }
  const wrapped = platform === 'linux' ? withParentDeathSignal(launch, options.env, options.cwd?.toString()) : launch;
  return spawn(wrapped.command, [...wrapped.args], options);
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
