import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Scope } from '../../src/model/types.js';
import { fromSettingsFile, type SettingsFileEvent, type SettingsFileKind } from '../../src/streams/fromSettingsFile.js';
import { classifyChange } from '../../src/model/settings/restartRequired.js';
import { record, waitFor, tempDirEachTest, type Recording } from './streamTestKit.js';
import { Harness } from './settingsFileHarness.js';

type Content = Extract<SettingsFileEvent, { kind: 'content' }>;
type FileError = Extract<SettingsFileEvent, { kind: 'error' }>;

const contents = (events: SettingsFileEvent[]): Content[] => events.filter((e): e is Content => e.kind === 'content');
const errors = (events: SettingsFileEvent[]): FileError[] => events.filter((e): e is FileError => e.kind === 'error');

const SETTINGS = `{
  // servers
  "mcpServers": {
    "fs": { "command": "npx", "args": ["fs-server"] },
    "web": { "httpUrl": "https://example.test/mcp" }
  },
  "mcp": { "allowed": ["fs", "web"], "excluded": ["old"] },
  "security": { "folderTrust": { "enabled": true } },
  "ui": { "theme": "dark" }
}`;

describe('fromSettingsFile (hand-driven watcher, real files)', () => {
  const tmp = tempDirEachTest('settings.json');
  let harness: Harness | undefined;

  async function start(text: string | undefined, scope: Scope = 'user', kind?: SettingsFileKind): Promise<Harness> {
    if (text !== undefined) await writeFile(tmp.file, text);
    harness = tmp.ends(new Harness(tmp.file, scope, kind));
    await harness.started();
    return harness;
  }

  it('emits the first content with every leaf key as changed', async () => {
    const h = await start(SETTINGS);
    expect(h.values).toEqual([
      {
        kind: 'content',
        snapshot: {
          scope: 'user',
          file: tmp.file,
          servers: { fs: { command: 'npx', args: ['fs-server'] }, web: { httpUrl: 'https://example.test/mcp' } },
          mcp: { allowed: ['fs', 'web'], excluded: ['old'] },
          folderTrustEnabled: true,
        },
        raw: expect.objectContaining({ ui: { theme: 'dark' } }) as unknown,
        changedKeys: [
          'mcpServers.fs.command',
          'mcpServers.fs.args',
          'mcpServers.web.httpUrl',
          'mcp.allowed',
          'mcp.excluded',
          'security.folderTrust.enabled',
          'ui.theme',
        ],
      },
    ]);
  });

  it('emits nothing for the same content, comment or whitespace edits, or reordered keys', async () => {
    const h = await start(SETTINGS);
    await h.save(SETTINGS);
    await h.save(SETTINGS.replace('// servers', '// the servers I use').replace(/\n {2}/g, '\n\t'));
    await h.save(
      '{ "ui": { "theme": "dark" }, "security": { "folderTrust": { "enabled": true } },' +
        ' "mcp": { "excluded": ["old"], "allowed": ["fs", "web"] },' +
        ' "mcpServers": { "web": { "httpUrl": "https://example.test/mcp" }, "fs": { "args": ["fs-server"], "command": "npx" } } }',
    );
    expect(h.reads).toBe(4);
    expect(h.values).toHaveLength(1);
  });

  it('reports invalid JSON with line and column, keeps the last good content, and applies the fix', async () => {
    const h = await start(SETTINGS);
    await h.save('{\n  "mcpServers": {\n    "fs": { "command": }\n  }\n}');
    expect(h.values.slice(1)).toEqual([
      {
        kind: 'error',
        file: tmp.file,
        line: 3,
        column: 24,
        error: `${tmp.file}:3:24: expected a value (ValueExpected)`,
      },
    ]);

    // Back to the last good content: nothing to apply, but the error is cleared.
    await h.save(SETTINGS);
    expect(h.values.slice(2)).toEqual([{ kind: 'ok', file: tmp.file }]);

    // A real fix applies, with the keys changed since the last good content.
    await h.save(SETTINGS.replace('"fs-server"', '"fs-server", "--ro"'));
    expect(h.values).toHaveLength(4);
    const fixed = contents(h.values)[1]!;
    expect(fixed.snapshot.servers).toMatchObject({ fs: { args: ['fs-server', '--ro'] } });
    expect(fixed.changedKeys).toEqual(['mcpServers.fs.args']);
  });

  it('reports "mcpServers": [] by key, keeps the last good servers and applies the rest', async () => {
    const h = await start(SETTINGS);
    await h.save(SETTINGS.replace(/"mcpServers": \{[^]*?\n {2}\},/, '"mcpServers": [],').replace('"old"', '"old", "new"'));
    const [error, content] = h.values.slice(1);
    expect(error).toMatchObject({ kind: 'error', file: tmp.file, key: 'mcpServers' });
    expect((error as FileError).error).toBe(
      `${tmp.file}: "mcpServers" must be an object of servers by name ({ "name": { … } }), found a list; keeping its last good value`,
    );
    expect(content).toMatchObject({
      kind: 'content',
      snapshot: { servers: { fs: { command: 'npx' }, web: {} }, mcp: { excluded: ['old', 'new'] } },
      changedKeys: ['mcp.excluded'],
    });
  });

  it('reports "mcp.allowed": "a" by key and keeps its last good value; an unchanged bad key is not reported again', async () => {
    const h = await start(SETTINGS);
    const bad = SETTINGS.replace('"allowed": ["fs", "web"]', '"allowed": "fs"');
    await h.save(bad);
    expect(h.values.slice(1)).toEqual([
      {
        kind: 'error',
        file: tmp.file,
        key: 'mcp.allowed',
        error: `${tmp.file}: "mcp.allowed" must be a list of server names (["a", "b"]), found a string ("fs"); keeping its last good value`,
      },
    ]);
    await h.save(bad.replace('"old"', '"older"'));
    expect(h.values.slice(2)).toMatchObject([
      { kind: 'error', key: 'mcp.allowed' },
      { kind: 'content', snapshot: { mcp: { allowed: ['fs', 'web'], excluded: ['older'] } }, changedKeys: ['mcp.excluded'] },
    ]);
    await h.save(bad.replace('"old"', '"older"') + '\n// same content');
    expect(h.values).toHaveLength(4);
  });

  it('fails closed when the very first read has a badly typed mcp.allowed: no server is allowed', async () => {
    const h = await start('{ "mcp": { "allowed": "fs" }, "mcpServers": { "fs": { "command": "x" } } }');
    expect(errors(h.values)).toMatchObject([{ key: 'mcp.allowed' }]);
    expect((errors(h.values)[0]!).error).toMatch(/allowing no server until it is fixed$/);
    expect(contents(h.values)[0]!.snapshot.mcp).toEqual({ allowed: [] });
  });

  it('a badly typed mcp.excluded or folderTrust switch at first read: the key is absent and the file is broken (fail closed)', async () => {
    const h = await start('{ "mcp": { "excluded": "x" }, "security": { "folderTrust": { "enabled": "yes" } } }');
    expect(errors(h.values).map((e) => e.key)).toEqual(['mcp.excluded', 'security.folderTrust.enabled']);
    expect(errors(h.values)[0]!.error).toMatch(/ignoring it$/);
    const [content] = contents(h.values);
    expect(content!.snapshot).toEqual({
      scope: 'user',
      file: tmp.file,
      servers: {},
      mcp: {},
      broken: `${tmp.file}: "mcp.excluded" must be a list of server names (["a", "b"]), found a string ("x")`,
    });
  });

  it('emits an empty content once after an initial parse error, so the source has a value', async () => {
    const h = await start('{ "mcpServers": ');
    expect(h.values).toMatchObject([
      { kind: 'error', line: 1, column: 17 },
      { kind: 'content', snapshot: { servers: {} }, changedKeys: [] },
    ]);
    await h.save('{ "mcpServers": { "a": { "command": "x" } } }');
    expect(h.values.slice(2)).toMatchObject([
      { kind: 'ok', file: tmp.file },
      { kind: 'content', snapshot: { servers: { a: { command: 'x' } } }, changedKeys: ['mcpServers.a.command'] },
    ]);
  });

  it('reads a missing file as an empty source, and a deleted file as emptied', async () => {
    const h = await start(undefined);
    expect(h.values).toEqual([{ kind: 'content', snapshot: { scope: 'user', file: tmp.file, servers: {} }, raw: {}, changedKeys: [] }]);
    await h.save('{ "mcpServers": { "a": { "command": "x" } } }');
    await rm(tmp.file);
    await h.tick();
    expect(h.values.slice(2)).toEqual([
      { kind: 'content', snapshot: { scope: 'user', file: tmp.file, servers: {} }, raw: {}, changedKeys: ['mcpServers.a.command'] },
    ]);
  });

  it('reads only mcpServers from .mcp.json and keeps Claude\'s "type" field', async () => {
    const h = await start(
      '{ "mcpServers": { "remote": { "type": "http", "url": "https://x.test/mcp" } }, "mcp": { "allowed": [] } }',
      'project',
    );
    expect(contents(h.values)[0]!.snapshot).toEqual({
      scope: 'project',
      file: tmp.file,
      servers: { remote: { type: 'http', url: 'https://x.test/mcp' } },
    });
  });

  it('classifies changes: theme only → hot, mcp.serverCommand only → restart, with a server change → hot', async () => {
    const h = await start(SETTINGS);
    await h.save(SETTINGS.replace('"dark"', '"light"'));
    const theme = contents(h.values)[1]!.changedKeys;
    expect(theme).toEqual(['ui.theme']);
    expect(classifyChange(theme)).toEqual({ hot: true, restartKeys: [] });

    await h.save(SETTINGS.replace('"dark"', '"light"').replace('"excluded"', '"serverCommand": "run-mcp", "excluded"'));
    const command = contents(h.values)[2]!.changedKeys;
    expect(command).toEqual(['mcp.serverCommand']);
    expect(classifyChange(command)).toEqual({ hot: false, restartKeys: ['mcp.serverCommand'] });

    await h.save(
      SETTINGS.replace('"dark"', '"light"')
        .replace('"excluded"', '"serverCommand": "run-mcp-2", "excluded"')
        .replace('"fs-server"', '"fs-server-2"'),
    );
    const both = contents(h.values)[3]!.changedKeys;
    expect(both).toEqual(['mcpServers.fs.args', 'mcp.serverCommand']);
    expect(classifyChange(both)).toEqual({ hot: true, restartKeys: ['mcp.serverCommand'] });
  });

  it('handles servers named __proto__ and constructor as plain names', async () => {
    const text = '{ "mcpServers": { "__proto__": { "command": "p" }, "constructor": { "command": "c" } } }';
    const h = await start(text);
    const servers = contents(h.values)[0]!.snapshot.servers;
    expect(Object.keys(servers)).toEqual(['__proto__', 'constructor']);
    expect(Object.getOwnPropertyDescriptor(servers, '__proto__')?.value).toEqual({ command: 'p' });
    await h.save(text + '\n');
    expect(h.values).toHaveLength(1);
  });
});

