import { mkdir, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fromExtensions, type ExtensionsEvent } from '../../src/streams/fromExtensions.js';
import { isPathInside } from '../../src/files/readInsideDirectory.js';
import { ManualWatch, record, waitFor, tempDirEachTest, type Recording } from './streamTestKit.js';

/** Decision 156: an extension's language servers — manifest `lspServers` (inline or a path inside it) and its root `.lsp.json`. */

const MANIFEST = 'qwen-extension.json';
const entry = (command: string) => ({ command, extensionToLanguage: { '.x': 'x' } });

describe('fromExtensions: language servers (real chokidar)', () => {
  const tmp = tempDirEachTest();
  const extensionsDir = () => tmp.path('.qwen', 'extensions');
  let events: Recording<ExtensionsEvent> | undefined;

  const dirOf = (name: string) => join(extensionsDir(), name);
  /** Writes a file of an extension whole (renamed into place: no reader sees it empty). */
  async function writeIn(name: string, file: string, content: unknown): Promise<void> {
    const path = join(dirOf(name), file);
    await mkdir(join(path, '..'), { recursive: true });
    await writeFile(`${path}.tmp`, typeof content === 'string' ? content : JSON.stringify(content));
    await rename(`${path}.tmp`, path);
  }
  const manifest = (lspServers?: unknown, mcpServers: Record<string, unknown> = {}) => ({ name: 'x', version: '1.0.0', mcpServers, ...(lspServers === undefined ? {} : { lspServers }) });
  /** Extension → `server=command` of its language servers, from the latest emission (extensions by name). */
  const lsp = (): Record<string, string[]> => {
    const last = events?.values.at(-1);
    if (last === undefined) return { '<nothing yet>': [] };
    return Object.fromEntries(
      [...last.snapshots].sort((a, b) => a.file.localeCompare(b.file)).map((s) => [
        s.extensionPath!.slice(extensionsDir().length + 1),
        Object.entries(s.lspServers ?? {}).map(([name, config]) => `${name}=${(config as { command: string }).command}`),
      ]),
    );
  };
  async function expectLsp(expected: Record<string, string[]>): Promise<void> {
    await waitFor(`language servers ${JSON.stringify(expected)}`, () => JSON.stringify(lsp()) === JSON.stringify(expected));
  }
  const allErrors = (): ExtensionsEvent['errors'] => (events?.values ?? []).flatMap((e) => e.errors);
  const allCleared = (): string[] => (events?.values ?? []).flatMap((e) => e.cleared);

  it('reads inline lspServers beside mcpServers, live', async () => {
    await writeIn('alpha', MANIFEST, manifest({ ts: entry('ts-ls') }, { fs: { command: 'fs' } }));
    events = tmp.ends(record(fromExtensions(extensionsDir(), MANIFEST)));
    await expectLsp({ alpha: ['ts=ts-ls'] });
    expect(events.values.at(-1)!.snapshots).toEqual([
      {
        scope: 'extension',
        file: join(dirOf('alpha'), MANIFEST),
        servers: { fs: { command: 'fs' } },
        lspServers: { ts: entry('ts-ls') },
        extensionPath: dirOf('alpha'),
      },
    ]);
    await writeIn('alpha', MANIFEST, manifest({ ts: entry('ts-ls-2'), py: entry('py-ls') }));
    await expectLsp({ alpha: ['ts=ts-ls-2', 'py=py-ls'] });
    expect(allErrors()).toEqual([]);
  });

  it('reads a root .lsp.json; the manifest wins a name both define; the file deleted leaves the manifest\'s', async () => {
    await writeIn('alpha', '.lsp.json', { ts: entry('root-ts'), go: entry('gopls') });
    await writeIn('alpha', MANIFEST, manifest({ ts: entry('manifest-ts') }));
    events = tmp.ends(record(fromExtensions(extensionsDir(), MANIFEST)));
    await expectLsp({ alpha: ['ts=manifest-ts', 'go=gopls'] });

    await writeIn('alpha', '.lsp.json', { ts: entry('root-ts'), go: entry('gopls-2') });
    await expectLsp({ alpha: ['ts=manifest-ts', 'go=gopls-2'] });
    await rm(join(dirOf('alpha'), '.lsp.json'));
    await expectLsp({ alpha: ['ts=manifest-ts'] });
    expect(allErrors()).toEqual([]);
  });

  it('reads the .lsp.json-format file the manifest names, watches it, and follows the manifest to another file', async () => {
    await writeIn('alpha', 'config/lsp.json', { ts: entry('ts-ls') });
    await writeIn('alpha', 'other.json', { lspServers: { py: entry('py-ls') } });
    await writeIn('alpha', MANIFEST, manifest('./config/lsp.json'));
    events = tmp.ends(record(fromExtensions(extensionsDir(), MANIFEST)));
    await expectLsp({ alpha: ['ts=ts-ls'] });
    expect(events.values.at(-1)!.snapshots[0]).toMatchObject({ extensionPath: dirOf('alpha'), servers: {} });

    await writeIn('alpha', 'config/lsp.json', { ts: entry('ts-ls-2') });
    await expectLsp({ alpha: ['ts=ts-ls-2'] });

    // Broken: an error for that file, its last good servers stay.
    const named = join(dirOf('alpha'), 'config', 'lsp.json');
    await writeIn('alpha', 'config/lsp.json', '[1]');
    await waitFor('the error of the named file', () => allErrors().some((e) => e.file === named));
    expect(lsp()).toEqual({ alpha: ['ts=ts-ls-2'] });

    // The manifest names another file: that one's servers, and the old file's error is cleared.
    await writeIn('alpha', MANIFEST, manifest('other.json'));
    await expectLsp({ alpha: ['py=py-ls'] });
    expect(allCleared()).toContain(named);
    // …and the old file no longer counts.
    await writeIn('alpha', 'config/lsp.json', { ts: entry('ignored') });
    await writeIn('alpha', 'other.json', { py: entry('py-ls-2') });
    await expectLsp({ alpha: ['py=py-ls-2'] });

    // Back to inline servers.
    await writeIn('alpha', MANIFEST, manifest({ rs: entry('rust-analyzer') }));
    await expectLsp({ alpha: ['rs=rust-analyzer'] });
  });

  it('refuses a path leading out of the extension: as written (a bad key) or through a symlink', async () => {
    // A file beside the extensions directory; its own directory is another extension's.
    await writeIn('gamma', 'lsp.json', { evil: entry('evil') });
    await writeIn('alpha', MANIFEST, manifest('../gamma/lsp.json'));
    await symlink(join(dirOf('gamma'), 'lsp.json'), tmp.path('link-target.json'));
    await mkdir(dirOf('beta'), { recursive: true });
    await symlink(tmp.path('link-target.json'), join(dirOf('beta'), 'lsp.json'));
    await writeIn('beta', MANIFEST, manifest('lsp.json'));
    events = tmp.ends(record(fromExtensions(extensionsDir(), MANIFEST)));
    const alphaManifest = join(dirOf('alpha'), MANIFEST);
    const betaNamed = join(dirOf('beta'), 'lsp.json');
    await waitFor('both refusals', () => allErrors().some((e) => e.file === alphaManifest) && allErrors().some((e) => e.file === betaNamed));
    expect(lsp()).toEqual({ alpha: [], beta: [], gamma: [] });
    expect(allErrors().find((e) => e.file === alphaManifest)).toMatchObject({
      key: 'lspServers',
      error: expect.stringContaining('"lspServers" must be an object of language servers by name, or the relative path of a .lsp.json file inside the extension') as unknown,
    });
    expect(allErrors().find((e) => e.file === betaNamed)!.error).toBe(
      `${betaNamed}: leads to ${join(dirOf('gamma'), 'lsp.json')}, outside ${dirOf('beta')}`,
    );

    // Pointing the link inside the extension is read (it is watched where it points).
    await writeIn('beta', 'real.json', { ok: entry('fine') });
    await rm(betaNamed);
    await symlink(join(dirOf('beta'), 'real.json'), betaNamed);
    await expectLsp({ alpha: [], beta: ['ok=fine'], gamma: [] });
    expect(allCleared()).toContain(betaNamed);

    // A bad path after a good one keeps the good one.
    await writeIn('beta', MANIFEST, manifest('/etc/passwd'));
    await waitFor('the refusal of an absolute path', () => allErrors().some((e) => e.file === join(dirOf('beta'), MANIFEST)));
    expect(lsp()).toEqual({ alpha: [], beta: ['ok=fine'], gamma: [] });
  });

  it('a language server name belongs to the first installed extension; MCP and LSP names do not meet', async () => {
    const installedAt: Record<string, number> = { first: 100, second: 200 };
    await writeIn('second', MANIFEST, manifest({ ts: entry('second-ts'), own: entry('own') }, { ts: { command: 'mcp-ts' } }));
    await writeIn('first', '.lsp.json', { ts: entry('first-ts') });
    await writeIn('first', MANIFEST, manifest());
    const installTime = (path: string) => Promise.resolve(installedAt[path.slice(extensionsDir().length + 1)]!);
    events = tmp.ends(record(fromExtensions(extensionsDir(), MANIFEST, { installTime })));
    await expectLsp({ first: ['ts=first-ts'], second: ['own=own'] });
    // The MCP server "ts" of the second is another kind of name: kept.
    expect(events.values.at(-1)!.snapshots[1]!.servers).toEqual({ ts: { command: 'mcp-ts' } });
    expect(events.values.flatMap((e) => e.warnings)).toEqual([
      'extension "second": language server "ts" is ignored – extension "first", installed earlier, provides it',
    ]);

    await rm(dirOf('first'), { recursive: true });
    await expectLsp({ second: ['ts=second-ts', 'own=own'] });
  });

  it('uninstalling an extension clears the errors of every file of it', async () => {
    await writeIn('alpha', MANIFEST, manifest('lsp.json'));
    await writeIn('alpha', 'lsp.json', '{ "ts": ');
    await writeIn('alpha', '.lsp.json', '[]');
    // By hand: only the listing hears of the removal, so no file of it is read as missing (which clears as well).
    const watch = new ManualWatch();
    events = tmp.ends(record(fromExtensions(extensionsDir(), MANIFEST, { watch: watch.factory })));
    const files = [join(dirOf('alpha'), 'lsp.json'), join(dirOf('alpha'), '.lsp.json')];
    await waitFor('both errors', () => files.every((file) => allErrors().some((e) => e.file === file)));
    expect(allCleared()).toEqual([]);
    await rm(dirOf('alpha'), { recursive: true });
    watch.emit(extensionsDir(), 'unlinkDir', 'alpha');
    await waitFor('uninstalled', () => JSON.stringify(lsp()) === '{}');
    expect(allCleared().sort()).toEqual(files.sort());
  });
});

describe('isPathInside', () => {
  it.each([
    ['lsp.json', true],
    ['./config/lsp.json', true],
    ['a/../lsp.json', true],
    ['../lsp.json', false],
    ['a/../../lsp.json', false],
    ['/etc/lsp.json', false],
    ['.', false],
    ['', false],
    [42, false],
  ])('%j → %s', (path, inside) => {
    expect(isPathInside(path)).toBe(inside);
  });
});
