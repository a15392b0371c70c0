/**
 * Kit for the process-group tests on test/fixtures/spawning-server.mjs, a server that starts
 * helpers in and out of its process group and writes their pids to a file.
 */
import type { ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { expect } from 'vitest';
import { deadline } from '../../deadlines.js';
import { fixture } from '../mcpServers.js';
import { isAlive, sleep, waitForExit } from '../processes.js';

export const SPAWNER = fixture('spawning-server.mjs');

/** The pids the spawning fixture writes. */
export interface HelperPids {
  server: number;
  sameGroup: number;
  detached: number;
  intermediate: number;
  viaIntermediate: number;
}

/**
 * Waits for the fixture's pid file and reads it; `remember` takes the pids (for the cleanup after
 * the test) and may throw while a process is not seen yet, which waits on too.
 */
export async function helperPidsIn(file: string, remember: (pids: HelperPids) => Promise<void> | void): Promise<HelperPids> {
  const giveUpAt = Date.now() + deadline(20_000);
  for (;;) {
    try {
      const pids = JSON.parse(readFileSync(file, 'utf8')) as HelperPids;
      await remember(pids);
      return pids;
    } catch (error) {
      if (Date.now() > giveUpAt) throw error;
      await sleep(25);
    }
  }
}

/** The pid of `child` once it has started. */
export function spawnedPid(child: ChildProcess): Promise<number> {
  return new Promise((resolve, reject) => {
    child.once('spawn', () => resolve(child.pid!));
    child.once('error', reject);
  });
}

/** The line a start prints for what it ended of a dead session's server group. */
export const leftoverLine = (count: number, name: string, pgid: number, owner: number) =>
  `ended ${count} leftover process${count === 1 ? '' : 'es'} of server "${name}" (pgid ${pgid}) from an mcp-live that died (pid ${owner})`;

/** After a SIGKILL of the owner: the server ends (its stdin's end), what it started in its group does not. */
export async function expectServerGoneHelpersLeft(pids: HelperPids): Promise<void> {
  expect(await waitForExit(pids.server, 10_000)).toBe(true);
  expect(isAlive(pids.sameGroup)).toBe(true);
  expect(isAlive(pids.intermediate)).toBe(true);
}

/**
 * After the next start reaped the record of the server "left-behind" of the dead `owner`: its
 * group is ended, with the process a member started outside it, one line says so, and the
 * record in `dir` is gone. (pids.detached, a detached child of the server itself, was reparented
 * when the server died: nothing ties it to the record any more; the test's cleanup ends it.)
 */
export function expectLeftoversEnded(pids: HelperPids, lines: readonly string[], owner: number, dir: string): void {
  expect(isAlive(pids.sameGroup)).toBe(false);
  expect(isAlive(pids.intermediate)).toBe(false);
  // Outside the group, but a child of a member that was still there.
  expect(isAlive(pids.viaIntermediate)).toBe(false);
  expect(lines).toEqual([leftoverLine(3, 'left-behind', pids.server, owner)]);
  expect(readdirSync(dir)).toEqual([]);
}
