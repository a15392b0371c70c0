import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { PS_FILE } from '../../../src/platform/processSourceDarwin.js';
import { runCommand, type RunCommand } from '../../../src/platform/runCommand.js';
import {
  openProcessGroupRegistry,
  ProcessGroupRegistry,
  reapLeftoverProcessGroups,
  type ProcessGroupRecord,
} from '../../../src/process/processGroupRegistry.js';
import { descendantsOutsideGroup, ProcessTable, type ProcessIdentity } from '../../../src/process/processTable.js';
import { fixture } from '../mcpServers.js';
import { posixOnly } from '../../platforms.js';
import { isAlive } from '../processes.js';
import { expectLeftoversEnded, expectServerGoneHelpersLeft, helperPidsIn, spawnedPid, SPAWNER, type HelperPids } from './spawningFixture.js';

/**
 * Decision 280: recording and reaping with the macOS process table, on real processes. The darwin
 * branch runs with the platform given: its one `ps -ww -axo pid=,ppid=,pgid=,uid=,stat=,lstart=`
 * runs for real (procps' ps on Linux takes the same keywords and prints lstart alike), and
 * `sysctl kern.boottime` answers as recorded on a Mac. No parent-death signal, as on macOS: a
 * server that ignores its stdin's end outlives a SIGKILLed owner until the next start reaps it.
 */

const BOOTTIME = readFileSync(fixture('darwin/sysctl-kern.boottime.txt'), 'utf8');

/** The real ps, a recorded sysctl; counts the ps runs. */
function macOnThisMachine() {
  let psRuns = 0;
  const run: RunCommand = (file, args, env) => {
    if (file === PS_FILE) {
      psRuns += 1;
      return runCommand(file, args, env);
    }
    return file === '/usr/sbin/sysctl' ? BOOTTIME : undefined;
  };
  return { processes: new ProcessTable({ platform: 'darwin', run }), psRuns: () => psRuns };
}

const mac = macOnThisMachine().processes;
const started: ChildProcess[] = [];
const dirs: string[] = [];

