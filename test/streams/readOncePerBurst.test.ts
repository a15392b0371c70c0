import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ReadActivity } from '../../src/operators/settleOnActivity.js';
import { fromSettingsFile } from '../../src/streams/fromSettingsFile.js';
import { ManualWatch, flush, record } from './streamTestKit.js';

const qwen = resolve('/virtual/home/.qwen');
const settings = join(qwen, 'settings.json');

/** A readFile whose reads the test answers by hand, in order. */
function manualReads() {
  const pending: { resolve: (bytes: Uint8Array) => void }[] = [];
  let started = 0;
  const readFile = (): Promise<Uint8Array> =>
    new Promise((done) => {
      started += 1;
      pending.push({ resolve: done });
    });
  const answer = async (servers: Record<string, unknown>) => {
    pending.shift()!.resolve(new TextEncoder().encode(JSON.stringify({ mcpServers: servers })));
    await flush();
  };
  return { readFile, answer, started: () => started, running: () => pending.length };
}

describe('fromSettingsFile reads each change once per burst of watcher events (decision 107)', () => {
  it('ticks during a read neither abandon it nor start a second one; one more read follows it', async () => {
    const watch = new ManualWatch();
    const reads = manualReads();
    const activity: ReadActivity[] = [];
    const events = record(
      fromSettingsFile(settings, 'user', {
        watch: watch.factory,
        isDirectory: () => true,
        readFile: reads.readFile,
        onActivity: (a) => activity.push(a),
      }),
    );
    expect(reads.started()).toBe(1);

    // A save that the watcher reports three times (raw, change, and the recheck) while the first read runs.
    watch.emit(qwen, 'raw', 'settings.json');
    watch.emit(qwen, 'change', 'settings.json');
    watch.emit(qwen, 'recheck', 'settings.json');
    expect(reads.started()).toBe(1);
    expect(reads.running()).toBe(1);

    // The first read is not thrown away: its content goes out, then the one trailing read starts.
    await reads.answer({ a: { command: 'a' } });
    expect(events.values.filter((e) => e.kind === 'content')).toHaveLength(1);
    expect(reads.started()).toBe(2);
    await reads.answer({ a: { command: 'a' }, b: { command: 'b' } });
    expect(reads.started()).toBe(2);
    const contents = events.values.flatMap((e) => (e.kind === 'content' ? [Object.keys(e.snapshot.servers)] : []));
    expect(contents).toEqual([['a'], ['a', 'b']]);

    // Changes: at subscription, raw, change (the recheck is not one); every read started ended.
    expect(activity.filter((a) => a === 'change')).toHaveLength(3);
    expect(activity.filter((a) => a === 'start')).toHaveLength(2);
    expect(activity.filter((a) => a === 'end')).toHaveLength(2);
    events.subscription.unsubscribe();
  });
});
