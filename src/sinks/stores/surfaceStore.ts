import { formatBytes } from '../../model/formatBytes.js';
import { isServerSurface } from '../../model/tools/surface.js';
import { type ServerSurface } from '../../model/tools/surfaceTypes.js';
import type { EraVerdict } from '../../model/connection.js';
import { eraVerdictOf } from '../../model/tools/eraVerdict.js';
import { terminalSafe } from '../../model/terminalText.js';
import { getOwn, isPlainObject, setOwn } from '../../model/ownProperties.js';
import { describeReadError } from '../../files/readJsonc.js';
import { MAX_SETTINGS_FILE_BYTES } from '../../files/readRegularFile.js';
import { callSafely, errorCode, ownedJsonFile, type OwnedJsonFileOptions } from './ownedJsonFile.js';

/**
 * The surface records of one profile (decision 195), a cache (decision 307: pins live apart, in
 * the pin file): `~/.<profile>/mcp-surfaces.json`,
 * `{ "version": 1, "servers": { "<fingerprint>": SurfaceRecord } }`, under the rules of every file
 * mcp-live owns ({@link ownedJsonFile}: a regular file of the user's, read bounded, written under
 * a lock, atomically, mode 0600, corrupt bytes backed up first). A gateway and a CLI share it:
 * each write merges with what is on disk under the lock (decision 214).
 */

/** What is known of one server's surface, keyed by its connection fingerprint. */
export interface SurfaceRecord {
  /** The server's name when it was seen, for messages. */
  name: string;
  fingerprint: string;
  /** The hash of `surface` (decision 195). */
  hash: string;
  surface: ServerSurface;
  /** When this surface was last seen (epoch ms): the newer record wins a merge, the oldest is dropped first. */
  seenAt: number;
  /**
   * The text of the surface the user approved: shown in a diff while its pin (decision 307, kept
   * in the pin file) is that of this surface. A record of an earlier version's file is how pins
   * were kept then: one without a pin in the pin file is moved there (decision 310).
   */
  pinned?: { hash: string; surface: ServerSurface; approvedAt: number };
  /**
   * The protocol era the server was found to speak (decision 380): a connect while it is fresh
   * runs no probe. A malformed one is dropped alone: it is a cache, the next connect probes again.
   */
  era?: EraVerdict;
}

export interface SurfaceStore {
  readonly path: string;
  /** Reads the file once; an unusable file is reported through `onWarning` and reads as empty. Never rejects. */
  load(): Promise<void>;
  /** The record in memory (what was loaded, put, or merged from disk by a write). */
  get(fingerprint: string): SurfaceRecord | undefined;
  /** Keeps `record` in memory at once and on disk with the next write (coalesced). */
  put(record: SurfaceRecord): void;
  delete(fingerprint: string): void;
  /** Settles when every put and delete so far is on disk, or reported through `onWarning`. Never rejects. */
  flush(): Promise<void>;
}

export interface SurfaceStoreOptions extends Omit<OwnedJsonFileOptions, 'now'> {
  /** Why the file or a record was not used, or a write failed (default: nothing). */
  onWarning?: (message: string) => void;
  /** The largest file written; the least recently seen records are dropped to stay within it. */
  maxBytes?: number;
  /** The most records kept (default 1000); the least recently seen are dropped beyond it. */
  maxRecords?: number;
  /** A record larger than this (as written) is not stored (default 4 MiB, at most what fits in `maxBytes`). */
  maxRecordBytes?: number;
  /** How long puts are gathered into one write (default 200 ms). */
  writeDelayMs?: number;
  /** Clock (epoch ms) for deletes and the backup name (default `Date.now`). */
  now?: () => number;
}

export const SURFACE_FILE_VERSION = 1;

/**
 * The file is read by {@link ownedJsonFile}, which reads at most {@link MAX_SETTINGS_FILE_BYTES}:
 * a larger bound for writing would write a file that no later read accepts, and every later
 * write would then fail on reading it. So `maxBytes` is capped there (decision 214).
 */
const READABLE_BYTES = MAX_SETTINGS_FILE_BYTES;
const DEFAULT_MAX_RECORDS = 1000;
const DEFAULT_MAX_RECORD_BYTES = 4 * 1024 * 1024;
const DEFAULT_WRITE_DELAY_MS = 200;
/** `{\n  "version": 1,\n  "servers": {\n` … `\n  }\n}\n`, with room to spare. */
const ENVELOPE_BYTES = 64;
/** Each line of a record in the file is indented by two levels (`servers`, the fingerprint). */
const RECORD_INDENT = 4;

/** A change of ours that is not on disk yet: a record, or the time of a delete. */
type Pending = { record: SurfaceRecord } | { deletedAt: number };

const isTime = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);
const isHash = (value: unknown): value is string => typeof value === 'string' && value !== '';

