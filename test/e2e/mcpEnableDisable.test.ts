import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { waitForNoLeftovers } from '../integration/processes.js';
import { runIn, sessionWithCommentedSettings, Workspace } from './cliSession.js';

/**
 * Against the built CLI: `mcp disable|enable NAME` (decision 250) with a running
 * `--json` session following the user settings file, and `{"cmd":"tools"}` (decision 251).
 */

afterAll(async () => {
  expect(await waitForNoLeftovers()).toEqual([]);
});

const read = (file: string): string => readFileSync(file, 'utf8');

describe('mcp disable | enable NAME (the built CLI)', () => {
  it('writes the user settings with comments kept; a running --json session disconnects and reconnects; {"cmd":"tools"} follows', async ({ onTestFinished }) => {
    const ws = new Workspace(onTestFinished);
    const { cli, userText } = await sessionWithCommentedSettings(ws);
    const tools = async (): Promise<string[]> => {
      const result = await cli.request({ cmd: 'tools' });
      return (result.data as { tools: { name: string }[] }).tools.map((t) => t.name);
    };
    expect(await tools()).toEqual(['mcp__u__echo', 'mcp__u__slow']);

    let from = cli.events.length;
    const disabled = await runIn(ws, 'mcp', 'disable', 'u');
    expect(disabled).toMatchObject({ code: 0, stdout: `Disabled u in user settings (${ws.userSettings}); a running session disconnects it when it reads the file.\n` });
    expect(read(ws.userSettings)).toContain('// mine');
    expect(read(ws.userSettings)).toContain('"disabled": true');
    await cli.waitFor((e) => e.type === 'server' && e.name === 'u' && e.reason === 'disabled', { from, what: 'u disabled' });
    expect(await tools()).toEqual([]);

    from = cli.events.length;
    expect((await runIn(ws, 'mcp', 'enable', 'u', '--json')).stdout).toContain('"action": "enabled"');
    expect(read(ws.userSettings)).toBe(userText);
    await cli.waitForState('u', 'connected', from);
    expect(await tools()).toEqual(['mcp__u__echo', 'mcp__u__slow']);

    // A repository's server: refused (exit 1), nothing written; --session: a usage error (exit 2).
    // None of the three writes anything: they run side by side.
    const mcpJson = read(ws.mcpJson);
    const [refused, session, unknown] = await Promise.all([
      runIn(ws, 'mcp', 'disable', 'p'),
      runIn(ws, 'mcp', 'disable', 'u', '--session'),
      runIn(ws, 'mcp', 'enable', 'nope'),
    ]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`p comes from project settings (${ws.mcpJson}); mcp disable writes only your user settings`);
    expect(read(ws.mcpJson)).toBe(mcpJson);
    expect(session.code).toBe(2);
    expect(session.stderr).toContain('mcp disable --session: no command reaches a running session; in it, use /mcp disable u');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no MCP server of that name is configured');
  });
});
