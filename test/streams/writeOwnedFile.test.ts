import { lstat, mkdir, readFile, readdir, rename, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { beforeEach, describe, expect, it } from 'vitest';
import { HELD_FILE_RETRY_MS } from '../../src/platform/renameRetry.js';
import { assertWritableTarget, writeOwnedFile, type AtomicWriteDeps } from '../../src/files/writeOwnedFile.js';
import { posixOnly } from '../platforms.js';
import { mkfifo } from './specialFileKit.js';
import { tempDirEachTest } from './streamTestKit.js';

describe('writeOwnedFile (decision 60)', () => {
  const tmp = tempDirEachTest('state.json');

  const refusal = (why: string, file = tmp.file): string => `refusing to write ${file}: ${why}; mcp-live writes only regular files it owns`;

  posixOnly('mode bits').it('creates a missing file with mode 0600, and replaces its own file', async () => {
    await writeOwnedFile(tmp.file, 'one');
    expect(await readFile(tmp.file, 'utf8')).toBe('one');
    expect((await stat(tmp.file)).mode & 0o777).toBe(0o600);
    await writeOwnedFile(tmp.file, Buffer.from('two'), { mode: 0o640 });
    expect(await readFile(tmp.file, 'utf8')).toBe('two');
    expect((await stat(tmp.file)).mode & 0o777).toBe(0o640);
  });

  posixOnly('symlinks').it('refuses a symlink, also a dangling one, and writes nothing anywhere', async () => {
    const victim = tmp.path('victim');
    await writeFile(victim, 'mine');
    await symlink(victim, tmp.file);
    await expect(writeOwnedFile(tmp.file, 'x')).rejects.toThrow(refusal(`it is a symbolic link (to ${victim})`));
    expect(await readFile(victim, 'utf8')).toBe('mine');

    const dangling = tmp.path('nowhere');
    const danglingLink = tmp.path('dangling.json');
    await symlink(dangling, danglingLink);
    await expect(writeOwnedFile(danglingLink, 'x')).rejects.toThrow(refusal(`it is a symbolic link (to ${dangling})`, danglingLink));
    expect((await lstat(danglingLink)).isSymbolicLink()).toBe(true);
    expect((await readdir(tmp.dir)).sort()).toEqual(['dangling.json', 'state.json', 'victim']);
  });

  posixOnly('mkfifo').it('refuses a FIFO and a directory', async () => {
    mkfifo(tmp.file);
    await expect(assertWritableTarget(tmp.file)).rejects.toThrow(refusal('it is a FIFO (named pipe), not a regular file'));
    await expect(writeOwnedFile(tmp.file, 'x')).rejects.toThrow(/FIFO/);
    expect((await lstat(tmp.file)).isFIFO()).toBe(true);
    const sub = tmp.path('sub');
    await mkdir(sub);
    await expect(writeOwnedFile(sub, 'x')).rejects.toThrow(refusal('it is a directory, not a regular file', sub));
  });

  posixOnly('uids').it("refuses a file that is someone else's", async () => {
    await writeFile(tmp.file, 'theirs');
    const { uid } = await stat(tmp.file);
    // Another user's file, seen from here: the same lstat check with the owner the file lacks.
    await expect(writeOwnedFile(tmp.file, 'x', { ownerUid: uid + 1 })).rejects.toThrow(
      refusal(`it is owned by uid ${uid}, not you (uid ${uid + 1})`),
    );
    expect(await readFile(tmp.file, 'utf8')).toBe('theirs');
    await expect(assertWritableTarget(tmp.file)).resolves.toBeUndefined();
  });
});

describe('writeOwnedFile on Windows: a rename refused for a held file (decision 285)', () => {
  const tmp = tempDirEachTest('mcpApprovals.json');
  beforeEach(async () => {
    await writeFile(tmp.file, 'old');
  });

  /** What Node's fs.rename rejects with when Windows refuses it. */
  const refused = (code: string, from: string, to: string): NodeJS.ErrnoException =>
    Object.assign(new Error(`${code}: operation not permitted, rename '${from}' -> '${to}'`), { code, errno: -4048, syscall: 'rename', path: from, dest: to });

  /**
   * An atomic write (temp file, then rename) whose rename is `renameOnce`, and a Windows that
   * records the waits instead of sleeping.
   */
  function windowsWrite(renameOnce: (from: string, to: string, attempt: number) => Promise<void>) {
    const delays: number[] = [];
    let attempts = 0;
    const deps: AtomicWriteDeps = {
      platform: 'win32',
      sleep: (ms) => Promise.resolve(void delays.push(ms)),
      writeFileAtomic: async (path, data, options) => {
        attempts += 1;
        const temp = `${path}.${attempts}.tmp`;
        await writeFile(temp, data, { mode: options.mode });
        try {
          await renameOnce(temp, path, attempts);
        } finally {
          await rm(temp, { force: true });
        }
      },
    };
    return { deps, delays, attempts: () => attempts };
  }

  it('a rename that fails twice with EPERM, then succeeds: written, after waits of 10 and 20 ms', async () => {
    const windows = windowsWrite((from, to, attempt) => (attempt <= 2 ? Promise.reject(refused('EPERM', from, to)) : rename(from, to)));
    await writeOwnedFile(tmp.file, 'new', { mode: 0o600 }, windows.deps);
    expect(await readFile(tmp.file, 'utf8')).toBe('new');
    expect(windows.attempts()).toBe(3);
    expect(windows.delays).toEqual([10, 20]);
    expect(await readdir(tmp.dir)).toEqual(['mcpApprovals.json']);
  });

  it('EACCES and EBUSY are the same case', async () => {
    for (const code of ['EACCES', 'EBUSY']) {
      const windows = windowsWrite((from, to, attempt) => (attempt === 1 ? Promise.reject(refused(code, from, to)) : rename(from, to)));
      await writeOwnedFile(tmp.file, code, {}, windows.deps);
      expect(await readFile(tmp.file, 'utf8')).toBe(code);
      expect(windows.delays).toEqual([10]);
    }
  });

  it('a rename that always fails: reported with its error once about a second of retries is spent, the file unchanged', async () => {
    let last: NodeJS.ErrnoException | undefined;
    const windows = windowsWrite((from, to) => Promise.reject((last = refused('EPERM', from, to))));
    const error = await writeOwnedFile(tmp.file, 'new', {}, windows.deps).then(() => undefined, (e: unknown) => e);
    expect(error).toBe(last);
    expect(error).toMatchObject({ code: 'EPERM', syscall: 'rename' });
    expect(windows.delays).toEqual([10, 20, 40, 80, 160, 320, 370]);
    expect(windows.delays.reduce((a, b) => a + b)).toBe(HELD_FILE_RETRY_MS);
    expect(windows.attempts()).toBe(8);
    expect(await readFile(tmp.file, 'utf8')).toBe('old');
    expect(await readdir(tmp.dir)).toEqual(['mcpApprovals.json']);
  });

  it('another error (not a rename, or not a held file) is reported at once', async () => {
    const open = Object.assign(new Error('EACCES: permission denied, open'), { code: 'EACCES', syscall: 'open' });
    const windows = windowsWrite(() => Promise.reject(open));
    await expect(writeOwnedFile(tmp.file, 'new', {}, windows.deps)).rejects.toBe(open);
    const noSpace = windowsWrite((from, to) => Promise.reject(Object.assign(refused('ENOSPC', from, to), { code: 'ENOSPC' })));
    await expect(writeOwnedFile(tmp.file, 'new', {}, noSpace.deps)).rejects.toMatchObject({ code: 'ENOSPC' });
    expect([windows.delays, noSpace.delays]).toEqual([[], []]);
  });

  it('on Linux and macOS a refused rename is reported at once, as before', async () => {
    for (const platform of ['linux', 'darwin'] as const) {
      const posix = windowsWrite((from, to) => Promise.reject(refused('EPERM', from, to)));
      await expect(writeOwnedFile(tmp.file, 'new', {}, { ...posix.deps, platform })).rejects.toMatchObject({ code: 'EPERM' });
      expect(posix.attempts()).toBe(1);
      expect(posix.delays).toEqual([]);
    }
  });

  it('without a test double: the real write-file-atomic, with the retry wrapped around it', async () => {
    await writeOwnedFile(tmp.file, 'real', {}, { platform: 'win32' });
    expect(await readFile(tmp.file, 'utf8')).toBe('real');
  });
});
