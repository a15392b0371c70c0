import { describe, expect, it } from 'vitest';
import { parseCliArgs, UsageError } from '../../../src/cli/args.js';

const parse = (...argv: string[]) => parseCliArgs(argv, { cwd: '/here' });

describe('parseCliArgs', () => {
  it('defaults to an interactive session in the current directory with profile qwen', () => {
    expect(parse()).toMatchObject({ kind: 'session', json: false, options: { cwd: '/here', profile: 'qwen', mcpConfig: [], lspConfig: [], demo: false, strategy: 'incremental' } });
  });

  it('reads every option of the command line', () => {
    const c = parse(
      '--json', '--cwd', '/w', '--profile', 'gemini', '--user-settings', '/u.json', '--system-settings', '/s.json',
      '--mcp-config', 'a.json', '--mcp-config', 'b.json', '--lsp-config', 'l.json', '--lsp-config', 'm.json',
      '--allowed-mcp-server-names', 'a, b,git*',
      '--approvals-file', '/ap.json', '--debounce', '50', '--reconcile', 'full',
    );
    expect(c).toEqual({
      kind: 'session',
      json: true,
      options: {
        cwd: '/w', profile: 'gemini', userSettings: '/u.json', systemSettings: '/s.json', mcpConfig: ['a.json', 'b.json'],
        lspConfig: ['l.json', 'm.json'], allowedMcpServerNames: ['a', 'b', 'git*'], approvalsFile: '/ap.json', debounceMs: 50, demo: false, strategy: 'full',
      },
    });
  });

  it('parses the subcommands', () => {
    expect(parse('status', '--json')).toMatchObject({ kind: 'status', json: true });
    expect(parse('plan')).toMatchObject({ kind: 'plan', json: false });
    expect(parse('approvals')).toMatchObject({ kind: 'approvals', action: 'list' });
    expect(parse('approvals', 'approve', 'x')).toMatchObject({ kind: 'approvals', action: 'approve', server: 'x' });
    expect(parse('approvals', 'forget', '__proto__')).toMatchObject({ action: 'forget', server: '__proto__' });
    expect(parse('--help')).toEqual({ kind: 'help' });
  });

  it.each([
    [['--bogus'], /--bogus/],
    [['--debounce', 'soon'], /--debounce/],
    [['--debounce', '-5'], /--debounce/],
    [['--reconcile', 'sometimes'], /--reconcile/],
    [['--profile', '../etc'], /--profile/],
    [['--allowed-mcp-server-names', ' , '], /--allowed-mcp-server-names/],
    [['frobnicate'], /unknown command "frobnicate"/],
    [['approvals', 'approve'], /needs a server NAME/],
    [['approvals', 'bless', 'x'], /unknown action "bless"/],
    [['status', 'extra'], /takes no arguments/],
  ])('%j is a usage error naming what is wrong', (argv, message) => {
    expect(() => parse(...argv)).toThrow(UsageError);
    expect(() => parse(...argv)).toThrow(message);
  });

  it('Gemini CLI: repeated --allowed-mcp-server-names accumulate', () => {
    const c = parse('--allowed-mcp-server-names', 'a', '--allowed-mcp-server-names', 'b,c', '--allowed-mcp-server-names', 'a');
    expect(c).toMatchObject({ options: { allowedMcpServerNames: ['a', 'b', 'c'] } });
    // Each occurrence must name something: an empty one is a script bug, not "deny all" (decision 20).
    expect(() => parse('--allowed-mcp-server-names', 'a', '--allowed-mcp-server-names', '')).toThrow(/needs at least one name/);
  });
});

