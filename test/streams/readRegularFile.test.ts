import { mkdir, rename, symlink, truncate, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fromSettingsFile } from '../../src/streams/fromSettingsFile.js';
import type { JsoncReadResult } from '../../src/model/settings/parseJsonc.js';
import { readJsonc } from '../../src/files/readJsonc.js';
import { MAX_SETTINGS_FILE_BYTES, readRegularFile } from '../../src/files/readRegularFile.js';
import { linuxOnly, posixOnly } from '../platforms.js';
import { mkfifo, settlesWithin, unblockFifo } from './specialFileKit.js';
import { makeTempDir, record, removeDir, waitFor, tempDirEachTest } from './streamTestKit.js';

/**
 * Special files where a settings file should be (decision 59): each used to exhaust memory
 * (`→ /dev/zero`), block a libuv thread for good (a FIFO) or eat the CLI's input (`→ /dev/stdin`).
 */

const failure = (result: JsoncReadResult): string => (result.ok ? '<read fine>' : result.error);

describe('readJsonc on special files (the default reader)', () => {
  const tmp = tempDirEachTest('.mcp.json');
  let server: Server | undefined;
  afterEach(async () => {
    await new Promise<void>((done) => (server ? server.close(() => done()) : done()));
    server = undefined;
  });

  posixOnly('mkfifo').it('refuses a FIFO promptly, with nothing writing to it', async () => {
    mkfifo(tmp.file);
    const result = await settlesWithin(readJsonc(tmp.file), 3000, tmp.file);
    expect(failure(result)).toBe(`${tmp.file}: is a FIFO (named pipe), not a regular file`);
  });

  posixOnly('/dev/zero, symlinks').it('refuses a symlink to /dev/zero, naming where it leads (it used to read until 7.7 GB)', async () => {
    await symlink('/dev/zero', tmp.file);
    const result = await settlesWithin(readJsonc(tmp.file), 3000);
    expect(failure(result)).toBe(`${tmp.file}: links to /dev/zero, which is a character device, not a regular file`);
  });

  posixOnly('/dev/null, symlinks').it('refuses a symlink to /dev/null (a character device, not an empty file)', async () => {
    await symlink('/dev/null', tmp.file);
    expect(failure(await readJsonc(tmp.file))).toBe(`${tmp.file}: links to /dev/null, which is a character device, not a regular file`);
  });

  posixOnly('/dev/stdin, symlinks').it('refuses a symlink to /dev/stdin without reading the input', async () => {
    await symlink('/dev/stdin', tmp.file);
    const result = await settlesWithin(readJsonc(tmp.file), 3000);
    // Whatever fd 0 is here (a pipe, /dev/null, a terminal), it is not a regular file.
    expect(failure(result)).toMatch(new RegExp(`^${tmp.file}: links to .+, which is (a FIFO \\(named pipe\\)|a character device|a socket), not a regular file$`));
  });

  posixOnly('unix sockets').it('refuses a unix socket', async () => {
    const listening = createServer();
    server = listening;
    await new Promise<void>((done) => listening.listen(tmp.file, done));
    expect(failure(await readJsonc(tmp.file))).toBe(`${tmp.file}: is a socket, not a regular file`);
  });

  it('still calls a directory a directory, also through a symlink', async () => {
    await mkdir(tmp.file);
    expect(failure(await readJsonc(tmp.file))).toBe(`${tmp.file}: is a directory, expected a file`);
    const link = tmp.path('link.json');
    await symlink(tmp.file, link);
    expect(failure(await readJsonc(link))).toBe(`${link}: links to ${tmp.file}, which is a directory, expected a file`);
  });

  it('refuses a file over 4 MiB without reading it', async () => {
    await writeFile(tmp.file, '');
    await truncate(tmp.file, 5 * 1024 * 1024);
    expect(failure(await readJsonc(tmp.file))).toBe(`${tmp.file}: file too large (5242880 bytes; settings files may be at most 4 MiB)`);
  });

  it('reads a file of exactly 4 MiB, and refuses one byte more', async () => {
    const head = '{ "mcpServers": {}, "pad": "';
    const tail = '" }';
    const text = head + 'x'.repeat(MAX_SETTINGS_FILE_BYTES - head.length - tail.length) + tail;
    expect(Buffer.byteLength(text)).toBe(4 * 1024 * 1024);
    await writeFile(tmp.file, text);
    const result = await readJsonc(tmp.file);
    expect(result.ok && Object.keys(result.value ?? {})).toEqual(['mcpServers', 'pad']);
    await writeFile(tmp.file, `${text} `);
    expect(failure(await readJsonc(tmp.file))).toBe(`${tmp.file}: file too large (4194305 bytes; settings files may be at most 4 MiB)`);
  });

  it('still reads a missing file as an empty source', async () => {
    expect(await readJsonc(tmp.path('missing', 'x.json'))).toEqual({ ok: true, value: undefined });
  });
});

