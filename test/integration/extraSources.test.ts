import { execFile } from 'node:child_process';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { BehaviorSubject, filter, firstValueFrom } from 'rxjs';
import { describe, expect } from 'vitest';
import { createMcpLive } from '../../src/index.js';
import { fixture } from './mcpServers.js';
import { it, noLeftoversAfterAll } from './workspace.js';

const ROOT = resolve(import.meta.dirname, '../..');
const echo = (...extra: string[]) => ({ command: process.execPath, args: [fixture('echo-server.mjs'), ...extra] });

noLeftoversAfterAll();

describe.concurrent('extraSources: a host composes a settings source as a stream', () => {
  it('servers from the stream connect, follow its changes, and carry its scope and label', async ({ scope }) => {
    const servers = new BehaviorSubject<Record<string, unknown>>({ x: echo() });
    const { homeDir, cwd } = scope.workspace('mcp-live-extra-', { qwen: false });
    const live = scope.track(createMcpLive({ homeDir, cwd, debounceMs: 30, extraSources: [{ scope: 'cli', source: 'remote:https://example.test/mcp.json', servers$: servers }] }));
    await live.start();
    expect(live.servers.status()).toMatchObject([{ name: 'x', scope: 'cli', source: 'remote:https://example.test/mcp.json', state: 'connected' }]);

    const removed = firstValueFrom(live.events$.pipe(filter((e) => e.type === 'reconcile' && e.removed.includes('x'))));
    servers.next({ y: echo() });
    await removed;
    expect(live.servers.status().find((s) => s.name === 'y')?.state).toBe('connected');
    expect(live.servers.status().find((s) => s.name === 'x')).toMatchObject({ state: 'disconnected', reason: 'removed' });
  });

  it('the runnable example in examples/embedding/host.mjs works', async ({ scope }) => {
    const ws = scope.workspace('mcp-live-extra-', { qwen: false });
    const { stdout } = await promisify(execFile)(process.execPath, [join(ROOT, 'examples/embedding/host.mjs'), ws.cwd], {
      env: { ...process.env, HOME: ws.homeDir, MCP_LIVE_EXTRA: JSON.stringify({ demo: echo() }) },
      timeout: 30_000,
    });
    expect(stdout).toContain('server demo: connected');
    expect(stdout).toContain('mcp__demo__echo');
    expect(stdout).toContain('hello from the host');
  });
});
