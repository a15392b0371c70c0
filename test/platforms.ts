import { describe, it, type TestFunction } from 'vitest';

/**
 * Tests that need what only some platforms have (decision 276): they run where it is there and
 * skip elsewhere, the reason in the skipped test's name ("… [skipped on win32: needs /proc]").
 * Where they run, the name is as written, so nothing changes on Linux.
 *
 *   linuxOnly('/proc').describe('the reaper', () => …)       /proc, setpriv --pdeathsig
 *   posixOnly('mkfifo').it('a FIFO is refused', async () => …)   sh, mkfifo, tmux, mode bits, uids, signals
 */

export const LINUX = process.platform === 'linux';
export const POSIX = process.platform !== 'win32';

interface Guarded {
  describe(name: string, factory: () => void): void;
  it(name: string, fn: TestFunction, timeout?: number): void;
}

function onlyWhere(runs: boolean, reason: string): Guarded {
  const label = (name: string): string => (runs ? name : `${name} [skipped on ${process.platform}: needs ${reason}]`);
  return {
    describe: (name, factory) => describe.runIf(runs)(label(name), factory),
    it: (name, fn, timeout) => it.runIf(runs)(label(name), fn, timeout),
  };
}

/** Runs on Linux only: /proc, util-linux setpriv, the kernel's parent-death signal. */
export function linuxOnly(reason: string): Guarded {
  return onlyWhere(LINUX, `Linux (${reason})`);
}

/** Runs on Linux and macOS: sh, mkfifo, tmux, file mode bits, uids, POSIX signals and process groups. */
export function posixOnly(reason: string): Guarded {
  return onlyWhere(POSIX, `a POSIX system (${reason})`);
}
