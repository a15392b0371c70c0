import { chmod, mkdir, readFile, readdir, stat, symlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { surfaceOf } from '../../../src/model/tools/surface.js';
import { pinDigest, pinOf } from '../../../src/model/tools/surfacePin.js';
import { createPinStore, type PinOutcome, type PinRecord, type PinStore, type PinStoreOptions } from '../../../src/sinks/stores/pinStore.js';
import { posixOnly } from '../../platforms.js';
import { tempDirEachTest } from '../../streams/streamTestKit.js';

/** A pin of one tool `read` with this description. */
function pinRecord(fingerprint: string, description = `tool of ${fingerprint}`, pinnedAt = 1): PinRecord {
  const pin = pinOf(surfaceOf({ tools: [{ name: 'read', description }], prompts: [{ name: 'greet' }], resources: [] }, { instructions: 'hi' }));
  return { name: `srv-${fingerprint}`, fingerprint, pin, pinnedAt };
}

const first = (store: PinStore, fingerprint: string, record: PinRecord | undefined): Promise<PinOutcome> =>
  new Promise((resolve) => store.pinFirst(fingerprint, record, resolve));
const replace = (store: PinStore, record: PinRecord): Promise<PinOutcome> => new Promise((resolve) => store.replace(record, resolve));

describe('pin store (decisions 307, 308)', () => {
  const tmp = tempDirEachTest('.qwen/mcp-pins.json', 'mcp-live-pins-');
  let warnings: string[];
  const options = (extra: PinStoreOptions = {}): PinStoreOptions => ({ onWarning: (message) => warnings.push(message), ...extra });
  const onDisk = async (): Promise<{ version: number; pins: Record<string, PinRecord> }> =>
    JSON.parse(await readFile(tmp.file, 'utf8')) as { version: number; pins: Record<string, PinRecord> };

  beforeEach(() => {
    warnings = [];
  });

  it('pins a first sight, reads it back in another store, and keeps it over a later first sight', async () => {
    const store = createPinStore(tmp.file, options());
    await store.load();
    expect(await first(store, 'f1', pinRecord('f1'))).toStrictEqual({ pin: pinRecord('f1') });
    expect(store.get('f1')).toStrictEqual(pinRecord('f1'));
    expect(await onDisk()).toStrictEqual({ version: 1, pins: { f1: pinRecord('f1') } });

    const again = createPinStore(tmp.file, options());
    await again.load();
    expect(again.get('f1')).toStrictEqual(pinRecord('f1'));
    // Another surface seen first elsewhere never replaces it.
    expect(await first(again, 'f1', pinRecord('f1', 'pulled'))).toStrictEqual({ pin: pinRecord('f1') });
    expect((await onDisk()).pins.f1).toStrictEqual(pinRecord('f1'));
    expect(warnings).toStrictEqual([]);
  });

  it("finds a pin by its digest among every fingerprint's, loaded or written (decision 315)", async () => {
    const store = createPinStore(tmp.file, options());
    await store.load();
    await first(store, 'f1', pinRecord('f1'));
    const again = createPinStore(tmp.file, options());
    await again.load();
    await first(again, 'f2', pinRecord('f2'));
    for (const s of [store, again]) expect(s.withDigest(pinDigest(pinRecord('f1').pin))).toStrictEqual(pinRecord('f1'));
    expect(again.withDigest(pinDigest(pinRecord('f2').pin))).toStrictEqual(pinRecord('f2'));
    expect(again.withDigest(pinDigest(pinRecord('f3').pin))).toBeUndefined();
  });

  it('re-reads the file under the lock on first sight: a pin another process wrote since the load wins', async () => {
    const ours = createPinStore(tmp.file, options());
    await ours.load();
    const theirs = createPinStore(tmp.file, options());
    await theirs.load();
    expect(await first(theirs, 'f1', pinRecord('f1', 'theirs'))).toStrictEqual({ pin: pinRecord('f1', 'theirs') });
    expect(await first(ours, 'f1', pinRecord('f1', 'ours'))).toStrictEqual({ pin: pinRecord('f1', 'theirs') });
    expect(ours.get('f1')).toStrictEqual(pinRecord('f1', 'theirs'));
    expect((await onDisk()).pins.f1).toStrictEqual(pinRecord('f1', 'theirs'));
  });

  it('only looks when it has nothing to pin: missing when there is none', async () => {
    const store = createPinStore(tmp.file, options());
    await store.load();
    expect(await first(store, 'f1', undefined)).toStrictEqual({ missing: true });
    await expect(stat(tmp.file)).rejects.toThrow();
  });

  it("an approval replaces the pin; the other processes' pins are merged, never dropped", async () => {
    const one = createPinStore(tmp.file, options());
    const two = createPinStore(tmp.file, options());
    await Promise.all([one.load(), two.load()]);
    await first(one, 'f1', pinRecord('f1'));
    await first(two, 'f2', pinRecord('f2'));
    expect(await replace(one, pinRecord('f1', 'approved', 5))).toStrictEqual({ pin: pinRecord('f1', 'approved', 5) });
    expect(await onDisk()).toStrictEqual({ version: 1, pins: { f1: pinRecord('f1', 'approved', 5), f2: pinRecord('f2') } });
  });

  it('never evicts a pin for room: a pin past the bound is refused, and the others stay', async () => {
    const store = createPinStore(tmp.file, options({ maxBytes: 4000 }));
    await store.load();
    let n = 0;
    let outcome: PinOutcome;
    do {
      n += 1;
      outcome = await first(store, `f${n}`, pinRecord(`f${n}`));
    } while ('pin' in outcome && n < 100);
    expect(outcome).toMatchObject({ error: expect.stringContaining('over its bound of 4000') as unknown });
    expect(store.get(`f${n}`)).toBeUndefined();
    expect(warnings.at(-1)).toContain(`the pin of server "srv-f${n}" was not written`);
    const pins = (await onDisk()).pins;
    expect(Object.keys(pins)).toHaveLength(n - 1);
    expect(pins.f1).toStrictEqual(pinRecord('f1'));
  });

  it('reads malformed pins as none with a warning, and keeps them on disk as they are', async () => {
    await mkdir(dirname(tmp.file), { recursive: true });
    const bad = { ...pinRecord('f2'), pin: { tools: 'no', prompts: [] } };
    await writeFile(tmp.file, JSON.stringify({ version: 1, pins: { f1: pinRecord('f1'), f2: bad, f3: { ...pinRecord('f3'), fingerprint: 'other' } } }));
    const store = createPinStore(tmp.file, options());
    await store.load();
    expect(store.get('f1')).toStrictEqual(pinRecord('f1'));
    expect(store.get('f2')).toBeUndefined();
    expect(store.get('f3')).toBeUndefined();
    expect(warnings).toStrictEqual([`${tmp.file}: ignored 2 malformed pins (a gated server showing another surface than approved is asked again)`]);
    await first(store, 'f4', pinRecord('f4'));
    expect((await onDisk()).pins.f2).toStrictEqual(bad);
  });

  it('reads a corrupt file as empty with a warning, and backs its bytes up before writing', async () => {
    await mkdir(dirname(tmp.file), { recursive: true });
    await writeFile(tmp.file, '{ not json');
    const store = createPinStore(tmp.file, options());
    await store.load();
    expect(warnings[0]).toContain('no pins are used');
    await first(store, 'f1', pinRecord('f1'));
    expect(await onDisk()).toStrictEqual({ version: 1, pins: { f1: pinRecord('f1') } });
    const backups = (await readdir(dirname(tmp.file))).filter((name) => name.startsWith('mcp-pins.json.corrupt-'));
    expect(backups).toHaveLength(1);
    expect(await readFile(join(dirname(tmp.file), backups[0]!), 'utf8')).toBe('{ not json');
  });

  posixOnly('mode bits').it('writes mode 0600, also over a wider existing file', async () => {
    await mkdir(dirname(tmp.file), { recursive: true });
    await writeFile(tmp.file, '{}');
    await chmod(tmp.file, 0o644);
    const store = createPinStore(tmp.file, options());
    await first(store, 'f1', pinRecord('f1'));
    expect((await stat(tmp.file)).mode & 0o777).toBe(0o600);
  });

  posixOnly('symlinks').it('refuses to write through a symlink: the pin is not written, and says why', async () => {
    await mkdir(dirname(tmp.file), { recursive: true });
    const target = tmp.path('elsewhere.json');
    await writeFile(target, '{}');
    await symlink(target, tmp.file);
    const store = createPinStore(tmp.file, options());
    const outcome = await first(store, 'f1', pinRecord('f1'));
    expect(outcome).toHaveProperty('error');
    expect(store.get('f1')).toBeUndefined();
    // An approval that cannot be written is not held in memory either.
    expect(await replace(store, pinRecord('f2'))).toHaveProperty('error');
    expect(store.get('f2')).toBeUndefined();
    expect(await readFile(target, 'utf8')).toBe('{}');
  });
});
