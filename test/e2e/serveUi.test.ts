import { spawnSync } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, expect, it } from 'vitest';
import { isAlive } from '../integration/processes.js';
import { posixOnly } from '../platforms.js';
import { CLI, waitUntil, Workspace } from './cliSession.js';
import { TmuxTerminal } from './tmuxTerminal.js';
import { deadline } from '../deadlines.js';

/**
 * `mcp-live serve --ui` in a real terminal (tmux): the user approves a repository's server in
 * the gateway's own interactive session, and a client attached through `serve --stdio` — which
 * can never approve — gets `tools/list_changed` and the server's tools.
 */
const terminal = new TmuxTerminal(`mcp-live-serve-ui-${process.pid}`);
const ws = new Workspace();
let client: Client | undefined;

/** Polls `pred` until it holds; fails with `what` and the screen after `timeoutMs`. */
async function waitFor(pred: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  await waitUntil(pred, what, timeoutMs).catch((error: Error) => {
    throw new Error(`${error.message}; screen:\n${terminal.screen()}`);
  });
}

afterAll(async () => {
  await client?.close().catch(() => undefined);
  terminal.kill();
  ws.cleanup();
});

posixOnly('tmux').describe('serve --ui in a terminal (tmux)', () => {
  it('approving in the gateway UI gives an attached client the server, with tools/list_changed; /quit ends every server', async () => {
    expect(TmuxTerminal.available(), 'tmux is needed for this test (.ci/run installs it)').toBe(true);
    ws.write(ws.userSettings, { mcpServers: { mine: ws.server('mine') } });
    ws.write(ws.mcpJson, { mcpServers: { repo: ws.server('repo') } });
    const args = ['--cwd', ws.cwd, '--user-settings', ws.userSettings, '--debounce', '100'];
    terminal.tmux(
      'new-session', '-d', '-s', terminal.session, '-x', '150', '-y', '45', '-e', `HOME=${ws.home}`,
      `${process.execPath} ${CLI} serve --ui --port 0 ${args.join(' ')}; echo "EXITED $?"; sleep 600`,
    );
    await terminal.waitForScreen((s) => /● mine/.test(s) && /Approve MCP server/.test(s), 'the gateway UI with the approval dialog');

    // A client attaches to the running gateway: it gets the user's server, not the pending one.
    const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'serve', '--stdio', ...args], env: { ...process.env, HOME: ws.home }, stderr: 'ignore' });
    client = new Client({ name: 'serve-ui-e2e', version: '1.0.0' });
    await client.connect(transport);
    const names = async () => (await client!.listTools()).tools.map((t) => t.name);
    expect(await names()).toContain('mine__echo');
    expect(await names()).not.toContain('repo__echo');
    expect(ws.starts()).toEqual(['mine']);
    let changed = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void (changed += 1));

    // The user approves in the gateway's terminal.
    terminal.press('Enter');
    await waitFor(() => changed > 0, 'tools/list_changed at the client');
    expect(await names()).toContain('repo__echo');
    expect(ws.starts().sort()).toEqual(['mine', 'repo']);

    const relay = transport.pid!;
    terminal.type('/quit');
    await terminal.waitForScreen((s) => /EXITED 0/.test(s), 'a clean exit of the gateway');
    // The gateway's end closes the relay's socket: the relay exits, and no server is left.
    await waitFor(() => !isAlive(relay), 'the relay ended with its gateway', 10_000);
    const left = spawnSync('pgrep', ['-f', ws.startLog], { encoding: 'utf8' }).stdout.trim();
    expect(left).toBe('');
  }, deadline(90_000));
});
