import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { createMcpLive } from '../../src/live/createMcpLive.js';
import { echoEntry } from './mcpServers.js';
import { it, noLeftoversAfterAll, until } from './workspace.js';
import { deadline } from '../deadlines.js';

noLeftoversAfterAll();

/**
 * Decisions 301–303 in a running session: the user's own server is held the moment the folder
 * gains a launcher file, started again once the user trusts the folder, and the session's
 * `enable` says what still holds a server.
 */
describe.concurrent('a running session and a folder that could change what runs', () => {
  it('holds a connected server when node_modules appears, and starts it once the folder is trusted', async ({ scope }) => {
    const ws = scope.workspace('mcp-live-launch-');
    ws.write(ws.userSettings, { mcpServers: { gh: { ...echoEntry(), env: { GITHUB_TOKEN: 'the-users-token' } } } });
    const live = scope.track(createMcpLive({ homeDir: ws.homeDir, cwd: ws.cwd, runtimeDir: ws.runtimeDir, debounceMs: 20 }));
    await live.start();
    await until(live, 'gh', (s) => s.state === 'connected');

    // A `git pull` brings node_modules: npx would now prefer it, so the server is held.
    mkdirSync(join(ws.cwd, 'node_modules'));
    const held = await until(live, 'gh', (s) => s.state === 'blocked');
    expect(held).toMatchObject({ reason: 'untrusted_launch', detail: 'held: this folder can change what it runs (node_modules) – run `mcp-live trust` to allow it' });
    expect(held.pid).toBeUndefined();
    expect(live.tools.notFoundMessage('mcp__gh__echo')).toContain('is held because this folder can change what it runs (node_modules)');

    // The user's yes, as `mcp-live trust` writes it: the server starts again, live.
    writeFileSync(join(ws.homeDir, '.qwen', 'trustedFolders.json'), JSON.stringify({ [ws.cwd]: 'TRUST_FOLDER' }));
    await until(live, 'gh', (s) => s.state === 'connected');
    // Taken back (the file gone): held again.
    rmSync(join(ws.homeDir, '.qwen', 'trustedFolders.json'));
    await until(live, 'gh', (s) => s.reason === 'untrusted_launch');
  }, deadline(40_000));

  it('enable says what still holds a server it enabled', async ({ scope }) => {
    const ws = scope.workspace('mcp-live-launch-');
    writeFileSync(join(ws.cwd, 'server.mjs'), '');
    ws.write(ws.userSettings, { mcpServers: { local: { command: process.execPath, args: ['server.mjs'], disabled: true } } });
    const live = scope.track(createMcpLive({ homeDir: ws.homeDir, cwd: ws.cwd, runtimeDir: ws.runtimeDir, debounceMs: 20 }));
    await live.start();
    await until(live, 'local', (s) => s.reason === 'disabled');
    const enabled = await live.session.enable('local');
    expect(enabled.stillBlocked).toBe('held: this folder can change what it runs (node runs a relative path) – run `mcp-live trust` to allow it');
    await until(live, 'local', (s) => s.reason === 'untrusted_launch');
  });
});
