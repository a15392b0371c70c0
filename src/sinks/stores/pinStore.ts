import { getOwn, isPlainObject, setOwn } from '../../model/ownProperties.js';
import { pinDigest, surfacePinOf, type SurfacePin } from '../../model/tools/surfacePin.js';
import { describeReadError } from '../../files/readJsonc.js';
import { MAX_SETTINGS_FILE_BYTES } from '../../files/readRegularFile.js';
import { callSafely, errorCode, ownedJsonFile, type OwnedJsonFileOptions } from './ownedJsonFile.js';

/**
 * The pins of one profile (decisions 306–308): `~/.<profile>/mcp-pins.json`,
 * `{ "version": 1, "pins": { "<fingerprint>": PinRecord } }`, under the rules of every file
 * mcp-live owns ({@link ownedJsonFile}: the user's regular file, read bounded, written under a
 * lock, atomically, mode 0600). Apart from the surface records, which are a cache: a pin is never
 * dropped to make room for another record, and only the user's approval replaces it. A first
 * sight is pinned under the lock after reading the file again — a pin another process wrote
 * meanwhile wins. A pin that cannot be written fails: the caller withholds (fails closed).
 */

export interface PinRecord {
  /** The server's name when it was pinned, for messages. */
  name: string;
  fingerprint: string;
  pin: SurfacePin;
  /** Epoch ms. */
  pinnedAt: number;
}

/** What holds after {@link PinStore.pinFirst}: a pin (ours or one found), none (only looked), or why none could be written. */
export type PinOutcome = { pin: PinRecord } | { missing: true } | { error: string };

export interface PinStore {
  readonly path: string;
  /** Reads the file once; an unusable file is reported through `onWarning` and reads as empty. Never rejects. */
  load(): Promise<void>;
  /** The pin in memory (loaded, pinned or found by a write). */
  get(fingerprint: string): PinRecord | undefined;
  /** A pin in memory, of any fingerprint, whose digest is `digest` (an approval's marker, decision 315). */
  withDigest(digest: string): PinRecord | undefined;
  /**
   * First sight (decision 308): under the lock, the pin on disk if there is one, else `record`
   * written (or, without `record`, only looked for). `done` is told what holds — at once by a
   * store in memory, after the write by the file's.
   */
  pinFirst(fingerprint: string, record: PinRecord | undefined, done: (outcome: PinOutcome) => void): void;
  /** The user's approval: `record` replaces the pin, in memory at once. `done` is told whether it is on disk. */
  replace(record: PinRecord, done: (outcome: PinOutcome) => void): void;
  /** Settles when every write so far has ended. Never rejects. */
  flush(): Promise<void>;
}

export interface PinStoreOptions extends Omit<OwnedJsonFileOptions, 'now'> {
  onWarning?: (message: string) => void;
  /** The largest file written (default and at most 4 MiB, what a read accepts): a pin beyond it is not written. */
  maxBytes?: number;
  now?: () => number;
}

const PIN_FILE_VERSION = 1;

/** What a lost pin costs (decision 315): a gated server is asked only when it shows a surface other than its approval recorded. */
const ASKED = 'a gated server showing another surface than approved is asked again';

const isTime = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

/** The record stored under `key`, or undefined when anything about it is not well-formed. */
function pinRecordOf(key: string, value: unknown): PinRecord | undefined {
  if (!isPlainObject(value)) return undefined;
  const name = getOwn(value, 'name');
  const pinnedAt = getOwn(value, 'pinnedAt');
  const pin = surfacePinOf(getOwn(value, 'pin'));
  if (typeof name !== 'string' || getOwn(value, 'fingerprint') !== key || !isTime(pinnedAt) || pin === undefined) return undefined;
  return { name, fingerprint: key, pin, pinnedAt };
}

/** The pins object of a file's content, or why it cannot be used (then the file is backed up before it is replaced). */
function pinsOf(root: Record<string, unknown>): { pins: Record<string, unknown>; problem?: string } {
  if (Object.keys(root).length === 0) return { pins: {} };
  const version = getOwn(root, 'version');
  if (version !== PIN_FILE_VERSION) return { pins: {}, problem: `version ${JSON.stringify(version) ?? 'missing'} is not ${PIN_FILE_VERSION}` };
  const pins = getOwn(root, 'pins');
  if (!isPlainObject(pins)) return { pins: {}, problem: '"pins" is not an object' };
  return { pins };
}

/** The first of `records` whose pin has the digest `digest`. */
function findDigest(records: Iterable<PinRecord>, digest: string): PinRecord | undefined {
  for (const record of records) if (pinDigest(record.pin) === digest) return record;
  return undefined;
}

