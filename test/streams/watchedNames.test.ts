import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { watch, type ChokidarOptions, type FSWatcher } from 'chokidar';
import { NEVER } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { shareWatchersByDirectory } from '../../src/streams/shareWatchersByDirectory.js';
import { createChokidarWatchFactory, type ChildNames } from '../../src/streams/watchFactory.js';
import { watchFile } from '../../src/streams/watchFile.js';
import { makeTempDir, record, removeDir, waitFor } from './streamTestKit.js';

/**
 * A directory full of other files (decision 194): the watcher of a workspace root keeps and
 * watches only the names its sources want, not the whole listing, and the sources still hear
 * atomic saves, creates and a missing directory appearing (docs/contract.md, "Watching").
 */

const OTHER_FILES = 2_000;

describe('what watchDirectory asks its watcher to track', () => {
  it('the file\'s name in its directory; in an ancestor, only the next component down to it', () => {
    const asked: [string, ChildNames | undefined][] = [];
    const existing = new Set(['/', '/work']);
    const subscription = watchFile('/work/repo/.qwen/settings.json', {
      watch: (dir, wanted) => {
        asked.push([dir, wanted]);
        return NEVER;
      },
      isDirectory: (path) => existing.has(path),
      linkTarget: () => undefined,
    }).subscribe();
    expect(asked.map(([dir]) => dir)).toEqual(['/work']);
    const [[, atAncestor]] = asked as [[string, ChildNames]];
    expect(['repo', '.qwen', 'settings.json', 'other'].map(atAncestor)).toEqual([true, false, false, false]);
    subscription.unsubscribe();
  });
});

describe('watching a crowded workspace root (real chokidar)', () => {
  it('keeps only the wanted names, however many other files the directory holds, and still hears their saves', async () => {
    const dir = await makeTempDir();
    await Promise.all(Array.from({ length: OTHER_FILES }, (_, i) => writeFile(join(dir, `file${i}.txt`), '')));
    await writeFile(join(dir, '.mcp.json'), '{}');
    const watchers = new Map<string, FSWatcher>();
    const spy = (path: string, options: ChokidarOptions): FSWatcher => {
      const watcher = watch(path, options);
      watchers.set(path, watcher);
      return watcher;
    };
    const deps = { watch: shareWatchersByDirectory(createChokidarWatchFactory(spy)) };
    // As a session watches a workspace: .mcp.json, .lsp.json, and .qwen/settings.json from here while .qwen is missing.
    const mcp = record(watchFile(join(dir, '.mcp.json'), deps));
    const lsp = record(watchFile(join(dir, '.lsp.json'), deps));
    const workspace = record(watchFile(join(dir, '.qwen', 'settings.json'), deps));
    try {
      await waitFor('the watcher to be ready', () => mcp.values.includes('check'), 20_000);
      expect([...watchers.keys()]).toEqual([dir]);
      expect(watchers.get(dir)!.getWatched()[dir]?.sort()).toEqual(['.mcp.json']);

      // An atomic save of .mcp.json, a new .lsp.json, a change of another file.
      const seen = { mcp: mcp.values.length, lsp: lsp.values.length, workspace: workspace.values.length };
      await writeFile(join(dir, 'file1.txt'), 'x');
      await writeFile(join(dir, '.mcp.json.tmp'), '{"mcpServers":{}}');
      await rename(join(dir, '.mcp.json.tmp'), join(dir, '.mcp.json'));
      await writeFile(join(dir, '.lsp.json'), '{}');
      await waitFor('.mcp.json and .lsp.json to tick', () => mcp.values.length > seen.mcp && lsp.values.length > seen.lsp);

      // .qwen appears: the workspace settings move their watch down into it.
      await mkdir(join(dir, '.qwen'));
      await writeFile(join(dir, '.qwen', 'settings.json'), '{}');
      await waitFor('.qwen/settings.json to be watched', () => workspace.values.length > seen.workspace && watchers.has(join(dir, '.qwen')));
      expect(watchers.get(dir)!.getWatched()[dir]?.filter((name) => name.startsWith('file'))).toEqual([]);
      expect([mcp.errors, lsp.errors, workspace.errors]).toEqual([[], [], []]);
    } finally {
      for (const r of [mcp, lsp, workspace]) r.subscription.unsubscribe();
      await removeDir(dir);
    }
  });
});
