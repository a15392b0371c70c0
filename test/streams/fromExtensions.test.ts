import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fromExtensions, type ExtensionsEvent } from '../../src/streams/fromExtensions.js';
import { makeTempDir, record, removeDir, waitFor, type Recording } from './streamTestKit.js';

const MANIFEST = 'qwen-extension.json';

describe('fromExtensions (real chokidar)', () => {
  let home: string;
  let extensions: string;
  let events: Recording<ExtensionsEvent> | undefined;
  beforeEach(async () => {
    home = await makeTempDir();
    extensions = join(home, '.qwen', 'extensions');
  });
  afterEach(async () => {
    events?.subscription.unsubscribe();
    events = undefined;
    await removeDir(home);
  });

  async function install(name: string, manifest: string): Promise<void> {
    await mkdir(join(extensions, name), { recursive: true });
    await writeFile(join(extensions, name, MANIFEST), manifest);
  }
  const manifest = (...servers: string[]): string =>
    JSON.stringify({ name: 'x', version: '1.0.0', mcpServers: Object.fromEntries(servers.map((s) => [s, { command: s }])) });

  /** Extension name → its server names, from the latest emission. */
  const installed = (): Record<string, string[]> => {
    const last = events?.values.at(-1);
    if (last === undefined) return { '<nothing yet>': [] };
    return Object.fromEntries(
      last.snapshots.map((s) => [s.file.slice(extensions.length + 1, -MANIFEST.length - 1), Object.keys(s.servers)]),
    );
  };
  const allErrors = (): ExtensionsEvent['errors'] => (events?.values ?? []).flatMap((e) => e.errors);
  async function expectInstalled(expected: Record<string, string[]>): Promise<void> {
    await waitFor(`extensions ${JSON.stringify(expected)}`, () => JSON.stringify(installed()) === JSON.stringify(expected));
  }

  it('sees extensions installed and uninstalled live, each as an extension-scope source', async () => {
    await install('alpha', manifest('a1', 'a2'));
    events = record(fromExtensions(extensions, MANIFEST));
    await expectInstalled({ alpha: ['a1', 'a2'] });
    expect(events.values[0]!.snapshots).toEqual([
      {
        scope: 'extension',
        file: join(extensions, 'alpha', MANIFEST),
        servers: { a1: { command: 'a1' }, a2: { command: 'a2' } },
      },
    ]);
    // The first emission waited for the first read: no half-read start.
    expect(events.values[0]!.snapshots).toHaveLength(1);

    await install('beta', manifest('b1'));
    await expectInstalled({ alpha: ['a1', 'a2'], beta: ['b1'] });

    await rm(join(extensions, 'alpha'), { recursive: true });
    await expectInstalled({ beta: ['b1'] });

    await writeFile(join(extensions, 'beta', MANIFEST), manifest('b1', 'b2'));
    await expectInstalled({ beta: ['b1', 'b2'] });
    expect(allErrors()).toEqual([]);
  });

  it('isolates a bad manifest: only that extension reports an error and keeps its last good servers', async () => {
    await install('alpha', manifest('a1'));
    await install('beta', manifest('b1'));
    events = record(fromExtensions(extensions, MANIFEST));
    await expectInstalled({ alpha: ['a1'], beta: ['b1'] });

    const betaManifest = join(extensions, 'beta', MANIFEST);
    await writeFile(betaManifest, '{ "mcpServers": { "b1": ');
    // writeFile truncates first, so an "empty file" error may come before the syntax error.
    await waitFor('the syntax error of beta', () => allErrors().some((e) => e.line === 1));
    expect(allErrors().every((e) => e.kind === 'error' && e.file === betaManifest)).toBe(true);
    expect(installed()).toEqual({ alpha: ['a1'], beta: ['b1'] });

    // An extension whose manifest is broken from the start has no servers, and says why.
    await install('gamma', '[1, 2]');
    // The manifest may first be seen empty (writeFile truncates, then writes), which is a valid
    // extension with no servers: wait for the error rather than expecting it with the first sight.
    const gammaManifest = join(extensions, 'gamma', MANIFEST);
    await waitFor('the error of gamma', () => allErrors().some((e) => e.file === gammaManifest));
    await expectInstalled({ alpha: ['a1'], beta: ['b1'], gamma: [] });

    // Others still change live.
    await writeFile(join(extensions, 'alpha', MANIFEST), manifest('a1', 'a3'));
    await expectInstalled({ alpha: ['a1', 'a3'], beta: ['b1'], gamma: [] });
  });

  it('starts with no extensions when the directory does not exist, and sees it appear', async () => {
    events = record(fromExtensions(extensions, MANIFEST));
    await expectInstalled({});
    await install('late', manifest('l1'));
    await expectInstalled({ late: ['l1'] });
  });

  it('ignores files and editor artifacts beside the extension directories', async () => {
    await install('alpha', manifest('a1'));
    await writeFile(join(extensions, 'notes.txt'), 'x');
    events = record(fromExtensions(extensions, MANIFEST));
    await expectInstalled({ alpha: ['a1'] });
    await mkdir(join(extensions, 'beta~'));
    await writeFile(join(extensions, 'beta~', MANIFEST), manifest('no'));
    await install('gamma', manifest('g1'));
    await expectInstalled({ alpha: ['a1'], gamma: ['g1'] });
  });
});
