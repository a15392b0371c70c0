import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { descendants } from '../integration/processes.js';
import { CliSession, FIXTURES, Workspace } from './cliSession.js';

/**
 * Language servers through the built CLI (decision 157): `--lsp-config FILE` and the settings'
 * `lspServers`, as NDJSON `server` events of kind `lsp`; `status` lists them; an `lsp__*` tool
 * is called like any other.
 */

afterAll(() => {
  expect(descendants().filter((p) => /lsp-server\.mjs|echo-server\.mjs/.test(p.command))).toEqual([]);
});

const fixtureLs = (...extra: string[]) => ({
  command: process.execPath,
  args: [join(FIXTURES, 'lsp-server.mjs'), ...extra],
  extensionToLanguage: { '.txt': 'plaintext' },
});

describe('mcp-live --json with language servers', () => {
  it('--lsp-config and lspServers: server events with kind, status with both kinds, an lsp__ tool call', async ({ onTestFinished }) => {
    const ws = new Workspace(onTestFinished);
    const lspConfig = join(ws.root, 'extra.lsp.json');
    ws.write(lspConfig, { cli: fixtureLs() });
    ws.write(ws.userSettings, { mcpServers: { a: ws.server('a') }, lspServers: { fx: fixtureLs('--stderr', 'hello') } });
    ws.write(join(ws.cwd, 'notes.txt'), 'one TODO\n');
    const cli = CliSession.start(ws, ['--lsp-config', lspConfig]);
    await cli.waitFor((e) => e.type === 'ready', { what: 'ready' });

    const servers = cli.servers();
    expect(servers.get('a')).toMatchObject({ kind: 'mcp', state: 'connected' });
    expect(servers.get('lsp:fx')).toMatchObject({ kind: 'lsp', scope: 'user', state: 'connected', languages: ['plaintext'] });
    expect(servers.get('lsp:fx')!.capabilities).toEqual(expect.arrayContaining(['definition', 'hover']));
    expect(servers.get('lsp:fx')!.tools).toBeUndefined();
    expect(servers.get('lsp:cli')).toMatchObject({ kind: 'lsp', scope: 'cli', source: lspConfig, state: 'connected' });

    cli.send({ cmd: 'status', id: 's' });
    const status = await cli.waitFor((e) => e.type === 'result' && e.id === 's', { what: 'status' });
    const names = (status.data as { servers: { name: string; kind?: string }[] }).servers.map((s) => `${s.kind ?? 'mcp'} ${s.name}`);
    expect(names).toEqual(['mcp a', 'lsp lsp:cli', 'lsp lsp:fx']);

    cli.send({ cmd: 'call', id: 'd', tool: 'lsp__diagnostics', args: { file: 'notes.txt' } });
    const call = await cli.waitFor((e) => e.type === 'result' && e.id === 'd', { what: 'the lsp__diagnostics call' });
    expect(JSON.stringify(call.data)).toContain('notes.txt:1:5 warning');

    // Removing the file's server: a removed event of kind lsp.
    const mark = cli.events.length;
    ws.write(lspConfig, {});
    await cli.waitFor((e) => e.type === 'server' && e.name === 'lsp:cli' && e.reason === 'removed', { from: mark, what: 'lsp:cli removed' });
    expect(cli.servers().get('lsp:cli')).toMatchObject({ kind: 'lsp', state: 'disconnected' });
  });
});
