import { mkdir, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fromSettingsFile, type SettingsFileEvent } from '../../src/streams/fromSettingsFile.js';
import { MAX_NESTING, parseJsoncObject } from '../../src/model/settings/parseJsonc.js';
import { readJsonc } from '../../src/files/readJsonc.js';
import type { WatchTick } from '../../src/streams/watchDirectory.js';
import { watchFile } from '../../src/streams/watchFile.js';
import { ManualWatch, makeTempDir, record, removeDir, waitFor, type Recording } from './streamTestKit.js';

/**
 * Regression tests for settings faults found by the slow suite (test/slow/settings-faults):
 * each one broke the session before it was fixed.
 */

type Content = Extract<SettingsFileEvent, { kind: 'content' }>;
const contents = (events: SettingsFileEvent[]): Content[] => events.filter((e): e is Content => e.kind === 'content');
const errors = (events: SettingsFileEvent[]) => events.filter((e) => e.kind === 'error');

describe('deeply nested settings', () => {
  const nested = (levels: number) => `{"mcpServers": {}, "x": ${'['.repeat(levels)}${']'.repeat(levels)}}`;

  it('100,000 levels are an error with a position, not a stack overflow (which ended the whole pipeline)', async () => {
    const result = parseJsoncObject(nested(100_000), 'settings.json');
    expect(result).toMatchObject({ ok: false, line: 1, column: 24 + MAX_NESTING });
    expect(!result.ok && result.error).toBe(`settings.json:1:${24 + MAX_NESTING}: nested more than ${MAX_NESTING} levels deep`);
    // Through the reader too: it resolves, it never rejects.
    const read = await readJsonc('/x/settings.json', { readFile: () => Promise.resolve(Buffer.from(nested(100_000))) });
    expect(read.ok).toBe(false);
  });

  it('exactly the limit still parses; brackets inside strings and comments do not count', () => {
    expect(parseJsoncObject(`{"x": ${'['.repeat(MAX_NESTING - 1)}${']'.repeat(MAX_NESTING - 1)}}`, 's').ok).toBe(true);
    const text = `{ // ${'['.repeat(5000)}\n "s": "${'{'.repeat(5000)}" }`;
    expect(parseJsoncObject(text, 's')).toEqual({ ok: true, value: { s: '{'.repeat(5000) } });
  });
});

describe('a read that is denied (EACCES), through the readFile seam', () => {
  // Tests run as root here, and root reads a file of mode 000; so the denial is injected.
  it('is a settings error naming the file, and the last good content stays', async () => {
    const watch = new ManualWatch();
    let denied = false;
    let reads = 0;
    const readFileSeam = (): Promise<Uint8Array> => {
      reads += 1;
      if (!denied) return Promise.resolve(Buffer.from('{"mcpServers": {"a": {"command": "x"}}}'));
      return Promise.reject(Object.assign(new Error('EACCES: permission denied, open'), { code: 'EACCES' }));
    };
    const file = resolve('/virtual/.qwen/settings.json');
    const events = record(fromSettingsFile(file, 'user', { watch: watch.factory, isDirectory: () => true, readFile: readFileSeam }));
    await waitFor('the first content', () => contents(events.values).length === 1);
    denied = true;
    watch.emit('/virtual/.qwen', 'change', 'settings.json');
    await waitFor('the denied read', () => reads === 2 && events.values.length === 2);
    expect(events.values[1]).toEqual({ kind: 'error', file, error: `${file}: permission denied (cannot read the file)` });
    expect(contents(events.values)).toHaveLength(1);
    events.subscription.unsubscribe();
  });
});