describe('readRegularFile', () => {
  linuxOnly('/proc').it('reads files whose size says 0 (as in /proc) to the end', async () => {
    const text = Buffer.from(await readRegularFile('/proc/self/status')).toString('utf8');
    expect(text).toMatch(/^Name:/);
    expect(text).toMatch(/\nPid:\s+\d+\n/);
  });

  linuxOnly('/proc').it('stops at the limit + 1 byte when a file holds more than its size says', async () => {
    // /proc/self/status says size 0 and has a kilobyte: like a file that grew after fstat.
    const read = readRegularFile('/proc/self/status', { maxBytes: 64 });
    await expect(read).rejects.toMatchObject({
      code: 'EFBIG',
      message: '/proc/self/status: file too large (more than 64 bytes; settings files may be at most 64 bytes)',
    });
  });

  posixOnly('uids').it('refuses a file of another owner when an owner is required', async () => {
    const dir = await makeTempDir();
    try {
      const file = join(dir, 'a.json');
      await writeFile(file, '{}');
      const me = process.getuid!();
      expect(Buffer.from(await readRegularFile(file, { ownerUid: me })).toString()).toBe('{}');
      await expect(readRegularFile(file, { ownerUid: me + 1 })).rejects.toMatchObject({
        code: 'ENOTOWNER',
        message: `${file}: is owned by uid ${me}, not by you (uid ${me + 1})`,
      });
    } finally {
      await removeDir(dir);
    }
  });
});

posixOnly('mkfifo').describe('fromSettingsFile when the file turns into a FIFO mid-session (real chokidar)', () => {
  const tmp = tempDirEachTest();

  it('reports the FIFO, keeps the last good content, and reads the next good file', async () => {
    const file = tmp.path('settings.json');
    const servers = (name: string): string => `{ "mcpServers": { "${name}": { "command": "x" } } }`;
    /** Replaces the file in one step (rename), so no read sees it missing in between. */
    const replace = async (make: (path: string) => Promise<void> | void): Promise<void> => {
      const next = tmp.path('next.tmp');
      await make(next);
      await rename(next, file);
    };
    const events = record(fromSettingsFile(file, 'user'));
    tmp.ends(events);
    const lastServers = (): string => {
      const content = events.values.filter((e) => e.kind === 'content').at(-1);
      return content === undefined ? '<none>' : Object.keys(content.snapshot.servers).join(',');
    };
    await writeFile(file, servers('a'));
    await waitFor('servers a', () => lastServers() === 'a');
    const before = events.values.length;

    await replace((path) => mkfifo(path));
    await waitFor('the FIFO reported', () => events.values.slice(before).some((e) => e.kind === 'error')).catch(
      async (error: unknown) => {
        await unblockFifo(file);
        throw error;
      },
    );
    expect(events.values.slice(before)).toEqual([
      { kind: 'error', file, error: `${file}: is a FIFO (named pipe), not a regular file` },
    ]);
    expect(lastServers()).toBe('a');

    await replace((path) => writeFile(path, servers('b')));
    await waitFor('servers b', () => lastServers() === 'b');
    expect(events.errors).toEqual([]);
  });
});
