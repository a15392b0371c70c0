import { setTimeout as sleepFor } from 'node:timers/promises';

/**
 * An atomic write's last step, the rename of the temp file over the real one, per platform
 * (decision 285):
 *
 *   win32    refused with EPERM, EACCES or EBUSY while another program holds the target open — a
 *            search indexer, an antivirus scanner, a sync client, an editor — which lasts a few
 *            milliseconds as a rule: the write is tried again, after 10, 20, 40 … ms, for up to
 *            1 s in all (as graceful-fs retries its renames, there for up to 60 s), and only then
 *            reported, with the rename's own error
 *   others   a rename replaces an open file; its error is reported at once
 *
 *   attempt: --EPERM--(10ms)--EPERM--(20ms)--ok
 */

/** The longest a write waits for a held file, in all. */
export const HELD_FILE_RETRY_MS = 1_000;
const FIRST_DELAY_MS = 10;
const HELD_CODES: ReadonlySet<string> = new Set(['EPERM', 'EACCES', 'EBUSY']);

export interface RenameRetryDeps {
  /** Default `process.platform`. */
  platform?: NodeJS.Platform;
  /** Waits between attempts (tests record the delays). */
  sleep?: (ms: number) => Promise<unknown>;
}

/** A rename refused because the file is held open (what Windows says for it). */
export function isHeldFileRename(error: unknown): boolean {
  const e = error as Partial<NodeJS.ErrnoException> | null;
  return typeof e === 'object' && e !== null && e.syscall === 'rename' && typeof e.code === 'string' && HELD_CODES.has(e.code);
}

/**
 * `attempt()` (a whole atomic write: each try writes its own temp file), tried again on win32
 * while its rename is refused for a held file, for up to {@link HELD_FILE_RETRY_MS}; rejects with
 * the last error. Any other error, and every error elsewhere, rejects at once.
 */
export async function retryHeldFileRename<T>(attempt: () => Promise<T>, deps: RenameRetryDeps = {}): Promise<T> {
  if ((deps.platform ?? process.platform) !== 'win32') return attempt();
  const sleep = deps.sleep ?? sleepFor;
  let waited = 0;
  let delay = FIRST_DELAY_MS;
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      if (!isHeldFileRename(error) || waited >= HELD_FILE_RETRY_MS) throw error;
      const pause = Math.min(delay, HELD_FILE_RETRY_MS - waited);
      await sleep(pause);
      waited += pause;
      delay *= 2;
    }
  }
}
