import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { lock, type LockOptions } from 'proper-lockfile';
import { isPlainObject } from '../../model/ownProperties.js';
import { readRegularFile } from '../../files/readRegularFile.js';
import { assertWritableTarget, writeOwnedFile } from '../../files/writeOwnedFile.js';

/**
 * A JSON object file that only mcp-live writes and only its user may own: the approvals file and
 * the OAuth token file (decisions 60 and 86). Read: a regular file of at most 4 MiB that the user
 * owns, or nothing. Written: under a lock (`<file>.lock`, so two sessions never lose each other's
 * changes), read-modify-write, replaced atomically with mode 0600, refusing a symlink, a special
 * file or another user's file. Content a write would have to drop (a corrupt file) is first copied,
 * byte for byte, to `<file>.corrupt-<timestamp>.bak`.
 */

/** proper-lockfile's retry options, as its `retries` takes them. */
export interface LockRetries {
  retries?: number;
  factor?: number;
  minTimeout?: number;
  maxTimeout?: number;
  randomize?: boolean;
}

export interface OwnedJsonFileOptions {
  /** The uid the file must belong to (default: `process.getuid()`). */
  ownerUid?: number;
  /**
   * How long a write waits for another writer: proper-lockfile's retry options (the `retry`
   * package's). Declared here, not as `LockOptions['retries']`: the public types must not need a
   * dev-only `@types/*` package (decision 264).
   */
  lockRetries?: number | LockRetries;
  /** A lock older than this (ms) belongs to a dead process and is taken over (min 2000). */
  staleLockMs?: number;
  /** Clock for the backup file name (tests pin it). */
  now?: () => Date;
  /** Writes the file and its backups (default {@link writeOwnedFile}); tests count writes here. */
  writeFile?: typeof writeOwnedFile;
}

/** The file as found: usable (missing or empty reads as `{}`), or why not. */
export type ParsedJsonObject = { ok: true; root: Record<string, unknown> } | { ok: false; problem: string };

/** A read that failed for a reason other than a missing file, or a file that is not a JSON object. */
export type JsonObjectRead = ParsedJsonObject & { bytes?: Uint8Array };

export interface OwnedJsonFile {
  readonly file: string;
  /** The content; a failed read (another owner, a FIFO, too large) is `{ok: false}` with the reason. */
  read(): Promise<JsonObjectRead>;
  /**
   * One locked read-modify-write: `change` gets the current content (`{}` when missing or
   * corrupt; `backUp()` keeps the bytes of a part it drops) and returns whether it changed it.
   */
  update(change: (root: Record<string, unknown>, backUp: () => Promise<void>) => boolean | Promise<boolean>): Promise<void>;
}

const DEFAULT_LOCK_RETRIES: LockRetries = { retries: 200, factor: 1.3, minTimeout: 5, maxTimeout: 100, randomize: true };
const utf8 = new TextDecoder('utf-8');

export function parseJsonObject(text: string): ParsedJsonObject {
  if (text.trim() === '') return { ok: true, root: {} };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, problem: `not valid JSON (${error instanceof Error ? error.message : String(error)})` };
  }
  if (!isPlainObject(value)) {
    return { ok: false, problem: `the top level is ${Array.isArray(value) ? 'a list' : String(value === null ? 'null' : typeof value)}, not an object` };
  }
  // JSON.parse defines `__proto__` as an own property, so the parsed object is safe as is.
  return { ok: true, root: value };
}

/**
 * `listener` as a stores' write chain calls it: a listener that throws is ignored, since its
 * failure must not end the chain (every later write would wait on a rejected promise).
 */
export function callSafely<T>(listener: (value: T) => void): (value: T) => void {
  return (value) => {
    try {
      listener(value);
    } catch {
      // A failing listener must not end the write chain.
    }
  };
}

export function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

function currentUid(): number | undefined {
  return typeof process.getuid === 'function' ? process.getuid() : undefined;
}

export function ownedJsonFile(file: string, options: OwnedJsonFileOptions = {}): OwnedJsonFile {
  const now = options.now ?? (() => new Date());
  const ownerUid = options.ownerUid ?? currentUid();
  const owned = ownerUid === undefined ? {} : { ownerUid };
  const writeFile = options.writeFile ?? writeOwnedFile;
  const lockOptions: LockOptions = {
    realpath: false,
    retries: options.lockRetries ?? DEFAULT_LOCK_RETRIES,
    stale: Math.max(options.staleLockMs ?? 10_000, 2000),
  };

  /** The bytes, or undefined when there is no file; throws when it cannot or must not be read. */
  async function readBytes(): Promise<Uint8Array | undefined> {
    try {
      return await readRegularFile(file, owned);
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return undefined;
      throw error;
    }
  }

  async function read(): Promise<JsonObjectRead> {
    const bytes = await readBytes();
    if (bytes === undefined) return { ok: true, root: {} };
    return { ...parseJsonObject(utf8.decode(bytes)), bytes };
  }

  async function update(
    change: (root: Record<string, unknown>, backUp: () => Promise<void>) => boolean | Promise<boolean>,
  ): Promise<void> {
    await mkdir(dirname(file), { recursive: true });
    // Before the lock and any backup: a refused file gets nothing, not even a .bak beside it.
    await assertWritableTarget(file, owned);
    const held: { compromised?: Error } = {};
    const release = await lock(file, {
      ...lockOptions,
      onCompromised: (error) => {
        // The default throws from a timer; fail this write instead.
        held.compromised = error;
      },
    });
    const assertStillHeld = (): void => {
      if (held.compromised !== undefined) throw held.compromised;
    };
    try {
      const bytes = await readBytes();
      const parsed = bytes === undefined ? undefined : parseJsonObject(utf8.decode(bytes));
      let backedUp = false;
      const backUp = async (): Promise<void> => {
        if (backedUp || bytes === undefined) return;
        const stamp = now().toISOString().replace(/[:.]/g, '-');
        await writeFile(`${file}.corrupt-${stamp}.bak`, bytes, { mode: 0o600, ...owned });
        backedUp = true;
      };
      let content: Record<string, unknown> = {};
      if (parsed?.ok === true) content = parsed.root;
      else if (parsed !== undefined) await backUp();
      if (!(await change(content, backUp))) return;
      assertStillHeld();
      await writeFile(file, `${JSON.stringify(content, null, 2)}\n`, { mode: 0o600, ...owned });
      assertStillHeld();
    } finally {
      await release().catch(() => undefined);
    }
  }

  return { file, read, update };
}
