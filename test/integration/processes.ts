import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { deadline } from '../deadlines.js';

/**
 * Process checks for integration tests: which processes this test process left behind, and
 * whether a pid is gone. Linux reads /proc; Windows asks CIM through PowerShell (backslashes in
 * command lines read as `/`, so the patterns below match); elsewhere `ps` answers.
 */

export interface ProcessInfo {
  pid: number;
  ppid: number;
  command: string;
}

/** Windows has no /proc and no ps: every process with its parent and command line, from CIM. */
function windowsProcesses(): ProcessInfo[] {
  const script = 'Get-CimInstance Win32_Process | Select-Object ProcessId,ParentProcessId,CommandLine | ConvertTo-Json -Compress';
  const json = execFileSync('powershell.exe', ['-NoProfile', '-NonInteractive', '-Command', script], { encoding: 'utf8', windowsHide: true });
  const parsed = JSON.parse(json) as unknown;
  const rows = (Array.isArray(parsed) ? parsed : [parsed]) as { ProcessId: number; ParentProcessId: number; CommandLine: string | null }[];
  return rows.map((row) => ({ pid: row.ProcessId, ppid: row.ParentProcessId, command: (row.CommandLine ?? '').replaceAll('\\', '/') }));
}

/** Every live process in /proc (zombies excluded: they have exited and only wait to be reaped); none without /proc. */
export function procProcesses(): ProcessInfo[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc').filter((entry) => /^\d+$/.test(entry));
  } catch {
    return [];
  }
  const found: ProcessInfo[] = [];
  for (const entry of entries) {
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // "pid (comm) state ppid …" — comm may contain spaces and parentheses.
      const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (state === 'Z') continue;
      const command = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ').trim();
      found.push({ pid: Number(entry), ppid: Number(ppid), command });
    } catch {
      // The process ended while we looked.
    }
  }
  return found;
}

/** Every live process (zombies excluded). */
function allProcesses(): ProcessInfo[] {
  if (existsSync('/proc/self/stat')) return procProcesses();
  if (process.platform === 'win32') return windowsProcesses();
  return execFileSync('ps', ['-A', '-o', 'pid=,ppid=,stat=,args='], { encoding: 'utf8' })
    .split('\n')
    .map((line) => /^\s*(\d+)\s+(\d+)\s+(\S+)\s+(.*)$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null && !m[3]!.startsWith('Z'))
    .map((m) => ({ pid: Number(m[1]), ppid: Number(m[2]), command: m[4]! }));
}

/** Children of `parent`, and their children, recursively (default: this test process). */
export function descendants(parent: number = process.pid): ProcessInfo[] {
  const all = allProcesses();
  const result: ProcessInfo[] = [];
  const queue = [parent];
  while (queue.length > 0) {
    const pid = queue.shift()!;
    for (const p of all) {
      if (p.ppid === pid) {
        result.push(p);
        queue.push(p.pid);
      }
    }
  }
  return result;
}

/** The MCP servers the integration tests start: fixtures and server-everything. */
export const MCP_TEST_SERVERS = /test\/fixtures\/|server-everything/;

/** Descendants of this process whose command line matches `pattern`. */
export function leftoverServers(pattern: RegExp = MCP_TEST_SERVERS): ProcessInfo[] {
  return descendants().filter((p) => pattern.test(p.command));
}

/**
 * Waits up to `ms` for every matching descendant to be gone and returns those still there
 * (an assertion can then say which). Exits are asynchronous, so a check needs a little patience.
 */
export async function waitForNoLeftovers(pattern: RegExp = MCP_TEST_SERVERS, ms = 3_000): Promise<ProcessInfo[]> {
  const giveUpAt = Date.now() + deadline(ms);
  for (;;) {
    const left = leftoverServers(pattern);
    if (left.length === 0 || Date.now() >= giveUpAt) return left;
    await sleep(50);
  }
}

/**
 * Whether `pid` runs: `process.kill(pid, 0)` throws ESRCH for a pid that is gone. A zombie (an
 * orphan that died and waits for init to reap it) counts as gone.
 */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw error;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return !existsSync('/proc/self/stat');
  }
}

/** Waits up to `ms` for `pid` to be gone; returns whether it is. */
export async function waitForExit(pid: number, ms = 3_000): Promise<boolean> {
  const giveUpAt = Date.now() + deadline(ms);
  while (isAlive(pid)) {
    if (Date.now() >= giveUpAt) return false;
    await sleep(25);
  }
  return true;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
