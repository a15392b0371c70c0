import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { CommonOptions } from './args.js';
import { UsageError } from './usageError.js';

/**
 * Paths on the command line that do not exist are usage errors (exit 2), named as given and as
 * resolved: a mistyped `--mcp-config`, `--lsp-config` or `--user-settings` would otherwise load
 * as an empty source, and a mistyped `--cwd` as an empty workspace, with nothing to say why no
 * server shows.
 * Relative paths resolve against the shell's directory, as the session resolves them (decision
 * 63). `--approvals-file` may name a file still to be created, and so may the flags in `creates`
 * (`mcp add` creates the user settings file it adds to). Other kinds of file (a directory given
 * as `--mcp-config`) are left to the settings reader, which names what it found.
 */
export function checkOptionPaths(options: CommonOptions, shellCwd: string, creates: readonly string[] = []): void {
  const cwd = resolve(shellCwd, options.cwd);
  const cwdKind = pathKind(cwd);
  if (cwdKind === 'missing') throw new UsageError(`--cwd ${described(options.cwd, cwd)}: no such directory`);
  if (cwdKind === 'other') throw new UsageError(`--cwd ${described(options.cwd, cwd)}: not a directory`);
  const files: [flag: string, path: string | undefined][] = [
    ['--user-settings', options.userSettings],
    ['--system-settings', options.systemSettings],
    ...options.mcpConfig.map((path): [string, string] => ['--mcp-config', path]),
    ...options.lspConfig.map((path): [string, string] => ['--lsp-config', path]),
  ];
  for (const [flag, path] of files) {
    if (path === undefined || creates.includes(flag)) continue;
    const absolute = resolve(shellCwd, path);
    if (pathKind(absolute) === 'missing') {
      throw new UsageError(`${flag} ${described(path, absolute)}: no such file`);
    }
  }
}

/** What is at `path`; `unknown` when it cannot be looked at (EACCES): the reader will say why. */
function pathKind(path: string): 'missing' | 'directory' | 'other' | 'unknown' {
  try {
    return statSync(path).isDirectory() ? 'directory' : 'other';
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ENOTDIR' ? 'missing' : 'unknown';
  }
}

/** `team.json (/home/me/team.json)`: the path as typed, and where it was looked for. */
function described(given: string, absolute: string): string {
  return given === absolute ? given : `${given} (${absolute})`;
}
