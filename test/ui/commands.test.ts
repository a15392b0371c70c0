import { describe, expect, it } from 'vitest';
import {
  COMMANDS,
  executeCommand,
  formatToolResult,
  parseCommand,
  runCommandLine,
  type Command,
} from '../../src/hosts/ui/commands/commands.js';
import { fakeLive, server, tool } from './fakeLive.js';

describe('parseCommand', () => {
  it.each<[string, Command]>([
    ['/mcp', { kind: 'mcp' }],
    ['  /mcp   alpha  ', { kind: 'mcp', server: 'alpha' }],
    ['/lsp', { kind: 'lsp' }],
    ['/lsp typescript', { kind: 'lsp', server: 'typescript' }],
    ['/reconnect lsp:typescript', { kind: 'reconnect', server: 'lsp:typescript' }],
    ['/reload', { kind: 'reload' }],
    ['/reconnect alpha', { kind: 'reconnect', server: 'alpha' }],
    ['/tools', { kind: 'tools' }],
    ['/tools alpha', { kind: 'tools', server: 'alpha' }],
    ['/call mcp__a__echo', { kind: 'call', tool: 'mcp__a__echo', args: {} }],
    ['/call mcp__a__echo {"text": "hi there", "n": [1, 2]}', { kind: 'call', tool: 'mcp__a__echo', args: { text: 'hi there', n: [1, 2] } }],
    ['/approve beta', { kind: 'approve', server: 'beta' }],
    ['/reject beta', { kind: 'reject', server: 'beta' }],
    ['/help', { kind: 'help' }],
    ['/quit', { kind: 'quit' }],
  ])('parses %j', (line, command) => {
    expect(parseCommand(line)).toEqual({ ok: true, command });
  });

  it.each([
    ['', 'Type a command'],
    ['mcp', 'Commands start with "/"'],
    ['/frobnicate', 'Unknown command "/frobnicate" — type /help'],
    ['/mcp a b', 'Usage: /mcp [NAME]'],
    ['/lsp a b', 'Usage: /lsp [NAME]'],
    ['/tools a b', 'Usage: /tools [NAME]'],
    ['/reconnect', 'Usage: /reconnect NAME'],
    ['/reconnect a b', 'Usage: /reconnect NAME'],
    ['/approve', 'Usage: /approve NAME'],
    ['/reject', 'Usage: /reject NAME'],
    ['/reload now', 'Usage: /reload'],
    ['/help me', 'Usage: /help'],
    ['/quit now', 'Usage: /quit'],
    ['/call', 'Usage: /call TOOL'],
    ['/call t {not json', 'Arguments of /call must be a JSON object:'],
    ['/call t [1,2]', 'Arguments of /call must be a JSON object'],
    ['/call t "text"', 'Arguments of /call must be a JSON object'],
    ['/call t null', 'Arguments of /call must be a JSON object'],
  ])('rejects %j with a clear message', (line, message) => {
    const result = parseCommand(line);
    expect(result.ok).toBe(false);
    expect(result.ok ? '' : result.error).toContain(message);
  });
});

