import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fromExtensions, installTimeOnDisk, type ExtensionsEvent } from '../../src/streams/fromExtensions.js';
import { record, waitFor, tempDirEachTest, type Recording } from './streamTestKit.js';

const MANIFEST = 'qwen-extension.json';

describe('fromExtensions (real chokidar)', () => {
  const tmp = tempDirEachTest();
  const extensionsDir = () => tmp.path('.qwen', 'extensions');
  let events: Recording<ExtensionsEvent> | undefined;

  async function install(name: string, manifest: string): Promise<void> {
    await mkdir(join(extensionsDir(), name), { recursive: true });
    await writeFile(join(extensionsDir(), name, MANIFEST), manifest);
  }
  const manifest = (...servers: string[]): string =>
    JSON.stringify({ name: 'x', version: '1.0.0', mcpServers: Object.fromEntries(servers.map((s) => [s, { command: s }])) });

  /** Extension name → its server names, from the latest emission. */
  const installed = (): Record<string, string[]> => {
    const last = events?.values.at(-1);
    if (last === undefined) return { '<nothing yet>': [] };
    return Object.fromEntries(
      last.snapshots.map((s) => [s.file.slice(extensionsDir().length + 1, -MANIFEST.length - 1), Object.keys(s.servers)]),
    );
  };
  const allErrors = (): ExtensionsEvent['errors'] => (events?.values ?? []).flatMap((e) => e.errors);
  async function expectInstalled(expected: Record<string, string[]>): Promise<void> {
    await waitFor(`extensions ${JSON.stringify(expected)}`, () => JSON.stringify(installed()) === JSON.stringify(expected));
  }

  it('sees extensions installed and uninstalled live, each as an extension-scope source', async () => {
    await install('alpha', manifest('a1', 'a2'));
    events = tmp.ends(record(fromExtensions(extensionsDir(), MANIFEST)));
    await expectInstalled({ alpha: ['a1', 'a2'] });
    expect(events.values[0]!.snapshots).toEqual([
      {
        scope: 'extension',
        file: join(extensionsDir(), 'alpha', MANIFEST),
        servers: { a1: { command: 'a1' }, a2: { command: 'a2' } },
        // What `${extensionPath}` expands to in its entries (Gemini CLI / Qwen Code extensions).
        extensionPath: join(extensionsDir(), 'alpha'),
      },
    ]);
    // The first emission waited for the first read: no half-read start.
    expect(events.values[0]!.snapshots).toHaveLength(1);

    await install('beta', manifest('b1'));
    await expectInstalled({ alpha: ['a1', 'a2'], beta: ['b1'] });

    await rm(join(extensionsDir(), 'alpha'), { recursive: true });
    await expectInstalled({ beta: ['b1'] });

    await writeFile(join(extensionsDir(), 'beta', MANIFEST), manifest('b1', 'b2'));
    await expectInstalled({ beta: ['b1', 'b2'] });
    expect(allErrors()).toEqual([]);
  });

  it('isolates a bad manifest: only that extension reports an error and keeps its last good servers', async () => {
    await install('alpha', manifest('a1'));
    await install('beta', manifest('b1'));
    events = tmp.ends(record(fromExtensions(extensionsDir(), MANIFEST)));
    await expectInstalled({ alpha: ['a1'], beta: ['b1'] });

    const betaManifest = join(extensionsDir(), 'beta', MANIFEST);
    await writeFile(betaManifest, '{ "mcpServers": { "b1": ');
    // writeFile truncates first, so an "empty file" error may come before the syntax error.
    await waitFor('the syntax error of beta', () => allErrors().some((e) => e.line === 1));
    expect(allErrors().every((e) => e.kind === 'error' && e.file === betaManifest)).toBe(true);
    expect(installed()).toEqual({ alpha: ['a1'], beta: ['b1'] });

    // An extension whose manifest is broken from the start has no servers, and says why.
    await install('gamma', '[1, 2]');
    // The manifest may first be seen empty (writeFile truncates, then writes), which is a valid
    // extension with no servers: wait for the error rather than expecting it with the first sight.
    const gammaManifest = join(extensionsDir(), 'gamma', MANIFEST);
    await waitFor('the error of gamma', () => allErrors().some((e) => e.file === gammaManifest));
    await expectInstalled({ alpha: ['a1'], beta: ['b1'], gamma: [] });

    // Others still change live.
    await writeFile(join(extensionsDir(), 'alpha', MANIFEST), manifest('a1', 'a3'));
    await expectInstalled({ alpha: ['a1', 'a3'], beta: ['b1'], gamma: [] });
  });

  it('starts with no extensions when the directory does not exist, and sees it appear', async () => {
    events = tmp.ends(record(fromExtensions(extensionsDir(), MANIFEST)));
    await expectInstalled({});
    await install('late', manifest('l1'));
    await expectInstalled({ late: ['l1'] });
  });

  it('ignores files and editor artifacts beside the extension directories', async () => {
    await install('alpha', manifest('a1'));
    await writeFile(join(extensionsDir(), 'notes.txt'), 'x');
    events = tmp.ends(record(fromExtensions(extensionsDir(), MANIFEST)));
    await expectInstalled({ alpha: ['a1'] });
    await mkdir(join(extensionsDir(), 'beta~'));
    await writeFile(join(extensionsDir(), 'beta~', MANIFEST), manifest('no'));
    await install('gamma', manifest('g1'));
    await expectInstalled({ alpha: ['a1'], gamma: ['g1'] });
  });
});

