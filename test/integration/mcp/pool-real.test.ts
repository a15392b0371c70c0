import { filter, firstValueFrom, type Observable } from 'rxjs';
import { afterAll, describe, expect, it } from 'vitest';
import { createMcpLive } from '../../../src/live/createMcpLive.js';
import { type McpLive } from '../../../src/live/types.js';
import type { ServerStatus } from '../../../src/model/report/status.js';
import { createConnectionPool, type ConnectionPool } from '../../../src/sinks/mcp/connectionPool.js';
import { connectMcp } from '../../../src/sinks/mcp/connector.js';
import { Workspace } from '../../e2e/cliSession.js';
import { isAlive, sleep, waitForExit, waitForNoLeftovers } from '../processes.js';

const GRACE_MS = 300;

const workspaces: Workspace[] = [];
const sessions: McpLive[] = [];
const pools: ConnectionPool[] = [];

afterAll(async () => {
  // Whatever a failed assertion left running goes here.
  for (const s of sessions) await s.dispose().catch(() => undefined);
  for (const p of pools) await p.dispose();
  for (const ws of workspaces) ws.cleanup();
});

function newPool(): ConnectionPool {
  const p = createConnectionPool({ connector: connectMcp, idleGraceMs: GRACE_MS });
  pools.push(p);
  return p;
}

function workspace(): Workspace {
  const ws = new Workspace();
  workspaces.push(ws);
  return ws;
}

function session(ws: Workspace, shared: ConnectionPool): McpLive {
  const live = createMcpLive({ homeDir: ws.home, cwd: ws.cwd, debounceMs: 50, pool: shared });
  sessions.push(live);
  return live;
}

/** Resolves with the first status list in which `name` matches. */
function until(servers$: Observable<readonly ServerStatus[]>, name: string, match: Partial<ServerStatus>): Promise<ServerStatus> {
  return firstValueFrom(
    servers$.pipe(
      filter((all) => {
        const s = all.find((x) => x.name === name);
        return s !== undefined && Object.entries(match).every(([k, v]) => s[k as keyof ServerStatus] === v);
      }),
    ),
  ).then((all) => all.find((x) => x.name === name)!);
}