describe('executeCommand', () => {
  const setup = () => {
    const fake = fakeLive();
    const servers = [
      server('alpha', { tools: [tool('alpha', 'echo', 'Echoes'), tool('alpha', 'add')] }),
      server('beta', { scope: 'workspace', state: 'blocked', reason: 'pending_approval' }),
    ];
    const ctx = { live: fake.live, servers, tools: servers.flatMap((s) => s.tools) };
    return { ...fake, ctx, run: (line: string) => runCommandLine(line, ctx) };
  };

  it('/mcp shows the list of MCP servers, /mcp NAME the detail, an unknown name an error naming the known ones', async () => {
    const { run } = setup();
    expect(await run('/mcp')).toEqual({ view: { kind: 'list', show: 'mcp' } });
    expect(await run('/mcp beta')).toEqual({ view: { kind: 'detail', server: 'beta' } });
    expect(await run('/mcp nope')).toEqual({
      output: { tone: 'error', lines: ['No MCP server "nope" is configured.', 'Known: alpha, beta'] },
    });
  });

  it('/reload reloads', async () => {
    const { run, callsOf } = setup();
    const outcome = await run('/reload');
    expect(callsOf('reload')).toEqual([[]]);
    expect(outcome.output?.lines[0]).toContain('Reloading');
  });

  it('/reconnect NAME reconnects, and explains when it cannot', async () => {
    const { run, callsOf, steer } = setup();
    expect((await run('/reconnect alpha')).output).toEqual({ tone: 'info', lines: ['Reconnecting alpha…'] });
    expect(callsOf('servers.reconnect')).toEqual([['alpha']]);
    steer.reconnectable = false;
    expect((await run('/reconnect beta')).output).toEqual({ tone: 'error', lines: ['Cannot reconnect beta: needs approval.'] });
    expect((await run('/reconnect nope')).output?.lines[0]).toBe('No MCP server "nope" is configured.');
  });

  it('/tools lists every tool, /tools NAME one server, a blocked server says why it has none', async () => {
    const { run } = setup();
    expect((await run('/tools')).output?.lines).toEqual(['2 tools:', 'mcp__alpha__echo  Echoes', 'mcp__alpha__add']);
    expect((await run('/tools alpha')).output?.lines[0]).toBe('2 tools:');
    expect((await run('/tools beta')).output?.lines).toEqual(['beta has no tools: needs approval.']);
    expect((await run('/tools nope')).output?.tone).toBe('error');
  });

  it('/call calls an available tool with its arguments and shows the text result', async () => {
    const { run, callsOf } = setup();
    const outcome = await run('/call mcp__alpha__echo {"text":"ping"}');
    expect(callsOf('tools.call')).toEqual([['mcp__alpha__echo', { text: 'ping' }]]);
    expect(outcome.output).toEqual({ tone: 'success', lines: ['pong'] });
  });

  it('/call of a missing tool shows the tool-not-found message, without calling', async () => {
    const { run, callsOf } = setup();
    const outcome = await run('/call mcp__beta__search {}');
    expect(callsOf('tools.call')).toEqual([]);
    expect(callsOf('tools.notFoundMessage')).toEqual([['mcp__beta__search']]);
    expect(outcome.output).toEqual({
      tone: 'error',
      lines: ['Tool "mcp__beta__search" is not available: MCP server "beta" needs approval – approve it with /mcp.'],
    });
  });

  it('/call shows a failing or isError call as an error', async () => {
    const { run, steer } = setup();
    steer.callResult = { content: [{ type: 'text', text: 'bad input' }], isError: true };
    expect((await run('/call mcp__alpha__echo')).output).toEqual({ tone: 'error', lines: ['bad input'] });
    steer.callError = new Error('MCP server "alpha" went away');
    expect((await run('/call mcp__alpha__echo')).output).toEqual({ tone: 'error', lines: ['MCP server "alpha" went away'] });
  });

  it('/approve persists, /reject rejects, and a failure is an error output', async () => {
    const { run, callsOf, steer } = setup();
    expect((await run('/approve beta')).output?.tone).toBe('success');
    expect(callsOf('approvals.approve')).toEqual([['beta', { persist: true }]]);
    expect((await run('/reject beta')).output?.lines).toEqual(['Rejected beta — edit its config to be asked again.']);
    expect(callsOf('approvals.reject')).toEqual([['beta']]);
    steer.approveError = new Error('server "zeta" is not configured');
    expect((await run('/approve zeta')).output).toEqual({ tone: 'error', lines: ['server "zeta" is not configured'] });
  });

  it('/help lists every command, /quit quits, bad input is an error output that does nothing', async () => {
    const { run, calls, ctx } = setup();
    const help = (await run('/help')).output?.lines ?? [];
    for (const c of COMMANDS) expect(help.some((l) => l.startsWith(c.usage))).toBe(true);
    expect(await run('/quit')).toEqual({ quit: true });
    expect(await run('/nope')).toEqual({ output: { tone: 'error', lines: ['Unknown command "/nope" — type /help for the list.'] } });
    expect(await executeCommand({ kind: 'quit' }, ctx)).toEqual({ quit: true });
    expect(calls).toEqual([]);
  });
});

describe('executeCommand with language servers (decision 157)', () => {
  const setup = () => {
    const fake = fakeLive();
    const servers = [
      server('alpha', { tools: [tool('alpha', 'echo')] }),
      server('lsp:typescript', { kind: 'lsp', languages: ['typescript'], capabilities: ['hover'] }),
      server('lsp:python', { kind: 'lsp', state: 'blocked', reason: 'pending_approval' }),
    ];
    const ctx = { live: fake.live, servers, tools: servers.flatMap((s) => s.tools) };
    return { ...fake, ctx, run: (line: string) => runCommandLine(line, ctx) };
  };

  it('/lsp shows the list of language servers, /lsp NAME one by its own name or its key', async () => {
    const { run } = setup();
    expect(await run('/lsp')).toEqual({ view: { kind: 'list', show: 'lsp' } });
    expect(await run('/lsp typescript')).toEqual({ view: { kind: 'detail', server: 'lsp:typescript' } });
    expect(await run('/lsp lsp:python')).toEqual({ view: { kind: 'detail', server: 'lsp:python' } });
    expect((await run('/lsp alpha')).output).toEqual({
      tone: 'error',
      lines: ['No language server "alpha" is configured.', 'Known: lsp:typescript, lsp:python'],
    });
  });

  it('/reconnect, /approve, /reject and /mcp disable take lsp:NAME; a bare language server name gets the hint', async () => {
    const { run, callsOf } = setup();
    expect((await run('/reconnect lsp:typescript')).output?.lines).toEqual(['Reconnecting lsp:typescript…']);
    await run('/approve lsp:python');
    await run('/reject lsp:python');
    await run('/mcp disable lsp:typescript');
    expect(callsOf('servers.reconnect')).toEqual([['lsp:typescript']]);
    expect(callsOf('approvals.approve')).toEqual([['lsp:python', { persist: true }]]);
    expect(callsOf('approvals.reject')).toEqual([['lsp:python']]);
    expect(callsOf('session.disable')).toEqual([['lsp:typescript', { persist: false }]]);
    expect((await run('/mcp enable typescript')).output?.lines).toEqual([
      'No MCP server "typescript" is configured.',
      'typescript is a language server: name it lsp:typescript.',
      'Known: alpha, lsp:typescript, lsp:python',
    ]);
  });

  it('refuses what only an MCP server has — sign-in, tokens, tools — for a language server, in words', async () => {
    const { run, callsOf } = setup();
    expect((await run('/mcp auth lsp:typescript')).output).toEqual({
      tone: 'error',
      lines: ['typescript is a language server: /mcp auth signs in to remote MCP servers only.'],
    });
    expect((await run('/mcp logout lsp:typescript')).output?.lines[0]).toBe(
      'typescript is a language server: /mcp logout forgets the tokens of remote MCP servers only.',
    );
    expect((await run('/tools lsp:typescript')).output?.lines[0]).toMatch(/^typescript is a language server: it offers no MCP tools/);
    expect(callsOf('auth.authenticate')).toEqual([]);
    expect(callsOf('auth.logout')).toEqual([]);
  });

  it('/help names /lsp and how commands name a language server', async () => {
    const { run } = setup();
    const help = (await run('/help')).output?.lines ?? [];
    expect(help.some((l) => /^\/lsp \[NAME\]\s+list the language servers/.test(l))).toBe(true);
    expect(help).toContain('A language server is lsp:NAME in /reconnect, /approve, /reject and /mcp enable|disable.');
  });
});

