import { rm, writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { changedBetween } from '../../src/model/reconcile/recordLineage.js';
import type { Scope } from '../../src/model/types.js';
import { fromSettingsFile, type SettingsFileEvent, type SettingsFileKind } from '../../src/streams/fromSettingsFile.js';
import { classifyChange } from '../../src/model/settings/restartRequired.js';
import { Harness } from './settingsFileHarness.js';
import { record, waitFor, tempDirEachTest, type Recording } from './streamTestKit.js';

/** Decisions 146 and 147: language servers from settings files (`lspServers`, `lsp`) and `.lsp.json`-format files. */

type Content = Extract<SettingsFileEvent, { kind: 'content' }>;
type FileError = Extract<SettingsFileEvent, { kind: 'error' }>;

const contents = (events: SettingsFileEvent[]): Content[] => events.filter((e): e is Content => e.kind === 'content');
const errors = (events: SettingsFileEvent[]): FileError[] => events.filter((e): e is FileError => e.kind === 'error');
const lspOf = (h: Harness): (Record<string, unknown> | undefined)[] => contents(h.values).map((e) => e.snapshot.lspServers);

const TS = { command: 'typescript-language-server', args: ['--stdio'], extensionToLanguage: { '.ts': 'typescript' } };
const PY = { command: 'pyright-langserver', args: ['--stdio'], extensionToLanguage: { '.py': 'python' } };

const settings = (lspServers: unknown, lsp?: unknown): string =>
  JSON.stringify({ mcpServers: { fs: { command: 'fs' } }, lspServers, ...(lsp === undefined ? {} : { lsp }) });

describe('fromSettingsFile: language servers (hand-driven watcher, real files)', () => {
  const tmp = tempDirEachTest();
  let harness: Harness | undefined;

  async function start(name: string, text: string | undefined, scope: Scope = 'user', kind?: SettingsFileKind): Promise<Harness> {
    const file = tmp.path(name);
    if (text !== undefined) await writeFile(file, text);
    harness = tmp.ends(new Harness(file, scope, kind));
    await harness.started();
    return harness;
  }

  describe('settings files', () => {
    it('carry lspServers and the lsp lists beside the MCP servers, and apply edits live', async () => {
      const h = await start('settings.json', settings({ ts: TS }, { allowed: ['ts', 'py*'], excluded: ['old'] }));
      expect(contents(h.values)[0]!.snapshot).toEqual({
        scope: 'user',
        file: h.file,
        servers: { fs: { command: 'fs' } },
        lspServers: { ts: TS },
        lsp: { allowed: ['ts', 'py*'], excluded: ['old'] },
      });

      await h.save(settings({ ts: { ...TS, args: ['--stdio', '--log-level', '4'] }, py: PY }, { allowed: ['ts', 'py*'], excluded: ['old'] }));
      const edited = contents(h.values)[1]!;
      expect(edited.snapshot.lspServers).toEqual({ ts: { ...TS, args: ['--stdio', '--log-level', '4'] }, py: PY });
      expect(edited.changedKeys).toEqual(['lspServers.ts.args', 'lspServers.py.command', 'lspServers.py.args', 'lspServers.py.extensionToLanguage..py']);
      // Language servers and their lists reconcile live, like mcpServers.
      expect(classifyChange(edited.changedKeys).hot).toBe(true);
      await h.save(settings({ py: PY }, { excluded: ['old', 'ts'] }));
      expect(classifyChange(contents(h.values)[2]!.changedKeys)).toEqual({ hot: true, restartKeys: [] });
      expect(contents(h.values)[2]!.snapshot.lsp).toEqual({ excluded: ['old', 'ts'] });
      expect(errors(h.values)).toEqual([]);
    });

    it('keep the identity of language server entries nobody edited, and say which changed', async () => {
      const h = await start('settings.json', settings({ ts: TS, py: PY }));
      await h.save(settings({ ts: TS, py: { ...PY, settings: { python: { analysis: { typeCheckingMode: 'strict' } } } } }));
      const [first, second] = lspOf(h);
      expect(second!.ts).toBe(first!.ts);
      expect(second!.py).not.toBe(first!.py);
      expect(changedBetween(first!, second!)).toEqual(new Set(['py']));
    });

    it('a broken file keeps its last good language servers', async () => {
      const h = await start('settings.json', settings({ ts: TS }));
      await h.save('{ "lspServers": { "ts": ');
      expect(h.values.slice(1)).toMatchObject([{ kind: 'error', file: h.file, line: 1 }]);
      expect(lspOf(h)).toEqual([{ ts: TS }]);
    });

    it('"lspServers": [] is an error naming the file and key; the last good servers stay, the rest applies', async () => {
      const h = await start('settings.json', settings({ ts: TS }));
      await h.save(JSON.stringify({ mcpServers: { fs: { command: 'fs2' } }, lspServers: [TS] }));
      const [error] = errors(h.values);
      expect(error).toEqual({
        kind: 'error',
        file: h.file,
        key: 'lspServers',
        error: `${h.file}: "lspServers" must be an object of language servers by name ({ "name": { … } }), found a list; keeping its last good value`,
      });
      expect(contents(h.values)[1]!.snapshot).toMatchObject({ servers: { fs: { command: 'fs2' } }, lspServers: { ts: TS } });
    });

    it('a bad entry is only itself: it is passed on as written, for validation per entry', async () => {
      const h = await start('settings.json', settings({ ts: TS, bad: 'not an entry', worse: { command: 42 } }));
      expect(errors(h.values)).toEqual([]);
      expect(lspOf(h)[0]).toEqual({ ts: TS, bad: 'not an entry', worse: { command: 42 } });
    });

    it('a badly typed lsp.allowed at the first read allows no language server and the file is broken (fail closed)', async () => {
      const h = await start('settings.json', settings({ ts: TS }, { allowed: 'ts' }));
      expect(errors(h.values)).toMatchObject([{ key: 'lsp.allowed' }]);
      expect(errors(h.values)[0]!.error).toBe(
        `${h.file}: "lsp.allowed" must be a list of language server names (["a", "b"]), found a string ("ts"); allowing no server until it is fixed`,
      );
      const [content] = contents(h.values);
      expect(content!.snapshot.lsp).toEqual({ allowed: [] });
      expect(content!.snapshot.broken).toMatch(/"lsp\.allowed" must be/);

      await h.save(settings({ ts: TS }, { allowed: ['ts'] }));
      expect(h.values.slice(2)).toMatchObject([{ kind: 'ok' }, { kind: 'content', snapshot: { lsp: { allowed: ['ts'] } } }]);
      expect(contents(h.values)[1]!.snapshot.broken).toBeUndefined();
    });

    it('a badly typed lsp or lsp.excluded after a good read keeps its last good value, never broken', async () => {
      const h = await start('settings.json', settings({ ts: TS }, { excluded: ['py'] }));
      await h.save(settings({ ts: TS, py: PY }, { excluded: 'py' }));
      expect(errors(h.values)).toMatchObject([{ key: 'lsp.excluded' }]);
      expect(errors(h.values)[0]!.error).toMatch(/keeping its last good value$/);
      expect(contents(h.values)[1]!.snapshot).toMatchObject({ lsp: { excluded: ['py'] }, lspServers: { ts: TS, py: PY } });
      await h.save(settings({ ts: TS, py: PY }, ['py']));
      expect(errors(h.values).map((e) => e.key)).toEqual(['lsp.excluded', 'lsp']);
      expect(contents(h.values).every((c) => c.snapshot.broken === undefined)).toBe(true);
      expect(contents(h.values).at(-1)!.snapshot.lsp).toEqual({ excluded: ['py'] });
    });

    it('a badly typed lsp.excluded at the first read: absent and broken, like mcp.excluded', async () => {
      const h = await start('settings.json', settings({ ts: TS }, { excluded: 'py' }));
      expect(contents(h.values)[0]!.snapshot).toMatchObject({ lsp: {}, broken: expect.stringContaining('"lsp.excluded" must be') as unknown });
    });

    it('.mcp.json and --mcp-config files carry no language servers', async () => {
      const h = await start('.mcp.json', JSON.stringify({ mcpServers: { fs: { command: 'fs' } }, lspServers: { ts: TS } }), 'project');
      expect(contents(h.values)[0]!.snapshot).toEqual({ scope: 'project', file: h.file, servers: { fs: { command: 'fs' } } });
    });
  });

  describe('.lsp.json-format files (project .lsp.json, --lsp-config)', () => {
    it('the whole file maps server names to entries; read, edited and deleted (→ empty)', async () => {
      const h = await start('.lsp.json', JSON.stringify({ $schema: 'https://example.test/lsp.schema.json', ts: TS }), 'project', 'lsp');
      expect(h.values).toEqual([
        {
          kind: 'content',
          snapshot: { scope: 'project', file: h.file, servers: {}, lspServers: { ts: TS } },
          raw: { lspServers: { ts: TS } },
          changedKeys: ['lspServers.ts.command', 'lspServers.ts.args', 'lspServers.ts.extensionToLanguage..ts'],
        },
      ]);

      await h.save(JSON.stringify({ ts: TS, py: PY }));
      const [first, second] = lspOf(h);
      expect(second).toEqual({ ts: TS, py: PY });
      expect(second!.ts).toBe(first!.ts);

      await rm(h.file);
      await h.tick();
      expect(contents(h.values)[2]!.snapshot).toEqual({ scope: 'project', file: h.file, servers: {}, lspServers: {} });
      expect(errors(h.values)).toEqual([]);
    });

    it('a missing file is an empty source', async () => {
      const h = await start('.lsp.json', undefined, 'project', 'lsp');
      expect(contents(h.values).map((c) => c.snapshot)).toEqual([{ scope: 'project', file: h.file, servers: {}, lspServers: {} }]);
    });

    it('a file that is not an object is an error for that file; the last good servers stay', async () => {
      const h = await start('.lsp.json', JSON.stringify({ ts: TS }), 'project', 'lsp');
      await h.save(JSON.stringify([TS]));
      expect(h.values.slice(1)).toEqual([
        { kind: 'error', file: h.file, error: `${h.file}: the top level must be a JSON object ({ … }), found a list` },
      ]);
      await h.save('{ "ts": ');
      expect(errors(h.values)).toHaveLength(2);
      expect(lspOf(h)).toEqual([{ ts: TS }]);
      await h.save(JSON.stringify({ py: PY }));
      expect(h.values.slice(3)).toMatchObject([{ kind: 'ok' }, { kind: 'content', snapshot: { lspServers: { py: PY } } }]);
    });

    it('broken from the first read: an error, then an empty source (never broken: it has no admission keys)', async () => {
      const h = await start('.lsp.json', '"ts"', 'cli', 'lsp');
      expect(h.values).toMatchObject([{ kind: 'error' }, { kind: 'content', snapshot: { scope: 'cli', servers: {}, lspServers: {} } }]);
      expect(contents(h.values)[0]!.snapshot.broken).toBeUndefined();
    });

    it('also reads {"lspServers": {…}} (a plugin.json or settings-style file); its other keys are not servers', async () => {
      const h = await start('lsp.json', JSON.stringify({ name: 'plugin', mcpServers: { fs: { command: 'fs' } }, lspServers: { ts: TS } }), 'cli', 'lsp');
      expect(contents(h.values)[0]!.snapshot).toEqual({ scope: 'cli', file: h.file, servers: {}, lspServers: { ts: TS } });
      await h.save(JSON.stringify({ lspServers: 'ts' }));
      expect(errors(h.values)).toMatchObject([{ key: 'lspServers' }]);
      expect(lspOf(h)).toEqual([{ ts: TS }]);
    });

    it('entries named __proto__ and constructor are plain names', async () => {
      const h = await start('.lsp.json', '{ "__proto__": { "command": "p" }, "constructor": { "command": "c" } }', 'project', 'lsp');
      const servers = lspOf(h)[0]!;
      expect(Object.keys(servers)).toEqual(['__proto__', 'constructor']);
      expect(Object.getOwnPropertyDescriptor(servers, '__proto__')?.value).toEqual({ command: 'p' });
    });
  });
});

describe('fromSettingsFile: a .lsp.json (real chokidar)', () => {
  const tmp = tempDirEachTest();
  let recording: Recording<SettingsFileEvent> | undefined;

  const names = (): string => JSON.stringify(Object.keys(contents(recording?.values ?? []).at(-1)?.snapshot.lspServers ?? { '<none>': 1 }));

  it('is watched: created, edited, broken (kept), fixed and deleted', async () => {
    const file = tmp.path('.lsp.json');
    recording = tmp.ends(record(fromSettingsFile(file, 'project', { kind: 'lsp' })));
    await waitFor('the empty source', () => names() === '[]');
    await writeFile(file, JSON.stringify({ ts: TS }));
    await waitFor('ts', () => names() === '["ts"]');
    await writeFile(file, '[]');
    await waitFor('the error', () => errors(recording!.values).length > 0);
    expect(names()).toBe('["ts"]');
    await writeFile(file, JSON.stringify({ ts: TS, py: PY }));
    await waitFor('ts and py', () => names() === '["ts","py"]');
    await rm(file);
    await waitFor('nothing', () => names() === '[]');
  });
});
