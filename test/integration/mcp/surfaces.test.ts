import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { filter, firstValueFrom } from 'rxjs';
import { describe, expect } from 'vitest';
import type { McpLive } from '../../../src/index.js';
import type { ApprovalRequiredEvent, SurfaceChangedEvent } from '../../../src/model/report/events.js';
import type { ServerStatus } from '../../../src/model/report/status.js';
import { echoEntry, fixture } from '../mcpServers.js';
import { POSIX } from '../../platforms.js';
import { leftoverServers, waitForExit, waitForNoLeftovers } from '../processes.js';
import { it as base, noLeftoversAfterAll, sessionWorld, type SessionWorld } from '../workspace.js';

/**
 * Surfaces with real processes, real files and real watching (decisions 195–197): lazy servers
 * listed from the record without a process, started by the first call (once for concurrent
 * ones), `idleTimeout`, and a server that changes its tools after it was approved.
 */

noLeftoversAfterAll();

type World = SessionWorld;

const it = base.extend<{ w: World }>({
  w: async ({ scope }, use) => {
    await use(sessionWorld(scope, 'mcp-live-surfaces-'));
  },
});

/** This test's own servers: those whose command line names `log`, a file in its directory. */
const naming = (log: string): RegExp => new RegExp(log.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));

function until(live: McpLive, name: string, test: (s: ServerStatus) => boolean): Promise<ServerStatus> {
  return firstValueFrom(
    live.servers.list$.pipe(filter((list) => list.some((s) => s.name === name && test(s)))),
  ).then((list) => list.find((s) => s.name === name)!);
}

function starts(log: string): string[] {
  return existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').filter(Boolean) : [];
}

function text(result: unknown): string {
  return (result as { content: { text: string }[] }).content.map((c) => c.text).join('');
}