describe('two createMcpLive sessions sharing a pool, with real processes', () => {
  it('spawn once, gate per session, keep while one holds it, close after the grace, leave nothing', async () => {
    const wsA = workspace();
    const wsB = workspace();
    // The identical entry (start log included) in both users' settings: one fingerprint. A stdio
    // server starts in the workspace unless its entry names a `cwd` (decision 63), so the entry
    // names one, or the two workspaces would (rightly) get a process each.
    const shared = wsA.server('shared', [], { cwd: wsA.root });
    wsA.write(wsA.userSettings, { mcpServers: { echo: shared } });
    wsB.write(wsB.userSettings, { mcpServers: { echo: shared } });
    // A project server of A's workspace: gated, so it waits for approval and never starts.
    wsA.write(wsA.mcpJson, { mcpServers: { gated: wsA.server('gated-a') } });

    const pool = newPool();
    const a = session(wsA, pool);
    const b = session(wsB, pool);
    await Promise.all([a.start(), b.start()]);

    // One process for both sessions.
    const pid = a.servers.status().find((s) => s.name === 'echo')?.pid;
    expect(pid).toBeTypeOf('number');
    expect(b.servers.status().find((s) => s.name === 'echo')).toMatchObject({ state: 'connected', pid });
    expect(pool.stats()).toEqual([{ key: expect.any(String) as string, refs: 2, pid, idle: false }]);
    expect(wsA.starts()).toEqual(['shared']);
    await expect(a.tools.call('mcp__echo__echo', { text: 'from a' })).resolves.toMatchObject({ content: [{ text: 'from a' }] });
    await expect(b.tools.call('mcp__echo__echo', { text: 'from b' })).resolves.toMatchObject({ content: [{ text: 'from b' }] });

    // The gated server: pending in A, never acquired, never started.
    expect(a.servers.status().find((s) => s.name === 'gated')).toMatchObject({ state: 'blocked', reason: 'pending_approval' });
    expect(a.approvals.pending().map((p) => p.name)).toEqual(['gated']);
    // A gated server hot-added to B's workspace: pending there too, nothing spawned.
    const pendingInB = until(b.servers.list$, 'gated-b', { reason: 'pending_approval' });
    wsB.atomicWrite(wsB.mcpJson, { mcpServers: { 'gated-b': wsA.server('gated-b') } });
    await pendingInB;
    expect(pool.stats()).toHaveLength(1);

    // A removes it: B still holds it, so the process outlives the grace.
    const goneFromA = until(a.servers.list$, 'echo', { state: 'disconnected' });
    wsA.atomicWrite(wsA.userSettings, { mcpServers: {} });
    await goneFromA;
    expect(pool.stats()).toMatchObject([{ refs: 1, pid, idle: false }]);
    await sleep(GRACE_MS + 300);
    expect(isAlive(pid!)).toBe(true);
    expect(b.servers.status().find((s) => s.name === 'echo')).toMatchObject({ state: 'connected', pid });

    // B removes it too: idle now, gone once the grace has passed.
    const goneFromB = until(b.servers.list$, 'echo', { state: 'disconnected' });
    wsB.atomicWrite(wsB.userSettings, { mcpServers: {} });
    await goneFromB;
    const released = Date.now();
    expect(pool.stats()).toMatchObject([{ refs: 0, pid, idle: true }]);
    expect(isAlive(pid!)).toBe(true);
    expect(await waitForExit(pid!, GRACE_MS + 3_000)).toBe(true);
    // A timer may fire a little early, never a lot.
    expect(Date.now() - released).toBeGreaterThanOrEqual(GRACE_MS - 20);
    expect(pool.stats()).toEqual([]);

    expect(wsA.starts()).toEqual(['shared']);
    await a.dispose();
    await b.dispose();
    await pool.dispose();
    expect(await waitForNoLeftovers()).toEqual([]);
  });

  it('/reconnect in one session restarts the shared process for both: the old one exits, one new process serves both', async () => {
    const ws = workspace();
    const other = workspace();
    const shared = ws.server('shared', [], { cwd: ws.root });
    ws.write(ws.userSettings, { mcpServers: { echo: shared } });
    other.write(other.userSettings, { mcpServers: { echo: shared } });
    const pool = newPool();
    const a = session(ws, pool);
    const b = session(other, pool);
    await Promise.all([a.start(), b.start()]);
    const oldPid = a.servers.status().find((s) => s.name === 'echo')?.pid;
    expect(oldPid).toBeTypeOf('number');

    const reconnected = (live: McpLive) =>
      firstValueFrom(live.servers.list$.pipe(filter((all) => all.some((s) => s.name === 'echo' && s.state === 'connected' && s.pid !== oldPid))));
    const bothBack = Promise.all([reconnected(a), reconnected(b)]);
    expect(a.servers.reconnect('echo')).toBe(true);
    await bothBack;

    const newPid = a.servers.status().find((s) => s.name === 'echo')?.pid;
    expect(newPid).not.toBe(oldPid);
    expect(b.servers.status().find((s) => s.name === 'echo')).toMatchObject({ state: 'connected', pid: newPid });
    expect(isAlive(oldPid!)).toBe(false);
    expect(ws.starts()).toEqual(['shared', 'shared']);
    expect(pool.stats()).toEqual([{ key: expect.any(String) as string, refs: 2, pid: newPid, idle: false }]);
    await expect(b.tools.call('mcp__echo__echo', { text: 'after' })).resolves.toMatchObject({ content: [{ text: 'after' }] });

    await a.dispose();
    await b.dispose();
    await pool.dispose();
    expect(await waitForNoLeftovers()).toEqual([]);
  });
});
