/**
 * Test kit for the file sources: temp dirs, polling waits, a recorder, and a manual
 * {@link WatchFactory} whose ticks the test fires itself.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Observable, Subject, type Subscription } from 'rxjs';
import { afterEach, beforeEach } from 'vitest';
import type { WatchEvent, WatchFactory } from '../../src/streams/watchFactory.js';
import { deadline } from '../deadlines.js';

export async function makeTempDir(prefix = 'mcp-live-streams-'): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix));
}

export async function removeDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
}

/** What a test starts and must end: a subscription, a {@link Recording}, or a harness. */
export type Endable = Subscription | { subscription: Subscription } | { dispose(): void };

export interface TempDirEachTest {
  /** The directory of the running test. */
  readonly dir: string;
  /** The file named when the kit was made, in {@link dir}. */
  readonly file: string;
  /** `parts` joined onto {@link dir}. */
  path(...parts: string[]): string;
  /** Ends `thing` after the running test, before its directory is removed; returns `thing`. */
  ends<T extends Endable>(thing: T): T;
}

/**
 * A fresh temporary directory for each test of the enclosing `describe`, removed after it. What
 * the test handed to `ends(…)` is ended first, so no watcher or read outlives its directory.
 * `file` names the file most of the tests work on (`tmp.file`), as `.qwen/settings.json`;
 * `prefix` starts the directory's name.
 */
export function tempDirEachTest(file?: string, prefix?: string): TempDirEachTest {
  let dir: string | undefined;
  const ending: Endable[] = [];
  beforeEach(async () => {
    dir = await makeTempDir(prefix);
  });
  afterEach(async () => {
    for (const thing of ending.splice(0)) {
      if ('dispose' in thing) thing.dispose();
      else if ('subscription' in thing) thing.subscription.unsubscribe();
      else thing.unsubscribe();
    }
    if (dir !== undefined) await removeDir(dir);
    dir = undefined;
  });
  const current = (): string => {
    if (dir === undefined) throw new Error('tempDirEachTest: no test is running');
    return dir;
  };
  return {
    get dir() {
      return current();
    },
    get file() {
      if (file === undefined) throw new Error('tempDirEachTest: no file was named');
      return join(current(), file);
    },
    path: (...parts) => join(current(), ...parts),
    ends: (thing) => {
      ending.push(thing);
      return thing;
    },
  };
}

/** Polls `check` until it returns true (or stops throwing); fails with `what` after `timeoutMs`. */
export async function waitFor(what: string, check: () => boolean, timeoutMs = 5000): Promise<void> {
  const giveUpAt = Date.now() + deadline(timeoutMs);
  for (;;) {
    if (check()) return;
    if (Date.now() > giveUpAt) throw new Error(`timed out after ${timeoutMs} ms waiting for: ${what}`);
    await new Promise((done) => setTimeout(done, 15));
  }
}

/** Lets pending promise callbacks and I/O callbacks run. */
export async function flush(): Promise<void> {
  for (let i = 0; i < 3; i++) await new Promise((done) => setImmediate(done));
}

export interface Recording<T> {
  values: T[];
  errors: unknown[];
  subscription: Subscription;
}

export function record<T>(source: Observable<T>): Recording<T> {
  const values: T[] = [];
  const errors: unknown[] = [];
  const subscription = source.subscribe({ next: (v) => values.push(v), error: (e: unknown) => errors.push(e) });
  return { values, errors, subscription };
}

/**
 * A WatchFactory driven by hand: `emit(dir, event, name)` sends an event from the open watchers
 * of `dir`; `active` lists the directories currently watched (one entry per open watcher),
 * `opened` every directory ever watched, in order.
 */
export class ManualWatch {
  readonly active: string[] = [];
  readonly opened: string[] = [];
  private readonly subjects = new Map<string, Set<Subject<WatchEvent>>>();

  readonly factory: WatchFactory = (dir) =>
    new Observable<WatchEvent>((subscriber) => {
      const root = resolve(dir);
      const subject = new Subject<WatchEvent>();
      const set = this.subjects.get(root) ?? new Set<Subject<WatchEvent>>();
      this.subjects.set(root, set);
      set.add(subject);
      this.active.push(root);
      this.opened.push(root);
      const inner = subject.subscribe(subscriber);
      return () => {
        inner.unsubscribe();
        set.delete(subject);
        this.active.splice(this.active.indexOf(root), 1);
      };
    });

  emit(dir: string, event: WatchEvent['event'], name?: string): void {
    const root = resolve(dir);
    const path = name === undefined ? root : join(root, name);
    for (const subject of [...(this.subjects.get(root) ?? [])]) subject.next({ event, path });
  }

  fail(dir: string, error: Error = new Error('watcher failed')): void {
    for (const subject of [...(this.subjects.get(resolve(dir)) ?? [])]) subject.error(error);
  }
}