/**
 * The record stored under `key`, or undefined when anything about it is not well-formed: a record
 * read back is never trusted beyond its shape. A malformed `pinned` block takes the whole record
 * with it (decision 214): dropping only the pin would be safe too, but keeping a record whose file
 * was tampered with or torn is not worth the doubt — the server is seen afresh instead.
 */
export function surfaceRecordOf(key: string, value: unknown): SurfaceRecord | undefined {
  if (!isPlainObject(value)) return undefined;
  const name = getOwn(value, 'name');
  const hash = getOwn(value, 'hash');
  const surface = getOwn(value, 'surface');
  const seenAt = getOwn(value, 'seenAt');
  const pinned = getOwn(value, 'pinned');
  if (typeof name !== 'string' || getOwn(value, 'fingerprint') !== key || !isHash(hash) || !isTime(seenAt) || !isServerSurface(surface)) return undefined;
  const record: SurfaceRecord = { name, fingerprint: key, hash, surface, seenAt };
  const era = eraVerdictOf(getOwn(value, 'era'));
  if (era !== undefined) record.era = era;
  if (pinned === undefined) return record;
  if (!isPlainObject(pinned)) return undefined;
  const pinnedHash = getOwn(pinned, 'hash');
  const pinnedSurface = getOwn(pinned, 'surface');
  const approvedAt = getOwn(pinned, 'approvedAt');
  if (!isHash(pinnedHash) || !isServerSurface(pinnedSurface) || !isTime(approvedAt)) return undefined;
  record.pinned = { hash: pinnedHash, surface: pinnedSurface, approvedAt };
  return record;
}

/** The records of a file's content, and what was wrong with the rest (then it is backed up before a write drops it). */
interface ServersRead {
  records: Map<string, SurfaceRecord>;
  problem?: string;
}

function serversOf(root: Record<string, unknown>): ServersRead {
  const records = new Map<string, SurfaceRecord>();
  if (Object.keys(root).length === 0) return { records };
  const version = getOwn(root, 'version');
  if (version !== SURFACE_FILE_VERSION) return { records, problem: `version ${JSON.stringify(version) ?? 'missing'} is not ${SURFACE_FILE_VERSION}` };
  const servers = getOwn(root, 'servers');
  if (!isPlainObject(servers)) return { records, problem: '"servers" is not an object' };
  let malformed = 0;
  for (const key of Object.keys(servers)) {
    const record = surfaceRecordOf(key, getOwn(servers, key));
    if (record === undefined) malformed += 1;
    else records.set(key, record);
  }
  return malformed === 0 ? { records } : { records, problem: `ignored ${malformed} malformed record${malformed === 1 ? '' : 's'}` };
}

/** Bytes of a record as written in the file: pretty-printed (as {@link ownedJsonFile} writes) and indented. */
const sizes = new WeakMap<SurfaceRecord, number>();
function bytesInFile(record: SurfaceRecord): number {
  const known = sizes.get(record);
  if (known !== undefined) return known;
  const text = JSON.stringify(record, null, 2);
  let lines = 0;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) lines += 1;
  // `    "<fingerprint>": ` before it, `,\n` after it.
  const size = Buffer.byteLength(text) + lines * RECORD_INDENT + Buffer.byteLength(JSON.stringify(record.fingerprint)) + RECORD_INDENT + 4;
  sizes.set(record, size);
  return size;
}

/**
 * The records to write: the most recently seen first, as many as fit in `maxRecords` and
 * `maxBytes`; the first that does not fit and every older one are dropped.
 */
function withinBounds(records: Map<string, SurfaceRecord>, maxRecords: number, maxBytes: number): Map<string, SurfaceRecord> {
  const recent = [...records.values()].sort((a, b) => b.seenAt - a.seenAt || (a.fingerprint < b.fingerprint ? -1 : a.fingerprint > b.fingerprint ? 1 : 0));
  const kept = new Map<string, SurfaceRecord>();
  let bytes = ENVELOPE_BYTES;
  for (const record of recent) {
    bytes += bytesInFile(record);
    if (kept.size === maxRecords || bytes > maxBytes) break;
    kept.set(record.fingerprint, record);
  }
  return kept;
}

/** `disk` with our pending changes: per fingerprint the newer `seenAt` wins, ours on a tie; a delete removes what it saw or older. */
function merged(disk: Map<string, SurfaceRecord>, batch: ReadonlyMap<string, Pending>): Map<string, SurfaceRecord> {
  const result = new Map(disk);
  for (const [fingerprint, change] of batch) {
    const onDisk = result.get(fingerprint);
    if ('record' in change) {
      if (onDisk === undefined || onDisk.seenAt <= change.record.seenAt) result.set(fingerprint, change.record);
    } else if (onDisk !== undefined && onDisk.seenAt <= change.deletedAt) {
      result.delete(fingerprint);
    }
  }
  return result;
}

