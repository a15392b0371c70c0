import { posix, win32 } from 'node:path';
import { foldCase, type PathFlavor } from '../pathKeys.js';
import { GATED_SCOPES, type AssembledServer, type LaunchHold, type ResolvedServerConfig } from '../types.js';

/** The `detail` of a held server's reason names at most this many files, then `…`. */
const MAX_NAMED_FILES = 3;

/** The words of reason `untrusted_launch` when the fix is a shell command. */
export const TRUST_FIX = 'run `mcp-live trust` to allow it';

/**
 * Whether a server that admission let through is held until the user trusts the folder
 * (decision 301), and why, as the `detail` of reason `untrusted_launch`; `undefined`: it may
 * start. Only a server that starts a process in the workspace is held — a stdio MCP server or a
 * language server with a command, of a scope that is never gated (the user's own: user, system,
 * `--mcp-config`, session, extension; a gated one waits for its approval in this folder
 * already) — and only when one of these holds, the first that does being the one named:
 *
 * - a launcher file was found (npx prefers the folder's `node_modules`, uvx its `pyproject.toml`…);
 * - its working directory is a subfolder of the workspace (whose files are not looked at);
 * - its command is a relative path with a separator (`./x`, `bin/x`, `../x`);
 * - its command is an interpreter running code the folder chose: a relative script, inline code,
 *   `python -m` (the working directory is on `sys.path`), a preload (`node -r`), or nothing (stdin);
 * - any other command given a relative path that names a program of the folder: one starting
 *   `./` or `../`, or one ending in a script or program's extension (`npx tsx server.ts`,
 *   `uv run main.py`, `java -jar build/x.jar`) — what a wrapper runs is not known here.
 *
 * A server whose working directory is outside the workspace is never held: the user chose it.
 * `resolved` is the entry after validation and expansion; an invalid entry starts nothing.
 */
export function launchHeld(server: AssembledServer, resolved: ResolvedServerConfig | undefined, hold: LaunchHold | undefined): string | undefined {
  if (hold === undefined || resolved?.command === undefined || GATED_SCOPES.has(server.scope)) return undefined;
  const path: PathFlavor = hold.windows ? win32 : posix;
  const workspace = path.resolve(hold.workspace);
  const cwd = path.resolve(workspace, resolved.cwd ?? '.');
  const within = (at: string) => isWithin(at, workspace, path, hold.ignoresCase);
  if (!within(cwd)) return undefined;
  const why = whyHeld(resolved.command, resolved.args, cwd, workspace, hold, path);
  return why === undefined ? undefined : `${HELD} (${why}) – ${TRUST_FIX}`;
}

const HELD = 'held: this folder can change what it runs';

/** What a held server's `detail` names (`node_modules, .npmrc`): the part in brackets; undefined for other words. */
export function launchHeldWhy(detail: string): string | undefined {
  if (!detail.startsWith(`${HELD} (`) || !detail.endsWith(`) – ${TRUST_FIX}`)) return undefined;
  return detail.slice(HELD.length + 2, -(TRUST_FIX.length + 4));
}

function whyHeld(
  command: string,
  args: readonly string[],
  cwd: string,
  workspace: string,
  hold: LaunchHold,
  path: PathFlavor,
): string | undefined {
  if (hold.files.length > 0) return namedFiles(hold.files, workspace, path);
  if (!sameFolder(cwd, workspace, hold.ignoresCase)) return 'its working directory is inside it';
  // Wherever it lands: `../../bin/x` from a package of a monorepo is still the repository's.
  if (hasSeparator(command, hold.windows) && !path.isAbsolute(command)) return 'its command is a relative path';
  const kind = interpreterOf(command, hold, path);
  if (kind !== undefined) return interpreterCode(kind, args, hold, path);
  return args.some((arg) => namesProgramOfFolder(arg, hold.windows, path)) ? 'an argument is a relative path to a program' : undefined;
}

/** Endings of scripts and programs a wrapper (`tsx`, `uv run`, `java -jar`) may be given to run. */
const PROGRAM_ENDING = /\.(?:[cm]?[jt]sx?|py[wz]?|rb|pl|php|sh|bash|zsh|ps1|bat|cmd|jar|lua|go|exe|wasm)$/i;

/**
 * An argument, or an option's value (`--script=./x`), that is a relative path to a program: it
 * starts `./` or `../` (`.\`, `..\` on Windows), or it ends in a program's extension and is no
 * URL, specifier (`npm:x`) or absolute path. A folder given as data (`.`, `docs`) is not one.
 */
function namesProgramOfFolder(arg: string, windows: boolean, path: PathFlavor): boolean {
  const value = arg.startsWith('-') ? (arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : '') : arg;
  if (value === '' || !isRelativeScript(value, windows, path)) return false;
  const dotted = windows ? /^\.\.?[\\/]/ : /^\.\.?\//;
  return dotted.test(value) || PROGRAM_ENDING.test(value);
}