afterEach(() => {
  for (const child of started.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-live-darwin-groups-'));
  dirs.push(dir);
  return dir;
}

/** The identity of a process as the macOS table gives it. */
async function identity(pid: number): Promise<ProcessIdentity> {
  await nextTurn();
  const stat = mac.stat(pid);
  if (!stat) throw new Error(`process ${pid} is not in the ps table`);
  return { pid, startTime: stat.startTime };
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

function spawned(child: ChildProcess): Promise<number> {
  started.push(child);
  return spawnedPid(child);
}

/** Waits for the fixture's pid file; every pid in it is SIGKILLed after the test if still alive (and still a child of this run). */
const helperPids = (file: string): Promise<HelperPids> =>
  helperPidsIn(file, async (pids) => {
    helpers.push(...(await Promise.all(Object.values(pids).map((pid: number) => identity(pid)))));
  });

const helpers: ProcessIdentity[] = [];
afterEach(async () => {
  await nextTurn();
  for (const p of helpers.splice(0)) if (mac.isRunning(p)) process.kill(p.pid, 'SIGKILL');
});

async function deadOwner(): Promise<ProcessIdentity> {
  const child = spawn('sleep', ['30'], { stdio: 'ignore' });
  const owner = await identity(await spawned(child));
  child.kill('SIGKILL');
  await new Promise((resolve) => child.once('exit', resolve));
  return owner;
}

posixOnly('ps, POSIX process groups and signals').describe('the macOS process table on real processes', () => {
  it('finds the detached descendants of a running server group from the one ps table', async () => {
    const pidFile = join(tempDir(), 'pids.json');
    const server = spawn(process.execPath, [SPAWNER, pidFile], { detached: true, stdio: ['pipe', 'ignore', 'ignore'] });
    await spawned(server);
    const pids = await helperPids(pidFile);
    await nextTurn();
    const table = mac.table()!;
    expect(table.find((p) => p.pid === pids.server)).toMatchObject({ pgid: pids.server, ppid: process.pid, uid: process.getuid?.() });
    const outside = descendantsOutsideGroup(pids.server, table).map((p) => p.pid);
    expect(outside.sort()).toEqual([pids.detached, pids.viaIntermediate].sort());
    server.stdin?.end();
  });

  it('after a SIGKILL of the owner, the next start ends what its server left in its group and what those started', async () => {
    const dir = tempDir();
    const pidFile = join(tempDir(), 'pids.json');
    // The owner starts the server as mcp-live does on macOS: its own session, no parent-death signal.
    const OWNER = `
      require('node:child_process').spawn(process.execPath, JSON.parse(process.argv[1]), { detached: true, stdio: ['pipe', 'ignore', 'ignore'] });
      setInterval(() => {}, 1 << 30);
    `;
    const owner = spawn(process.execPath, ['-e', OWNER, JSON.stringify([SPAWNER, pidFile])], { stdio: 'ignore' });
    const ownerId = await identity(await spawned(owner));
    const pids = await helperPids(pidFile);
    const registry = new ProcessGroupRegistry(dir, ownerId, mac);
    const leader = await identity(pids.server);
    await registry.add({ pgid: pids.server, leaderStartTime: leader.startTime, name: 'left-behind', command: process.execPath });
    // Recorded with the ps start time (seconds since the epoch) and the boot of kern.boottime.
    const file = JSON.parse(readFileSync(registry.file!, 'utf8')) as { bootId: string; ownerStartTime: number; groups: ProcessGroupRecord[] };
    expect(file.bootId).toBe('boottime:1796025600');
    expect(file.ownerStartTime).toBe(ownerId.startTime);
    expect(Math.abs(file.ownerStartTime - Date.now() / 1000)).toBeLessThan(120);

    owner.kill('SIGKILL');
    // The server ends on its stdin's end; its helpers do not.
    await expectServerGoneHelpersLeft(pids);

    const lines: string[] = [];
    await reapLeftoverProcessGroups(dir, (line) => lines.push(line), { termGraceMs: 1_500, processes: mac });
    expectLeftoversEnded(pids, lines, ownerId.pid, dir);
  });

  it('leaves the groups of a live owner alone, and never signals a group whose leader has another start time', async () => {
    const dir = tempDir();
    const leader = await identity(await spawned(spawn('sleep', ['300'], { detached: true, stdio: 'ignore' })));
    await new ProcessGroupRegistry(dir, mac.ownIdentity(), mac).add({ pgid: leader.pid, leaderStartTime: leader.startTime, command: 'sleep' });
    await reapLeftoverProcessGroups(dir, () => undefined, { termGraceMs: 500, processes: mac });
    expect(isAlive(leader.pid)).toBe(true);
    // A dead owner's record of an earlier process with the leader's pid, one second before.
    const other = tempDir();
    await new ProcessGroupRegistry(other, await deadOwner(), mac).add({ pgid: leader.pid, leaderStartTime: leader.startTime - 1, command: 'sleep' });
    const lines: string[] = [];
    await reapLeftoverProcessGroups(other, (line) => lines.push(line), { termGraceMs: 500, processes: mac });
    expect(lines).toEqual([]);
    expect(isAlive(leader.pid)).toBe(true);
    expect(readdirSync(other)).toEqual([]);
  });

  it('openProcessGroupRegistry makes the runtime directory and reaps there on darwin; on win32 it does nothing', async () => {
    const root = tempDir();
    await openProcessGroupRegistry(join(root, 'run'), () => undefined, { processes: mac });
    expect(existsSync(join(root, 'run'))).toBe(true);
    const windows = new ProcessTable({ platform: 'win32', run: () => 'not run' });
    await openProcessGroupRegistry(join(root, 'win'), () => undefined, { processes: windows });
    expect(existsSync(join(root, 'win'))).toBe(false);
  });

  it('a reap runs ps once per poll, not once per process checked', async () => {
    const { processes, psRuns } = macOnThisMachine();
    const leaders = await Promise.all([0, 1, 2].map(async () => identity(await spawned(spawn('sleep', ['300'], { detached: true, stdio: 'ignore' })))));
    const dir = tempDir();
    const registry = new ProcessGroupRegistry(dir, await deadOwner(), processes);
    for (const [i, leader] of leaders.entries()) await registry.add({ pgid: leader.pid, leaderStartTime: leader.startTime, name: `s${i}`, command: 'sleep' });
    const before = psRuns();
    await reapLeftoverProcessGroups(dir, () => undefined, { termGraceMs: 1_500, processes });
    for (const leader of leaders) expect(isAlive(leader.pid)).toBe(false);
    // Sleep ends on SIGTERM at once: a handful of turns (claim, table, signal, a poll or two), not one per check.
    expect(psRuns() - before).toBeLessThanOrEqual(6);
  });
});
