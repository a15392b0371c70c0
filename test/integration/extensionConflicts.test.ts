import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { filter, firstValueFrom } from 'rxjs';
import { describe, expect } from 'vitest';
import { createMcpLive } from '../../src/index.js';
import type { LogEvent } from '../../src/model/report/events.js';
import { fixture } from './mcpServers.js';
import { isAlive } from './processes.js';
import { it, noLeftoversAfterAll } from './workspace.js';

/**
 * Decision 58 end to end: installing a second extension that names the same server must not swap
 * the running process for its own. Real extension directories, real watcher, real processes.
 */

noLeftoversAfterAll();

function installExtension(home: string, name: string, args: string[]): string {
  const root = join(home, '.qwen', 'extensions', name);
  mkdirSync(root, { recursive: true });
  const manifest = join(root, 'qwen-extension.json');
  const server = { command: process.execPath, args: [fixture('tiny-server.mjs'), ...args] };
  writeFileSync(manifest, JSON.stringify({ name, version: '1.0.0', mcpServers: { 'ext-server': server } }));
  return manifest;
}

describe('an extension cannot hijack another extension\'s server', () => {
  it('zzz-later, installed second, is ignored with a warning naming both; ext-one\'s process keeps running', async ({ scope }) => {
    const { homeDir: home, cwd } = scope.workspace('mcp-live-ext-conflict-', { qwen: false });
    const oneManifest = installExtension(home, 'ext-one', ['--from', 'one']);
    const live = scope.track(createMcpLive({ homeDir: home, cwd, debounceMs: 30 }));
    // The warning, or (before the fix) the swap: whichever comes first, so a regression fails fast.
    const outcome = firstValueFrom(
      live.events$.pipe(
        filter(
          (e) =>
            (e.type === 'log' && e.level === 'warn' && e.message.includes('zzz-later')) ||
            (e.type === 'reconcile' && e.reconnected.includes('ext-server')),
        ),
      ),
    );
    await live.start();
    const before = live.servers.status().find((s) => s.name === 'ext-server');
    expect(before).toMatchObject({ state: 'connected', scope: 'extension', source: oneManifest });

    installExtension(home, 'zzz-later', ['--from', 'zzz']);
    expect(await outcome).toMatchObject({ type: 'log', level: 'warn' });
    expect(((await outcome) as LogEvent).message).toBe(
      'extension "zzz-later": MCP server "ext-server" is ignored – extension "ext-one", installed earlier, provides it',
    );
    // Give a (wrong) swap every chance: the next pass after the warning changes nothing.
    const reloaded = firstValueFrom(live.events$.pipe(filter((e) => e.type === 'reconcile')));
    live.reload();
    await reloaded;
    const after = live.servers.status().find((s) => s.name === 'ext-server');
    expect(after).toMatchObject({ state: 'connected', source: oneManifest, pid: before!.pid });
    expect(isAlive(before!.pid!)).toBe(true);
  });
});
