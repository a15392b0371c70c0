/**
 * A stdio server must not outlive the session that started it. A clean exit or a signal we can
 * handle ends every child (stdin EOF → SIGTERM → SIGKILL); a SIGKILL of our own process cannot be
 * handled, and then only the child's stdin EOF is left — which a server that ignores it survives,
 * reparented to init. On Linux the kernel can signal the child itself when its parent dies
 * (`PR_SET_PDEATHSIG`); util-linux's `setpriv --pdeathsig` sets that and then execs the server,
 * so the server keeps its pid, argv and process group.
 *
 * ```
 * spawn(command, args)  →  spawn(setpriv, ['--pdeathsig', 'TERM', '--', command, ...args])
 * ```
 *
 * Only when it can work: on Linux, with a `setpriv` that knows `--pdeathsig` in /usr/bin or /bin,
 * and for a command that resolves to an executable (on the child's PATH, or relative to its cwd).
 * Otherwise the launch stays as it is, so a missing or non-executable command fails exactly as
 * before (`spawn X ENOENT`, `EACCES`) instead of as setpriv's exit code 127.
 *
 * Nowhere else (decision 282): macOS has no parent-death signal a child can ask for
 * without staying a helper process of ours, and Windows ends the direct child through libuv's
 * job object (spawnCommand.ts). On macOS the servers of a SIGKILLed mcp-live run on
 * until the next mcp-live starts and ends them from its process-group records
 * (process/processGroupRegistry.ts).
 */

import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import which from 'which';

/** What to spawn. */
export interface Launch {
  command: string;
  args: readonly string[];
}

/** The signal the child gets when we die: polite, like the SIGTERM of a normal shutdown. */
const DEATH_SIGNAL = 'TERM';

const SETPRIV_CANDIDATES = ['/usr/bin/setpriv', '/bin/setpriv'];

let setprivPath: string | null | undefined;

/** The setpriv to use, found once per process; `null` when there is none that can do it. */
function findSetpriv(platform: NodeJS.Platform): string | null {
  if (platform !== 'linux') return null;
  if (setprivPath !== undefined) return setprivPath;
  setprivPath = null;
  for (const candidate of SETPRIV_CANDIDATES) {
    if (!existsSync(candidate)) continue;
    // util-linux < 2.33 has no --pdeathsig; `--help` lists it where it exists.
    const help = spawnSync(candidate, ['--help'], { encoding: 'utf8', timeout: 2_000 });
    if (help.status === 0 && help.stdout.includes('--pdeathsig')) {
      setprivPath = candidate;
      break;
    }
  }
  return setprivPath;
}

/**
 * `launch` wrapped so the kernel sends the child SIGTERM when this process dies, or `launch`
 * unchanged where that cannot be done (see the module comment).
 */
export function withParentDeathSignal(
  launch: Launch,
  env: Readonly<Record<string, string | undefined>>,
  cwd: string | undefined,
  platform: NodeJS.Platform = process.platform,
): Launch {
  const setpriv = findSetpriv(platform);
  if (setpriv === null) return launch;
  // As execvp would find it: a name with a slash is a path from the child's cwd, else a PATH search.
  const target = launch.command.includes('/') ? resolve(cwd ?? process.cwd(), launch.command) : launch.command;
  const found = which.sync(target, { path: env.PATH ?? process.env.PATH ?? '', nothrow: true });
  if (found === null) return launch;
  return { command: setpriv, args: ['--pdeathsig', DEATH_SIGNAL, '--', launch.command, ...launch.args] };
}
