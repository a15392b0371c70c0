import { writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import type { Scope } from '../../src/model/types.js';
import type { SettingsFileEvent, SettingsFileKind } from '../../src/streams/fromSettingsFile.js';
import { Harness } from './settingsFileHarness.js';
import { tempDirEachTest } from './streamTestKit.js';

/**
 * Decision 82: a `.mcp.json` (or `--mcp-config` file) written for another client has no
 * `mcpServers` object. It raises a `settings-error` naming the keys found and the one expected,
 * instead of loading silently as an empty source — except VS Code's `servers` object, which is
 * read (decision 327). Real files, hand-driven watcher.
 */

type FileError = Extract<SettingsFileEvent, { kind: 'error' }>;
type Content = Extract<SettingsFileEvent, { kind: 'content' }>;
const errorsOf = (events: SettingsFileEvent[]): FileError[] => events.filter((e): e is FileError => e.kind === 'error');
const contentsOf = (events: SettingsFileEvent[]): Content[] => events.filter((e): e is Content => e.kind === 'content');

describe('a servers file without "mcpServers" (real files)', () => {
  const tmp = tempDirEachTest('.mcp.json');
  let harness: Harness | undefined;

  async function start(text: string, scope: Scope = 'project', kind?: SettingsFileKind): Promise<Harness> {
    await writeFile(tmp.file, text);
    harness = tmp.ends(new Harness(tmp.file, scope, kind));
    await harness.started();
    return harness;
  }

  it('VS Code .vscode/mcp.json format {"servers": {…}} as .mcp.json: read as the mcpServers it means, no error (decision 327)', async () => {
    const h = await start('{ "servers": { "github": { "type": "http", "url": "https://api.githubcopilot.com/mcp/" }, "local": { "command": "node", "env": { "T": "${env:T}" } } } }');
    expect(errorsOf(h.values)).toEqual([]);
    expect(contentsOf(h.values).map((c) => c.snapshot.servers)).toEqual([
      { github: { type: 'http', url: 'https://api.githubcopilot.com/mcp/' }, local: { command: 'node', env: { T: '${T}' } } },
    ]);
  });

  it('VS Code\'s "inputs" are named once as not supported; both "mcpServers" and "servers": mcpServers is read, servers named as ignored', async () => {
    const h = await start('{ "inputs": [{ "type": "promptString", "id": "k" }], "servers": { "a": { "command": "x", "env": { "K": "${input:k}" } } } }');
    expect(errorsOf(h.values)).toEqual([expect.objectContaining({ key: 'inputs', error: expect.stringContaining('"inputs" (VS Code\'s prompted values) are not supported') as string })]);
    // The entry is read as written: the validator makes it that server's invalid_config.
    expect(contentsOf(h.values).at(-1)?.snapshot.servers).toEqual({ a: { command: 'x', env: { K: '${input:k}' } } });
    await h.tick();
    expect(errorsOf(h.values)).toHaveLength(1);
    await h.save('{ "mcpServers": { "m": { "command": "x" } }, "servers": { "v": { "command": "y" } } }');
    expect(errorsOf(h.values).at(-1)).toEqual({
      kind: 'error',
      file: tmp.file,
      key: 'servers',
      error: `${tmp.file}: both "mcpServers" and VS Code's "servers"; reading "mcpServers", ignoring "servers"`,
    });
    expect(contentsOf(h.values).at(-1)?.snapshot.servers).toEqual({ m: { command: 'x' } });
  });

  it('a "servers" that is no object is still a settings-error naming what it found', async () => {
    const h = await start('{ "servers": ["github"] }');
    expect(errorsOf(h.values).map((e) => e.error)).toEqual([
      `${tmp.file}: no "mcpServers" object; found "servers" — VS Code's format (.vscode/mcp.json), whose "servers" must be an object? mcp-live reads {"mcpServers": {…}}`,
    ]);
    expect(contentsOf(h.values).map((c) => c.snapshot.servers)).toEqual([{}]);
  });

  it('VS Code settings.json format {"mcp": {"servers": …}}: names "mcp"', async () => {
    const h = await start('{ "mcp": { "servers": { "a": { "command": "x" } } } }');
    expect(errorsOf(h.values).map((e) => e.error)).toEqual([
      `${tmp.file}: no "mcpServers" object; found "mcp" — VS Code's settings format? mcp-live reads {"mcpServers": {…}}`,
    ]);
  });

  it('names every key found, and reads plainly when no format is recognised', async () => {
    const h = await start('{ "context_servers": {}, "other": 1 }');
    expect(errorsOf(h.values).map((e) => e.error)).toEqual([
      `${tmp.file}: no "mcpServers" object; found "context_servers", "other"; mcp-live reads {"mcpServers": {…}}`,
    ]);
  });

  it('--mcp-config (scope cli) is read the same way', async () => {
    const h = await start('{ "servers": { "a": { "command": "x" } } }', 'cli');
    expect(errorsOf(h.values)).toEqual([]);
    expect(contentsOf(h.values).map((c) => c.snapshot.servers)).toEqual([{ a: { command: 'x' } }]);
    await h.save('{ "context_servers": {} }');
    expect(errorsOf(h.values)).toHaveLength(1);
  });

  it('{} stays a valid empty source, and so does a file with only "$schema"', async () => {
    const h = await start('{}');
    expect(errorsOf(h.values)).toEqual([]);
    expect(contentsOf(h.values).map((c) => c.snapshot.servers)).toEqual([{}]);
    await h.save('{ "$schema": "https://example.test/mcp.schema.json" }');
    expect(errorsOf(h.values)).toEqual([]);
  });

  it('a file with "mcpServers" and other keys is fine', async () => {
    const h = await start('{ "mcpServers": { "a": { "command": "x" } }, "servers": {} }');
    expect(errorsOf(h.values)).toEqual([]);
    expect(contentsOf(h.values).map((c) => Object.keys(c.snapshot.servers))).toEqual([['a']]);
  });

  it('raised once per change: the same content read again says nothing; a fixed file clears it', async () => {
    const h = await start('{ "context_servers": {} }');
    await h.tick();
    expect(errorsOf(h.values)).toHaveLength(1);
    await h.save('{ "mcpServers": { "a": { "command": "x" } } }');
    expect(errorsOf(h.values)).toHaveLength(1);
    expect(contentsOf(h.values).at(-1)?.snapshot.servers).toEqual({ a: { command: 'x' } });
  });

  it('an extension manifest has other keys by design: no error (scope extension, kind servers)', async () => {
    const h = await start('{ "name": "example", "version": "1.0.0", "contextFileName": "QWEN.md" }', 'extension');
    expect(errorsOf(h.values)).toEqual([]);
  });

  it('a settings file needs no "mcpServers" (user settings, kind settings)', async () => {
    const h = await start('{ "ui": { "theme": "dark" } }', 'user');
    expect(errorsOf(h.values)).toEqual([]);
  });

  it('the fail-closed logic of settings files is untouched: a project servers file is never "broken"', async () => {
    const h = await start('{ "servers": [] }', 'project');
    expect(contentsOf(h.values)[0]?.snapshot.broken).toBeUndefined();
  });
});