describe('mcp add | remove | list | get', () => {
  it('add: a stdio server from the words after --, into user settings by default', () => {
    expect(parse('mcp', 'add', 'fs', '-e', 'ROOT=/tmp', '--env', 'URL=a=b', '--include-tools', 'read,list', '--include-tools', 'stat',
      '--timeout', '5000', '--', 'node', 'fs.js', '--port', '3')).toEqual({
      kind: 'mcp', action: 'add', server: 'fs', scope: 'user', transport: 'stdio', force: false, json: false,
      entry: { command: 'node', args: ['fs.js', '--port', '3'], env: { ROOT: '/tmp', URL: 'a=b' }, timeout: 5000, includeTools: ['read', 'list', 'stat'] },
      options: expect.objectContaining({ cwd: '/here' }) as unknown,
    });
    // Without `--` the words still count (as Gemini CLI takes them), as long as none looks like an option.
    expect(parse('mcp', 'add', 'fs', 'node', 'fs.js')).toMatchObject({ entry: { command: 'node', args: ['fs.js'] } });
  });

  it('add: remote servers in the shape each file’s readers know', () => {
    const http = ['mcp', 'add', 'api', '--transport', 'http', 'https://api.example/mcp', '-H', 'Authorization: Bearer ${API_TOKEN}'];
    expect(parse(...http)).toMatchObject({
      transport: 'http', entry: { httpUrl: 'https://api.example/mcp', headers: { Authorization: 'Bearer ${API_TOKEN}' } },
    });
    expect(parse(...http, '--scope', 'project')).toMatchObject({
      scope: 'project', entry: { type: 'http', url: 'https://api.example/mcp' },
    });
    expect(parse('mcp', 'add', 'ev', '-t', 'sse', 'http://localhost:9/sse', '-s', 'workspace', '--force')).toMatchObject({
      scope: 'workspace', force: true, transport: 'sse', entry: { type: 'sse', url: 'http://localhost:9/sse' },
    });
    // A lone URL without --transport is Streamable HTTP (Qwen Code's auto-detection).
    expect(parse('mcp', 'add', 'api', 'https://api.example/mcp')).toMatchObject({ transport: 'http', entry: { httpUrl: 'https://api.example/mcp' } });
  });

  it('remove, list, get', () => {
    expect(parse('mcp', 'remove', 'fs')).toMatchObject({ kind: 'mcp', action: 'remove', server: 'fs' });
    expect(parse('mcp', 'remove', 'fs')).not.toHaveProperty('scope');
    expect(parse('mcp', 'remove', 'fs', '--scope', 'project')).toMatchObject({ scope: 'project' });
    expect(parse('mcp', 'list', '--json')).toMatchObject({ kind: 'mcp', action: 'list', json: true });
    expect(parse('mcp', 'get', '__proto__')).toMatchObject({ kind: 'mcp', action: 'get', server: '__proto__' });
  });

  it.each([
    [['mcp'], /mcp needs an action/],
    [['mcp', 'frob'], /unknown action "frob"/],
    [['mcp', 'add'], /mcp add needs a server NAME/],
    [['mcp', 'add', 'x'], /needs a command .* or a URL/],
    [['mcp', 'add', 'x', 'node', 's.js', '--port', '3'], /unknown option --port .*go after --/],
    [['mcp', 'add', 'x', '--scope', 'system', '--', 'n'], /--scope expects user, project or workspace/],
    [['mcp', 'add', 'x', '--transport', 'ws', 'u'], /--transport expects stdio, http or sse/],
    [['mcp', 'add', 'x', '-t', 'http', 'ftp://x'], /expects an http:\/\/ or https:\/\/ URL/],
    [['mcp', 'add', 'x', '-t', 'http', 'https://a', 'b'], /takes one URL/],
    [['mcp', 'add', 'x', '-t', 'http', '-e', 'A=1', 'https://a'], /--env is for stdio servers/],
    [['mcp', 'add', 'x', '-H', 'A: 1', '--', 'node'], /--header is for http and sse servers/],
    [['mcp', 'add', 'x', '-e', 'NOVALUE', '--', 'node'], /--env expects KEY=value/],
    [['mcp', 'add', 'x', '-t', 'sse', '-H', 'no colon', 'https://a'], /--header expects "Name: value"/],
    [['mcp', 'add', 'x', '--timeout', '0', '--', 'node'], /--timeout expects a whole number/],
    [['mcp', 'add', 'x', '--include-tools', ',', '--', 'node'], /--include-tools needs at least one tool name/],
    // Names the assembly would leave out, or that no /mcp command could name (decision 193).
    [['mcp', 'add', 'lsp:foo', '--', 'node'], /"lsp:foo" cannot name an MCP server: a name that begins with "lsp:" is a language server's/],
    [['mcp', 'add', 'my server', '--', 'node'], /"my server" cannot name a server: it contains whitespace/],
    [['mcp', 'add', 'ev\u001b[2Kil', '--', 'node'], /"ev\\x1b\[2Kil" cannot name a server: it contains a control, escape or invisible character/],
    [['mcp', 'add', 'a\u202eb', '--', 'node'], /cannot name a server: it contains a control, escape or invisible character/],
    [['mcp', 'remove', 'x', 'y'], /unexpected "y"/],
    [['mcp', 'remove', 'x', '--env', 'A=1'], /--env goes with mcp add/],
    [['status', '--scope', 'user'], /--scope goes with mcp add \| mcp remove/],
    [['mcp', 'list', 'x'], /takes no arguments/],
    [['trust', 'a', 'b'], /takes one DIR/],
  ])('%j is a usage error naming what is wrong', (argv, message) => {
    expect(() => parse(...argv)).toThrow(UsageError);
    expect(() => parse(...argv)).toThrow(message);
  });
});

describe('trust | untrust', () => {
  it('DIR resolves against the shell’s directory; the default is the workspace', () => {
    expect(parse('trust')).toMatchObject({ kind: 'trust', action: 'trust', dir: '/here' });
    expect(parse('untrust', 'sub/dir')).toMatchObject({ kind: 'trust', action: 'untrust', dir: '/here/sub/dir' });
    expect(parse('trust', '--cwd', 'proj')).toMatchObject({ dir: '/here/proj' });
    expect(parse('trust', '/abs', '--cwd', 'proj')).toMatchObject({ dir: '/abs' });
  });
});
