/** Helpers for tests that put special files (FIFOs, devices) where a settings file should be. */
import { spawnSync } from 'node:child_process';
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';

export function mkfifo(path: string): void {
  const made = spawnSync('mkfifo', [path], { encoding: 'utf8' });
  if (made.status !== 0) throw new Error(`mkfifo ${path} failed: ${made.stderr}`);
}

/**
 * Opens the FIFO at `path` for writing and closes it: a reader stuck in open() or read() gets
 * its end of file. Used when a test fails, so a failing run leaves no libuv thread blocked.
 */
export async function unblockFifo(path: string): Promise<void> {
  const writer = await open(path, constants.O_WRONLY | constants.O_NONBLOCK).catch(() => undefined);
  await writer?.close();
}

/**
 * Settles `promise` within `ms`, else fails — after {@link unblockFifo} of `fifo`, if given.
 */
export async function settlesWithin<T>(promise: Promise<T>, ms: number, fifo?: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_done, fail) => {
    timer = setTimeout(() => fail(new Error(`did not settle within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, deadline]);
  } catch (error) {
    if (fifo !== undefined) await unblockFifo(fifo);
    throw error;
  } finally {
    clearTimeout(timer);
  }
}
