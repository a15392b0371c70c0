import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { waitForNoLeftovers } from '../integration/processes.js';
import { CLI, CliSession, Workspace } from './cliSession.js';

/**
 * Against the built CLI: `mcp disable|enable NAME` (decision 250) with a running
 * `--json` session following the user settings file, and `{"cmd":"tools"}` (decision 251).
 */

let ws: Workspace;
let cli: CliSession | undefined;
afterEach(async () => {
  await cli?.stop();
  cli = undefined;
  ws?.cleanup();
});
afterAll(async () => {
  expect(await waitForNoLeftovers()).toEqual([]);
});

async function run(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [CLI, ...args], { env: { ...process.env, HOME: ws.home }, cwd: ws.cwd, timeout: 30_000 });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

const read = (file: string): string => readFileSync(file, 'utf8');

describe('mcp disable | enable NAME (the built CLI)', () => {
  it('writes the user settings with comments kept; a running --json session disconnects and reconnects; {"cmd":"tools"} follows', async () => {
    ws = new Workspace();
    const userText = `{\n  // mine\n  "mcpServers": {\n    "u": ${JSON.stringify(ws.server('u'))}\n  }\n}\n`;
    ws.write(ws.userSettings, userText);
    ws.write(ws.mcpJson, { mcpServers: { p: ws.server('p') } });
    cli = CliSession.start(ws);
    await cli.waitForState('u', 'connected');
    const tools = async (): Promise<string[]> => {
      const id = `tools-${cli!.events.length}`;
      cli!.send({ cmd: 'tools', id });
      const result = await cli!.waitFor((e) => e.type === 'result' && e.id === id, { what: `result ${id}` });
      return (result.data as { tools: { name: string }[] }).tools.map((t) => t.name);
    };
    expect(await tools()).toEqual(['mcp__u__echo', 'mcp__u__slow']);

    let from = cli.events.length;
    const disabled = await run('mcp', 'disable', 'u');
    expect(disabled).toMatchObject({ code: 0, stdout: `Disabled u in user settings (${ws.userSettings}); a running session disconnects it when it reads the file.\n` });
    expect(read(ws.userSettings)).toContain('// mine');
    expect(read(ws.userSettings)).toContain('"disabled": true');
    await cli.waitFor((e) => e.type === 'server' && e.name === 'u' && e.reason === 'disabled', { from, what: 'u disabled' });
    expect(await tools()).toEqual([]);

    from = cli.events.length;
    expect((await run('mcp', 'enable', 'u', '--json')).stdout).toContain('"action": "enabled"');
    expect(read(ws.userSettings)).toBe(userText);
    await cli.waitForState('u', 'connected', from);
    expect(await tools()).toEqual(['mcp__u__echo', 'mcp__u__slow']);

    // A repository's server: refused (exit 1), nothing written; --session: a usage error (exit 2).
    const mcpJson = read(ws.mcpJson);
    const refused = await run('mcp', 'disable', 'p');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`p comes from project settings (${ws.mcpJson}); mcp disable writes only your user settings`);
    expect(read(ws.mcpJson)).toBe(mcpJson);
    const session = await run('mcp', 'disable', 'u', '--session');
    expect(session.code).toBe(2);
    expect(session.stderr).toContain('mcp disable --session: no command reaches a running session; in it, use /mcp disable u');
    const unknown = await run('mcp', 'enable', 'nope');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no MCP server of that name is configured');
  });
});
