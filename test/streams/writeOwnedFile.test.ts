import { lstat, mkdir, readFile, readdir, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect } from 'vitest';
import { assertWritableTarget, writeOwnedFile } from '../../src/sinks/writeOwnedFile.js';
import { posixOnly } from '../platforms.js';
import { mkfifo } from './specialFileKit.js';
import { makeTempDir, removeDir } from './streamTestKit.js';

describe('writeOwnedFile (issue 11, item 10)', () => {
  let dir: string;
  let file: string;
  beforeEach(async () => {
    dir = await makeTempDir();
    file = join(dir, 'state.json');
  });
  afterEach(async () => {
    await removeDir(dir);
  });

  const refusal = (why: string): string => `refusing to write ${file}: ${why}; mcp-live writes only regular files it owns`;

  posixOnly('mode bits').it('creates a missing file with mode 0600, and replaces its own file', async () => {
    await writeOwnedFile(file, 'one');
    expect(await readFile(file, 'utf8')).toBe('one');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    await writeOwnedFile(file, Buffer.from('two'), { mode: 0o640 });
    expect(await readFile(file, 'utf8')).toBe('two');
    expect((await stat(file)).mode & 0o777).toBe(0o640);
  });

  posixOnly('symlinks').it('refuses a symlink, also a dangling one, and writes nothing anywhere', async () => {
    const victim = join(dir, 'victim');
    await writeFile(victim, 'mine');
    await symlink(victim, file);
    await expect(writeOwnedFile(file, 'x')).rejects.toThrow(refusal(`it is a symbolic link (to ${victim})`));
    expect(await readFile(victim, 'utf8')).toBe('mine');

    const dangling = join(dir, 'nowhere');
    file = join(dir, 'dangling.json');
    await symlink(dangling, file);
    await expect(writeOwnedFile(file, 'x')).rejects.toThrow(refusal(`it is a symbolic link (to ${dangling})`));
    expect((await lstat(file)).isSymbolicLink()).toBe(true);
    expect((await readdir(dir)).sort()).toEqual(['dangling.json', 'state.json', 'victim']);
  });

  posixOnly('mkfifo').it('refuses a FIFO and a directory', async () => {
    mkfifo(file);
    await expect(assertWritableTarget(file)).rejects.toThrow(refusal('it is a FIFO (named pipe), not a regular file'));
    await expect(writeOwnedFile(file, 'x')).rejects.toThrow(/FIFO/);
    expect((await lstat(file)).isFIFO()).toBe(true);
    file = join(dir, 'sub');
    await mkdir(file);
    await expect(writeOwnedFile(file, 'x')).rejects.toThrow(refusal('it is a directory, not a regular file'));
  });

  posixOnly('uids').it("refuses a file that is someone else's", async () => {
    await writeFile(file, 'theirs');
    const { uid } = await stat(file);
    // Another user's file, seen from here: the same lstat check with the owner the file lacks.
    await expect(writeOwnedFile(file, 'x', { ownerUid: uid + 1 })).rejects.toThrow(
      refusal(`it is owned by uid ${uid}, not you (uid ${uid + 1})`),
    );
    expect(await readFile(file, 'utf8')).toBe('theirs');
    await expect(assertWritableTarget(file)).resolves.toBeUndefined();
  });
});
