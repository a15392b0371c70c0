import { writeFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { tap } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import { chokidarWatchFactory, type WatchEvent, type WatchFactory } from '../../src/streams/watchFactory.js';
import { watchFile } from '../../src/streams/watchFile.js';
import { ManualWatch, makeTempDir, record, removeDir, waitFor } from './streamTestKit.js';

const home = resolve('/virtual/home');
const qwen = join(home, '.qwen');
const settings = join(qwen, 'settings.json');

/** A file system of directories only, as `isDirectory` sees it. */
function directories(...dirs: string[]): { has: (path: string) => boolean; add: (d: string) => void; delete: (d: string) => void } {
  const set = new Set(['/', '/virtual', home, ...dirs].map((d) => resolve(d)));
  return { has: (path) => set.has(path), add: (d) => set.add(resolve(d)), delete: (d) => set.delete(resolve(d)) };
}

describe('watchFile (manual watcher)', () => {
  it('ticks at subscription, on ready, and on add/change/unlink/recheck of its own name only', () => {
    const watch = new ManualWatch();
    const fs = directories(qwen);
    const ticks = record(watchFile(settings, { watch: watch.factory, isDirectory: fs.has }));
    expect(ticks.values).toHaveLength(1);
    expect(watch.active).toEqual([qwen]);

    watch.emit(qwen, 'ready');
    expect(ticks.values).toHaveLength(2);
    for (const event of ['add', 'change', 'unlink', 'recheck'] as const) watch.emit(qwen, event, 'settings.json');
    // Ready and the trailing recheck only make sure: checks, which do not restart the debounce.
    expect(ticks.values).toEqual(['change', 'check', 'change', 'change', 'change', 'check']);

    for (const name of ['settings.json.swp', '.settings.json.swp', 'settings.json~', 'settings.json.tmp', 'settings.json.orig', 'other.json']) {
      watch.emit(qwen, 'change', name);
      watch.emit(qwen, 'add', name);
    }
    expect(ticks.values).toHaveLength(6);
    ticks.subscription.unsubscribe();
  });

  it('watches the nearest existing ancestor and moves down as directories appear (two levels)', () => {
    const watch = new ManualWatch();
    const fs = directories();
    const deep = join(home, 'a', 'b', 'settings.json');
    const ticks = record(watchFile(deep, { watch: watch.factory, isDirectory: fs.has }));
    expect(watch.active).toEqual([home]);
    expect(ticks.values).toHaveLength(1);

    watch.emit(home, 'add', 'unrelated.txt');
    watch.emit(home, 'addDir', 'elsewhere');
    expect(watch.active).toEqual([home]);
    expect(ticks.values).toHaveLength(1);

    fs.add(join(home, 'a'));
    watch.emit(home, 'addDir', 'a');
    expect(watch.active).toEqual([join(home, 'a')]);
    expect(ticks.values).toHaveLength(2);

    fs.add(join(home, 'a', 'b'));
    watch.emit(join(home, 'a'), 'addDir', 'b');
    expect(watch.active).toEqual([join(home, 'a', 'b')]);
    expect(ticks.values).toHaveLength(3);

    watch.emit(join(home, 'a', 'b'), 'add', 'settings.json');
    expect(ticks.values).toHaveLength(4);
    ticks.subscription.unsubscribe();
    expect(watch.active).toEqual([]);
  });

  it('moves down several levels at once when they appeared together (mkdir -p)', () => {
    const watch = new ManualWatch();
    const fs = directories();
    const deep = join(home, 'a', 'b', 'settings.json');
    const ticks = record(watchFile(deep, { watch: watch.factory, isDirectory: fs.has }));
    fs.add(join(home, 'a'));
    fs.add(join(home, 'a', 'b'));
    watch.emit(home, 'addDir', 'a');
    expect(watch.active).toEqual([join(home, 'a', 'b')]);
    expect(watch.opened).toEqual([home, join(home, 'a', 'b')]);
    expect(ticks.values).toHaveLength(2);
    ticks.subscription.unsubscribe();
  });

  it('re-checks on ready while at an ancestor (a directory created before the watcher was ready)', () => {
    const watch = new ManualWatch();
    const fs = directories();
    const ticks = record(watchFile(settings, { watch: watch.factory, isDirectory: fs.has }));
    fs.add(qwen);
    watch.emit(home, 'ready');
    expect(watch.active).toEqual([qwen]);
    expect(ticks.values).toHaveLength(2);
    ticks.subscription.unsubscribe();
  });

  it('goes back up when the directory is deleted, and down again when it is re-created', () => {
    const watch = new ManualWatch();
    const fs = directories(qwen);
    const ticks = record(watchFile(settings, { watch: watch.factory, isDirectory: fs.has }));
    fs.delete(qwen);
    watch.emit(qwen, 'unlinkDir');
    expect(watch.active).toEqual([home]);
    expect(ticks.values).toHaveLength(2);

    // Events of the old watcher no longer count, it is closed.
    watch.emit(qwen, 'change', 'settings.json');
    expect(ticks.values).toHaveLength(2);

    fs.add(qwen);
    watch.emit(home, 'addDir', '.qwen');
    expect(watch.active).toEqual([qwen]);
    expect(ticks.values).toHaveLength(3);
    ticks.subscription.unsubscribe();
    expect(watch.active).toEqual([]);
  });

  it('re-checks on any event (also an unclassified raw one): a vanished directory is left at once', () => {
    const watch = new ManualWatch();
    const fs = directories(qwen);
    const ticks = record(watchFile(settings, { watch: watch.factory, isDirectory: fs.has }));
    watch.emit(qwen, 'raw');
    expect(ticks.values).toHaveLength(1);
    fs.delete(qwen);
    watch.emit(qwen, 'raw');
    expect(watch.active).toEqual([home]);
    expect(ticks.values).toHaveLength(2);
    ticks.subscription.unsubscribe();
  });

  it('is cold: each subscription has its own watcher, and unsubscribing closes only its own', () => {
    const watch = new ManualWatch();
    const fs = directories(qwen);
    const first = record(watchFile(settings, { watch: watch.factory, isDirectory: fs.has }));
    const second = record(watchFile(settings, { watch: watch.factory, isDirectory: fs.has }));
    expect(watch.active).toEqual([qwen, qwen]);
    first.subscription.unsubscribe();
    expect(watch.active).toEqual([qwen]);
    watch.emit(qwen, 'change', 'settings.json');
    expect(first.values).toHaveLength(1);
    expect(second.values).toHaveLength(2);
    second.subscription.unsubscribe();
    expect(watch.active).toEqual([]);
  });
});

describe('watchFile (virtual time)', () => {
  const change: WatchEvent = { event: 'change', path: settings };

  it('ticks when its watcher fails and watches again after the delay', () => {
    const scheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const broken = cold<WatchEvent>('--#');
      const healthy = cold<WatchEvent>('---c', { c: change });
      let attempts = 0;
      const watch: WatchFactory = () => (attempts++ === 0 ? broken : healthy);
      const source = watchFile(settings, { watch, isDirectory: () => true, scheduler, rewatchDelayMs: 10 });
      // t=0 initial read, t=2 failure, t=12 watching again, t=15 the change.
      expectObservable(source, '^ 30ms !').toBe('t-t 12ms t', { t: 'change' });
      expectSubscriptions(broken.subscriptions).toBe('^-!');
      expectSubscriptions(healthy.subscriptions).toBe('12ms ^ 18ms !');
    });
  });

  it('moves instead of retrying when the failed directory is gone', () => {
    const scheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const target = cold<WatchEvent>('---#');
      const parent = cold<WatchEvent>('-');
      const watch: WatchFactory = (dir) => (resolve(dir) === qwen ? target : parent);
      let qwenExists = true;
      scheduler.schedule(() => (qwenExists = false), 2);
      const isDirectory = (path: string): boolean => path !== qwen || qwenExists;
      const source = watchFile(settings, { watch, isDirectory, scheduler, rewatchDelayMs: 10 });
      expectObservable(source, '^ 20ms !').toBe('t--t', { t: 'change' });
      expectSubscriptions(target.subscriptions).toBe('^--!');
      expectSubscriptions(parent.subscriptions).toBe('---^ 17ms !');
    });
  });
});

