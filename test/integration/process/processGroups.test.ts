import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, expect, it } from 'vitest';
import { createMcpLive } from '../../../src/live/createMcpLive.js';
import { type McpLive } from '../../../src/live/types.js';
import type { McpLiveEvent } from '../../../src/model/report/events.js';
import { createMcpConnector } from '../../../src/sinks/mcp/connector.js';
import { withParentDeathSignal } from '../../../src/platform/parentDeathSignal.js';
import {
  ProcessGroupRegistry,
  defaultRuntimeDir,
  openProcessGroupRegistry,
  reapLeftoverProcessGroups,
  type ProcessGroupRecord,
} from '../../../src/process/processGroupRegistry.js';
import { isRunning, readProcessStat, type ProcessIdentity } from '../../../src/process/processTable.js';
import { closeTracked, connectOnce, nodeServer, textOf, track } from '../mcpServers.js';
import { linuxOnly } from '../../platforms.js';
import { isAlive, waitForExit } from '../processes.js';
import { expectLeftoversEnded, expectServerGoneHelpersLeft, helperPidsIn, leftoverLine, spawnedPid, SPAWNER, type HelperPids } from './spawningFixture.js';

/**
 * Decisions 23, 61 and 62: no process of a server outlives the session. A graceful close ends the
 * server's group and the descendants that left it; after a SIGKILL of mcp-live, the next start
 * ends what the dead session's servers left in their groups, and nothing it cannot prove is theirs.
 */

/** The fixture's processes by role. */
function roles(pids: HelperPids): [string, number][] {
  return Object.entries(pids) as [string, number][];
}

/** Every process a test started, ended in afterEach whatever the test asserted. */
const started: ProcessIdentity[] = [];
const dirs: string[] = [];
let live: McpLive | undefined;

afterEach(async () => {
  await live?.dispose();
  live = undefined;
  await closeTracked();
  for (const p of started.splice(0)) {
    // Only what is still the process we started: its pid may have been handed out again.
    if (isRunning(p)) process.kill(p.pid, 'SIGKILL');
  }
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-live-groups-'));
  dirs.push(dir);
  return dir;
}

function identity(pid: number): ProcessIdentity {
  const stat = readProcessStat(pid);
  if (!stat) throw new Error(`process ${pid} is gone`);
  return { pid, startTime: stat.startTime };
}

function remember(pid: number): ProcessIdentity {
  const id = identity(pid);
  started.push(id);
  return id;
}

/** Waits for the fixture's pid file and remembers every pid in it for the cleanup. */
const helperPids = (file: string): Promise<HelperPids> =>
  helperPidsIn(file, (pids) => {
    for (const [, pid] of roles(pids)) remember(pid);
  });

const spawned = spawnedPid;

function firstLine(child: ChildProcess): Promise<string> {
  return new Promise((resolve) => createInterface({ input: child.stdout! }).once('line', resolve));
}

function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve())));
}

/** A process that really died by SIGKILL, as the owner of records: its pid and start time are dead. */
async function deadOwner(): Promise<ProcessIdentity> {
  const child = spawn('sleep', ['30'], { stdio: 'ignore' });
  const owner = identity(await spawned(child));
  child.kill('SIGKILL');
  await exited(child);
  return owner;
}

/** `sleep 300` leading its own process group, as mcp-live starts a server. */
async function groupLeader(): Promise<ProcessIdentity> {
  return remember(await spawned(spawn('sleep', ['300'], { detached: true, stdio: 'ignore' })));
}

function record(leader: ProcessIdentity, name: string, leaderStartTime = leader.startTime): ProcessGroupRecord {
  return { pgid: leader.pid, leaderStartTime, name, command: 'sleep' };
}

async function reap(dir: string): Promise<string[]> {
  const lines: string[] = [];
  await reapLeftoverProcessGroups(dir, (line) => lines.push(line), { termGraceMs: 1_500 });
  return lines;
}

linuxOnly('/proc, setpriv, sh').describe('a graceful close', () => {
  it('ends the server, its group, and the detached processes it and its children started', async () => {
    const dir = tempDir();
    const registry = new ProcessGroupRegistry(dir);
    const pidFile = join(tempDir(), 'pids.json');
    const connect = createMcpConnector({ stdinGraceMs: 100, killGraceMs: 1_500, processGroups: registry });
    const connection = track(await connectOnce(connect('spawner', nodeServer(SPAWNER, [pidFile]))));
    const pids = await helperPids(pidFile);
    expect(pids.server).toBe(connection.pid);
    expect(textOf(await connection.callTool('echo', { text: 'up' }))).toBe('up');
    for (const [role, pid] of roles(pids)) expect(isAlive(pid), role).toBe(true);
    // Recorded while it runs, under the server's name, with the leader's start time.
    const file = JSON.parse(readFileSync(registry.file!, 'utf8')) as { groups: ProcessGroupRecord[] };
    expect(file.groups).toEqual([
      { pgid: pids.server, leaderStartTime: identity(pids.server).startTime, name: 'spawner', command: process.execPath },
    ]);

    await connection.close();
    for (const [role, pid] of roles(pids)) expect(isAlive(pid), role).toBe(false);
    expect(existsSync(registry.file!)).toBe(false);
  });
});