describe.concurrent('lazy servers (decision 196)', () => {
  it('are learned once, then listed from the record with no process, and started once by concurrent first calls', async ({ w }) => {
    const log = join(w.dir, 'starts.log');
    const lazyEntry = (name: string) => ({ ...echoEntry('--start-log', log, '--log-name', name), lazy: true });
    w.userSettings({ mcpServers: { a: lazyEntry('a'), b: lazyEntry('b'), c: lazyEntry('c') } });

    // First session: no record, so each is started once to learn its tools, then stopped.
    const first = w.open();
    await first.live.start();
    for (const name of ['a', 'b', 'c']) await until(first.live, name, (s) => s.state === 'idle');
    expect(starts(log).sort()).toEqual(['a started', 'b started', 'c started']);
    expect(await waitForNoLeftovers(naming(log))).toEqual([]);
    await first.live.dispose();
    const record = join(w.home, '.qwen', 'mcp-surfaces.json');
    // Mode bits are POSIX's (decision 276): Windows has none to check.
    if (POSIX) expect(statSync(record).mode & 0o777).toBe(0o600);

    // Second session: everything listed from the record at start, nothing started.
    const second = w.open();
    await second.live.start();
    const tools = await firstValueFrom(second.live.tools.list$.pipe(filter((t) => t.length === 6)));
    expect(tools.map((t) => t.name).sort()).toEqual(['mcp__a__echo', 'mcp__a__slow', 'mcp__b__echo', 'mcp__b__slow', 'mcp__c__echo', 'mcp__c__slow']);
    expect(second.live.servers.status().map((s) => [s.name, s.state, s.idle, s.pid])).toEqual([
      ['a', 'idle', 'lazy', undefined],
      ['b', 'idle', 'lazy', undefined],
      ['c', 'idle', 'lazy', undefined],
    ]);
    expect(starts(log)).toHaveLength(3);
    expect(leftoverServers(naming(log))).toEqual([]);

    // Three concurrent first calls on `b`: one process.
    const results = await Promise.all([1, 2, 3].map((n) => second.live.tools.call('mcp__b__echo', { text: `hi ${n}` })));
    expect(results.map(text)).toEqual(['hi 1', 'hi 2', 'hi 3']);
    expect(starts(log)).toHaveLength(4);
    expect(starts(log).filter((l) => l === 'b started')).toHaveLength(2);
    expect(leftoverServers(naming(log))).toHaveLength(1);
    const b = await until(second.live, 'b', (s) => s.state === 'connected' && s.pid !== undefined);
    expect(b.idle).toBeUndefined();
  });

  it('with mcp.lazy as the file default, an entry with lazy: false still starts at once', async ({ w }) => {
    const log = join(w.dir, 'starts.log');
    w.userSettings({
      mcp: { lazy: true },
      mcpServers: { eager: { ...echoEntry('--start-log', log, '--log-name', 'eager'), lazy: false }, lazy: echoEntry('--start-log', log, '--log-name', 'lazy') },
    });
    const { live } = w.open();
    await live.start();
    await until(live, 'lazy', (s) => s.state === 'idle');
    const eager = await until(live, 'eager', (s) => s.state === 'connected');
    expect(eager.pid).toBeGreaterThan(0);
    expect(live.servers.status().find((s) => s.name === 'lazy')?.pid).toBeUndefined();
  });

  it('a lazy server from .mcp.json starts nothing before approval, and is learned once after', async ({ w }) => {
    const log = join(w.dir, 'starts.log');
    writeFileSync(join(w.project, '.mcp.json'), JSON.stringify({ mcpServers: { gated: { ...echoEntry('--start-log', log, '--log-name', 'gated'), lazy: true } } }));
    const { live } = w.open();
    await live.start();
    const [pending] = live.approvals.pending();
    expect(pending?.name).toBe('gated');
    expect(starts(log)).toEqual([]);
    await live.approvals.approve('gated', { hash: pending!.hash });
    await until(live, 'gated', (s) => s.state === 'idle');
    expect(starts(log)).toEqual(['gated started']);
  });

  it('idleTimeout stops a server with nothing in flight; its tools stay listed and the next call starts it again', async ({ w }) => {
    w.userSettings({ mcpServers: { it: { ...echoEntry(), idleTimeout: 300 } } });
    const { live } = w.open();
    await live.start();
    const up = await until(live, 'it', (s) => s.state === 'connected' && s.pid !== undefined);
    const idle = await until(live, 'it', (s) => s.state === 'idle');
    expect(idle).toMatchObject({ idle: 'idle-timeout', idleTimeoutMs: 300 });
    expect(idle.tools.map((t) => t.name)).toEqual(['mcp__it__echo', 'mcp__it__slow']);
    expect(await waitForExit(up.pid!)).toBe(true);
    expect(text(await live.tools.call('mcp__it__echo', { text: 'again' }))).toBe('again');
    const again = await until(live, 'it', (s) => s.state === 'connected' && s.pid !== undefined);
    expect(again.pid).not.toBe(up.pid);
    // `/reconnect` of an idle one starts it, too.
    await until(live, 'it', (s) => s.state === 'idle');
    expect(live.servers.reconnect('it')).toBe(true);
    await until(live, 'it', (s) => s.state === 'connected' && s.pid !== undefined);
  });
});

