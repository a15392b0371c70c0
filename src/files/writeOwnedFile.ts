import { lstat } from 'node:fs/promises';
import writeFileAtomic from 'write-file-atomic';
import { linkTargetOf, nonRegularFileType } from './readRegularFile.js';
import { retryHeldFileRename, type RenameRetryDeps } from '../platform/renameRetry.js';

export interface OwnedFileOptions {
  /** The uid the file must belong to (default `process.getuid()`, none where that is missing). */
  ownerUid?: number;
}

function currentUid(): number | undefined {
  return typeof process.getuid === 'function' ? process.getuid() : undefined;
}

/**
 * Refuses (throws, writing nothing) unless `path` is missing or a regular file owned by the
 * user. A symlink is refused outright: an atomic write follows it and replaces the target
 * (`mcpApprovals.json → ~/.bashrc` would turn `.bashrc` into JSON with mode 0600).
 */
export async function assertWritableTarget(path: string, options: OwnedFileOptions = {}): Promise<void> {
  let stats;
  try {
    stats = await lstat(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  const refuse = (why: string): Error =>
    new Error(`refusing to write ${path}: ${why}; mcp-live writes only regular files it owns`);
  if (stats.isSymbolicLink()) {
    throw refuse(`it is a symbolic link (to ${(await linkTargetOf(path)) ?? 'an unknown target'})`);
  }
  const type = nonRegularFileType(stats);
  if (type !== undefined) throw refuse(`it is ${type}, not a regular file`);
  const uid = options.ownerUid ?? currentUid();
  if (uid !== undefined && stats.uid !== uid) throw refuse(`it is owned by uid ${stats.uid}, not you (uid ${uid})`);
}

/** What an atomic write is done with: write-file-atomic, and the platform's rename retries. */
export interface AtomicWriteDeps extends RenameRetryDeps {
  /** write-file-atomic unless a test gives a write whose rename fails. */
  writeFileAtomic?: (path: string, data: string | Buffer, options: { mode: number; fsync: boolean }) => Promise<void>;
}

/**
 * Replaces `path` atomically with `text` (mode default 0600), after {@link assertWritableTarget}.
 * The parent directory must exist. On Windows a rename refused for a file another program holds
 * open is tried again for up to a second before the write fails (platform/renameRetry.ts).
 */
export async function writeOwnedFile(
  path: string,
  text: string | Uint8Array,
  options?: {
    mode?: number;
    /**
     * `false` skips the fsync before the rename (default true): for a file whose content is
     * worthless after a crash of the machine anyway, such as a runtime record checked against
     * the boot id. Atomicity (temp file + rename) stays either way.
     */
    durable?: boolean;
  } & OwnedFileOptions,
  deps: AtomicWriteDeps = {},
): Promise<void> {
  await assertWritableTarget(path, options);
  const data = typeof text === 'string' ? text : Buffer.from(text.buffer, text.byteOffset, text.byteLength);
  const write = deps.writeFileAtomic ?? writeFileAtomic;
  // A fresh options object per attempt: write-file-atomic fills in the one it is given.
  await retryHeldFileRename(() => write(path, data, { mode: options?.mode ?? 0o600, fsync: options?.durable ?? true }), deps);
}