describe('watchFile (real chokidar)', () => {
  it('never reacts to .swp, ~, .tmp or .orig files, nor to other names', async () => {
    const dir = await makeTempDir();
    const file = join(dir, 'settings.json');
    const log: string[] = [];
    const spy: WatchFactory = (d) =>
      chokidarWatchFactory(d).pipe(tap((e) => log.push(e.event === 'ready' ? 'ready' : `${e.event} ${basename(e.path)}`)));
    const ticks = record(watchFile(file, { watch: spy }).pipe(tap(() => log.push('tick'))));
    try {
      await waitFor('the watcher to be ready', () => log.includes('ready'));
      for (const name of ['.settings.json.swp', 'settings.json~', 'settings.json.orig', 'settings.json.tmp', '4913']) {
        await writeFile(join(dir, name), 'x');
      }
      await writeFile(file, '{}');
      // chokidar stats the new entries of one directory read in parallel, so `add 4913` may come
      // after `add settings.json`: wait for both.
      await waitFor('the save of settings.json and the add of 4913', () => log.join('|').includes('add settings.json|tick') && log.includes('add 4913'));

      // Editor artifacts never reach us (chokidar's `ignored`); other names reach us but do not tick.
      expect(log.filter((line) => /\.swp|~|\.orig|\.tmp/.test(line))).toEqual([]);
      expect(log).toContain('add 4913');
      const readyAt = log.indexOf('ready');
      log.forEach((line, i) => {
        if (line === 'tick' && i > readyAt + 1) expect(log[i - 1]).toMatch(/ settings\.json$/);
      });
    } finally {
      ticks.subscription.unsubscribe();
      await removeDir(dir);
    }
  });
});
