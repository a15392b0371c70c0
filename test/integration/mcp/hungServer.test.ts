import { join } from 'node:path';
import { filter, firstValueFrom, timeout } from 'rxjs';
import { describe, expect } from 'vitest';
import { createMcpLive, type McpLive } from '../../../src/index.js';
import { createMcpConnector } from '../../../src/sinks/mcp/connector.js';
import type { ServerStatus } from '../../../src/model/report/status.js';
import { fixture, startedPids, textOf } from '../mcpServers.js';
import { isAlive, waitForExit } from '../processes.js';
import { it, noLeftoversAfterAll, type TestScope } from '../workspace.js';

// Decision 17: one server that never answers `initialize` must not freeze later changes.
const DEBOUNCE_MS = 300;
/** The bound asked for is debounce + 1 s; the file watcher's own latency and a loaded machine get 2 s more. */
const BOUND_MS = DEBOUNCE_MS + 1_000 + 2_000;

noLeftoversAfterAll();

/** A temp workspace whose user settings `write` replaces. */
function workspace(scope: TestScope) {
  const ws = scope.workspace('mcp-live-hung-');
  return { ...ws, write: (value: unknown) => ws.write(ws.userSettings, value) };
}

/** Waits until the statuses satisfy `ok`, at most `ms`; fails with the last statuses otherwise. */
async function until(l: McpLive, ok: (all: readonly ServerStatus[]) => boolean, ms: number): Promise<readonly ServerStatus[]> {
  return firstValueFrom(l.servers.list$.pipe(filter(ok), timeout({ first: ms, with: () => Promise.reject(new Error(`not within ${ms} ms: ${JSON.stringify(l.servers.status().map(({ name, state, reason }) => ({ name, state, reason })))}`)) })));
}
const is = (all: readonly ServerStatus[], name: string, state: string, reason?: string) =>
  all.some((s) => s.name === name && s.state === state && s.reason === reason);

describe.concurrent('a hung server never freezes later changes (real processes, real settings file)', () => {
  it('mcp.excluded blocks a connected server and aborts the hung connect within debounce + 1 s', async ({ scope }) => {
    const ws = workspace(scope);
    const hangLog = join(ws.dir, 'hang.log');
    const servers = {
      good: { command: process.execPath, args: [fixture('echo-server.mjs')] },
      hang: { command: process.execPath, args: [fixture('hang-server.mjs'), '--start-log', hangLog], timeout: 2_000_000_000, connectTimeout: 2_000_000_000 },
    };
    ws.write({ mcpServers: servers });
    const live = scope.track(createMcpLive({ cwd: ws.cwd, homeDir: ws.homeDir, runtimeDir: ws.runtimeDir, debounceMs: DEBOUNCE_MS }));
    // Resolves with `ready`, after the first pass: that pass waits on hang until the write below.
    const started = live.start();
    await until(live, (all) => is(all, 'good', 'connected') && is(all, 'hang', 'connecting'), 20_000);
    const [hangPid] = await startedPids(hangLog);
    expect(hangPid).toBeTypeOf('number');
    expect(isAlive(hangPid!)).toBe(true);
    expect(textOf(await live.tools.call('mcp__good__echo', { text: 'hi' }))).toBe('hi');

    const wrote = Date.now();
    ws.write({ mcpServers: servers, mcp: { excluded: ['good', 'hang'] } });
    await until(live, (all) => is(all, 'good', 'blocked', 'excluded') && is(all, 'hang', 'blocked', 'excluded'), 10_000);
    const took = Date.now() - wrote;
    expect(took).toBeLessThan(BOUND_MS);
    await expect(live.tools.call('mcp__good__echo', { text: 'hi' })).rejects.toThrow(/excluded/);
    // The aborted attempt's process group is ended (SIGTERM at once).
    expect(await waitForExit(hangPid!, 3_000)).toBe(true);
    await started;
  });

  it('dispose while a connect is in flight resolves once that process is gone', async ({ scope }) => {
    const ws = workspace(scope);
    const hangLog = join(ws.dir, 'hang.log');
    ws.write({
      mcpServers: { hang: { command: process.execPath, args: [fixture('hang-server.mjs'), '--start-log', hangLog, '--term-delay', '400'], timeout: 2_000_000_000, connectTimeout: 2_000_000_000 } },
    });
    const live = scope.track(createMcpLive({ cwd: ws.cwd, homeDir: ws.homeDir, runtimeDir: ws.runtimeDir, debounceMs: DEBOUNCE_MS }));
    const started = live.start().catch(() => undefined);
    await until(live, (all) => is(all, 'hang', 'connecting'), 20_000);
    const [hangPid] = await startedPids(hangLog);
    expect(isAlive(hangPid!)).toBe(true);
    // The attempt is given up, not waited for (it would never end); its process, which takes
    // 400 ms to exit on SIGTERM, is waited for before dispose resolves.
    await live.dispose();
    expect(isAlive(hangPid!)).toBe(false);
    await started;
  });

  it('a pass waiting for a stubborn process to end does not hold up an exclusion', async ({ scope }) => {
    const ws = workspace(scope);
    const good = { command: process.execPath, args: [fixture('echo-server.mjs')] };
    // Ignores stdin EOF and SIGTERM: only SIGKILL, after the kill grace (4.5 s here: twice what the exclusion below takes on a loaded machine), ends it.
    const stubborn = { command: process.execPath, args: [fixture('echo-server.mjs'), '--stubborn'] };
    ws.write({ mcpServers: { good, stubborn } });
    const connector = createMcpConnector({ killGraceMs: 4_500 });
    const live = scope.track(createMcpLive({ cwd: ws.cwd, homeDir: ws.homeDir, runtimeDir: ws.runtimeDir, debounceMs: DEBOUNCE_MS, connector }));
    await live.start();
    const stubbornPid = live.servers.status().find((s) => s.name === 'stubborn')?.pid;
    expect(stubbornPid).toBeTypeOf('number');

    // Removing it starts a pass that waits ~5 s for the process to end …
    ws.write({ mcpServers: { good } });
    await until(live, (all) => is(all, 'stubborn', 'disconnected'), 10_000);
    // … and an exclusion written meanwhile is applied while the process is still there.
    ws.write({ mcpServers: { good }, mcp: { excluded: ['good'] } });
    await until(live, (all) => is(all, 'good', 'blocked', 'excluded'), 10_000);
    expect(isAlive(stubbornPid!)).toBe(true);
    await expect(live.tools.call('mcp__good__echo', { text: 'hi' })).rejects.toThrow(/excluded/);
    // The close was not cut short: SIGKILL still comes, and the removal is recorded.
    expect(await waitForExit(stubbornPid!, 10_000)).toBe(true);
    await until(live, (all) => is(all, 'stubborn', 'disconnected', 'removed'), 5_000);
  });
});
