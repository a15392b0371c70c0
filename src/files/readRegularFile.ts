import { constants, type Stats } from 'node:fs';
import { lstat, open, readlink, realpath, stat, type FileHandle } from 'node:fs/promises';

/** The largest settings-like file read (settings, .mcp.json, manifests, trust, approvals). */
export const MAX_SETTINGS_FILE_BYTES = 4 * 1024 * 1024;

/**
 * The largest document read for a language server (a tool's file, an opened document, a file a
 * server's answer points into): source files are larger than settings, yet a text an editor
 * would open is rarely past a few MiB, and mcp-live holds each open document in memory (decision 178).
 */
export const MAX_DOCUMENT_BYTES = 16 * 1024 * 1024;

/**
 * `ENOTREG`: not a regular file; `EFBIG`: over the size limit; `ENOTOWNER`: another user's;
 * `EOUTSIDE`: outside the directory it must stay in (`readInsideDirectory`).
 */
export type RefusedFileCode = 'ENOTREG' | 'EFBIG' | 'ENOTOWNER' | 'EOUTSIDE';

/** A file refused before or while reading it. `reason` is the message without the path. */
export class RefusedFileError extends Error {
  readonly code: RefusedFileCode;
  readonly path: string;
  readonly reason: string;

  constructor(path: string, code: RefusedFileCode, reason: string) {
    super(`${path}: ${reason}`);
    this.name = 'RefusedFileError';
    this.path = path;
    this.code = code;
    this.reason = reason;
  }
}

export interface ReadRegularFileOptions {
  /** Default {@link MAX_SETTINGS_FILE_BYTES}. */
  maxBytes?: number;
  /** When set, a file (after following links) owned by another uid is refused. */
  ownerUid?: number;
  /** What the limit is for, in the refusal: "settings files" (default), "documents". */
  kind?: string;
}

/**
 * Reads a whole regular file, at most `maxBytes`. Symlinks are followed; a FIFO, device, socket
 * or directory is refused (`ENOTREG`, naming its type and where a link leads), as is a file
 * over the limit (`EFBIG`) — so `.mcp.json → /dev/zero` cannot exhaust memory and a FIFO cannot
 * hold a libuv thread. Other errors (`ENOENT`, `EACCES`, …) are Node's own.
 *
 * The path is checked with `stat` before it is opened, because opening a device can itself do
 * something (a tape rewinds, a watchdog arms); the opened descriptor is checked again with
 * `fstat`, since the path may have been swapped in between — `O_NONBLOCK` keeps that open from
 * waiting for a FIFO writer, `O_NOCTTY` from taking a terminal.
 */
export async function readRegularFile(path: string, options: ReadRegularFileOptions = {}): Promise<Uint8Array> {
  const maxBytes = options.maxBytes ?? MAX_SETTINGS_FILE_BYTES;
  await refuseUnlessReadable(path, await stat(path), options, maxBytes);
  const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  try {
    const opened = await handle.stat();
    await refuseUnlessReadable(path, opened, options, maxBytes);
    return await readAtMost(handle, path, opened.size, maxBytes, options.kind);
  } finally {
    await handle.close();
  }
}

/**
 * {@link readRegularFile} as UTF-8 text, as `readFile(path, 'utf8')` decodes it (a BOM kept,
 * malformed bytes as U+FFFD): for a file read on behalf of a tool, a document or a server.
 */
export async function readRegularText(path: string, options: ReadRegularFileOptions = {}): Promise<string> {
  const bytes = await readRegularFile(path, options);
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
}

/**
 * A document for a language server (a tool's file, an opened document, a file a server's answer
 * points into), read bounded (decision 178): a FIFO, a device or a file over
 * {@link MAX_DOCUMENT_BYTES} is refused, never read without end or waited on.
 */
export function readDocumentText(path: string): Promise<string> {
  return readRegularText(path, { maxBytes: MAX_DOCUMENT_BYTES, kind: 'documents' });
}

/** "a FIFO (named pipe)", "a character device", …; `undefined` for a regular file. */
export function nonRegularFileType(stats: Stats): string | undefined {
  if (stats.isFile()) return undefined;
  if (stats.isDirectory()) return 'a directory';
  if (stats.isFIFO()) return 'a FIFO (named pipe)';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  if (stats.isSocket()) return 'a socket';
  return 'an unknown kind of file';
}

/** Where a symlink at `path` finally leads (or its own text if that cannot be resolved). */
export async function linkTargetOf(path: string): Promise<string | undefined> {
  try {
    if (!(await lstat(path)).isSymbolicLink()) return undefined;
  } catch {
    return undefined;
  }
  // A link into /proc (/dev/stdin → /proc/self/fd/0 → pipe:[…]) resolves to no path.
  return realpath(path).catch(() => readlink(path).catch(() => '(unresolvable)'));
}

async function refuseUnlessReadable(path: string, stats: Stats, options: ReadRegularFileOptions, maxBytes: number): Promise<void> {
  const type = nonRegularFileType(stats);
  const ownerUid = options.ownerUid;
  const foreign = ownerUid !== undefined && stats.uid !== ownerUid;
  if (type === undefined && !foreign && stats.size <= maxBytes) return;
  const target = await linkTargetOf(path);
  const subject = target === undefined ? 'is' : `links to ${target}, which is`;
  if (type !== undefined) {
    const tail = stats.isDirectory() ? 'expected a file' : 'not a regular file';
    throw new RefusedFileError(path, 'ENOTREG', `${subject} ${type}, ${tail}`);
  }
  if (foreign) {
    throw new RefusedFileError(path, 'ENOTOWNER', `${subject} owned by uid ${stats.uid}, not by you (uid ${ownerUid})`);
  }
  throw tooLarge(path, `${stats.size} bytes`, maxBytes, options.kind);
}

function tooLarge(path: string, size: string, maxBytes: number, kind = 'settings files'): RefusedFileError {
  const limit = maxBytes % (1024 * 1024) === 0 ? `${maxBytes / (1024 * 1024)} MiB` : `${maxBytes} bytes`;
  return new RefusedFileError(path, 'EFBIG', `file too large (${size}; ${kind} may be at most ${limit})`);
}

/**
 * Reads until the end, into a buffer that never exceeds `maxBytes + 1`: a file that grows after
 * `fstat` (or reports size 0, as /proc files do) is cut off and refused, not read without end.
 */
async function readAtMost(handle: FileHandle, path: string, size: number, maxBytes: number, kind: string | undefined): Promise<Uint8Array> {
  let buffer = Buffer.allocUnsafe(Math.min(size, maxBytes) + 1);
  let length = 0;
  for (;;) {
    if (length === buffer.length) {
      if (length > maxBytes) throw tooLarge(path, `more than ${maxBytes} bytes`, maxBytes, kind);
      const grown = Buffer.allocUnsafe(Math.min(Math.max(buffer.length * 2, 8192), maxBytes + 1));
      buffer.copy(grown, 0, 0, length);
      buffer = grown;
    }
    const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
    if (bytesRead === 0) return buffer.subarray(0, length);
    length += bytesRead;
  }
}
