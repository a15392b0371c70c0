import { chmod, readFile, readdir, stat, symlink, writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { addServerEntry, removeServerEntry } from '../../src/model/settings/serverEntryEdits.js';
import { editJsoncFile } from '../../src/sinks/stores/editJsoncFile.js';
import { posixOnly } from '../platforms.js';
import { tempDirEachTest } from './streamTestKit.js';

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
  const tmp = tempDirEachTest('.qwen/settings.json');

  const add = (name: string) => (text: string) => addServerEntry(text, name, { command: 'node', args: ['s.js'] }, { label: tmp.file }).text;

  posixOnly('mode bits').it('creates a missing file (and directory) readable by the user only', async () => {
    expect(await editJsoncFile(tmp.file, add('fs'))).toEqual({ created: true, changed: true });
    expect(JSON.parse(await readFile(tmp.file, 'utf8'))).toEqual({ mcpServers: { fs: { command: 'node', args: ['s.js'] } } });
    expect((await stat(tmp.file)).mode & 0o777).toBe(0o600);
    expect((await stat(tmp.path('.qwen'))).mode & 0o777).toBe(0o700);
  });

  posixOnly('mode bits').it('keeps every comment byte for byte, and the file’s mode (0644 stays 0644)', async () => {
    await editJsoncFile(tmp.file, () => USER_SETTINGS);
    await chmod(tmp.file, 0o644);
    expect(await editJsoncFile(tmp.file, add('fs'))).toEqual({ created: false, changed: true });
    const text = await readFile(tmp.file, 'utf8');
    expect(text).toContain('  // my theme, do not touch\n  "theme": "dark",\n');
    expect(text).toContain('    /* the one I use every day */\n    "memory": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"] },\n    "fs": {');
    expect((await stat(tmp.file)).mode & 0o777).toBe(0o644);
    // Removing what was added gives back the very same bytes.
    await editJsoncFile(tmp.file, (t) => removeServerEntry(t, 'fs', tmp.file));
    expect(await readFile(tmp.file, 'utf8')).toBe(USER_SETTINGS);
    expect((await stat(tmp.file)).mode & 0o777).toBe(0o644);
  });

  it('refuses a file that does not parse, naming the place, and writes nothing', async () => {
    const broken = USER_SETTINGS.replace('"theme": "dark",', '"theme": "dark"');
    await editJsoncFile(tmp.file, () => broken);
    await expect(editJsoncFile(tmp.file, add('fs'))).rejects.toThrow(`${tmp.file}:4:3: expected "," between entries (CommaExpected); fix it first`);
    expect(await readFile(tmp.file, 'utf8')).toBe(broken);
    expect(await readdir(tmp.path('.qwen'))).toEqual(['settings.json']);
  });

  posixOnly('symlinks').it('refuses to write through a symlink (writeOwnedFile), leaving its target alone', async () => {
    const target = tmp.path('dotfiles-settings.json');
    await writeFile(target, USER_SETTINGS);
    await editJsoncFile(tmp.path('.qwen', 'other.json'), () => '{}');
    await symlink(target, tmp.file);
    await expect(editJsoncFile(tmp.file, add('fs'))).rejects.toThrow('it is a symbolic link');
    expect(await readFile(target, 'utf8')).toBe(USER_SETTINGS);
  });

  it('writes nothing when the edit changes nothing', async () => {
    await editJsoncFile(tmp.file, () => USER_SETTINGS);
    const before = (await stat(tmp.file)).mtimeMs;
    expect(await editJsoncFile(tmp.file, (t) => t)).toEqual({ created: false, changed: false });
    expect((await stat(tmp.file)).mtimeMs).toBe(before);
  });
});