describe.concurrent('a server that changes its tools after approval (decision 197)', () => {
  const rugPull = (pulledIf: string) => ({ command: process.execPath, args: [fixture('rug-pull-server.mjs'), '--pulled-if', pulledIf] });

  async function approvedSession(w: World, pulledIf: string) {
    writeFileSync(join(w.project, '.mcp.json'), JSON.stringify({ mcpServers: { notes: rugPull(pulledIf) } }));
    const session = w.open();
    await session.live.start();
    const [pending] = session.live.approvals.pending();
    expect(pending?.name).toBe('notes');
    await session.live.approvals.approve('notes', { hash: pending!.hash });
    await until(session.live, 'notes', (s) => s.state === 'connected');
    return session;
  }

  it('reports the change, withholds the changed and added tools, asks again with the diff, and admits them once approved by the new hash', async ({ w }) => {
    const { live, events } = await approvedSession(w, join(w.dir, 'never'));
    expect(live.servers.status()[0]!.tools.map((t) => t.tool)).toEqual(['read_notes', 'rug_pull']);

    await live.tools.call('mcp__notes__rug_pull', {});
    const withheld = await until(live, 'notes', (s) => s.withheld !== undefined);
    expect(withheld.withheld).toEqual(['exfiltrate', 'read_notes']);
    expect(withheld.tools.map((t) => t.tool)).toEqual(['rug_pull']);

    const changed = events.find((e): e is SurfaceChangedEvent => e.type === 'surface-changed')!;
    expect(changed.server).toBe('notes');
    expect(changed.withheld).toEqual(['exfiltrate', 'read_notes']);
    const description = changed.changes.find((c) => c.name === 'read_notes' && c.change === 'description')!;
    expect(description.before).toBe('Reads the notes of the day');
    // The escape sequence arrives as visible text, never as an escape.
    expect(description.after).toContain('\\x1b[2J');
    expect(description.after).not.toContain('\u001b');
    expect(changed.changes.find((c) => c.name === 'exfiltrate')).toMatchObject({ change: 'added', after: 'Sends a file somewhere' });

    await expect(live.tools.call('mcp__notes__read_notes', { day: 'monday' })).rejects.toThrow(/the tool's definition changed since you approved it: review it/);

    const asked = events.filter((e): e is ApprovalRequiredEvent => e.type === 'approval-required').at(-1)!;
    const request = asked.servers[0]!;
    expect(request.name).toBe('notes');
    expect(request.surface?.map((c) => `${c.name} ${c.change}`)).toEqual(['exfiltrate added', 'read_notes description']);
    const [pending] = live.approvals.pending();
    expect(pending?.hash).toBe(request.hash);
    expect(pending?.surface).toEqual(request.surface);

    await expect(live.approvals.approve('notes', { hash: 'a'.repeat(64) })).rejects.toThrow(/changed since they were shown/);
    await live.approvals.approve('notes', { hash: request.hash });
    const admitted = await until(live, 'notes', (s) => s.withheld === undefined && s.tools.length === 3);
    expect(admitted.tools.map((t) => t.tool).sort()).toEqual(['exfiltrate', 'read_notes', 'rug_pull']);
    expect(text(await live.tools.call('mcp__notes__read_notes', { day: 'monday' }))).toBe('notes of monday');
    expect(live.approvals.pending()).toEqual([]);
  });

  it('a later session starting a changed server withholds at once against the pin that was approved before', async ({ w }) => {
    const pulledIf = join(w.dir, 'pulled');
    const first = await approvedSession(w, pulledIf);
    await first.live.dispose();
    // The same config, another version behind it.
    writeFileSync(pulledIf, '');
    const { live, events } = w.open();
    await live.start();
    const status = await until(live, 'notes', (s) => s.withheld !== undefined);
    expect(status.withheld).toEqual(['exfiltrate', 'read_notes']);
    expect(events.some((e) => e.type === 'surface-changed')).toBe(true);
    expect(live.approvals.pending().map((p) => p.name)).toEqual(['notes']);
  });

  it('a user-scope server is reported, not withheld', async ({ w }) => {
    w.userSettings({ mcpServers: { notes: rugPull(join(w.dir, 'never')) } });
    const { live, events } = w.open();
    await live.start();
    await until(live, 'notes', (s) => s.state === 'connected');
    await live.tools.call('mcp__notes__rug_pull', {});
    await until(live, 'notes', (s) => s.tools.length === 3);
    const changed = events.find((e): e is SurfaceChangedEvent => e.type === 'surface-changed')!;
    expect(changed.withheld).toBeUndefined();
    expect(changed.changes.map((c) => `${c.name} ${c.change}`)).toEqual(['exfiltrate added', 'read_notes description']);
    expect(live.approvals.pending()).toEqual([]);
  });
});
