import { mkdir } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import type { Scope } from '../../src/model/types.js';
import { MAX_GATED_ENTRIES, type SettingsFileEvent, type SettingsFileKind } from '../../src/streams/fromSettingsFile.js';
import { Harness } from './settingsFileHarness.js';
import { tempDirEachTest } from './streamTestKit.js';

/**
 * Decision 173: a repository's file (`.mcp.json`, `.lsp.json`, workspace settings) gives at most
 * 5,000 entries per server map. Above that the map is refused whole — a `settings-error` saying
 * so, and the map stays at its last good value (none before there was one); files of the user's
 * own are not capped. Real files, hand-driven watcher.
 */

type FileError = Extract<SettingsFileEvent, { kind: 'error' }>;
type Content = Extract<SettingsFileEvent, { kind: 'content' }>;
const errorsOf = (events: SettingsFileEvent[]): FileError[] => events.filter((e): e is FileError => e.kind === 'error');
const contentsOf = (events: SettingsFileEvent[]): Content[] => events.filter((e): e is Content => e.kind === 'content');

function entries(n: number, prefix = 's'): Record<string, unknown> {
  return Object.fromEntries(Array.from({ length: n }, (_, i) => [`${prefix}${i}`, { command: 'node', args: [`${i}.js`] }]));
}

describe(`gated files give at most ${MAX_GATED_ENTRIES} entries per map (decision 173)`, () => {
  const tmp = tempDirEachTest();
  let harness: Harness | undefined;

  async function start(name: string, content: unknown, scope: Scope, kind?: SettingsFileKind): Promise<Harness> {
    const file = tmp.path(name);
    await mkdir(tmp.dir, { recursive: true });
    harness = tmp.ends(new Harness(file, scope, kind));
    await harness.save(JSON.stringify(content));
    return harness;
  }

  it('a .mcp.json of exactly 5,000 entries is read whole, without an error', async () => {
    const h = await start('.mcp.json', { mcpServers: entries(MAX_GATED_ENTRIES) }, 'project');
    expect(errorsOf(h.values)).toEqual([]);
    expect(Object.keys(contentsOf(h.values).at(-1)!.snapshot.servers)).toHaveLength(MAX_GATED_ENTRIES);
  });

  it('5,001 at the first read: a settings-error, and none of its servers', async () => {
    const h = await start('.mcp.json', { mcpServers: entries(MAX_GATED_ENTRIES + 1) }, 'project');
    expect(errorsOf(h.values).map((e) => e.error)).toEqual([
      `${h.file}: 5,001 entries in "mcpServers"; a project file may give at most 5,000, each needing your approval; none of its servers is read until it has at most that many`,
    ]);
    expect(contentsOf(h.values).map((c) => c.snapshot.servers)).toEqual([{}]);
  });

  it('growing past the cap keeps the last good entries; back under it, the new ones apply and the error clears', async () => {
    const h = await start('.mcp.json', { mcpServers: entries(2) }, 'project');
    await h.save(JSON.stringify({ mcpServers: { ...entries(2), ...entries(MAX_GATED_ENTRIES, 'flood') } }));
    expect(errorsOf(h.values).at(-1)!.error).toMatch(/5,002 entries in "mcpServers".*keeping its last good value \(2 entries\)$/);
    expect(Object.keys(contentsOf(h.values).at(-1)!.snapshot.servers)).toEqual(['s0', 's1']);
    await h.save(JSON.stringify({ mcpServers: entries(3) }));
    expect(h.values.at(-2)).toEqual({ kind: 'ok', file: h.file });
    expect(Object.keys(contentsOf(h.values).at(-1)!.snapshot.servers)).toEqual(['s0', 's1', 's2']);
  });

  it("the project's .lsp.json and each map of the workspace settings are capped too", async () => {
    const lsp = await start('.lsp.json', entries(MAX_GATED_ENTRIES + 1), 'project', 'lsp');
    expect(errorsOf(lsp.values).map((e) => e.error)).toEqual([
      `${lsp.file}: 5,001 language servers; a project file may give at most 5,000, each needing your approval; none of its servers is read until it has at most that many`,
    ]);
    expect(contentsOf(lsp.values).at(-1)!.snapshot.lspServers).toEqual({});
    lsp.dispose();
    const workspace = await start('settings.json', { mcpServers: entries(3), lspServers: entries(MAX_GATED_ENTRIES + 1), mcp: { excluded: ['s1'] } }, 'workspace');
    expect(errorsOf(workspace.values).map((e) => e.key)).toEqual(['lspServers']);
    const snapshot = contentsOf(workspace.values).at(-1)!.snapshot;
    // The other keys of the file apply.
    expect(Object.keys(snapshot.servers)).toEqual(['s0', 's1', 's2']);
    expect(snapshot.mcp).toEqual({ excluded: ['s1'] });
    expect(snapshot.lspServers).toBeUndefined();
  });

  it("the user's own settings and a --mcp-config file are not capped", async () => {
    const user = await start('user.json', { mcpServers: entries(MAX_GATED_ENTRIES + 1) }, 'user');
    expect(errorsOf(user.values)).toEqual([]);
    user.dispose();
    const cli = await start('cli.json', { mcpServers: entries(MAX_GATED_ENTRIES + 1) }, 'cli');
    expect(errorsOf(cli.values)).toEqual([]);
    expect(Object.keys(contentsOf(cli.values).at(-1)!.snapshot.servers)).toHaveLength(MAX_GATED_ENTRIES + 1);
  });
});