describe('a symlinked settings file', () => {
  it('is also watched where it points, and the second watch follows a re-pointed link (hand-driven watcher)', () => {
    const watch = new ManualWatch();
    const link = resolve('/home/u/.qwen/settings.json');
    let target: string | undefined = resolve('/home/u/dotfiles/a.json');
    const ticks = record(watchFile(link, { watch: watch.factory, isDirectory: () => true, linkTarget: () => target }));
    expect(watch.active).toEqual([resolve('/home/u/.qwen'), resolve('/home/u/dotfiles')]);
    expect(ticks.values).toHaveLength(1);

    watch.emit('/home/u/dotfiles', 'change', 'a.json');
    expect(ticks.values).toHaveLength(2);
    watch.emit('/home/u/dotfiles', 'change', 'b.json');
    expect(ticks.values).toHaveLength(2);

    target = resolve('/home/u/elsewhere/b.json');
    watch.emit('/home/u/.qwen', 'change', 'settings.json');
    expect(watch.active).toEqual([resolve('/home/u/.qwen'), resolve('/home/u/elsewhere')]);
    expect(ticks.values).toHaveLength(3);
    watch.emit('/home/u/elsewhere', 'change', 'b.json');
    expect(ticks.values).toHaveLength(4);

    target = undefined; // now a plain file (or a dangling link)
    watch.emit('/home/u/.qwen', 'change', 'settings.json');
    expect(watch.active).toEqual([resolve('/home/u/.qwen')]);
    ticks.subscription.unsubscribe();
    expect(watch.active).toEqual([]);
  });

  describe('with real chokidar', () => {
    let dir: string | undefined;
    let events: Recording<SettingsFileEvent> | undefined;
    let neighbour: Recording<WatchTick> | undefined;
    afterEach(async () => {
      events?.subscription.unsubscribe();
      neighbour?.subscription.unsubscribe();
      if (dir) await removeDir(dir);
    });

    // As in a session: approvals, trusted folders and extensions are watched in the same ~/.qwen,
    // and chokidar instances share their fs.watch handles; with a neighbour watching, the link's
    // directory watch stops hearing of the target once an atomic save has replaced it.
    it('sees an in-place save of the target after an atomic save replaced it, with a neighbour watched in the same directory', async () => {
      dir = await makeTempDir();
      const target = join(dir, 'dotfiles', 'settings.json');
      const link = join(dir, '.qwen', 'settings.json');
      await mkdir(join(dir, 'dotfiles'));
      await mkdir(join(dir, '.qwen'));
      const servers = (name: string) => JSON.stringify({ mcpServers: { [name]: { command: name } } });
      await writeFile(target, servers('a'));
      await symlink(target, link);
      neighbour = record(watchFile(join(dir, '.qwen', 'mcpApprovals.json')));
      events = record(fromSettingsFile(link, 'user'));
      const last = () => Object.keys(contents(events!.values).at(-1)?.snapshot.servers ?? {}).join();
      await waitFor('a', () => last() === 'a');

      await writeFile(`${target}.tmp`, servers('b'));
      await rename(`${target}.tmp`, target);
      await waitFor('b (atomic save of the target)', () => last() === 'b');
      await writeFile(target, servers('c'));
      await waitFor('c (in-place save of the new target)', () => last() === 'c');
      // An in-place save truncates first, so each one may also be read empty ("the file is
      // empty", an error without a position): wait for the syntax error itself.
      await writeFile(target, '{ broken');
      await waitFor('the syntax error', () => errors(events!.values).some((e) => e.line !== undefined));
      for (const error of errors(events.values)) expect(basename(error.file)).toBe('settings.json');
      expect(await readFile(link, 'utf8')).toBe('{ broken');
    });
  });
});

describe('a directory where the settings file should be, replaced by a file', () => {
  it('a raw event naming the file ticks; one naming another child or the directory does not (hand-driven watcher)', () => {
    const watch = new ManualWatch();
    const ticks = record(watchFile('/v/.qwen/settings.json', { watch: watch.factory, isDirectory: () => true, linkTarget: () => undefined }));
    watch.emit('/v/.qwen', 'raw', 'settings.json');
    expect(ticks.values).toHaveLength(2);
    watch.emit('/v/.qwen', 'raw', 'settings.json.swp');
    watch.emit('/v/.qwen', 'raw');
    expect(ticks.values).toHaveLength(2);
    ticks.subscription.unsubscribe();
  });

  it('is read once the directory is gone and a file is there, and its later saves too (chokidar itself reports neither)', async () => {
    const dir = await makeTempDir();
    const file = join(dir, 'settings.json');
    await mkdir(file);
    // A neighbour in the same directory, as in a session (see the symlink case above).
    const neighbour = record(watchFile(join(dir, 'mcpApprovals.json')));
    const events = record(fromSettingsFile(file, 'user'));
    try {
      await waitFor('the directory reported', () => errors(events.values).length >= 1);
      expect(errors(events.values)[0]).toMatchObject({ error: `${file}: is a directory, expected a file` });
      await rm(file, { recursive: true });
      await writeFile(file, '{"mcpServers": {"a": {"command": "a"}}}');
      const last = () => Object.keys(contents(events.values).at(-1)?.snapshot.servers ?? {}).join();
      await waitFor('the file read', () => last() === 'a');
      await writeFile(file, '{"mcpServers": {"b": {"command": "b"}}}');
      await waitFor('its next save read', () => last() === 'b');
    } finally {
      events.subscription.unsubscribe();
      neighbour.subscription.unsubscribe();
      await removeDir(dir);
    }
  });
});