describe('formatToolResult', () => {
  it('shows text content, tags other content, and JSON for anything else', () => {
    expect(
      formatToolResult({
        content: [
          { type: 'text', text: 'a\nb' },
          { type: 'image', mimeType: 'image/png', data: '…' },
          { type: 'resource', resource: { uri: 'file:///x' } },
        ],
      }),
    ).toEqual({ isError: false, lines: ['a', 'b', '[image image/png]', '[resource file:///x]'] });
    expect(formatToolResult({ content: [] })).toEqual({ isError: false, lines: ['(empty result)'] });
    expect(formatToolResult({ toolResult: 1 })).toEqual({ isError: false, lines: ['{', '  "toolResult": 1', '}'] });
  });
});

describe('/prompt and /read', () => {
  it.each<[string, Command]>([
    ['/prompt greet', { kind: 'prompt', name: 'greet', args: {} }],
    ['/prompt greet {"who": "Ada Lovelace"}', { kind: 'prompt', name: 'greet', args: { who: 'Ada Lovelace' } }],
    ['/prompt echo greet {"who":"x"}', { kind: 'prompt', server: 'echo', name: 'greet', args: { who: 'x' } }],
    ['/read fixture://readme', { kind: 'read', uri: 'fixture://readme' }],
    ['/read echo fixture://readme', { kind: 'read', server: 'echo', uri: 'fixture://readme' }],
  ])('parses %j', (line, command) => {
    expect(parseCommand(line)).toEqual({ ok: true, command });
  });

  it.each([
    ['/prompt', 'Usage: /prompt [SERVER] NAME [{json args}]'],
    ['/prompt a b c', 'Usage: /prompt [SERVER] NAME [{json args}]'],
    ['/prompt greet {"who": 1}', 'Arguments of /prompt must be a JSON object of strings'],
    ['/prompt greet {nope', 'Arguments of /prompt must be a JSON object:'],
    ['/read', 'Usage: /read [SERVER] URI'],
  ])('refuses %j', (line, error) => {
    const parsed = parseCommand(line);
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.error).toContain(error);
  });

  it('shows a prompt as its messages and a resource as its text, and a failure in words', async () => {
    const fake = fakeLive();
    const ctx = { live: fake.live, servers: [], tools: [] };
    fake.steer.promptResult = { description: 'Says hello', messages: [{ role: 'user', content: { type: 'text', text: 'Hello Ada' } }] };
    expect(await runCommandLine('/prompt greet {"who":"Ada"}', ctx)).toEqual({
      output: { tone: 'info', lines: ['Says hello', '', 'user: Hello Ada'] },
    });
    expect(fake.callsOf('prompts.get')).toEqual([['greet', { who: 'Ada' }, { server: undefined }]]);
    fake.steer.resourceResult = { contents: [{ uri: 'fixture://readme', text: 'line 1\nline 2' }, { uri: 'x://bin', blob: 'AAAA', mimeType: 'image/png' }] };
    expect(await runCommandLine('/read echo fixture://readme', ctx)).toEqual({
      output: { tone: 'info', lines: ['fixture://readme', 'line 1', 'line 2', 'x://bin', '[image/png, 3 bytes]'] },
    });
    expect(fake.callsOf('resources.read')).toEqual([['fixture://readme', { server: 'echo' }]]);
    fake.steer.requestError = new Error('no connected server lists resource "nothing://here"');
    expect(await runCommandLine('/read nothing://here', ctx)).toEqual({
      output: { tone: 'error', lines: ['no connected server lists resource "nothing://here"'] },
    });
  });
});
