import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { BehaviorSubject, filter, firstValueFrom } from 'rxjs';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createMcpLive, type McpLive } from '../../src/index.js';
import { fixture } from './mcpServers.js';
import { waitForNoLeftovers } from './processes.js';

const ROOT = resolve(import.meta.dirname, '../..');
const echo = (...extra: string[]) => ({ command: process.execPath, args: [fixture('echo-server.mjs'), ...extra] });

let dir: string;
let live: McpLive | undefined;

function tempWorkspace() {
  dir = mkdtempSync(join(tmpdir(), 'mcp-live-extra-'));
  mkdirSync(join(dir, 'home'));
  mkdirSync(join(dir, 'project'));
  return { homeDir: join(dir, 'home'), cwd: join(dir, 'project') };
}

afterEach(async () => {
  await live?.dispose();
  live = undefined;
  rmSync(dir, { recursive: true, force: true });
});
afterAll(async () => {
  expect(await waitForNoLeftovers()).toEqual([]);
});

describe('extraSources: a host composes a settings source as a stream', () => {
  it('servers from the stream connect, follow its changes, and carry its scope and label', async () => {
    const servers = new BehaviorSubject<Record<string, unknown>>({ x: echo() });
    live = createMcpLive({ ...tempWorkspace(), debounceMs: 30, extraSources: [{ scope: 'cli', source: 'remote:https://example.test/mcp.json', servers$: servers }] });
    await live.start();
    expect(live.statusReport()).toMatchObject([{ name: 'x', scope: 'cli', source: 'remote:https://example.test/mcp.json', state: 'connected' }]);

    const removed = firstValueFrom(live.events$.pipe(filter((e) => e.type === 'reconcile' && e.removed.includes('x'))));
    servers.next({ y: echo() });
    await removed;
    expect(live.statusReport().find((s) => s.name === 'y')?.state).toBe('connected');
    expect(live.statusReport().find((s) => s.name === 'x')).toMatchObject({ state: 'disconnected', reason: 'removed' });
  });

  it('the runnable example in examples/embedding/host.mjs works', async () => {
    const ws = tempWorkspace();
    const { stdout } = await promisify(execFile)(process.execPath, [join(ROOT, 'examples/embedding/host.mjs'), ws.cwd], {
      env: { ...process.env, HOME: ws.homeDir, MCP_LIVE_EXTRA: JSON.stringify({ demo: echo() }) },
      timeout: 30_000,
    });
    expect(stdout).toContain('server demo: connected');
    expect(stdout).toContain('mcp__demo__echo');
    expect(stdout).toContain('hello from the host');
  });
});
