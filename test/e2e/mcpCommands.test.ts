import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { waitForNoLeftovers } from '../integration/processes.js';
import { CliSession, FIXTURES, runIn, sessionWithCommentedSettings, Workspace } from './cliSession.js';

/**
 * Managing servers without an editor (decisions 69–72), against the built CLI:
 * `mcp add|list|get|remove` and `trust|untrust` edit the files (keeping their comments) and a
 * running `--json` session follows through its watcher; `enable` / `disable` in the NDJSON
 * protocol.
 */

afterAll(async () => {
  expect(await waitForNoLeftovers()).toEqual([]);
});

const read = (file: string): string => readFileSync(file, 'utf8');
const USER_SETTINGS = '{\n  // mine: keep this comment\n  "theme": "dark"\n}\n';
const MCP_JSON = '{\n  /* the team\'s servers */\n  "mcpServers": {}\n}\n';

describe.concurrent('mcp add | list | get | remove (the built CLI)', () => {
  it('refuses a name the session would leave out (lsp:…) or could not name, and writes nothing (decision 193)', async ({ onTestFinished }) => {
    const ws = new Workspace(onTestFinished);
    ws.write(ws.userSettings, USER_SETTINGS);
    const cases = [
      ['lsp:foo', 'mcp add: "lsp:foo" cannot name an MCP server: a name that begins with "lsp:" is a language server\'s'],
      ['two words', 'mcp add: "two words" cannot name a server: it contains whitespace'],
    ] as const;
    // Refused ones write nothing: they run side by side.
    const refusals = await Promise.all(cases.map(([name]) => runIn(ws, 'mcp', 'add', name, '--', 'node', 'x.js')));
    for (const [i, [, why]] of cases.entries()) {
      expect(refusals[i]!.code).toBe(2);
      expect(refusals[i]!.stderr).toContain(why);
    }
    expect(read(ws.userSettings)).toBe(USER_SETTINGS);
  });

  it('edit the files keeping their comments; a running --json session connects what is added and drops what is removed', async ({ onTestFinished }) => {
    const ws = new Workspace(onTestFinished);
    ws.write(ws.userSettings, USER_SETTINGS);
    ws.write(ws.mcpJson, MCP_JSON);
    const cli = CliSession.start(ws);
    await cli.waitFor((e) => e.type === 'ready', { what: 'ready' });

    const echo = [process.execPath, join(FIXTURES, 'echo-server.mjs'), '--start-log', ws.startLog, '--log-name', 'fs'];
    const added = await runIn(ws, 'mcp', 'add', 'fs', '-e', 'ECHO_MODE=plain', '--include-tools', 'echo', '--', ...echo);
    expect(added.code).toBe(0);
    expect(added.stdout).toContain(`Added stdio server fs in user settings (${ws.userSettings})`);
    expect(read(ws.userSettings)).toContain('  // mine: keep this comment\n  "theme": "dark",\n  "mcpServers": {');
    await cli.waitForState('fs', 'connected');
    expect(ws.starts()).toEqual(['fs']);

    const http = await runIn(ws, 'mcp', 'add', 'api', '--scope', 'project', '--transport', 'http', 'http://127.0.0.1:9/mcp', '-H', 'X-Team: blue');
    expect(http.code).toBe(0);
    expect(read(ws.mcpJson)).toContain("/* the team's servers */");
    expect(JSON.parse(read(ws.mcpJson).replace(/\/\*.*\*\//, ''))).toEqual({
      mcpServers: { api: { type: 'http', url: 'http://127.0.0.1:9/mcp', headers: { 'X-Team': 'blue' } } },
    });
    await cli.waitFor((e) => e.type === 'server' && e.name === 'api' && e.reason === 'pending_approval', { what: 'api pending' });

    // Both only read the files.
    const [listed, got] = await Promise.all([runIn(ws, 'mcp', 'list', '--json'), runIn(ws, 'mcp', 'get', 'fs', '--json')]);
    const list = JSON.parse(listed.stdout) as { state: string; note: string; servers: unknown[] };
    expect(list.state).toBe('plan');
    expect(list.note).toContain('No running session is asked');
    expect(list.servers).toEqual([
      { name: 'api', scope: 'project', source: ws.mcpJson, transport: 'http', admitted: false, reason: 'pending_approval', message: 'needs approval' },
      { name: 'fs', scope: 'user', source: ws.userSettings, transport: 'stdio', admitted: true },
    ]);
    const get = JSON.parse(got.stdout) as Record<string, unknown>;
    expect(get).toMatchObject({ name: 'fs', scope: 'user', source: ws.userSettings, admitted: true });
    expect(get.config).toEqual({ command: process.execPath, args: echo.slice(1), env: { ECHO_MODE: 'plain' }, includeTools: ['echo'] });

    const from = cli.events.length;
    const removed = await runIn(ws, 'mcp', 'remove', 'fs');
    expect(removed).toMatchObject({ code: 0, stdout: `Removed fs from user settings (${ws.userSettings})\n` });
    expect(read(ws.userSettings)).toContain('// mine: keep this comment');
    expect(JSON.parse(read(ws.userSettings).replace(/\/\/.*\n/, ''))).toEqual({ theme: 'dark', mcpServers: {} });
    await cli.waitFor((e) => e.type === 'server' && e.name === 'fs' && e.reason === 'removed', { from, what: 'fs removed' });
    // Not in that scope: exit 1, naming where it is defined.
    expect(await runIn(ws, 'mcp', 'remove', 'api', '--scope', 'user')).toMatchObject({
      code: 1,
      stderr: `mcp-live: "api" is not defined in user settings (${ws.userSettings}); it is defined in project settings (${ws.mcpJson})\n`,
    });
  });
});

describe.concurrent('trust | untrust (the built CLI)', () => {
  it('flip a folder-trust-enabled session’s servers, keeping trustedFolders.json’s comments', async ({ onTestFinished }) => {
    const ws = new Workspace(onTestFinished);
    ws.write(ws.userSettings, { security: { folderTrust: { enabled: true } }, mcpServers: { u: ws.server('u') } });
    ws.write(ws.trustedFolders, '{\n  // elsewhere\n  "/nowhere": "TRUST_FOLDER"\n}\n');
    const cli = CliSession.start(ws);
    await cli.waitFor((e) => e.type === 'server' && e.name === 'u' && e.reason === 'untrusted_folder', { what: 'u untrusted' });

    expect(await runIn(ws, 'trust')).toMatchObject({ code: 0, stdout: `Trusted ${ws.cwd} (TRUST_FOLDER in ${ws.trustedFolders})\n` });
    expect(read(ws.trustedFolders)).toBe(`{\n  // elsewhere\n  "/nowhere": "TRUST_FOLDER",\n  "${ws.cwd}": "TRUST_FOLDER"\n}\n`);
    await cli.waitForState('u', 'connected');

    const from = cli.events.length;
    expect((await runIn(ws, 'untrust', ws.cwd)).code).toBe(0);
    expect(read(ws.trustedFolders)).toContain(`"${ws.cwd}": "DO_NOT_TRUST"`);
    await cli.waitFor((e) => e.type === 'server' && e.name === 'u' && e.reason === 'untrusted_folder', { from, what: 'u untrusted again' });
  });
});

describe.concurrent('NDJSON enable / disable', () => {
  it('session-only by default; --persist writes the user settings file and is refused for a .mcp.json server', async ({ onTestFinished }) => {
    const ws = new Workspace(onTestFinished);
    const { cli, userText } = await sessionWithCommentedSettings(ws);
    const result = (cmd: Record<string, unknown>) => cli.request(cmd);

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
