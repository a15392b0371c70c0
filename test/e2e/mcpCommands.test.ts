import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { waitForNoLeftovers } from '../integration/processes.js';
import { CLI, CliSession, FIXTURES, Workspace } from './cliSession.js';

/**
 * Managing servers without an editor (decisions 69–72), against the built CLI:
 * `mcp add|list|get|remove` and `trust|untrust` edit the files (keeping their comments) and a
 * running `--json` session follows through its watcher; `enable` / `disable` in the NDJSON
 * protocol.
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
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [CLI, ...args], {
      env: { ...process.env, HOME: ws.home },
      cwd: ws.cwd,
      timeout: 30_000,
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

const read = (file: string): string => readFileSync(file, 'utf8');
const USER_SETTINGS = '{\n  // mine: keep this comment\n  "theme": "dark"\n}\n';
const MCP_JSON = '{\n  /* the team\'s servers */\n  "mcpServers": {}\n}\n';

describe('mcp add | list | get | remove (the built CLI)', () => {
  it('refuses a name the session would leave out (lsp:…) or could not name, and writes nothing (decision 193)', async () => {
    ws = new Workspace();
    ws.write(ws.userSettings, USER_SETTINGS);
    for (const [name, why] of [
      ['lsp:foo', 'mcp add: "lsp:foo" cannot name an MCP server: a name that begins with "lsp:" is a language server\'s'],
      ['two words', 'mcp add: "two words" cannot name a server: it contains whitespace'],
    ]) {
      const refused = await run('mcp', 'add', name!, '--', 'node', 'x.js');
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain(why);
    }
    expect(read(ws.userSettings)).toBe(USER_SETTINGS);
  });

  it('edit the files keeping their comments; a running --json session connects what is added and drops what is removed', async () => {
    ws = new Workspace();
    ws.write(ws.userSettings, USER_SETTINGS);
    ws.write(ws.mcpJson, MCP_JSON);
    cli = CliSession.start(ws);
    await cli.waitFor((e) => e.type === 'ready', { what: 'ready' });

    const echo = [process.execPath, join(FIXTURES, 'echo-server.mjs'), '--start-log', ws.startLog, '--log-name', 'fs'];
    const added = await run('mcp', 'add', 'fs', '-e', 'ECHO_MODE=plain', '--include-tools', 'echo', '--', ...echo);
    expect(added.code).toBe(0);
    expect(added.stdout).toContain(`Added stdio server fs in user settings (${ws.userSettings})`);
    expect(read(ws.userSettings)).toContain('  // mine: keep this comment\n  "theme": "dark",\n  "mcpServers": {');
    await cli.waitForState('fs', 'connected');
    expect(ws.starts()).toEqual(['fs']);

    const http = await run('mcp', 'add', 'api', '--scope', 'project', '--transport', 'http', 'http://127.0.0.1:9/mcp', '-H', 'X-Team: blue');
    expect(http.code).toBe(0);
    expect(read(ws.mcpJson)).toContain("/* the team's servers */");
    expect(JSON.parse(read(ws.mcpJson).replace(/\/\*.*\*\//, ''))).toEqual({
      mcpServers: { api: { type: 'http', url: 'http://127.0.0.1:9/mcp', headers: { 'X-Team': 'blue' } } },
    });
    await cli.waitFor((e) => e.type === 'server' && e.name === 'api' && e.reason === 'pending_approval', { what: 'api pending' });

    const list = JSON.parse((await run('mcp', 'list', '--json')).stdout) as { state: string; note: string; servers: unknown[] };
    expect(list.state).toBe('plan');
    expect(list.note).toContain('No running session is asked');
    expect(list.servers).toEqual([
      { name: 'api', scope: 'project', source: ws.mcpJson, transport: 'http', admitted: false, reason: 'pending_approval', message: 'needs approval' },
      { name: 'fs', scope: 'user', source: ws.userSettings, transport: 'stdio', admitted: true },
    ]);
    const get = JSON.parse((await run('mcp', 'get', 'fs', '--json')).stdout) as Record<string, unknown>;
    expect(get).toMatchObject({ name: 'fs', scope: 'user', source: ws.userSettings, admitted: true });
    expect(get.config).toEqual({ command: process.execPath, args: echo.slice(1), env: { ECHO_MODE: 'plain' }, includeTools: ['echo'] });

    const from = cli.events.length;
    const removed = await run('mcp', 'remove', 'fs');
    expect(removed).toMatchObject({ code: 0, stdout: `Removed fs from user settings (${ws.userSettings})\n` });
    expect(read(ws.userSettings)).toContain('// mine: keep this comment');
    expect(JSON.parse(read(ws.userSettings).replace(/\/\/.*\n/, ''))).toEqual({ theme: 'dark', mcpServers: {} });
    await cli.waitFor((e) => e.type === 'server' && e.name === 'fs' && e.reason === 'removed', { from, what: 'fs removed' });
    // Not in that scope: exit 1, naming where it is defined.
    expect(await run('mcp', 'remove', 'api', '--scope', 'user')).toMatchObject({
      code: 1,
      stderr: `mcp-live: "api" is not defined in user settings (${ws.userSettings}); it is defined in project settings (${ws.mcpJson})\n`,
    });
  });
});

describe('trust | untrust (the built CLI)', () => {
  it('flip a folder-trust-enabled session’s servers, keeping trustedFolders.json’s comments', async () => {
    ws = new Workspace();
    ws.write(ws.userSettings, { security: { folderTrust: { enabled: true } }, mcpServers: { u: ws.server('u') } });
    ws.write(ws.trustedFolders, '{\n  // elsewhere\n  "/nowhere": "TRUST_FOLDER"\n}\n');
    cli = CliSession.start(ws);
    await cli.waitFor((e) => e.type === 'server' && e.name === 'u' && e.reason === 'untrusted_folder', { what: 'u untrusted' });

    expect(await run('trust')).toMatchObject({ code: 0, stdout: `Trusted ${ws.cwd} (TRUST_FOLDER in ${ws.trustedFolders})\n` });
    expect(read(ws.trustedFolders)).toBe(`{\n  // elsewhere\n  "/nowhere": "TRUST_FOLDER",\n  "${ws.cwd}": "TRUST_FOLDER"\n}\n`);
    await cli.waitForState('u', 'connected');

    const from = cli.events.length;
    expect((await run('untrust', ws.cwd)).code).toBe(0);
    expect(read(ws.trustedFolders)).toContain(`"${ws.cwd}": "DO_NOT_TRUST"`);
    await cli.waitFor((e) => e.type === 'server' && e.name === 'u' && e.reason === 'untrusted_folder', { from, what: 'u untrusted again' });
  });
});

describe('NDJSON enable / disable', () => {
  it('session-only by default; --persist writes the user settings file and is refused for a .mcp.json server', async () => {
    ws = new Workspace();
    const userText = `{\n  // mine\n  "mcpServers": {\n    "u": ${JSON.stringify(ws.server('u'))}\n  }\n}\n`;
    ws.write(ws.userSettings, userText);
    ws.write(ws.mcpJson, { mcpServers: { p: ws.server('p') } });
    cli = CliSession.start(ws);
    await cli.waitForState('u', 'connected');
    const result = async (cmd: Record<string, unknown>) => {
      const id = `${String(cmd.cmd)}-${cli!.events.length}`;
      cli!.send({ ...cmd, id });
      return cli!.waitFor((e) => e.type === 'result' && e.id === id, { what: `result ${id}` });
    };

    let from = cli.events.length;
    expect(await result({ cmd: 'disable', server: 'u' })).toMatchObject({ ok: true, data: { server: 'u', enabled: false } });
    await cli.waitFor((e) => e.type === 'server' && e.name === 'u' && e.reason === 'disabled' && e.detail === 'disabled for this session', { from, what: 'u disabled for this session' });
    expect(read(ws.userSettings)).toBe(userText);
    from = cli.events.length;
    expect(await result({ cmd: 'enable', server: 'u' })).toMatchObject({ ok: true, data: { server: 'u', enabled: true } });
    await cli.waitForState('u', 'connected', from);

    from = cli.events.length;
    expect(await result({ cmd: 'disable', server: 'u', persist: true })).toMatchObject({ ok: true, data: { enabled: false, file: ws.userSettings } });
    expect(read(ws.userSettings)).toContain('// mine');
    expect(read(ws.userSettings)).toContain('"disabled": true');
    await cli.waitFor((e) => e.type === 'server' && e.name === 'u' && e.reason === 'disabled' && e.detail === undefined, { from, what: 'u disabled in settings' });
    from = cli.events.length;
    expect(await result({ cmd: 'enable', server: 'u', persist: true })).toMatchObject({ ok: true, data: { enabled: true, file: ws.userSettings } });
    expect(read(ws.userSettings)).toBe(userText);
    await cli.waitForState('u', 'connected', from);

    // A repository's file is not the user's own: refused, nothing written; enabling never skips approval.
    const mcpJson = read(ws.mcpJson);
    const refused = await result({ cmd: 'disable', server: 'p', persist: true });
    expect(refused).toMatchObject({ ok: false });
    expect(refused.error).toContain(`p comes from project settings (${ws.mcpJson}); --persist writes only your user settings`);
    expect(read(ws.mcpJson)).toBe(mcpJson);
    expect(await result({ cmd: 'enable', server: 'p' })).toMatchObject({ ok: true, data: { stillBlocked: 'needs approval' } });
    expect(ws.starts()).not.toContain('p');
  });
});
