import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { bootIdentity, parseKernBoottime, SYSCTL_ARGS, SYSCTL_FILE } from '../../../src/platform/bootIdentity.js';
import { parseLstart, parsePsTable, PS_ARGS, PS_ENV, PS_FILE } from '../../../src/platform/processSourceDarwin.js';
import type { RunCommand } from '../../../src/platform/runCommand.js';
import { leftoverProcesses } from '../../../src/process/processGroupRegistry.js';
import { descendantsOutsideGroup, ProcessTable } from '../../../src/process/processTable.js';

/**
 * Decisions 280 and 281: the process table and the boot identity on macOS, from recorded `ps`
 * and `sysctl` outputs (test/fixtures/darwin), with the platform given: the darwin branch runs
 * here.
 */

const recorded = (name: string): string => readFileSync(fileURLToPath(new URL(`../../fixtures/darwin/${name}`, import.meta.url)), 'utf8');
const PS = recorded('ps-axo.txt');
const SYSCTL = recorded('sysctl-kern.boottime.txt');

/** Seconds since the epoch of an ISO date. */
const at = (iso: string): number => Date.parse(iso) / 1000;

interface Call {
  file: string;
  args: readonly string[];
  env: NodeJS.ProcessEnv;
}

/** A Mac: answers `ps` and `sysctl` with `outputs` (undefined: the tool failed), and records the calls. */
function mac(outputs: { ps?: string | undefined; sysctl?: string | undefined } = { ps: PS, sysctl: SYSCTL }) {
  const calls: Call[] = [];
  const run: RunCommand = (file, args, env) => {
    calls.push({ file, args, env });
    if (file === PS_FILE) return outputs.ps;
    if (file === SYSCTL_FILE) return outputs.sysctl;
    return undefined;
  };
  return { calls, processes: new ProcessTable({ platform: 'darwin', run, ownPid: 4242 }) };
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('parseLstart', () => {
  it("reads ps's C-locale %c in UTC as seconds since the epoch, a one-digit day padded with a space", () => {
    expect(parseLstart('Thu Dec  3 10:24:43 2026')).toBe(at('2026-12-03T10:24:43Z'));
    expect(parseLstart('Mon Nov 30 23:59:59 2026')).toBe(at('2026-11-30T23:59:59Z'));
    expect(parseLstart('Sat Feb 29 00:00:00 2020')).toBe(at('2020-02-29T00:00:00Z'));
  });

  it('refuses what is not that shape: another locale, a day that does not exist, a cut-off line', () => {
    for (const text of ['Do  3 Dez 10:24:43 2026', 'Thu Feb 31 10:24:43 2026', 'Thu Dec  3 25:24:43 2026', 'Thu Dec  3 10:24', '', '12/03/2026 10:24:43']) {
      expect(parseLstart(text), text).toBeUndefined();
    }
  });
});

describe('parsePsTable (the recorded ps -axo of a Mac)', () => {
  const table = parsePsTable(PS);

  it('has every process with pid, parent, group, uid, the first letter of stat as state, and the start time', () => {
    expect(table).toHaveLength(17);
    expect(table.find((p) => p.pid === 1)).toEqual({ pid: 1, ppid: 0, pgid: 1, uid: 0, state: 'S', startTime: at('2026-11-30T08:00:00Z') });
    expect(table.find((p) => p.pid === 4242)).toEqual({ pid: 4242, ppid: 4100, pgid: 4242, uid: 501, state: 'S', startTime: at('2026-12-03T10:24:43Z') });
    expect(table.find((p) => p.pid === 4304)?.state).toBe('Z');
    expect(table.find((p) => p.pid === 10240)).toMatchObject({ ppid: 10234, uid: 0, state: 'R' });
    // ps on macOS gives no session id: nothing is made up for it.
    expect(table.every((p) => p.sid === undefined)).toBe(true);
  });

  it('skips a header line, blank lines, a cut-off line and a line with a bad field, and reads wider columns', () => {
    const text = [
      '  PID  PPID  PGID   UID STAT STARTED',
      '',
      '  4300  4242  4300   501 Ss   Thu Dec  3 10:24:44 2026',
      '  4301  4300  4300   501 S    Thu Dec  3 10:2',
      '  43x2  4300  4302   501 Ss   Thu Dec  3 10:24:45 2026',
      '  4303  4302  4302   501 s    Thu Dec  3 10:24:45 2026',
      '123456     1 123456 1234567890 S<s  Sun Jan  4 00:00:00 2026',
    ].join('\n');
    expect(parsePsTable(text)).toEqual([
      { pid: 4300, ppid: 4242, pgid: 4300, uid: 501, state: 'S', startTime: at('2026-12-03T10:24:44Z') },
      { pid: 123456, ppid: 1, pgid: 123456, uid: 1234567890, state: 'S', startTime: at('2026-01-04T00:00:00Z') },
    ]);
  });

  it("finds a server group's detached descendants in it, as the /proc walk does on Linux, and skips the zombie", () => {
    // 4302 (detached child of the leader), 4303 (its child, in 4302's group), 4310 (a member's
    // detached child); not 4304 (a zombie), not 4388 (a member, in the group).
    expect(descendantsOutsideGroup(4300, table).map((p) => p.pid).sort()).toEqual([4302, 4303, 4310]);
    expect(descendantsOutsideGroup(4300, table).find((p) => p.pid === 4302)).toEqual({ pid: 4302, startTime: at('2026-12-03T10:24:45Z') });
  });
});

describe('ProcessTable on darwin', () => {
  it('runs /bin/ps by its full path with the arguments, in the C locale and UTC, and nothing of our environment', () => {
    const { calls, processes } = mac();
    expect(processes.available()).toBe(true);
    expect(calls).toEqual([{ file: '/bin/ps', args: ['-ww', '-axo', 'pid=,ppid=,pgid=,uid=,stat=,lstart='], env: { LC_ALL: 'C', TZ: 'UTC0' } }]);
    expect(PS_ARGS).toEqual(calls[0]!.args);
    expect(PS_ENV).toEqual(calls[0]!.env);
  });

  it('knows its own identity, the uid of a process, and tells a process from one with another start time', () => {
    const { processes } = mac();
    expect(processes.ownIdentity()).toEqual({ pid: 4242, startTime: at('2026-12-03T10:24:43Z') });
    expect(processes.uid(10234)).toBe(502);
    expect(processes.uid(99)).toBeUndefined();
    expect(processes.isRunning({ pid: 4300, startTime: at('2026-12-03T10:24:44Z') })).toBe(true);
    // The same pid a second later is another process (the resolution of lstart: one second).
    expect(processes.isRunning({ pid: 4300, startTime: at('2026-12-03T10:24:45Z') })).toBe(false);
    expect(processes.isRunning({ pid: 4304, startTime: at('2026-12-03T10:24:45Z') })).toBe(false); // a zombie
    expect(processes.isRunning({ pid: 77, startTime: 1 })).toBe(false);
  });

  it('runs ps once per turn of the event loop, whatever is asked in it, and again in the next turn', async () => {
    const { calls, processes } = mac();
    processes.ownIdentity();
    processes.table();
    processes.stat(4300);
    processes.isRunning({ pid: 4301, startTime: 0 });
    processes.uid(4302);
    expect(calls.filter((c) => c.file === PS_FILE)).toHaveLength(1);
    await nextTurn();
    processes.stat(4300);
    expect(calls.filter((c) => c.file === PS_FILE)).toHaveLength(2);
  });

  it('names the boot by kern.boottime seconds, from sysctl run by its full path', () => {
    const { calls, processes } = mac();
    expect(processes.bootId()).toBe('boottime:1796025600');
    expect(calls.find((c) => c.file === SYSCTL_FILE)).toEqual({ file: '/usr/sbin/sysctl', args: ['-n', 'kern.boottime'], env: { LC_ALL: 'C' } });
    expect(SYSCTL_ARGS).toEqual(['-n', 'kern.boottime']);
  });

  it('answers nothing when ps fails, or lists a table without us in it: nothing gets recorded then', () => {
    for (const ps of [undefined, '', PS.replace(/^ 4242 .*\n/m, '')]) {
      const { processes } = mac({ ps, sysctl: SYSCTL });
      expect(processes.available()).toBe(false);
      expect(processes.ownIdentity()).toBeUndefined();
      expect(processes.table()).toBeUndefined();
      expect(processes.stat(4300)).toBeUndefined();
      expect(processes.bootId()).toBeUndefined();
    }
  });

  it('has no boot id when sysctl fails or says something else', () => {
    expect(mac({ ps: PS, sysctl: undefined }).processes.bootId()).toBeUndefined();
    expect(parseKernBoottime('kern.boottime: unknown oid')).toBeUndefined();
    expect(parseKernBoottime('{ sec = 0, usec = 0 } Thu Jan  1 00:00:00 1970')).toBeUndefined();
    expect(parseKernBoottime(SYSCTL)).toBe('boottime:1796025600');
  });

  it("the reaper's choice in the recorded table: the group's members and their descendants, checked without a session id", () => {
    const uid = process.getuid?.() ?? 501;
    // The test's uid stands for the Mac user's (501), so the uid check passes for their processes.
    const { processes } = mac({ ps: PS.replace(/ {3}501 /g, ` ${String(uid).padStart(5)} `), sysctl: SYSCTL });
    const table = processes.table()!;
    const group = { pgid: 4300, leaderStartTime: at('2026-12-03T10:24:44Z'), name: 'srv', command: 'npx' };
    // The live leader and members (4388 too, reparented to launchd), and what they started outside
    // the group (4302 and its child 4303, 4310); not the zombie 4304.
    expect(leftoverProcesses(group, table, processes).map((p) => p.pid).sort()).toEqual([4300, 4301, 4302, 4303, 4310, 4388]);
    // A leader with another start time: the pgid came round again, nothing is touched.
    expect(leftoverProcesses({ ...group, leaderStartTime: at('2026-12-03T10:24:43Z') }, table, processes)).toEqual([]);
  });
});

describe('ProcessTable elsewhere', () => {
  it('win32 and other platforms read nothing and run nothing', () => {
    for (const platform of ['win32', 'freebsd', 'aix'] as const) {
      const calls: string[] = [];
      const processes = new ProcessTable({ platform, run: (file) => (calls.push(file), PS) });
      expect(processes.available()).toBe(false);
      expect(processes.ownIdentity()).toBeUndefined();
      expect(processes.table()).toBeUndefined();
      expect(processes.bootId()).toBeUndefined();
      expect(bootIdentity({ platform, run: () => SYSCTL })).toBeUndefined();
      expect(calls).toEqual([]);
    }
  });
});
