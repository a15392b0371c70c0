import { writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { changedBetween } from '../../src/model/reconcile/recordLineage.js';
import type { SettingsFileEvent } from '../../src/streams/fromSettingsFile.js';
import { Harness } from './settingsFileHarness.js';
import { tempDirEachTest } from './streamTestKit.js';

type Content = Extract<SettingsFileEvent, { kind: 'content' }>;

const servers = (h: Harness): Record<string, unknown>[] =>
  h.values.filter((e): e is Content => e.kind === 'content').map((e) => e.snapshot.servers);

const settings = (fsArgs: string, web = 'https://example.test/mcp') =>
  `{ "mcpServers": { "fs": { "command": "npx", "args": [${fsArgs}] }, "web": { "httpUrl": "${web}", "headers": { "a": "b" } } } }`;

describe('fromSettingsFile: entries nobody edited keep their identity (decision 102)', () => {
  const tmp = tempDirEachTest();

  it('re-reads an edited file: the unchanged entry is the very object emitted before, the edited one is new', async () => {
    const file = tmp.path('settings.json');
    await writeFile(file, settings('"a"'));
    const h = tmp.ends(new Harness(file, 'user'));
    await h.started();
    await h.save(settings('"a", "b"'));
    await h.save(settings('"a", "b"', 'https://example.test/other'));

    const [first, second, third] = servers(h);
    expect(second).toEqual({ fs: { command: 'npx', args: ['a', 'b'] }, web: { httpUrl: 'https://example.test/mcp', headers: { a: 'b' } } });
    expect(second!.web).toBe(first!.web);
    expect(second!.fs).not.toBe(first!.fs);
    expect(third!.fs).toBe(second!.fs);
    expect(third!.web).not.toBe(second!.web);
    expect(third!.web).toEqual({ httpUrl: 'https://example.test/other', headers: { a: 'b' } });
    // …and says which entries each re-read changed, so a pass looks at those alone.
    expect(changedBetween(first!, second!)).toEqual(new Set(['fs']));
    expect(changedBetween(second!, third!)).toEqual(new Set(['web']));
    expect(changedBetween(first!, third!)).toEqual(new Set(['fs', 'web']));
  });
});