export function createSurfaceStore(path: string, options: SurfaceStoreOptions = {}): SurfaceStore {
  const { onWarning = () => undefined, maxRecords = DEFAULT_MAX_RECORDS, writeDelayMs = DEFAULT_WRITE_DELAY_MS, now = Date.now } = options;
  const maxBytes = Math.min(options.maxBytes ?? READABLE_BYTES, READABLE_BYTES);
  const maxRecordBytes = Math.min(options.maxRecordBytes ?? DEFAULT_MAX_RECORD_BYTES, maxBytes - ENVELOPE_BYTES);
  const { ownerUid, lockRetries, staleLockMs, writeFile } = options;
  const file = ownedJsonFile(path, { ownerUid, lockRetries, staleLockMs, writeFile, now: () => new Date(now()) });

  const memory = new Map<string, SurfaceRecord>();
  /** Changes not yet handed to a write. */
  let pending = new Map<string, Pending>();
  let timer: NodeJS.Timeout | undefined;
  /** The writes in order; each settles (never rejects) after its own. */
  let writes: Promise<void> = Promise.resolve();
  let loaded: Promise<void> | undefined;

  const warn = callSafely(onWarning);

  async function readFile(): Promise<void> {
    let parsed;
    try {
      parsed = await file.read();
    } catch (error) {
      warn(`${path}: ${describeReadError(errorCode(error), error)}; no surface records are used`);
      return;
    }
    if (!parsed.ok) {
      warn(`${path}: ${parsed.problem}; no surface records are used (the file is backed up before it is next written)`);
      return;
    }
    const { records, problem } = serversOf(parsed.root);
    if (problem !== undefined) {
      const unused = records.size === 0 ? '; no surface records are used' : '';
      warn(`${path}: ${problem}${unused} (the file is backed up before it is next written)`);
    }
    for (const [fingerprint, record] of records) {
      // What was put or deleted before the file was read is newer than the file.
      if (!pending.has(fingerprint) && !memory.has(fingerprint)) memory.set(fingerprint, record);
    }
  }

  /** One locked read-merge-write of `batch`; memory then shows the file, except what changed meanwhile. */
  async function write(batch: ReadonlyMap<string, Pending>): Promise<void> {
    let written: Map<string, SurfaceRecord> | undefined;
    await file.update(async (root, backUp) => {
      const disk = serversOf(root);
      if (disk.problem !== undefined) await backUp();
      written = withinBounds(merged(disk.records, batch), maxRecords, maxBytes);
      const servers: Record<string, unknown> = {};
      for (const fingerprint of [...written.keys()].sort()) setOwn(servers, fingerprint, written.get(fingerprint));
      for (const key of Object.keys(root)) delete root[key];
      setOwn(root, 'version', SURFACE_FILE_VERSION);
      setOwn(root, 'servers', servers);
      return true;
    });
    if (written === undefined) return;
    for (const fingerprint of [...memory.keys()]) {
      if (!written.has(fingerprint) && !pending.has(fingerprint)) memory.delete(fingerprint);
    }
    for (const [fingerprint, record] of written) {
      if (!pending.has(fingerprint)) memory.set(fingerprint, record);
    }
  }

  /** Hands every pending change to the next write in the chain. */
  function startWrite(): Promise<void> {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    writes = writes.then(async () => {
      if (pending.size === 0) return;
      const batch = pending;
      pending = new Map();
      try {
        await write(batch);
      } catch (error) {
        // Kept for the next write (unless changed again since), which the next put or flush starts.
        for (const [fingerprint, change] of batch) if (!pending.has(fingerprint)) pending.set(fingerprint, change);
        warn(`${path}: surface records not written (${error instanceof Error ? error.message : String(error)}); they are kept in memory and tried again with the next change`);
      }
    });
    return writes;
  }

  function schedule(): void {
    // A timer that keeps the process alive: a CLI that puts and ends still writes.
    timer ??= setTimeout(() => void startWrite(), writeDelayMs);
  }

  return {
    path,
    load: () => (loaded ??= readFile()),
    get: (fingerprint) => memory.get(fingerprint),
    put(record) {
      const size = bytesInFile(record);
      if (size > maxRecordBytes) {
        warn(`${path}: the surface of server "${terminalSafe(record.name)}" is ${formatBytes(size)}, over the limit of ${formatBytes(maxRecordBytes)}; it is not recorded`);
        return;
      }
      memory.set(record.fingerprint, record);
      pending.set(record.fingerprint, { record });
      schedule();
    },
    delete(fingerprint) {
      memory.delete(fingerprint);
      pending.set(fingerprint, { deletedAt: now() });
      schedule();
    },
    flush: () => (timer !== undefined || pending.size > 0 ? startWrite() : writes),
  };
}