linuxOnly('/proc start times and boot id, sh').describe('reapLeftoverProcessGroups', () => {
  /** The owner script: starts the fixture as mcp-live would (own group, parent-death signal) and waits. */
  const OWNER = `
    const [command, ...args] = JSON.parse(process.argv[1]);
    require('node:child_process').spawn(command, args, { detached: true, stdio: ['pipe', 'ignore', 'ignore'] });
    setInterval(() => {}, 1 << 30);
  `;

  it('after a SIGKILL of the owner, ends what its server left in its group and what those started, and says so', async () => {
    const dir = tempDir();
    const pidFile = join(tempDir(), 'pids.json');
    const launch = withParentDeathSignal({ command: process.execPath, args: [SPAWNER, pidFile] }, process.env, undefined);
    const owner = spawn(process.execPath, ['-e', OWNER, JSON.stringify([launch.command, ...launch.args])], { stdio: 'ignore' });
    const ownerId = remember(await spawned(owner));
    const pids = await helperPids(pidFile);
    const registry = new ProcessGroupRegistry(dir, ownerId);
    await registry.add({ pgid: pids.server, leaderStartTime: identity(pids.server).startTime, name: 'left-behind', command: process.execPath });

    owner.kill('SIGKILL');
    await exited(owner);
    // The server goes (stdin EOF, parent-death signal); what it started in its group does not.
    await expectServerGoneHelpersLeft(pids);

    expectLeftoversEnded(pids, await reap(dir), ownerId.pid, dir);
  });

  it('ends a leader that outlived its dead owner too, and reaps a record only once when two sessions start together', async () => {
    const dir = tempDir();
    const leader = await groupLeader();
    const owner = await deadOwner();
    await new ProcessGroupRegistry(dir, owner).add(record(leader, 'stubborn'));
    const [a, b] = await Promise.all([reap(dir), reap(dir)]);
    expect(isAlive(leader.pid)).toBe(false);
    expect([...a, ...b]).toEqual([leftoverLine(1, 'stubborn', leader.pid, owner.pid)]);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('leaves the groups of a live mcp-live alone', async () => {
    const dir = tempDir();
    const leader = await groupLeader();
    const registry = new ProcessGroupRegistry(dir); // owned by this test process, which runs
    await registry.add(record(leader, 'mine'));
    expect(await reap(dir)).toEqual([]);
    expect(isAlive(leader.pid)).toBe(true);
    expect(existsSync(registry.file!)).toBe(true);
  });

  it('never signals a group whose pgid now belongs to a later process (the leader has another start time)', async () => {
    const dir = tempDir();
    const leader = await groupLeader();
    // The record names an earlier process with the same pid, as if the number came round again.
    await new ProcessGroupRegistry(dir, await deadOwner()).add(record(leader, 'old', leader.startTime - 1));
    expect(await reap(dir)).toEqual([]);
    expect(isAlive(leader.pid)).toBe(true);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('never signals a group member that started before the recorded leader', async () => {
    const dir = tempDir();
    // sh leads the group, starts sleep in it and exits: a group whose leader is gone.
    const sh = spawn('sh', ['-c', 'sleep 300 & echo $!'], { detached: true, stdio: ['ignore', 'pipe', 'ignore'] });
    const shPid = await spawned(sh);
    const member = remember(Number(await firstLine(sh)));
    await exited(sh);
    expect(readProcessStat(member.pid)?.pgid).toBe(shPid);
    const later = { pgid: shPid, leaderStartTime: member.startTime + 1, name: 'later', command: 'sh' };
    await new ProcessGroupRegistry(dir, await deadOwner()).add(later);
    expect(await reap(dir)).toEqual([]);
    expect(isAlive(member.pid)).toBe(true);
  });

  it('never signals a group that is not a session of its own (mcp-live starts every server as one)', async () => {
    const dir = tempDir();
    // A job-control shell puts a subshell in its own group but keeps it in its session; the
    // subshell starts sleep in that group and exits.
    const bash = spawn('bash', ['-c', 'set -m; ( sleep 300 & echo $! ) & wait'], { stdio: ['ignore', 'pipe', 'ignore'] });
    const member = remember(Number(await firstLine(bash)));
    const stat = readProcessStat(member.pid)!;
    expect(stat.sid).not.toBe(stat.pgid);
    expect(await waitForExit(stat.pgid, 10_000)).toBe(true);
    await new ProcessGroupRegistry(dir, await deadOwner()).add({ pgid: stat.pgid, leaderStartTime: member.startTime, name: 'job', command: 'bash' });
    expect(await reap(dir)).toEqual([]);
    expect(isAlive(member.pid)).toBe(true);
  });

  it('drops the records of another boot without signalling anything', async () => {
    const dir = tempDir();
    const leader = await groupLeader();
    const registry = new ProcessGroupRegistry(dir, await deadOwner());
    await registry.add(record(leader, 'before-reboot'));
    const content = JSON.parse(readFileSync(registry.file!, 'utf8')) as Record<string, unknown>;
    writeFileSync(registry.file!, JSON.stringify({ ...content, bootId: 'another-boot' }));
    expect(await reap(dir)).toEqual([]);
    expect(isAlive(leader.pid)).toBe(true);
    expect(readdirSync(dir)).toEqual([]);
  });
});

linuxOnly('/proc, mode bits').describe('the runtime directory', () => {
  it('is $XDG_RUNTIME_DIR/mcp-live when that is an absolute directory of ours, else <home>/.<profile>/run', () => {
    const xdg = tempDir();
    expect(defaultRuntimeDir('qwen', '/h', { XDG_RUNTIME_DIR: xdg })).toBe(join(xdg, 'mcp-live'));
    expect(defaultRuntimeDir('qwen', '/h', { XDG_RUNTIME_DIR: 'relative/dir' })).toBe('/h/.qwen/run');
    expect(defaultRuntimeDir('gemini', '/h', { XDG_RUNTIME_DIR: join(xdg, 'missing') })).toBe('/h/.gemini/run');
    expect(defaultRuntimeDir('qwen', '/h', {})).toBe('/h/.qwen/run');
  });

  it('is made with mode 0700; a symlink in its place is refused with a log line', async () => {
    const root = tempDir();
    const lines: string[] = [];
    await openProcessGroupRegistry(join(root, 'home', '.qwen', 'run'), (line) => lines.push(line));
    expect(statSync(join(root, 'home', '.qwen', 'run')).mode & 0o777).toBe(0o700);
    expect(lines).toEqual([]);
    symlinkSync(tempDir(), join(root, 'link'));
    await openProcessGroupRegistry(join(root, 'link'), (line) => lines.push(line));
    expect(lines).toEqual([
      `cannot record server processes in ${join(root, 'link')} (it is a symbolic link): ` +
        'servers left running by an mcp-live that gets killed will not be ended by the next one',
    ]);
  });
});

linuxOnly('/proc start times').describe('createMcpLive and the process group registry', () => {
  function workspace() {
    const root = tempDir();
    const home = join(root, 'home');
    mkdirSync(join(home, '.qwen'), { recursive: true });
    mkdirSync(join(root, 'project'));
    return { root, home, cwd: join(root, 'project'), runtimeDir: join(root, 'run') };
  }

  it('start() ends the leftovers of a dead mcp-live before its servers start, in a log event', async () => {
    const ws = workspace();
    mkdirSync(ws.runtimeDir, { mode: 0o700 });
    const leader = await groupLeader();
    const owner = await deadOwner();
    await new ProcessGroupRegistry(ws.runtimeDir, owner).add(record(leader, 'orphan'));
    live = createMcpLive({ cwd: ws.cwd, homeDir: ws.home, runtimeDir: ws.runtimeDir, debounceMs: 30 });
    const events: McpLiveEvent[] = [];
    const seen = live.events$.subscribe((e) => events.push(e));
    await live.start();
    seen.unsubscribe();
    expect(isAlive(leader.pid)).toBe(false);
    const message = leftoverLine(1, 'orphan', leader.pid, owner.pid);
    expect(events.filter((e) => e.type === 'log')).toMatchObject([{ type: 'log', level: 'warn', message }]);
    expect(events.findIndex((e) => e.type === 'log')).toBeLessThan(events.findIndex((e) => e.type === 'ready'));
  });

  it('records its servers while they run, and dispose() ends every process they started', async () => {
    const ws = workspace();
    const pidFile = join(ws.root, 'pids.json');
    const settings = { mcpServers: { spawner: { command: process.execPath, args: [SPAWNER, pidFile] } } };
    writeFileSync(join(ws.home, '.qwen', 'settings.json'), JSON.stringify(settings));
    live = createMcpLive({ cwd: ws.cwd, homeDir: ws.home, runtimeDir: ws.runtimeDir, debounceMs: 30 });
    await live.start();
    expect(live.servers.status()).toMatchObject([{ name: 'spawner', state: 'connected' }]);
    const pids = await helperPids(pidFile);
    const records = readdirSync(ws.runtimeDir);
    expect(records).toEqual([`${process.pid}-${identity(process.pid).startTime}.json`]);
    const file = JSON.parse(readFileSync(join(ws.runtimeDir, records[0]!), 'utf8')) as { groups: ProcessGroupRecord[] };
    expect(file.groups).toMatchObject([{ pgid: pids.server, name: 'spawner' }]);

    await live.dispose();
    live = undefined;
    for (const [role, pid] of roles(pids)) expect(isAlive(pid), role).toBe(false);
    expect(readdirSync(ws.runtimeDir)).toEqual([]);
  });
});
