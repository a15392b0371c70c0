import { chmod, mkdir, readFile, readdir, stat, symlink, unlink, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { beforeEach, describe, expect, it } from 'vitest';
import { surfaceHash, surfaceOf } from '../../../src/model/tools/surface.js';
import { type ServerSurface } from '../../../src/model/tools/surfaceTypes.js';
import { createSurfaceStore, type SurfaceRecord, type SurfaceStoreOptions } from '../../../src/sinks/stores/surfaceStore.js';
import { writeOwnedFile } from '../../../src/files/writeOwnedFile.js';
import { posixOnly } from '../../platforms.js';
import { waitFor, tempDirEachTest } from '../../streams/streamTestKit.js';

const surfaceWith = (description: string): ServerSurface =>
  surfaceOf({ tools: [{ name: 'read', description, inputSchema: { type: 'object' } }], prompts: [], resources: [] }, { instructions: 'hi' });

function record(fingerprint: string, seenAt: number, description = `tool of ${fingerprint}`): SurfaceRecord {
  const surface = surfaceWith(description);
  return { name: `srv-${fingerprint}`, fingerprint, hash: surfaceHash(surface), surface, seenAt };
}

function pinnedRecord(fingerprint: string, seenAt: number): SurfaceRecord {
  const pinned = surfaceWith('what was approved');
  return { ...record(fingerprint, seenAt), pinned: { hash: surfaceHash(pinned), surface: pinned, approvedAt: seenAt - 1 } };
}

describe('surface store', () => {
  const tmp = tempDirEachTest('.qwen/mcp-surfaces.json', 'mcp-live-surfaces-');
  let warnings: string[];
  /** Every write of the file itself (not its backups), through ownedJsonFile's write seam. */
  let writes: number;
  const options = (extra: SurfaceStoreOptions = {}): SurfaceStoreOptions => ({
    onWarning: (message) => warnings.push(message),
    writeFile: async (path, text, opts) => {
      if (path === tmp.file) writes += 1;
      await writeOwnedFile(path, text, opts);
    },
    ...extra,
  });
  const onDisk = async (): Promise<{ version: number; servers: Record<string, SurfaceRecord> }> =>
    JSON.parse(await readFile(tmp.file, 'utf8')) as { version: number; servers: Record<string, SurfaceRecord> };

  beforeEach(() => {
    warnings = [];
    writes = 0;
  });

  it('round-trips records, pins included, and forgets a deleted one', async () => {
    const store = createSurfaceStore(tmp.file, options());
    await store.load();
    expect(store.get('f1')).toBeUndefined();
    store.put(record('f1', 100));
    store.put(pinnedRecord('f2', 200));
    expect(store.get('f1')).toStrictEqual(record('f1', 100));
    await store.flush();
    expect(await onDisk()).toStrictEqual({ version: 1, servers: { f1: record('f1', 100), f2: pinnedRecord('f2', 200) } });

    const again = createSurfaceStore(tmp.file, options());
    await again.load();
    expect(again.get('f1')).toStrictEqual(record('f1', 100));
    expect(again.get('f2')).toStrictEqual(pinnedRecord('f2', 200));
    again.delete('f1');
    expect(again.get('f1')).toBeUndefined();
    await again.flush();
    expect(await onDisk()).toStrictEqual({ version: 1, servers: { f2: pinnedRecord('f2', 200) } });
    expect(warnings).toStrictEqual([]);
  });

  posixOnly('mode bits').it('writes mode 0600, also over a wider existing file', async () => {
    await mkdir(dirname(tmp.file), { recursive: true });
    await writeFile(tmp.file, '{}');
    await chmod(tmp.file, 0o644);
    const store = createSurfaceStore(tmp.file, options());
    store.put(record('f1', 1));
    await store.flush();
    expect((await stat(tmp.file)).mode & 0o777).toBe(0o600);
  });

  it('gathers puts over several turns of the event loop into one write, after the delay, without a flush', async () => {
    const store = createSurfaceStore(tmp.file, options({ writeDelayMs: 1000 }));
    for (let i = 0; i < 50; i++) {
      store.put(record(`f${i}`, i));
      if (i % 5 === 0) await sleep(5);
    }
    store.delete('f0');
    // Nothing is written until the delay is over.
    await expect(stat(tmp.file)).rejects.toMatchObject({ code: 'ENOENT' });
    await waitFor('the coalesced write', () => writes > 0);
    await store.flush();
    expect(writes).toBe(1);
    expect(Object.keys((await onDisk()).servers)).toHaveLength(49);
  });

  it('writes again for puts made while a write is under way, and loses none', async () => {
    let release!: () => void;
    const held = new Promise<void>((done) => (release = done));
    let started!: () => void;
    const writing = new Promise<void>((done) => (started = done));
    const store = createSurfaceStore(
      tmp.file,
      options({
        writeDelayMs: 0,
        writeFile: async (path, text, opts) => {
          if (path === tmp.file && ++writes === 1) {
            started();
            await held;
          }
          await writeOwnedFile(path, text, opts);
        },
      }),
    );
    store.put(record('a', 1));
    const first = store.flush();
    await writing;
    store.put(record('b', 2));
    release();
    await first;
    expect(Object.keys((await onDisk()).servers)).toStrictEqual(['a']);
    await store.flush();
    expect(Object.keys((await onDisk()).servers)).toStrictEqual(['a', 'b']);
    expect(writes).toBe(2);
    // Nothing pending: flush writes nothing.
    await store.flush();
    expect(writes).toBe(2);
  });

  it('merges two stores on one file: both keep their records, the newer seenAt wins', async () => {
    const gateway = createSurfaceStore(tmp.file, options());
    const cli = createSurfaceStore(tmp.file, options());
    await Promise.all([gateway.load(), cli.load()]);
    for (let i = 0; i < 20; i++) {
      gateway.put(record(`g${i}`, i));
      cli.put(record(`c${i}`, i));
    }
    gateway.put(record('shared', 10, 'old view'));
    cli.put(record('shared', 20, 'new view'));
    await Promise.all([gateway.flush(), cli.flush()]);
    const { servers } = await onDisk();
    expect(Object.keys(servers)).toHaveLength(41);
    expect(servers.shared).toStrictEqual(record('shared', 20, 'new view'));

    // The older put loses even when it is written last; memory then shows the winner.
    gateway.put(record('shared', 15, 'stale view'));
    await gateway.flush();
    expect((await onDisk()).servers.shared).toStrictEqual(record('shared', 20, 'new view'));
    expect(gateway.get('shared')).toStrictEqual(record('shared', 20, 'new view'));
    // A write brings the other store's records into memory.
    expect(gateway.get('c3')).toStrictEqual(record('c3', 3));
  });

  it('deletes what is on disk only when it is older than the delete', async () => {
    let clock = 1000;
    const cli = createSurfaceStore(tmp.file, options({ now: () => clock }));
    const gateway = createSurfaceStore(tmp.file, options());
    gateway.put(record('old', 500));
    gateway.put(record('seen-later', 1500));
    await gateway.flush();
    cli.delete('old');
    cli.delete('seen-later');
    await cli.flush();
    expect(Object.keys((await onDisk()).servers)).toStrictEqual(['seen-later']);
    clock = 2000;
    cli.delete('seen-later');
    await cli.flush();
    expect((await onDisk()).servers).toStrictEqual({});
  });

  it('reads a corrupt file as empty with a warning, and backs its bytes up before writing', async () => {
    await mkdir(dirname(tmp.file), { recursive: true });
    await writeFile(tmp.file, '{"version": 1, "servers": {');
    const store = createSurfaceStore(tmp.file, options({ now: () => Date.UTC(2026, 11, 1) }));
    await store.load();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(tmp.file);
    expect(warnings[0]).toContain('not valid JSON');
    store.put(record('f1', 1));
    await store.flush();
    expect(await readFile(tmp.path('.qwen', 'mcp-surfaces.json.corrupt-2026-12-01T00-00-00-000Z.bak'), 'utf8')).toBe('{"version": 1, "servers": {');
    expect(await onDisk()).toStrictEqual({ version: 1, servers: { f1: record('f1', 1) } });
  });

  it('drops malformed records, a malformed pin with its record, and keeps the rest', async () => {
    const good = pinnedRecord('good', 5);
    const servers = {
      good,
      // The key and the fingerprint disagree.
      moved: record('elsewhere', 1),
      untimed: { ...record('untimed', 1), seenAt: '1' },
      badSurface: { ...record('badSurface', 1), surface: { tools: 'read' } },
      // A pin that is not whole must never stand for an approval.
      badPin: { ...record('badPin', 1), pinned: { hash: 'h', surface: surfaceWith('x') } },
      pinNoHash: { ...record('pinNoHash', 1), pinned: { hash: '', surface: surfaceWith('x'), approvedAt: 1 } },
    };
    await mkdir(dirname(tmp.file), { recursive: true });
    await writeFile(tmp.file, JSON.stringify({ version: 1, servers }));
    const store = createSurfaceStore(tmp.file, options({ now: () => 0 }));
    await store.load();
    expect(warnings).toStrictEqual([`${tmp.file}: ignored 5 malformed records (the file is backed up before it is next written)`]);
    expect(store.get('good')).toStrictEqual(good);
    for (const fingerprint of ['moved', 'elsewhere', 'untimed', 'badSurface', 'badPin', 'pinNoHash']) expect(store.get(fingerprint)).toBeUndefined();
  });

  it('keeps a record whose fingerprint is __proto__ as data', async () => {
    const store = createSurfaceStore(tmp.file, options());
    store.put(record('__proto__', 1));
    await store.flush();
    const again = createSurfaceStore(tmp.file, options());
    await again.load();
    expect(again.get('__proto__')).toStrictEqual(record('__proto__', 1));
    expect(Object.keys((await onDisk()).servers)).toStrictEqual(['__proto__']);
  });

  it('reads a file of another version as empty, and backs it up before replacing it', async () => {
    await mkdir(dirname(tmp.file), { recursive: true });
    await writeFile(tmp.file, JSON.stringify({ version: 2, servers: { f1: record('f1', 1) } }));
    const store = createSurfaceStore(tmp.file, options({ now: () => 0 }));
    await store.load();
    expect(store.get('f1')).toBeUndefined();
    expect(warnings).toStrictEqual([`${tmp.file}: version 2 is not 1; no surface records are used (the file is backed up before it is next written)`]);
    store.put(record('f2', 2));
    await store.flush();
    expect((await readdir(dirname(tmp.file))).filter((name) => name.endsWith('.bak'))).toHaveLength(1);
  });

  posixOnly('symlinks').it('refuses to write through a symlink, leaving its target as it was, and writes once the link is gone', async () => {
    const target = tmp.path('bashrc');
    await writeFile(target, 'export PATH\n');
    await mkdir(dirname(tmp.file), { recursive: true });
    await symlink(target, tmp.file);
    const store = createSurfaceStore(tmp.file, options());
    store.put(record('f1', 1));
    await expect(store.flush()).resolves.toBeUndefined();
    expect(await readFile(target, 'utf8')).toBe('export PATH\n');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('symbolic link');
    expect(warnings[0]).toContain('tried again with the next change');
    expect(store.get('f1')).toStrictEqual(record('f1', 1));
    // The put was kept: the next flush writes it.
    await unlink(tmp.file);
    await store.flush();
    expect(await onDisk()).toStrictEqual({ version: 1, servers: { f1: record('f1', 1) } });
  });

  posixOnly('uids').it("reads another user's file as empty with a warning", async () => {
    await mkdir(dirname(tmp.file), { recursive: true });
    await writeFile(tmp.file, JSON.stringify({ version: 1, servers: { f1: record('f1', 1) } }));
    const uid = (process.getuid?.() ?? 0) + 4242;
    const store = createSurfaceStore(tmp.file, options({ ownerUid: uid }));
    await store.load();
    expect(store.get('f1')).toBeUndefined();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(`not by you (uid ${uid})`);
  });

  it('reads a file over 4 MiB as empty with a warning, and never rejects', async () => {
    await mkdir(dirname(tmp.file), { recursive: true });
    await writeFile(tmp.file, JSON.stringify({ version: 1, servers: {}, pad: 'x'.repeat(5 * 1024 * 1024) }));
    const store = createSurfaceStore(tmp.file, options());
    await expect(store.load()).resolves.toBeUndefined();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('file too large');
    // Read once: a second load reads nothing and warns nothing.
    await store.load();
    expect(warnings).toHaveLength(1);
  });

  it('does not store a record over maxRecordBytes, naming the server and its size', async () => {
    const store = createSurfaceStore(tmp.file, options({ maxRecordBytes: 10_000 }));
    store.put(record('small', 1));
    store.put({ ...record('big', 2, 'y'.repeat(20_000)), name: 'big\x1b[2J' });
    expect(warnings).toStrictEqual([`${tmp.file}: the surface of server "big\\x1b[2J" is 20 KiB, over the limit of 9.8 KiB; it is not recorded`]);
    expect(store.get('big')).toBeUndefined();
    await store.flush();
    expect(Object.keys((await onDisk()).servers)).toStrictEqual(['small']);
  });

  it('drops the least recently seen records beyond maxRecords, in memory too', async () => {
    const store = createSurfaceStore(tmp.file, options({ maxRecords: 3 }));
    for (const seenAt of [4, 1, 5, 2, 3]) store.put(record(`s${seenAt}`, seenAt));
    await store.flush();
    expect(Object.keys((await onDisk()).servers)).toStrictEqual(['s3', 's4', 's5']);
    expect(store.get('s1')).toBeUndefined();
    expect(store.get('s2')).toBeUndefined();
    expect(store.get('s3')).toStrictEqual(record('s3', 3));
  });

  it('drops the least recently seen records beyond maxBytes, and never writes a larger file', async () => {
    const description = 'z'.repeat(1000);
    for (const maxBytes of [3_000, 5_000, 8_000, 17_000, 20_000]) {
      const store = createSurfaceStore(tmp.file, options({ maxBytes }));
      for (let i = 1; i <= 12; i++) store.put(record(`r${String(i).padStart(2, '0')}`, i, description));
      await store.flush();
      const size = (await stat(tmp.file)).size;
      expect(size).toBeLessThanOrEqual(maxBytes);
      const kept = Object.keys((await onDisk()).servers);
      // The newest ones, as many as fit; a record is about 1.4 KB.
      expect(kept.length).toBeGreaterThan(0);
      expect(kept).toStrictEqual(Array.from({ length: kept.length }, (_, i) => `r${String(12 - kept.length + 1 + i).padStart(2, '0')}`));
      // No more was dropped than needed: all of them, or one more (about 1.6 KB) would not fit.
      if (kept.length < 12) expect(size + 1_600).toBeGreaterThan(maxBytes);
    }
  });

  it('never writes a file its own read refuses, whatever maxBytes says', async () => {
    const store = createSurfaceStore(tmp.file, options({ maxBytes: 16 * 1024 * 1024 }));
    const description = 'q'.repeat(900 * 1024);
    for (let i = 1; i <= 7; i++) store.put(record(`m${i}`, i, description));
    await store.flush();
    expect((await stat(tmp.file)).size).toBeLessThanOrEqual(4 * 1024 * 1024);
    const again = createSurfaceStore(tmp.file, options());
    await again.load();
    expect(warnings).toStrictEqual([]);
    expect(again.get('m7')).toStrictEqual(record('m7', 7, description));
    expect(again.get('m1')).toBeUndefined();
  });

  it('reads a directory in place of the file as empty with a warning', async () => {
    await mkdir(tmp.file, { recursive: true });
    const store = createSurfaceStore(tmp.file, options());
    await expect(store.load()).resolves.toBeUndefined();
    expect(warnings).toStrictEqual([`${tmp.file}: is a directory, expected a file; no surface records are used`]);
  });
});
