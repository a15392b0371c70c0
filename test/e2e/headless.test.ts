import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { descendants, MCP_TEST_SERVERS } from '../integration/processes.js';
import { CliSession, FIXTURES, resultOf, settleFor, Workspace } from './cliSession.js';

/**
 * The headless mode never lies and never stalls (decisions 64–66 and 325), against the built CLI:
 * commands piped in at start are answered truthfully — `status` at once with every server, one
 * still starting as `connecting` — a slow call holds back neither `status` nor `quit`, `quit`
 * cancels it, and a broken-then-fixed file says so once each way.
 */

afterAll(() => {
  expect(descendants().filter((p) => MCP_TEST_SERVERS.test(p.command))).toEqual([]);
});

describe('mcp-live --json: never lies, never stalls', () => {
  it('answers commands piped in at start truthfully; a slow call holds nothing back; quit cancels it; one settings-error and one settings-ok', async ({ onTestFinished }) => {
    const ws = new Workspace(onTestFinished);
    const w = ws;
    const memory = w.server('memory', ['--slow-tool', '15000']);
    w.write(w.userSettings, { mcpServers: { memory } });
    const cli = CliSession.start(w);
    // Written at once, long before the first pass can have ended.
    cli.send({ id: 'status0', cmd: 'status', wait: 'ready' });
    cli.send({ id: 'early', cmd: 'call', tool: 'mcp__memory__echo', args: { text: 'early' } });

    const early = await cli.waitFor(resultOf('early'), { what: 'the early call answered' });
    expect(early).toMatchObject({ ok: true, data: { content: [{ type: 'text', text: 'early' }] } });
    const status0 = await cli.waitFor(resultOf('status0'), { what: 'the early status answered' });
    expect(status0).toMatchObject({ ok: true, data: { servers: [{ name: 'memory', state: 'connected' }] } });
    const [reported] = (status0.data as { servers: { tools: { name: string }[] }[] }).servers;
    expect(reported!.tools.map((t) => t.name)).toContain('mcp__memory__echo');
    const ready = cli.events.findIndex((e) => e.type === 'ready');
    expect(ready).toBeGreaterThanOrEqual(0);
    // The call went once its tool was listed (decision 325); the status asked to wait for the first pass.
    expect(cli.events.indexOf(early)).toBeGreaterThan(cli.events.findIndex((e) => e.type === 'server' && e.name === 'memory' && e.state === 'connected'));
    expect(cli.events.indexOf(status0)).toBeGreaterThan(ready);

    // A broken save: one settings-error, though the watcher reads it twice (decision 28)... Saved
    // as editors save (a rename over it): a write in place can be read while still empty, and an
    // empty file is a broken save of its own, with its own settings-error.
    let mark = cli.events.length;
    w.atomicWrite(w.userSettings, '{ "mcpServers": ');
    await cli.waitFor((e) => e.type === 'settings-error' && e.file === w.userSettings, { from: mark, what: 'settings-error' });
    // Not a wait for a state: room for the watcher's second read (120 ms later) while the file is still broken.
    await settleFor(500);
    // ...and once fixed, one settings-ok.
    w.atomicWrite(w.userSettings, { mcpServers: { memory: { ...memory, description: 'fixed' } } });
    await cli.waitFor((e) => e.type === 'settings-ok' && e.file === w.userSettings, { from: mark, what: 'settings-ok' });
    await cli.waitFor((e) => e.type === 'reconcile' && (e.updated as string[]).includes('memory'), { from: mark, what: 'the fix applied' });
    const fileEvents = cli.events.slice(mark).filter((e) => e.type === 'settings-error' || e.type === 'settings-ok');
    expect(fileEvents.map((e) => e.type)).toEqual(['settings-error', 'settings-ok']);

    // A 15 s call in flight holds back neither status...
    mark = cli.events.length;
    cli.send({ id: 'slow', cmd: 'call', tool: 'mcp__memory__slow', args: {} });
    cli.send({ id: 'status1', cmd: 'status' });
    await cli.waitFor(resultOf('status1'), { from: mark, what: 'status while a call is in flight', timeoutMs: 10_000 });
    expect(cli.events.slice(mark).some(resultOf('slow'))).toBe(false);

    // ...nor quit, which cancels it first.
    const quitAt = Date.now();
    cli.send({ id: 'bye', cmd: 'quit' });
    const code = await cli.stop('quit');
    expect(code).toBe(0);
    // Within the shutdown bound (stdin grace + SIGTERM grace), not after the call's 15 s.
    expect(Date.now() - quitAt).toBeLessThan(8_000);
    const slow = cli.events.find(resultOf('slow'));
    const bye = cli.events.find(resultOf('bye'));
    expect(slow).toMatchObject({ ok: false, error: 'cancelled: quitting' });
    expect(bye).toMatchObject({ ok: true, data: { quitting: true } });
    expect(cli.events.indexOf(slow!)).toBeLessThan(cli.events.indexOf(bye!));
    expect(cli.events.filter((e) => e.type === 'result' && e.id === 'slow')).toHaveLength(1);
  });

  it('status answers at once while a server is still starting (a first download); a call to a connected server goes meanwhile; "wait": "ready" waits', async ({ onTestFinished }) => {
    const ws = new Workspace(onTestFinished);
    // `slow` answers `initialize` after 10 s, as an `npx` server does while it downloads.
    const slow = { command: process.execPath, args: [join(FIXTURES, 'slow-start-server.mjs'), '--delay', '10000'] };
    ws.write(ws.userSettings, { mcpServers: { fast: ws.server('fast'), slow } });
    const cli = CliSession.start(ws);
    cli.send({ id: 'now', cmd: 'status' });
    cli.send({ id: 'tools', cmd: 'tools' });
    cli.send({ id: 'ready', cmd: 'status', wait: 'ready' });
    cli.send({ id: 'call', cmd: 'call', tool: 'mcp__fast__echo', args: { text: 'meanwhile' } });

    const now = await cli.waitFor(resultOf('now'), { what: 'status answered at once' });
    const states = Object.fromEntries((now.data as { servers: { name: string; state: string }[] }).servers.map((s) => [s.name, s.state]));
    expect(Object.keys(states)).toEqual(['fast', 'slow']);
    expect(states.slow).toBe('connecting');
    expect(await cli.waitFor(resultOf('tools'))).toMatchObject({ ok: true });
    const call = await cli.waitFor(resultOf('call'), { what: 'the call to fast' });
    expect(call).toMatchObject({ ok: true, data: { content: [{ type: 'text', text: 'meanwhile' }] } });
    // All of it before `slow` has started and the first pass has ended.
    const slowUp = () => cli.events.findIndex((e) => e.type === 'server' && e.name === 'slow' && e.state === 'connected');
    expect(slowUp()).toBe(-1);
    expect(cli.events.some((e) => e.type === 'ready')).toBe(false);
    expect(cli.events.some(resultOf('ready'))).toBe(false);

    const ready = await cli.waitFor(resultOf('ready'), { what: 'status with "wait": "ready"', timeoutMs: 30_000 });
    expect(cli.events.indexOf(ready)).toBeGreaterThan(cli.events.findIndex((e) => e.type === 'ready'));
    expect((ready.data as { servers: { name: string; state: string }[] }).servers.map((s) => [s.name, s.state])).toEqual([
      ['fast', 'connected'],
      ['slow', 'connected'],
    ]);
    expect(await cli.stop()).toBe(0);
  }, 60_000);
});
