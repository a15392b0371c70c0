import { chmod, readFile, readdir, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { addServerEntry, removeServerEntry } from '../../src/model/settings/serverEntryEdits.js';
import { editJsoncFile } from '../../src/sinks/stores/editJsoncFile.js';
import { posixOnly } from '../platforms.js';
import { makeTempDir, removeDir } from './streamTestKit.js';

const USER_SETTINGS = `{
  // my theme, do not touch
  "theme": "dark",
  "mcpServers": {
    /* the one I use every day */
    "memory": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"] }
  }
}
`;

describe('editJsoncFile: read-modify-write of a settings file on disk', () => {
  let dir: string;
  let file: string;
  beforeEach(async () => {
    dir = await makeTempDir();
    file = join(dir, '.qwen', 'settings.json');
  });
  afterEach(async () => {
    await removeDir(dir);
  });

  const add = (name: string) => (text: string) => addServerEntry(text, name, { command: 'node', args: ['s.js'] }, { label: file }).text;

  posixOnly('mode bits').it('creates a missing file (and directory) readable by the user only', async () => {
    expect(await editJsoncFile(file, add('fs'))).toEqual({ created: true, changed: true });
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ mcpServers: { fs: { command: 'node', args: ['s.js'] } } });
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(join(dir, '.qwen'))).mode & 0o777).toBe(0o700);
  });

  posixOnly('mode bits').it('keeps every comment byte for byte, and the file’s mode (0644 stays 0644)', async () => {
    await editJsoncFile(file, () => USER_SETTINGS);
    await chmod(file, 0o644);
    expect(await editJsoncFile(file, add('fs'))).toEqual({ created: false, changed: true });
    const text = await readFile(file, 'utf8');
    expect(text).toContain('  // my theme, do not touch\n  "theme": "dark",\n');
    expect(text).toContain('    /* the one I use every day */\n    "memory": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"] },\n    "fs": {');
    expect((await stat(file)).mode & 0o777).toBe(0o644);
    // Removing what was added gives back the very same bytes.
    await editJsoncFile(file, (t) => removeServerEntry(t, 'fs', file));
    expect(await readFile(file, 'utf8')).toBe(USER_SETTINGS);
    expect((await stat(file)).mode & 0o777).toBe(0o644);
  });

  it('refuses a file that does not parse, naming the place, and writes nothing', async () => {
    const broken = USER_SETTINGS.replace('"theme": "dark",', '"theme": "dark"');
    await editJsoncFile(file, () => broken);
    await expect(editJsoncFile(file, add('fs'))).rejects.toThrow(`${file}:4:3: expected "," between entries (CommaExpected); fix it first`);
    expect(await readFile(file, 'utf8')).toBe(broken);
    expect(await readdir(join(dir, '.qwen'))).toEqual(['settings.json']);
  });

  posixOnly('symlinks').it('refuses to write through a symlink (writeOwnedFile), leaving its target alone', async () => {
    const target = join(dir, 'dotfiles-settings.json');
    await writeFile(target, USER_SETTINGS);
    await editJsoncFile(join(dir, '.qwen', 'other.json'), () => '{}');
    await symlink(target, file);
    await expect(editJsoncFile(file, add('fs'))).rejects.toThrow('it is a symbolic link');
    expect(await readFile(target, 'utf8')).toBe(USER_SETTINGS);
  });

  it('writes nothing when the edit changes nothing', async () => {
    await editJsoncFile(file, () => USER_SETTINGS);
    const before = (await stat(file)).mtimeMs;
    expect(await editJsoncFile(file, (t) => t)).toEqual({ created: false, changed: false });
    expect((await stat(file)).mtimeMs).toBe(before);
  });
});
