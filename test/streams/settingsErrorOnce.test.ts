import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SourceNotice } from '../../src/streams/fromAllSources.js';
import { fromSettingsFile, type SettingsFileEvent } from '../../src/streams/fromSettingsFile.js';
import { Harness } from './settingsFileHarness.js';
import { ManualWatch, flush, record, waitFor, tempDirEachTest, type Recording } from './streamTestKit.js';
import { allSourcesIn } from './allSourcesIn.js';

/**
 * Decision 66: a broken file raises one `settings-error` per save — the watcher reads every save
 * twice (decision 28) — and `settings-ok` once when it reads cleanly again.
 */

const GOOD = '{ "mcpServers": { "a": { "command": "a-cmd" } } }';
const BROKEN = '{ "mcpServers": { "a": { "command": } } }';
const kinds = (events: SettingsFileEvent[]) => events.map((e) => e.kind);

async function saveByRename(file: string, text: string): Promise<void> {
  await writeFile(`${file}.tmp`, text);
  await rename(`${file}.tmp`, file);
}

describe('fromSettingsFile: one error per save, ok once per recovery (hand-driven watcher, real files)', () => {
  const tmp = tempDirEachTest('settings.json');
  let harness: Harness | undefined;

  async function start(text: string | undefined): Promise<Harness> {
    if (text !== undefined) await writeFile(tmp.file, text);
    harness = tmp.ends(new Harness(tmp.file));
    await harness.started();
    return harness;
  }

  it('the second read of one broken save, and the same broken bytes saved again, report nothing new', async () => {
    const h = await start(GOOD);
    await h.save(BROKEN);
    await h.tick(); // the watcher's second read of the same save
    await h.save(BROKEN);
    expect(kinds(h.values)).toEqual(['content', 'error']);
  });

  it('a different error is news; a fix says ok once, with its content', async () => {
    const h = await start(GOOD);
    await h.save(BROKEN);
    await h.save('{ "mcpServers": ');
    expect(kinds(h.values)).toEqual(['content', 'error', 'error']);
    await h.save(GOOD.replace('a-cmd', 'a2-cmd'));
    await h.tick();
    expect(h.values.slice(3)).toMatchObject([{ kind: 'ok', file: tmp.file }, { kind: 'content', changedKeys: ['mcpServers.a.command'] }]);
    // Broken again after the fix: the same error as before is news again.
    await h.save(BROKEN);
    expect(kinds(h.values).slice(5)).toEqual(['error']);
  });

  it('broken from the first read: ok once it parses; a deleted broken file is cleared too', async () => {
    const h = await start(BROKEN);
    expect(kinds(h.values)).toEqual(['error', 'content']);
    await h.tick();
    await h.save(GOOD);
    expect(kinds(h.values).slice(2)).toEqual(['ok', 'content']);
    await h.save(BROKEN);
    await rm(tmp.file);
    await h.tick();
    expect(kinds(h.values).slice(4)).toEqual(['error', 'ok', 'content']);
  });

  it('a badly typed key is an error until it is fixed; a parse error in between does not clear it', async () => {
    const badKey = '{ "mcpServers": [] }';
    const h = await start(GOOD);
    await h.save(badKey);
    expect(kinds(h.values).slice(1)).toEqual(['error']);
    await h.save(BROKEN);
    // Back to the content with the bad key: its error stands, nothing is cleared.
    await h.save(badKey);
    expect(kinds(h.values).slice(2)).toEqual(['error']);
    await h.save(GOOD.replace('a-cmd', 'b-cmd'));
    expect(kinds(h.values).slice(3)).toEqual(['ok', 'content']);
  });

  it('a clean file never says ok', async () => {
    const h = await start(GOOD);
    await h.save(GOOD.replace('a-cmd', 'b-cmd'));
    await rm(tmp.file);
    await h.tick();
    expect(kinds(h.values)).toEqual(['content', 'content', 'content']);
  });
});

describe('fromSettingsFile: one error per save (real chokidar)', () => {
  const tmp = tempDirEachTest();
  let recording: Recording<SettingsFileEvent> | undefined;

  it('a broken save is read twice (decision 28) and reported once; its fix says ok once', async () => {
    const file = tmp.path('settings.json');
    await writeFile(file, GOOD);
    let reads = 0;
    const counted = async (path: string): Promise<Uint8Array> => {
      try {
        return await readFile(path);
      } finally {
        reads++;
      }
    };
    recording = tmp.ends(record(fromSettingsFile(file, 'user', { readFile: counted })));
    const events = recording.values;
    await waitFor('the first content', () => kinds(events).includes('content'));
    let before = reads;
    // Saved as editors save, by a rename over it: a write in place can be read while still empty,
    // and an empty file is a broken save of its own, with its own error.
    await saveByRename(file, BROKEN);
    // The change event's read and the trailing re-read 120 ms later.
    await waitFor('two reads of the broken save', () => reads >= before + 2);
    await flush();
    expect(kinds(events)).toEqual(['content', 'error']);
    before = reads;
    await saveByRename(file, GOOD.replace('a-cmd', 'b-cmd'));
    await waitFor('two reads of the fix', () => reads >= before + 2);
    await flush();
    expect(kinds(events)).toEqual(['content', 'error', 'ok', 'content']);
  });
});

describe('fromAllSources: settings-error once per save, settings-ok once per recovery', () => {
  const tmp = tempDirEachTest();

  function start(watch: ManualWatch): SourceNotice[] {
    const notices: SourceNotice[] = [];
    tmp.ends(allSourcesIn(tmp.dir, {}, { watch: watch.factory, onNotice: (n) => notices.push(n) }).subscribe());
    return notices;
  }

  const about = (notices: SourceNotice[], file: string) =>
    notices.filter((n) => 'file' in n && n.file === file).map((n) => n.type);

  it('settings files and extension manifests', async () => {
    const user = tmp.path('settings.json');
    const extension = tmp.path('extensions', 'ext');
    const manifest = join(extension, 'qwen-extension.json');
    await mkdir(extension, { recursive: true });
    await writeFile(user, BROKEN);
    await writeFile(manifest, BROKEN);
    const watch = new ManualWatch();
    const notices = start(watch);
    await waitFor('both errors', () => about(notices, user).length === 1 && about(notices, manifest).length === 1);

    // Each file read again without a change (the watcher's second read): nothing new.
    watch.emit(tmp.dir, 'change', 'settings.json');
    watch.emit(extension, 'change', 'qwen-extension.json');
    await writeFile(user, GOOD);
    watch.emit(tmp.dir, 'change', 'settings.json');
    await waitFor('user settings ok', () => about(notices, user).includes('settings-ok'));
    watch.emit(tmp.dir, 'change', 'settings.json');
    await flush();
    expect(about(notices, user)).toEqual(['settings-error', 'settings-ok']);
    expect(about(notices, manifest)).toEqual(['settings-error']);

    // Uninstalling an extension whose manifest is broken clears its error too.
    await rm(extension, { recursive: true });
    watch.emit(tmp.path('extensions'), 'unlinkDir', 'ext');
    await waitFor('manifest ok', () => about(notices, manifest).includes('settings-ok'));
    expect(about(notices, manifest)).toEqual(['settings-error', 'settings-ok']);
  });
});
