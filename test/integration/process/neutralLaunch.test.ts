import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect } from 'vitest';
import { createMcpLive } from '../../../src/index.js';
import { posixOnly } from '../../platforms.js';
import { fixture, textOf } from '../mcpServers.js';
import { it, noLeftoversAfterAll, until, type TempWorkspace } from '../workspace.js';

/**
 * Decision 298 with real processes: a user's own stdio server whose command is a bare name, in a
 * session whose workspace holds an executable of that name (and a `node`), with `.` first on the
 * server's PATH. What runs is the file on the absolute PATH directory — the echo fixture, which
 * answers — and nothing of the workspace: each of its files would leave a marker and exit 1. A
 * language server (lspChannel.ts, through the same ServerProcess and spawnCommand) likewise.
 */

noLeftoversAfterAll(/test\/fixtures\/|mcp-live-neutral-/);

function executable(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  chmodSync(path, 0o755);
}

/** The workspace's impostors: `name` in it leaves `pwned-<name>` beside the workspace and fails. */
function plantImpostors(ws: TempWorkspace, names: string[]): void {
  for (const name of names) executable(join(ws.cwd, name), `#!/bin/sh\n: > '${join(ws.dir, `pwned-${name}`)}'\nexit 1\n`);
}

const pwned = (ws: TempWorkspace, names = ['mcp-echo', 'node', 'only-in-workspace']): string[] => names.filter((name) => existsSync(join(ws.dir, `pwned-${name}`)));

posixOnly('sh and #! scripts').describe('a user server named by a bare command, with `.` first on its PATH', () => {
  it('runs the command of the absolute PATH directory, and what that runs by name (`#!/usr/bin/env node`) is no file of the workspace either', async ({ scope }) => {
    const ws = scope.workspace('mcp-live-neutral-');
    const bin = join(ws.dir, 'bin');
    // Servers as npm installs them: `#!/usr/bin/env node` scripts on PATH. The workspace has a
    // `mcp-echo` of its own, and a `node` (which `env` would find first for `mcp-echo-env`).
    const echoServer = `#!/usr/bin/env node\nimport(${JSON.stringify(pathToFileURL(fixture('echo-server.mjs')).href)});\n`;
    executable(join(bin, 'mcp-echo'), echoServer);
    executable(join(bin, 'mcp-echo-env'), echoServer);
    plantImpostors(ws, ['mcp-echo', 'node', 'only-in-workspace']);
    const env = { PATH: `.:${bin}:${dirname(process.execPath)}` };
    ws.write(ws.userSettings, {
      mcpServers: {
        echo: { command: 'mcp-echo', args: [], env },
        viaEnv: { command: 'mcp-echo-env', args: [], env },
        missing: { command: 'only-in-workspace', args: [], env },
      },
    });
    const live = scope.track(createMcpLive({ homeDir: ws.homeDir, cwd: ws.cwd, runtimeDir: ws.runtimeDir, debounceMs: 20 }));
    await live.start();

    const settled = (s: { state: string }): boolean => s.state === 'connected' || s.state === 'error';
    const [echo, viaEnv, missing] = await Promise.all(['echo', 'viaEnv', 'missing'].map((name) => until(live, name, settled)));
    expect(pwned(ws)).toEqual([]);
    expect([echo!.state, viaEnv!.state]).toEqual(['connected', 'connected']);
    expect(textOf(await live.tools.call('mcp__echo__echo', { text: 'from PATH' }))).toBe('from PATH');
    expect(textOf(await live.tools.call('mcp__viaEnv__echo', { text: 'node from PATH' }))).toBe('node from PATH');
    expect(missing!.error).toBe('failed to start "only-in-workspace": spawn only-in-workspace ENOENT');
  });

  it('a language server named by a bare command: the same', async ({ scope }) => {
    const ws = scope.workspace('mcp-live-neutral-');
    const bin = join(ws.dir, 'bin');
    executable(join(bin, 'fixture-ls'), `#!/usr/bin/env node\nimport(${JSON.stringify(pathToFileURL(fixture('lsp-server.mjs')).href)});\n`);
    plantImpostors(ws, ['fixture-ls', 'node']);
    ws.write(ws.userSettings, {
      lspServers: { txt: { command: 'fixture-ls', args: ['--stdio'], extensionToLanguage: { '.txt': 'plaintext' }, env: { PATH: `.:${bin}:${dirname(process.execPath)}` } } },
    });
    const live = scope.track(createMcpLive({ homeDir: ws.homeDir, cwd: ws.cwd, runtimeDir: ws.runtimeDir, debounceMs: 20 }));
    await live.start();
    const txt = await until(live, 'lsp:txt', (s) => s.state === 'connected' || s.state === 'error');
    expect(pwned(ws, ['fixture-ls', 'node'])).toEqual([]);
    expect(txt.state).toBe('connected');
  });
});
