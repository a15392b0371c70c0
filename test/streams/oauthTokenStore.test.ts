import { execFileSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createOAuthTokenStore, oauthRecordKey } from '../../src/sinks/stores/oauthTokenStore.js';
import { posixOnly } from '../platforms.js';

/** The token file (decision 86) under the rules of every file mcp-live owns. */

let dir: string;
let file: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mcp-live-tokens-'));
  file = join(dir, 'mcp-oauth-tokens.json');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const key = oauthRecordKey('https://mcp.example.com/mcp', 'dynamic');
const tokens = { access_token: 'access-abcdef', token_type: 'Bearer', refresh_token: 'refresh-abcdef' };

describe('the OAuth token store', () => {
  posixOnly('mode bits').it('stores a record per server URL and client, mode 0600, and forgets a server on logout', async () => {
    const store = createOAuthTokenStore(file);
    await store.update(key, () => ({ server: 'gh', tokens, expiresAt: 1 }));
    await store.update(oauthRecordKey('https://other/mcp', 'client:app'), () => ({ server: 'other', tokens }));
    expect(await store.get(key)).toEqual({ server: 'gh', tokens, expiresAt: 1 });
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(await store.forgetServer('gh')).toBe(1);
    expect(await store.get(key)).toBeUndefined();
    expect(Object.keys(JSON.parse(await readFile(file, 'utf8')) as object)).toEqual(['https://other/mcp client:app']);
  });

  it('a corrupt file reads as no tokens, and the next write keeps its bytes in a backup', async () => {
    await writeFile(file, '{"https://mcp.example.com/mcp dynamic": {"server": "gh", "tokens": {');
    const store = createOAuthTokenStore(file);
    expect(await store.get(key)).toBeUndefined();
    await store.update(key, () => ({ server: 'gh', tokens }));
    expect((await store.get(key))?.tokens).toEqual(tokens);
    const backups = (await readdir(dir)).filter((f) => f.includes('.corrupt-'));
    expect(backups).toHaveLength(1);
  });

  it('a record of the wrong shape is no record: a token must be a string to be sent', async () => {
    await writeFile(file, JSON.stringify({ [key]: { server: 'gh', tokens: { access_token: 42 } } }));
    expect(await createOAuthTokenStore(file).get(key)).toEqual({ server: 'gh' });
  });

  posixOnly('symlinks, mkfifo').it('refuses to write through a symlink, and reads a FIFO as no tokens without blocking', async () => {
    const target = join(dir, 'elsewhere.txt');
    await writeFile(target, 'keep me');
    await symlink(target, file);
    const store = createOAuthTokenStore(file);
    await expect(store.update(key, () => ({ server: 'gh', tokens }))).rejects.toThrow(/symbolic link/);
    expect(await readFile(target, 'utf8')).toBe('keep me');
    await rm(file);
    execFileSync('mkfifo', [file]);
    expect(await store.get(key)).toBeUndefined();
  });

  it('keys a record by authorization server too; lists a server\'s records; moves a record of before under its issuer in one write', async () => {
    const issuer = 'https://auth.example.com';
    const store = createOAuthTokenStore(file);
    expect(oauthRecordKey('https://mcp.example.com/mcp', 'dynamic', issuer)).toBe(`${key} ${issuer}`);
    // A file of before: the record under "<url> <client>", nothing about its authorization server.
    await writeFile(file, JSON.stringify({ [key]: { server: 'gh', tokens, expiresAt: 5 }, 'https://other/mcp dynamic': { server: 'other', tokens } }));
    expect((await store.list(key)).map(([k]) => k)).toEqual([key]);

    const moved = await store.move(key, `${key} ${issuer}`, (record) => ({ ...record, issuer }));
    expect(moved).toEqual({ server: 'gh', issuer, tokens, expiresAt: 5 });
    expect(await store.get(key)).toBeUndefined();
    expect(Object.keys(JSON.parse(await readFile(file, 'utf8')) as object).sort()).toEqual([`${key} ${issuer}`, 'https://other/mcp dynamic']);

    // Nothing left to move, and a record already there is never overwritten.
    await store.update(key, () => ({ server: 'gh', tokens: { ...tokens, access_token: 'newer' } }));
    expect(await store.move(key, `${key} ${issuer}`, (record) => record)).toEqual(moved);
    expect((await store.get(key))?.tokens?.access_token).toBe('newer');
    expect(await store.move('https://none dynamic', 'https://none dynamic x', (record) => record)).toBeUndefined();
  });
});
