import { readFile, writeFile } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import type { Scope } from '../../src/model/types.js';
import { fromSettingsFile, type SettingsFileEvent, type SettingsFileKind } from '../../src/streams/fromSettingsFile.js';
import { ManualWatch, flush, record, waitFor, type Recording } from './streamTestKit.js';

/**
 * fromSettingsFile on a real file with a hand-driven watcher: `save(text)` writes the file and
 * fires one tick, then waits until that read has been handled — so "nothing happened" is a
 * real observation, not a guess about timing.
 */
export class Harness {
  readonly watch = new ManualWatch();
  reads = 0;
  readonly events: Recording<SettingsFileEvent>;

  constructor(
    readonly file: string,
    scope: Scope = 'user',
    kind?: SettingsFileKind,
  ) {
    const readFileCounted = async (path: string): Promise<Uint8Array> => {
      try {
        return await readFile(path);
      } finally {
        this.reads++;
      }
    };
    this.events = record(
      fromSettingsFile(file, scope, { watch: this.watch.factory, readFile: readFileCounted, ...(kind ? { kind } : {}) }),
    );
  }

  async started(): Promise<void> {
    await waitFor('the first read', () => this.reads >= 1);
    await flush();
  }

  async tick(): Promise<void> {
    const before = this.reads;
    this.watch.emit(dirname(this.file), 'change', basename(this.file));
    await waitFor('the read after a tick', () => this.reads > before);
    await flush();
  }

  async save(text: string): Promise<void> {
    await writeFile(this.file, text);
    await this.tick();
  }

  get values(): SettingsFileEvent[] {
    return this.events.values;
  }

  dispose(): void {
    this.events.subscription.unsubscribe();
  }
}