describe('fromExtensions: the first installed extension keeps a server name (decision 58)', () => {
  const tmp = tempDirEachTest();
  const extensionsDir = () => tmp.path('.qwen', 'extensions');
  let events: Recording<ExtensionsEvent> | undefined;

  async function install(name: string, servers: Record<string, unknown>): Promise<void> {
    await mkdir(join(extensionsDir(), name), { recursive: true });
    await writeFile(join(extensionsDir(), name, MANIFEST), JSON.stringify({ name, version: '1.0.0', mcpServers: servers }));
  }
  const manifestOf = (name: string) => join(extensionsDir(), name, MANIFEST);
  /** Server name → the manifest that provides it, from the latest emission (every provider, to catch a duplicate). */
  const providers = (): Record<string, string[]> => {
    const out: Record<string, string[]> = {};
    for (const s of events?.values.at(-1)?.snapshots ?? []) {
      for (const server of Object.keys(s.servers)) (out[server] ??= []).push(s.file);
    }
    return out;
  };
  const config = (server: string) => {
    const s = events?.values.at(-1)?.snapshots.find((snap) => Object.hasOwn(snap.servers, server));
    return s?.servers[server];
  };
  const allWarnings = (): string[] => (events?.values ?? []).flatMap((e) => e.warnings);
  const seen = (name: string) => () => (events?.values.at(-1)?.snapshots ?? []).some((s) => s.file === manifestOf(name));

  it('real install times: a later extension, whatever its name, cannot take ext-one\'s server', async () => {
    await install('ext-one', { 'ext-server': { command: 'one' } });
    events = tmp.ends(record(fromExtensions(extensionsDir(), MANIFEST)));
    await waitFor('ext-one', seen('ext-one'));
    // A real delay: the next directory is born strictly later (checked below, not assumed).
    const oneAt = await installTimeOnDisk(join(extensionsDir(), 'ext-one'));
    await waitFor('the clock to pass ext-one\'s install time', () => Date.now() > oneAt + 5);

    await install('aaa-later', { 'ext-server': { command: 'aaa' }, 'aaa-own': { command: 'aaa-own' } });
    expect(await installTimeOnDisk(join(extensionsDir(), 'aaa-later'))).toBeGreaterThan(oneAt);
    await waitFor('aaa-later', seen('aaa-later'));
    await install('zzz-later', { 'ext-server': { command: 'zzz' } });
    await waitFor('zzz-later', seen('zzz-later'));

    expect(providers()['ext-server']).toEqual([manifestOf('ext-one')]);
    expect(config('ext-server')).toEqual({ command: 'one' });
    expect(providers()['aaa-own']).toEqual([manifestOf('aaa-later')]);
    expect(allWarnings()).toEqual([
      'extension "aaa-later": MCP server "ext-server" is ignored – extension "ext-one", installed earlier, provides it',
      'extension "zzz-later": MCP server "ext-server" is ignored – extension "ext-one", installed earlier, provides it',
    ]);

    // An edit elsewhere re-emits without repeating the warnings.
    const before = events.values.length;
    await writeFile(manifestOf('aaa-later'), JSON.stringify({ mcpServers: { 'ext-server': { command: 'aaa' }, 'aaa-own': { command: 'v2' } } }));
    await waitFor('the edit', () => JSON.stringify(config('aaa-own')) === '{"command":"v2"}');
    expect(events.values.length).toBeGreaterThan(before);
    expect(allWarnings()).toHaveLength(2);
    expect(config('ext-server')).toEqual({ command: 'one' });
  });

  it('install time wins over the directory name; uninstalling the first hands the name to the next', async () => {
    // Birth times cannot be set, so this case controls them through the seam; the dirs are real.
    const installedAt: Record<string, number> = { 'ext-one': 100, 'aaa-later': 200, 'zzz-later': 300 };
    await install('aaa-later', { 'ext-server': { command: 'aaa' } });
    await install('zzz-later', { 'ext-server': { command: 'zzz' } });
    await install('ext-one', { 'ext-server': { command: 'one' } });
    const installTime = (path: string) => Promise.resolve(installedAt[path.slice(extensionsDir().length + 1)]!);
    events = tmp.ends(record(fromExtensions(extensionsDir(), MANIFEST, { installTime })));
    await waitFor('all three', () => events!.values.at(-1)?.snapshots.length === 3);

    expect(events.values.at(-1)!.snapshots.map((s) => s.file)).toEqual(['ext-one', 'aaa-later', 'zzz-later'].map(manifestOf));
    expect(providers()['ext-server']).toEqual([manifestOf('ext-one')]);
    expect(config('ext-server')).toEqual({ command: 'one' });
    expect(allWarnings()).toEqual([
      'extension "aaa-later": MCP server "ext-server" is ignored – extension "ext-one", installed earlier, provides it',
      'extension "zzz-later": MCP server "ext-server" is ignored – extension "ext-one", installed earlier, provides it',
    ]);

    await rm(join(extensionsDir(), 'ext-one'), { recursive: true });
    await waitFor('ext-one gone', () => events!.values.at(-1)?.snapshots.length === 2);
    expect(providers()['ext-server']).toEqual([manifestOf('aaa-later')]);
    expect(config('ext-server')).toEqual({ command: 'aaa' });
    expect(allWarnings().at(-1)).toBe(
      'extension "zzz-later": MCP server "ext-server" is ignored – extension "aaa-later", installed earlier, provides it',
    );
    expect(allWarnings()).toHaveLength(3);
  });
});