/** A pin store without a file: a session that persists nothing (and tests in virtual time). */
export function memoryPinStore(): PinStore {
  const pins = new Map<string, PinRecord>();
  return {
    path: ':memory:',
    load: () => Promise.resolve(),
    get: (fingerprint) => pins.get(fingerprint),
    withDigest: (digest) => findDigest(pins.values(), digest),
    pinFirst(fingerprint, record, done) {
      const held = pins.get(fingerprint);
      if (held !== undefined) return done({ pin: held });
      if (record === undefined) return done({ missing: true });
      pins.set(fingerprint, record);
      done({ pin: record });
    },
    replace(record, done) {
      pins.set(record.fingerprint, record);
      done({ pin: record });
    },
    flush: () => Promise.resolve(),
  };
}

export function createPinStore(path: string, options: PinStoreOptions = {}): PinStore {
  const { onWarning = () => undefined, now = Date.now } = options;
  const maxBytes = Math.min(options.maxBytes ?? MAX_SETTINGS_FILE_BYTES, MAX_SETTINGS_FILE_BYTES);
  const { ownerUid, lockRetries, staleLockMs, writeFile } = options;
  const file = ownedJsonFile(path, { ownerUid, lockRetries, staleLockMs, writeFile, now: () => new Date(now()) });
  const memory = new Map<string, PinRecord>();
  let writes: Promise<void> = Promise.resolve();
  let loaded: Promise<void> | undefined;

  const warn = callSafely(onWarning);

  async function readFile(): Promise<void> {
    let parsed;
    try {
      parsed = await file.read();
    } catch (error) {
      warn(`${path}: ${describeReadError(errorCode(error), error)}; no pins are used (${ASKED})`);
      return;
    }
    if (!parsed.ok) return warn(`${path}: ${parsed.problem}; no pins are used (${ASKED}; the file is backed up before it is next written)`);
    const { pins, problem } = pinsOf(parsed.root);
    if (problem !== undefined) return warn(`${path}: ${problem}; no pins are used (${ASKED}; the file is backed up before it is next written)`);
    let malformed = 0;
    for (const key of Object.keys(pins)) {
      const record = pinRecordOf(key, getOwn(pins, key));
      if (record === undefined) malformed += 1;
      else if (!memory.has(key)) memory.set(key, record);
    }
    if (malformed > 0) warn(`${path}: ignored ${malformed} malformed pin${malformed === 1 ? '' : 's'} (${ASKED})`);
  }

  /**
   * One locked read-modify-write of one pin: `replace` writes ours whatever is there; otherwise a
   * well-formed pin on disk wins (it is adopted), and ours is written only where there is none.
   * The rest of the file — other fingerprints' pins, even malformed ones — is kept as it is.
   */
  async function write(fingerprint: string, record: PinRecord | undefined, replace: boolean): Promise<PinOutcome> {
    let outcome: PinOutcome = { missing: true };
    await file.update(async (root, backUp) => {
      const read = pinsOf(root);
      if (read.problem !== undefined) await backUp();
      const pins = read.pins;
      const onDisk = pinRecordOf(fingerprint, getOwn(pins, fingerprint));
      if (!replace && onDisk !== undefined) {
        outcome = { pin: onDisk };
        return false;
      }
      if (record === undefined) return false;
      setOwn(pins, fingerprint, record);
      for (const key of Object.keys(root)) delete root[key];
      setOwn(root, 'version', PIN_FILE_VERSION);
      setOwn(root, 'pins', pins);
      const bytes = Buffer.byteLength(JSON.stringify(root, null, 2)) + 1;
      if (bytes > maxBytes) throw new Error(`the pin file would be ${bytes} bytes, over its bound of ${maxBytes}; remove the pins of servers no longer used from it`);
      outcome = { pin: record };
      return true;
    });
    return outcome;
  }

  function enqueue(fingerprint: string, record: PinRecord | undefined, replace: boolean, done: (outcome: PinOutcome) => void): void {
    writes = writes.then(async () => {
      let outcome: PinOutcome;
      try {
        outcome = await write(fingerprint, record, replace);
      } catch (error) {
        outcome = { error: error instanceof Error ? error.message : String(error) };
        // An approval not on disk is not a pin: this session must not hold what the next would not.
        if (replace && memory.get(fingerprint) === record) memory.delete(fingerprint);
        warn(`${path}: the pin of server "${record?.name ?? fingerprint}" was not written (${outcome.error}); its tools stay withheld`);
      }
      // What a first sight found or wrote, unless an approval of this session replaced it meanwhile.
      if (!replace && 'pin' in outcome && !memory.has(fingerprint)) memory.set(fingerprint, outcome.pin);
      callSafely(done)(outcome);
    });
  }

  return {
    path,
    load: () => (loaded ??= readFile()),
    get: (fingerprint) => memory.get(fingerprint),
    withDigest: (digest) => findDigest(memory.values(), digest),
    pinFirst(fingerprint, record, done) {
      const held = memory.get(fingerprint);
      if (held !== undefined) return done({ pin: held });
      enqueue(fingerprint, record, false, done);
    },
    replace(record, done) {
      memory.set(record.fingerprint, record);
      enqueue(record.fingerprint, record, true, done);
    },
    flush: () => writes,
  };
}