describe('fromSettingsFile (real chokidar)', () => {
  const tmp = tempDirEachTest();
  let recording: Recording<SettingsFileEvent> | undefined;

  const servers = (name: string): string => `{ "mcpServers": { "${name}": { "command": "${name}-cmd" } } }`;
  const lastServers = (): string[] => {
    const last = contents(recording?.values ?? []).at(-1);
    return last === undefined ? ['<none>'] : Object.keys(last.snapshot.servers);
  };
  async function expectServers(names: string[]): Promise<void> {
    await waitFor(`servers ${JSON.stringify(names)}`, () => JSON.stringify(lastServers()) === JSON.stringify(names));
  }

  it('sees an atomic rename save (write settings.json.tmp, rename over)', async () => {
    const file = tmp.path('settings.json');
    await writeFile(file, servers('a'));
    recording = tmp.ends(record(fromSettingsFile(file, 'user')));
    await expectServers(['a']);
    await writeFile(`${file}.tmp`, servers('b'));
    const { rename } = await import('node:fs/promises');
    await rename(`${file}.tmp`, file);
    await expectServers(['b']);
    expect(errors(recording.values)).toEqual([]);
  });

  it('reads the last of two saves in quick succession (chokidar drops the second change event)', async () => {
    const file = tmp.path('settings.json');
    await writeFile(file, servers('a'));
    recording = tmp.ends(record(fromSettingsFile(file, 'user')));
    await expectServers(['a']);
    for (const name of ['b', 'c', 'd']) {
      // Right after the previous save was read: within chokidar's 50 ms change throttle.
      await writeFile(file, servers(name));
      await expectServers([name]);
    }
  });

  it('sees the file deleted and re-created', async () => {
    const file = tmp.path('settings.json');
    await writeFile(file, servers('a'));
    recording = tmp.ends(record(fromSettingsFile(file, 'user')));
    await expectServers(['a']);
    await rm(file);
    await expectServers([]);
    await writeFile(file, servers('c'));
    await expectServers(['c']);
  });

  it('sees the .qwen directory deleted and re-created', async () => {
    const { mkdir } = await import('node:fs/promises');
    const qwen = tmp.path('.qwen');
    const file = join(qwen, 'settings.json');
    await mkdir(qwen);
    await writeFile(file, servers('a'));
    recording = tmp.ends(record(fromSettingsFile(file, 'workspace')));
    await expectServers(['a']);
    await rm(qwen, { recursive: true });
    await expectServers([]);
    await mkdir(qwen);
    await writeFile(file, servers('d'));
    await expectServers(['d']);
    // And it is watched there again, not only read once on the way down.
    await writeFile(file, servers('e'));
    await expectServers(['e']);
  });

  it('sees a directory that appears later, two levels below what exists', async () => {
    const { mkdir } = await import('node:fs/promises');
    const file = tmp.path('work', '.qwen', 'settings.json');
    recording = tmp.ends(record(fromSettingsFile(file, 'workspace')));
    await expectServers([]);
    await mkdir(tmp.path('work'));
    await mkdir(tmp.path('work', '.qwen'));
    await writeFile(file, servers('late'));
    await expectServers(['late']);
    await writeFile(file, servers('later'));
    await expectServers(['later']);
  });
});
