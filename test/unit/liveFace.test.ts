import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { firstValueFrom } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import { createMcpLive, type McpLive } from '../../src/index.js';

/**
 * The library's face (decision 286): the everyday surface at the top level, the rest
 * in groups whose members are plain functions — hosts destructure them.
 */
let live: McpLive | undefined;
let home: string | undefined;

afterEach(async () => {
  await live?.dispose();
  live = undefined;
  if (home !== undefined) await rm(home, { recursive: true, force: true });
  home = undefined;
});

async function session(): Promise<McpLive> {
  home = await mkdtemp(join(tmpdir(), 'mcp-live-face-'));
  live = createMcpLive({ homeDir: home, cwd: home, runtimeDir: join(home, 'run') });
  return live;
}

const sorted = (o: object) => Object.keys(o).sort();

describe('the face of createMcpLive', () => {
  it('has the everyday members at the top level and each group with exactly its members', async () => {
    const l = await session();
    expect(sorted(l)).toEqual(
      [
        'cwd', 'profile', 'watching', 'events$', 'start', 'planned', 'dispose', 'reload', 'settingsError',
        'servers', 'tools', 'approvals', 'auth', 'lsp', 'resources', 'prompts', 'session', 'elicitation',
      ].sort(),
    );
    expect(sorted(l.servers)).toEqual(['config', 'list$', 'reconnect', 'status', 'stderrTail', 'unavailable']);
    expect(sorted(l.tools)).toEqual(['call', 'list$', 'notFoundMessage', 'search', 'serverOf']);
    expect(sorted(l.approvals)).toEqual(['approve', 'approveAll', 'pending', 'pending$', 'reject']);
    expect(sorted(l.auth)).toEqual(['authenticate', 'logout']);
    expect(sorted(l.lsp)).toEqual(['addSession', 'change', 'close', 'diagnostics$', 'open', 'removeSession', 'request', 'servers$']);
    expect(sorted(l.resources)).toEqual(['list', 'read', 'serverOf', 'subscribe', 'templates', 'unsubscribe']);
    expect(sorted(l.prompts)).toEqual(['complete', 'get', 'list$']);
    expect(sorted(l.session)).toEqual(['add', 'disable', 'enable', 'remove']);
    expect(sorted(l.elicitation)).toEqual(['answer', 'pending$']);
  });

  it('group members work destructured (no `this`)', async () => {
    const l = await session();
    const { add, enable, disable } = l.session;
    expect(() => add('lsp:foo', { command: 'node' })).toThrow('session.add: "lsp:foo" cannot name an MCP server');
    await expect(enable('nope')).rejects.toThrow('server "nope" is not configured');
    await expect(disable('nope')).rejects.toThrow('server "nope" is not configured');

    const { pending, pending$, approve, approveAll, reject } = l.approvals;
    expect(pending()).toEqual([]);
    await expect(approve('nope')).rejects.toThrow('server "nope" is not configured');
    await expect(reject('nope')).rejects.toThrow('server "nope" is not configured');
    await expect(approveAll([{ name: 'nope', hash: 'h' }])).rejects.toThrow('nope changed since it was shown; review again');

    const { list, templates, serverOf } = l.resources;
    expect([list(), templates(), serverOf('demo://x')]).toEqual([[], [], undefined]);

    const { close, request } = l.lsp;
    expect(close('nowhere.ts')).toBe(false);
    await expect(request('textDocument/hover', {}, { server: 'nope' })).rejects.toThrow();

    const { answer } = l.elicitation;
    expect(() => answer('elicit-1', { action: 'cancel' })).toThrow();

    const { authenticate } = l.auth;
    await expect(authenticate('nope')).rejects.toThrow('server "nope" is not configured; nothing is contacted for it until it is');

    const { status, config, stderrTail, reconnect, unavailable } = l.servers;
    expect([status(), config('nope'), stderrTail('nope'), reconnect('nope'), unavailable('nope')]).toEqual([[], undefined, [], false, undefined]);

    const { call, search, serverOf: serverOfTool, notFoundMessage } = l.tools;
    await expect(call('mcp__nope__x')).rejects.toThrow('mcp-live is not started: call start() first');
    expect([search('x'), serverOfTool('mcp__nope__x')]).toEqual([[], undefined]);
    expect(notFoundMessage('mcp__nope__x')).toContain('mcp__nope__x');

    await l.start();
    const { list$, get } = l.prompts;
    expect(await firstValueFrom(list$)).toEqual([]);
    await expect(get('nope')).rejects.toThrow();
    expect(await firstValueFrom(pending$)).toEqual([]);
  });
});