/** `node_modules, .npmrc, ../package.json, …`: as seen from the workspace. */
function namedFiles(files: readonly string[], workspace: string, path: PathFlavor): string {
  const names = [...new Set(files.map((file) => path.relative(workspace, file) || path.basename(file)))];
  const shown = names.slice(0, MAX_NAMED_FILES).join(', ');
  return names.length > MAX_NAMED_FILES ? `${shown}, …` : shown;
}

/** Interpreters whose first argument is code to run (decision 301); `pythonX.Y`, `.exe` and the like by {@link interpreterOf}. */
const INTERPRETERS: ReadonlySet<string> = new Set(['node', 'nodejs', 'python', 'pypy', 'deno', 'bun', 'ruby', 'perl', 'php', 'sh', 'bash', 'zsh', 'dash', 'ksh']);

/** Options that run code given inline, a module found from the working directory, or a preload. */
const CODE_OPTIONS: Readonly<Record<string, ReadonlySet<string>>> = {
  node: new Set(['-e', '--eval', '-p', '--print', '-r', '--require', '--import', '--loader', '--experimental-loader']),
  python: new Set(['-m', '-c']),
  pypy: new Set(['-m', '-c']),
  deno: new Set(['eval']),
  bun: new Set(['-e', '--eval', '-p', '--print', '-r', '--preload']),
  ruby: new Set(['-e', '-r', '-I']),
  perl: new Set(['-e', '-E', '-M', '-m', '-I']),
  php: new Set(['-r']),
  sh: new Set(['-c']),
};

/** A runtime's subcommands that come before the script (`deno run x.ts`, `bun run x`). */
const SUBCOMMANDS: Readonly<Record<string, ReadonlySet<string>>> = {
  deno: new Set(['run', 'serve', 'task', 'test']),
  bun: new Set(['run', 'x', 'exec', 'test']),
};

/** The interpreter a command names (`python3.12` → `python`, `bash.exe` → `sh`), or undefined. */
function interpreterOf(command: string, hold: LaunchHold, path: PathFlavor): string | undefined {
  let name = path.basename(command);
  if (hold.ignoresCase) name = foldCase(name);
  if (hold.windows) name = name.replace(/\.(exe|cmd|bat)$/i, '');
  if (/^python(\d+(\.\d+)?)?$/.test(name)) return 'python';
  if (/^pypy(\d+(\.\d+)?)?$/.test(name)) return 'pypy';
  if (!INTERPRETERS.has(name)) return undefined;
  return ['bash', 'zsh', 'dash', 'ksh'].includes(name) ? 'sh' : name === 'nodejs' ? 'node' : name;
}

/**
 * What of the arguments of interpreter `kind` makes it run code the folder chose (`python -m`, `node runs
 * a relative path`), or undefined (an absolute script, a URL such as `npm:x` or `jsr:@x/y`). In
 * the words of the fixed sets only, never a value of the entry: the reason is shown in `status`
 * and the NDJSON events, which show names, not config values.
 */
function interpreterCode(kind: string, args: readonly string[], hold: LaunchHold, path: PathFlavor): string | undefined {
  const options = CODE_OPTIONS[kind] ?? new Set<string>();
  const subcommands = SUBCOMMANDS[kind];
  let subcommandSeen = false;
  for (const arg of args) {
    if (arg === '--') continue;
    const option = arg.startsWith('-') ? arg.split('=')[0]! : arg;
    if (options.has(option)) return `${kind} ${option}`;
    if (kind === 'python' && /^-[^-]*[mc]/.test(arg)) return `${kind} ${arg.includes('m') ? '-m' : '-c'}`;
    if (arg.startsWith('-')) {
      // `--import=./x.js`, `-r./x`: a value that is a path into the folder.
      const value = arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : '';
      if (value !== '' && isRelativeScript(value, hold.windows, path)) return `${kind} ${option} of a relative path`;
      continue;
    }
    if (subcommands !== undefined && !subcommandSeen && subcommands.has(arg)) {
      subcommandSeen = true;
      continue;
    }
    return isRelativeScript(arg, hold.windows, path) ? `${kind} runs a relative path` : undefined;
  }
  // No script: the interpreter reads its program from stdin, with the folder on its path.
  return `${kind} without a script`;
}

/** A script argument that is a path relative to the working directory: not absolute, not a URL or a `npm:`/`jsr:` specifier. */
function isRelativeScript(arg: string, windows: boolean, path: PathFlavor): boolean {
  if (path.isAbsolute(arg)) return false;
  if (/^[a-z][a-z0-9+.-]+:/i.test(arg)) return false;
  return !(windows && /^[a-z]:/i.test(arg) && !hasSeparator(arg, windows));
}

function hasSeparator(command: string, windows: boolean): boolean {
  return command.includes('/') || (windows && command.includes('\\'));
}

function sameFolder(a: string, b: string, ignoresCase: boolean): boolean {
  return ignoresCase ? foldCase(a) === foldCase(b) : a === b;
}

function isWithin(at: string, folder: string, path: PathFlavor, ignoresCase: boolean): boolean {
  const relative = path.relative(ignoresCase ? foldCase(folder) : folder, ignoresCase ? foldCase(at) : at);
  return relative === '' || (relative !== '..' && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative));
}
