import { writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import type { SettingsFileEvent } from '../../src/streams/fromSettingsFile.js';
import { Harness } from './settingsFileHarness.js';
import { tempDirEachTest } from './streamTestKit.js';

/** Decision 51: which snapshots of a settings file are `broken` (admission fails closed on them). */

type Content = Extract<SettingsFileEvent, { kind: 'content' }>;
const brokenFlags = (events: SettingsFileEvent[]) =>
  events.filter((e): e is Content => e.kind === 'content').map((e) => e.snapshot.broken ?? null);

describe('fromSettingsFile: broken until it has been read whole', () => {
  const tmp = tempDirEachTest();
  let harness: Harness | undefined;

  async function start(text: string | undefined, kind?: 'servers'): Promise<Harness> {
    const file = tmp.path('settings.json');
    if (text !== undefined) await writeFile(file, text);
    harness = tmp.ends(new Harness(file, kind === undefined ? 'user' : 'project', kind));
    await harness.started();
    return harness;
  }

  it('a file broken from its first read is broken, names the position, and clears on the first good read', async () => {
    const h = await start('{"mcp":{"excluded":["x"]} "security":{}}');
    const [first] = brokenFlags(h.values);
    expect(first).toMatch(/settings\.json:1:\d+: expected "," between entries/);
    await h.save('{"mcp":{"excluded":["x"]}, "security":{}}');
    expect(brokenFlags(h.values)).toEqual([first, null]);
  });

  it('clears even when the good content equals the empty stand-in', async () => {
    const h = await start('{');
    await h.save('{}');
    expect(brokenFlags(h.values)).toHaveLength(2);
    expect(brokenFlags(h.values)[1]).toBeNull();
  });

  it('an admission key of the wrong type on the first read is broken too; a good value clears it', async () => {
    const h = await start('{"mcp":{"excluded":"ext"}}');
    expect(brokenFlags(h.values)[0]).toContain('"mcp.excluded" must be');
    await h.save('{"mcp":{"excluded":"still wrong"}, "x": 1}');
    expect(brokenFlags(h.values).at(-1)).toContain('"mcp.excluded" must be');
    await h.save('{"mcp":{"excluded":["ext"]}}');
    expect(brokenFlags(h.values).at(-1)).toBeNull();
  });

  it('a file that breaks after a good read keeps its last good content, never broken', async () => {
    const h = await start('{"mcp":{"excluded":["a"]}}');
    await h.save('{"mcp":{"excluded":["a"]');
    await h.save('{"mcp":{"excluded":"a"}}');
    expect(brokenFlags(h.values)).toEqual([null]);
  });

  it('a missing file is a good read', async () => {
    const h = await start(undefined);
    expect(brokenFlags(h.values)).toEqual([null]);
  });

  it('servers-only files (.mcp.json, --mcp-config) are never broken: they carry no admission keys', async () => {
    const h = await start('{', 'servers');
    expect(brokenFlags(h.values)).toEqual([null]);
  });
});
