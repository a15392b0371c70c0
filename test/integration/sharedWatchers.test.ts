import { writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { defer, filter, finalize, firstValueFrom } from 'rxjs';
import { describe, expect } from 'vitest';
import { createMcpLive } from '../../src/index.js';
import { chokidarWatchFactory, type WatchFactory } from '../../src/streams/watchFactory.js';
import { fixture } from './mcpServers.js';
import { it, noLeftoversAfterAll } from './workspace.js';

noLeftoversAfterAll();

/** chokidar, counting the watchers open per directory. */
function countingChokidar() {
  const opened: string[] = [];
  const open = new Map<string, number>();
  const watch: WatchFactory = (d) =>
    defer(() => {
      const key = resolve(d);
      opened.push(key);
      open.set(key, (open.get(key) ?? 0) + 1);
      return chokidarWatchFactory(d).pipe(finalize(() => open.set(key, open.get(key)! - 1)));
    });
  return { watch, opened, open };
}

describe('one watcher per directory (decision 108)', () => {
  it('a session opens one chokidar watcher for ~/.qwen and one for the workspace, and still sees every file in them', async ({ scope }) => {
    const { homeDir, cwd } = scope.workspace('mcp-live-shared-', { extra: ['project/.qwen'] });
    const chokidar = countingChokidar();
    const live = scope.track(createMcpLive({ homeDir, cwd, debounceMs: 30, watch: chokidar.watch }));
    await live.start();

    // settings.json, mcpApprovals.json, trustedFolders.json and the missing extensions/ live in
    // ~/.qwen; .mcp.json in the workspace, the workspace settings in its .qwen/.
    expect(live.watching.filter((file) => dirname(file) === join(homeDir, '.qwen'))).toHaveLength(4);
    // The other records of the user's yes to a folder are listed too (decision 302), each once.
    expect(live.watching).toEqual(expect.arrayContaining([join(homeDir, '.claude.json'), join(homeDir, '.gemini', 'trustedFolders.json')]));
    expect(new Set(live.watching).size).toBe(live.watching.length);
    expect(chokidar.opened.filter((d) => d === join(homeDir, '.qwen'))).toEqual([join(homeDir, '.qwen')]);
    expect(chokidar.opened.filter((d) => d === cwd)).toEqual([cwd]);
    expect(new Set(chokidar.opened).size).toBe(chokidar.opened.length);

    // The one watcher of ~/.qwen serves the user settings: a server added there connects.
    const added = firstValueFrom(live.events$.pipe(filter((e) => e.type === 'reconcile' && e.added.includes('echo'))));
    await writeFile(
      join(homeDir, '.qwen', 'settings.json'),
      JSON.stringify({ mcpServers: { echo: { command: process.execPath, args: [fixture('echo-server.mjs')] } } }),
    );
    await added;
    // … and the workspace's one serves .mcp.json next to it (a project server waits for approval).
    const project = firstValueFrom(live.events$.pipe(filter((e) => e.type === 'approval-required' && e.servers.some((s) => s.name === 'proj'))));
    await writeFile(join(cwd, '.mcp.json'), JSON.stringify({ mcpServers: { proj: { command: process.execPath, args: [fixture('echo-server.mjs')] } } }));
    await project;
    expect(new Set(chokidar.opened).size).toBe(chokidar.opened.length);

    await live.dispose();
    expect([...chokidar.open.values()].every((n) => n === 0)).toBe(true);
  });
});
