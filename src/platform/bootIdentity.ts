import { readFileSync } from 'node:fs';
import { runCommand, type RunCommand } from './runCommand.js';

/**
 * A name for this boot of the machine, per platform (decision 281): records of process
 * start times are compared only within the boot they were made in.
 *
 *   linux    /proc/sys/kernel/random/boot_id (a UUID per boot); where a sandbox hides it, `btime:<s>`
 *            from /proc/stat (the boot time in seconds)
 *   darwin   `boottime:<s>` from `sysctl -n kern.boottime`: `{ sec = 1796289121, usec = 123456 } Thu Dec  3 …`
 *   others   undefined
 *
 * macOS's kern.boottime is the wall clock minus the uptime, so a step of the clock (not NTP's
 * slewing) moves it: the records of an mcp-live that died before such a step read as another
 * boot's and are deleted, not reaped — the safe way to be wrong. Only the seconds are used.
 */

export interface BootIdentityDeps {
  /** Default `process.platform`. */
  platform?: NodeJS.Platform;
  /** Runs `sysctl` (macOS); tests give a recorded output. */
  run?: RunCommand;
}

/** By full path, as `ps` (processSourceDarwin.ts). */
export const SYSCTL_FILE = '/usr/sbin/sysctl';
export const SYSCTL_ARGS: readonly string[] = ['-n', 'kern.boottime'];

/** The caller has checked that /proc is there on Linux (processTable.ts). */
export function bootIdentity(deps: BootIdentityDeps = {}): string | undefined {
  const platform = deps.platform ?? process.platform;
  if (platform === 'linux') return linuxBootId();
  if (platform === 'darwin') {
    const output = (deps.run ?? runCommand)(SYSCTL_FILE, SYSCTL_ARGS, { LC_ALL: 'C' });
    return output === undefined ? undefined : parseKernBoottime(output);
  }
  return undefined;
}

function linuxBootId(): string | undefined {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    // Some sandboxes hide it; the boot time in seconds names the boot as well.
    const btime = /^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'))?.[1];
    return btime ? `btime:${btime}` : undefined;
  }
}

/** `{ sec = 1796289121, usec = 123456 } Thu Dec  3 09:12:01 2026` → `boottime:1796289121`. */
export function parseKernBoottime(text: string): string | undefined {
  const sec = /\{\s*sec\s*=\s*(\d+)\s*,/.exec(text)?.[1];
  return sec !== undefined && Number(sec) > 0 ? `boottime:${sec}` : undefined;
}
