import { join, resolve } from 'node:path';
import { NEVER, VirtualTimeScheduler } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { shareWatchersByDirectory } from '../../src/streams/shareWatchersByDirectory.js';
import { watchDirectory } from '../../src/streams/watchDirectory.js';
import { watchFile } from '../../src/streams/watchFile.js';
import { ManualWatch, record } from './streamTestKit.js';

const qwen = resolve('/virtual/home/.qwen');
const extensions = join(qwen, 'extensions');

/** The four sources of `~/.qwen`, as fromAllSources makes them, on one sharing factory; `extensions/` does not exist. */
function qwenSources(watch: ManualWatch, deps: { scheduler?: VirtualTimeScheduler; rewatchDelayMs?: number } = {}) {
  const shared = { watch: shareWatchersByDirectory(watch.factory), isDirectory: (path: string) => path !== extensions, linkTarget: () => undefined, ...deps };
  return {
    settings: record(watchFile(join(qwen, 'settings.json'), shared)),
    approvals: record(watchFile(join(qwen, 'mcpApprovals.json'), shared)),
    trusted: record(watchFile(join(qwen, 'trustedFolders.json'), shared)),
    extensions: record(watchDirectory(extensions, () => true, shared)),
  };
}

describe('shareWatchersByDirectory', () => {
  it('watches ~/.qwen once for settings, approvals, trusted folders and a missing extensions directory; each hears its own names', () => {
    const watch = new ManualWatch();
    const sources = qwenSources(watch);
    expect(watch.opened).toEqual([qwen]);
    expect(watch.active).toEqual([qwen]);

    watch.emit(qwen, 'change', 'settings.json');
    watch.emit(qwen, 'change', 'trustedFolders.json');
    watch.emit(qwen, 'change', 'trustedFolders.json');
    // At subscription, then the events of their own names.
    expect(sources.settings.values).toEqual(['change', 'change']);
    expect(sources.approvals.values).toEqual(['change']);
    expect(sources.trusted.values).toEqual(['change', 'change', 'change']);
    expect(sources.extensions.values).toEqual(['change']);

    // `ready` reaches every subscriber of the watcher: a check, no change.
    watch.emit(qwen, 'ready');
    expect(sources.approvals.values).toEqual(['change', 'check']);

    for (const source of Object.values(sources)) source.subscription.unsubscribe();
    expect(watch.active).toEqual([]);
  });

  it('the last subscriber to leave closes the watcher; a later one opens a new one', () => {
    const watch = new ManualWatch();
    const shared = shareWatchersByDirectory(watch.factory);
    const a = record(watchFile(join(qwen, 'settings.json'), { watch: shared, isDirectory: () => true, linkTarget: () => undefined }));
    const b = record(watchFile(join(qwen, 'mcpApprovals.json'), { watch: shared, isDirectory: () => true, linkTarget: () => undefined }));
    a.subscription.unsubscribe();
    expect(watch.active).toEqual([qwen]);
    b.subscription.unsubscribe();
    expect(watch.active).toEqual([]);

    const c = record(watchFile(join(qwen, 'settings.json'), { watch: shared, isDirectory: () => true, linkTarget: () => undefined }));
    expect(watch.opened).toEqual([qwen, qwen]);
    expect(watch.active).toEqual([qwen]);
    c.subscription.unsubscribe();
  });

  it('a failed watcher is replaced by one watcher again, which every subscriber joins', () => {
    const watch = new ManualWatch();
    const scheduler = new VirtualTimeScheduler();
    const sources = qwenSources(watch, { scheduler, rewatchDelayMs: 10 });
    watch.fail(qwen);
    // Every subscriber heard the failure (a change: whatever happened went unseen) and waits.
    expect(sources.settings.values).toEqual(['change', 'change']);
    expect(sources.extensions.values).toEqual(['change', 'change']);
    expect(watch.active).toEqual([]);

    scheduler.flush();
    expect(watch.opened).toEqual([qwen, qwen]);
    expect(watch.active).toEqual([qwen]);
    watch.emit(qwen, 'change', 'mcpApprovals.json');
    expect(sources.approvals.values).toEqual(['change', 'change', 'change']);
    for (const source of Object.values(sources)) source.subscription.unsubscribe();
    expect(watch.active).toEqual([]);
  });

  it('factories made separately share nothing', () => {
    const watch = new ManualWatch();
    const deps = () => ({ watch: shareWatchersByDirectory(watch.factory), isDirectory: () => true, linkTarget: () => undefined });
    const a = record(watchFile(join(qwen, 'settings.json'), deps()));
    const b = record(watchFile(join(qwen, 'settings.json'), deps()));
    expect(watch.active).toEqual([qwen, qwen]);
    a.subscription.unsubscribe();
    b.subscription.unsubscribe();
  });

  it('the one watcher tracks the union of the names its subscribers want, live; one that names none wants all (decision 194)', () => {
    const wanted: ((name: string) => boolean)[] = [];
    const shared = shareWatchersByDirectory((_dir, names) => {
      wanted.push(names ?? (() => true));
      return NEVER;
    });
    const a = shared(qwen, (name) => name === 'settings.json').subscribe();
    const b = shared(qwen, (name) => name === 'mcpApprovals.json').subscribe();
    expect(wanted).toHaveLength(1);
    const [tracks] = wanted as [(name: string) => boolean];
    expect(['settings.json', 'mcpApprovals.json', 'other.json'].map(tracks)).toEqual([true, true, false]);

    a.unsubscribe();
    expect(['settings.json', 'mcpApprovals.json'].map(tracks)).toEqual([false, true]);
    const all = shared(qwen).subscribe();
    expect(tracks('other.json')).toBe(true);
    all.unsubscribe();
    expect(tracks('other.json')).toBe(false);
    b.unsubscribe();
  });
});
