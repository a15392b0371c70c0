import { afterAll, describe, expect, it } from 'vitest';
import { descendants, MCP_TEST_SERVERS } from '../integration/processes.js';
import { CliSession, resultOf, settleFor, Workspace } from './cliSession.js';

/**
 * The headless mode never lies and never stalls (decisions 64–66), against the built CLI: commands
 * piped in at start are answered truthfully, a slow call holds back neither `status` nor `quit`,
 * `quit` cancels it, and a broken-then-fixed file says so once each way.
 */

afterAll(() => {
  expect(descendants().filter((p) => MCP_TEST_SERVERS.test(p.command))).toEqual([]);
});

describe('mcp-live --json: never lies, never stalls', () => {
  it('answers commands piped in at start after the first pass; a slow call holds nothing back; quit cancels it; one settings-error and one settings-ok', async ({ onTestFinished }) => {
    const ws = new Workspace(onTestFinished);
    const w = ws;
    const memory = w.server('memory', ['--slow-tool', '15000']);
    w.write(w.userSettings, { mcpServers: { memory } });
    const cli = CliSession.start(w);
    // Written at once, long before the first pass can have ended.
    cli.send({ id: 'status0', cmd: 'status' });
    cli.send({ id: 'early', cmd: 'call', tool: 'mcp__memory__echo', args: { text: 'early' } });

    const early = await cli.waitFor(resultOf('early'), { what: 'the early call answered' });
    expect(early).toMatchObject({ ok: true, data: { content: [{ type: 'text', text: 'early' }] } });
    const status0 = await cli.waitFor(resultOf('status0'), { what: 'the early status answered' });
    expect(status0).toMatchObject({ ok: true, data: { servers: [{ name: 'memory', state: 'connected' }] } });
    const [reported] = (status0.data as { servers: { tools: { name: string }[] }[] }).servers;
    expect(reported!.tools.map((t) => t.name)).toContain('mcp__memory__echo');
    const ready = cli.events.findIndex((e) => e.type === 'ready');
    expect(ready).toBeGreaterThanOrEqual(0);
    expect(cli.events.indexOf(early)).toBeGreaterThan(ready);
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
});
