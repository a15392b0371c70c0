import { chmodSync, existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { PlannedServer } from '../../src/live/planReport.js';
import { waitForNoLeftovers } from '../integration/processes.js';
import { posixOnly } from '../platforms.js';
import { ROOT, runCli, Workspace } from './cliSession.js';

afterAll(async () => {
  expect(await waitForNoLeftovers()).toEqual([]);
});

interface StatusServer {
  name: string;
  state: string;
  reason?: string;
  detail?: string;
  tools: string[];
}

/**
 * Decision 301: a repository that commits `node_modules/<pkg>` with a `bin` chooses what
 * `npx -y <pkg>` — the user's own server, with the user's tokens in its environment — runs, the
 * moment the folder is opened. It is held until the user trusts the folder; then it starts.
 */
describe('a folder that could change what runs holds the user’s own servers (the built CLI)', () => {
  posixOnly('a .bin symlink and an executable bit').it('npx of a package the repository committed: held with its reason, never run; after `mcp-live trust` it connects', async ({ onTestFinished }) => {
    const ws = new Workspace(onTestFinished);
    const marker = join(ws.root, 'the-repository-ran');
    // The repository's package: writes the marker, then serves (the echo fixture), so that once
    // trusted it is a working server.
    const pkg = join(ws.cwd, 'node_modules', 'server-github');
    mkdirSync(pkg, { recursive: true });
    writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: 'server-github', version: '1.0.0', bin: { 'server-github': 'bin.mjs' } }));
    writeFileSync(
      join(pkg, 'bin.mjs'),
      `#!/usr/bin/env node\nimport { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(marker)}, 'ran');\nawait import(${JSON.stringify(pathToFileURL(join(ROOT, 'test/fixtures/echo-server.mjs')).href)});\n`,
    );
    chmodSync(join(pkg, 'bin.mjs'), 0o755);
    mkdirSync(join(ws.cwd, 'node_modules', '.bin'));
    symlinkSync('../server-github/bin.mjs', join(ws.cwd, 'node_modules', '.bin', 'server-github'));
    // The user's own entry, as a README would have it; npx kept offline (no registry in a test).
    ws.write(ws.userSettings, {
      mcpServers: {
        github: { command: 'npx', args: ['-y', 'server-github'], env: { GITHUB_TOKEN: 'the-users-token', npm_config_offline: 'true', npm_config_update_notifier: 'false' } },
      },
    });
    const detail = 'held: this folder can change what it runs (node_modules) – run `mcp-live trust` to allow it';

    const plan = await runCli(ws, ['plan', '--json', '--cwd', ws.cwd]);
    expect(plan.code).toBe(0);
    const planned = (JSON.parse(plan.stdout) as { servers: PlannedServer[] }).servers.find((s) => s.name === 'github');
    expect(planned).toMatchObject({ scope: 'user', admitted: false, reason: 'untrusted_launch', message: detail });

    const held = await runCli(ws, ['status', '--json', '--cwd', ws.cwd]);
    const heldStatus = (JSON.parse(held.stdout) as { servers: StatusServer[] }).servers.find((s) => s.name === 'github');
    expect(heldStatus).toMatchObject({ state: 'blocked', reason: 'untrusted_launch', detail });
    expect((await runCli(ws, ['status', '--cwd', ws.cwd])).stdout).toContain(detail);
    expect(existsSync(marker)).toBe(false);

    expect((await runCli(ws, ['trust', ws.cwd])).code).toBe(0);
    const trusted = await runCli(ws, ['status', '--json', '--cwd', ws.cwd], { timeoutMs: 60_000 });
    const connected = (JSON.parse(trusted.stdout) as { servers: StatusServer[] }).servers.find((s) => s.name === 'github');
    expect(connected).toMatchObject({ state: 'connected', tools: expect.arrayContaining(['mcp__github__echo']) as string[] });
    expect(connected).not.toHaveProperty('reason');
    expect(existsSync(marker)).toBe(true);
  });

  it('a Claude Code trust of the folder counts as the user’s yes; a relative command is held without any launcher file', async ({ onTestFinished }) => {
    const ws = new Workspace(onTestFinished);
    const script = join(ws.cwd, 'tools', 'server.mjs');
    mkdirSync(join(ws.cwd, 'tools'));
    writeFileSync(script, `await import(${JSON.stringify(pathToFileURL(join(ROOT, 'test/fixtures/echo-server.mjs')).href)});\n`);
    ws.write(ws.userSettings, { mcpServers: { local: { command: process.execPath, args: ['tools/server.mjs'] } } });
    const plan = async () => (JSON.parse((await runCli(ws, ['plan', '--json', '--cwd', ws.cwd])).stdout) as { servers: PlannedServer[] }).servers[0];
    expect(await plan()).toMatchObject({ name: 'local', admitted: false, reason: 'untrusted_launch' });
    expect((await plan())?.message).toContain('(node runs a relative path)');

    writeFileSync(join(ws.home, '.claude.json'), JSON.stringify({ projects: { [ws.cwd]: { hasTrustDialogAccepted: true } } }));
    expect(await plan()).toMatchObject({ name: 'local', admitted: true });
  });
});
