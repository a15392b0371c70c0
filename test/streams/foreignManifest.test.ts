import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { foreignManifestWarning } from '../../src/model/settings/extensionManifests.js';
import { fromExtensions, type ExtensionsEvent } from '../../src/streams/fromExtensions.js';
import { record, waitFor, tempDirEachTest, type Recording } from './streamTestKit.js';

/**
 * An extension of another client in the profile's extensions directory (decision 253): a
 * `gemini-extension.json` without `qwen-extension.json` is named in one warning, not silently
 * read as nothing; once it has the profile's manifest it is read, and the warning is not repeated.
 */

const manifest = (...servers: string[]): string =>
  JSON.stringify({ name: 'x', version: '1.0.0', mcpServers: Object.fromEntries(servers.map((s) => [s, { command: s }])) });

describe('fromExtensions: another client’s manifest', () => {
  const tmp = tempDirEachTest();
  let events: Recording<ExtensionsEvent> | undefined;
  const warnings = (): string[] => (events?.values ?? []).flatMap((e) => e.warnings);
  const servers = (): string[] => (events?.values.at(-1)?.snapshots ?? []).flatMap((s) => Object.keys(s.servers));

  it('qwen profile: a Gemini CLI extension is named once, with how to get it read; its manifest is never read', async () => {
    const extensions = tmp.path('.qwen', 'extensions');
    const dir = join(extensions, 'gem');
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'gemini-extension.json'), manifest('from-gemini'));
    events = tmp.ends(record(fromExtensions(extensions, 'qwen-extension.json')));
    await waitFor('a first emission', () => (events?.values.length ?? 0) > 0);
    expect(servers()).toEqual([]);
    expect(warnings()).toEqual([
      `extension "gem": ${dir} has gemini-extension.json but no qwen-extension.json, so its servers are not read – it is a Gemini CLI extension: ` +
        `install it with \`qwen extensions install ${dir}\` (Qwen Code converts it), or put it in ${tmp.path('.gemini', 'extensions')} and run mcp-live with --profile gemini`,
    ]);

    // Another extension arrives: the warning is not repeated.
    await mkdir(join(extensions, 'plain'));
    await writeFile(join(extensions, 'plain', 'qwen-extension.json'), manifest('p1'));
    await waitFor('plain read', () => servers().includes('p1'));
    expect(warnings()).toHaveLength(1);

    // Converted in place (what `qwen extensions install` writes): read, and no new warning.
    await writeFile(join(dir, 'qwen-extension.json'), manifest('converted'));
    await waitFor('converted read', () => servers().includes('converted'));
    expect(servers()).not.toContain('from-gemini');
    expect(warnings()).toHaveLength(1);

    // Its own manifest gone again: warned again, since it is new again.
    await rm(join(dir, 'qwen-extension.json'));
    await waitFor('a second warning', () => warnings().length === 2);
    expect(warnings()[1]).toBe(warnings()[0]);
  });

  it('an extension with both manifests is read by its own, without a warning', async () => {
    const extensions = tmp.path('.qwen', 'extensions');
    await mkdir(join(extensions, 'both'), { recursive: true });
    await writeFile(join(extensions, 'both', 'qwen-extension.json'), manifest('q'));
    await writeFile(join(extensions, 'both', 'gemini-extension.json'), manifest('g'));
    events = tmp.ends(record(fromExtensions(extensions, 'qwen-extension.json')));
    await waitFor('both read', () => servers().includes('q'));
    expect(servers()).toEqual(['q']);
    expect(warnings()).toEqual([]);
  });
});

describe('foreignManifestWarning', () => {
  it('gemini profile: a Qwen Code extension points at --profile qwen', () => {
    expect(
      foreignManifestWarning({
        extension: 'qx',
        dir: '/h/.gemini/extensions/qx',
        manifest: 'gemini-extension.json',
        found: { profile: 'qwen', client: 'Qwen Code', manifest: 'qwen-extension.json' },
        otherDir: '/h/.qwen/extensions',
      }),
    ).toBe(
      'extension "qx": /h/.gemini/extensions/qx has qwen-extension.json but no gemini-extension.json, so its servers are not read – ' +
        'it is a Qwen Code extension: put it in /h/.qwen/extensions and run mcp-live with --profile qwen',
    );
  });
});
