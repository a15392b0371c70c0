import { render, cleanup } from 'ink-testing-library';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ServerStatus } from '../../src/model/report/status.js';
import { App } from '../../src/hosts/ui/App.js';
import { ServerList } from '../../src/hosts/ui/lists/ServerList.js';
import { fakeLive, KEY, pendingApproval, plain, server, tick, tool, waitFor } from './fakeLive.js';
import { appSession } from './appSession.js';

afterEach(cleanup);

/**
 * Decision 157 in the interactive session: language servers (statuses keyed `lsp:NAME`, kind `lsp`)
 * get a section of their own in the list, `/lsp` and `/lsp NAME`, and words of their own.
 */

/** A language server's status as the runtime reports it. */
function languageServer(name: string, patch: Partial<ServerStatus> = {}): ServerStatus {
  return server(`lsp:${name}`, {
    kind: 'lsp',
    scope: 'project',
    source: '/work/demo/.lsp.json',
    transport: 'stdio',
    languages: ['javascript', 'typescript'],
    ...patch,
  });
}

const typescript = () =>
  languageServer('typescript', {
    pid: 4242,
    serverInfo: { name: 'typescript-language-server', version: '5.3.0' },
    capabilities: ['completion', 'definition', 'documentSymbol', 'hover', 'references', 'workspaceSymbol'],
  });

const rowOf = (frame: string, name: string) => frame.split('\n').find((l) => new RegExp(`[●◌✖○◇⊘] ${name} `).test(l)) ?? '';

describe('the server list with language servers', () => {
  it('lists MCP servers, then a "Language servers" section by their own names with languages, capability count and pid', () => {
    const { lastFrame } = render(
      <ServerList
        servers={[
          typescript(),
          server('alpha', { tools: [tool('alpha', 'echo')] }),
          languageServer('python', { state: 'blocked', reason: 'pending_approval', languages: ['python'] }),
        ]}
      />,
    );
    const frame = plain(lastFrame());
    const lines = frame.split('\n');
    const title = lines.findIndex((l) => l.trim() === 'Language servers');
    expect(title).toBeGreaterThan(lines.findIndex((l) => l.includes('alpha')));
    expect(lines.slice(title + 1).some((l) => l.includes('typescript'))).toBe(true);
    expect(rowOf(frame, 'typescript')).toMatch(/● typescript\s+project\s+javascript, typescript · 6 capabilities · pid 4242/);
    expect(rowOf(frame, 'python')).toMatch(/⊘ python\s+project\s+needs approval · python/);
    expect(frame).not.toContain('lsp:');
    // The footer counts both kinds.
    expect(frame).toContain('2 connected · 1 need approval · 0 errors');
  });

  it('has no section without language servers', () => {
    const { lastFrame } = render(<ServerList servers={[server('alpha')]} />);
    expect(plain(lastFrame())).not.toContain('Language servers');
  });

  it('says there are no MCP servers above the language servers when there are none', () => {
    const { lastFrame } = render(<ServerList servers={[typescript()]} />);
    expect(plain(lastFrame())).toMatch(/No MCP servers configured\.\n\nLanguage servers\n.*typescript/);
  });

  it('words the reasons with the lsp.* keys, and points a failed one at /lsp NAME', () => {
    const { lastFrame } = render(
      <ServerList
        servers={[
          languageServer('excl', { state: 'blocked', reason: 'excluded' }),
          languageServer('unlisted', { state: 'blocked', reason: 'not_allowed', notAllowedBy: 'settings' }),
          languageServer('crashy', { state: 'error', error: 'exited with code 1' }),
        ]}
      />,
    );
    const frame = plain(lastFrame());
    expect(rowOf(frame, 'excl')).toContain('excluded by lsp.excluded');
    expect(rowOf(frame, 'unlisted')).toContain('not in lsp.allowed');
    expect(rowOf(frame, 'crashy')).toMatch(/✖ crashy\s+project\s+exited with code 1 · javascript, typescript/);
    expect(frame).toContain('view error logs with /lsp crashy');
    expect(frame).not.toContain('mcp.excluded');
  });

  it('moves the selection from the MCP rows into the section and opens a language server with Enter', async () => {
    const onOpen = vi.fn();
    const { lastFrame, stdin } = render(<ServerList servers={[server('alpha'), typescript()]} onOpen={onOpen} />);
    await tick();
    stdin.write(KEY.down);
    await waitFor(() => expect(plain(lastFrame())).toContain('› ● typescript'));
    stdin.write(KEY.enter);
    await waitFor(() => expect(onOpen).toHaveBeenCalledWith('lsp:typescript'));
  });
});

/** The App in a terminal of `columns` × `rows`, after the first pass. */
async function session(servers: readonly ServerStatus[], { columns = 100, rows = 60 } = {}) {
  const s = await appSession(servers, { columns, rows });
  const type = async (text: string) => {
    s.type(text);
    await tick();
  };
  return { ...s, type };
}

describe('/lsp and /mcp in the session', () => {
  const both = () => [server('alpha', { tools: [tool('alpha', 'echo')] }), typescript(), languageServer('python', { state: 'blocked', reason: 'pending_approval', languages: ['python'] })];

  it('/lsp lists the language servers only, /mcp the MCP servers only, Esc every server again', async () => {
    const s = await session(both());
    await s.type('/lsp');
    await waitFor(() => expect(s.frame()).not.toContain('alpha'));
    expect(rowOf(s.frame(), 'typescript')).toContain('6 capabilities');
    expect(rowOf(s.frame(), 'python')).toContain('needs approval');
    expect(s.frame()).toContain('1 connected · 1 need approval · 0 errors');
    expect(s.frame()).toContain('Esc all servers');

    await s.type('/mcp');
    await waitFor(() => expect(s.frame()).not.toContain('typescript'));
    expect(s.frame()).toContain('● alpha');
    expect(s.frame()).not.toContain('Language servers');

    s.stdin.write(KEY.escape);
    await waitFor(() => expect(s.frame()).toContain('Language servers'));
    expect(s.frame()).toContain('● alpha');
    expect(s.frame()).toContain('● typescript');
  });

  it('/lsp with none configured says so', async () => {
    const s = await session([server('alpha')]);
    await s.type('/lsp');
    await waitFor(() => expect(s.frame()).toContain('No language servers configured.'));
  });

  it('/lsp NAME (with or without lsp:) shows one: state, command, server, languages, capabilities, pid, stderr', async () => {
    const s = await session(both());
    s.steer.stderr['lsp:typescript'] = ['tsserver started', 'project loaded'];
    s.steer.configs['lsp:typescript'] = {
      command: 'typescript-language-server',
      args: ['--stdio'],
      env: { TSS_TOKEN: 'sk-live-abcdef123456' },
      extensionToLanguage: { '.ts': 'typescript', '.js': 'javascript' },
    };
    await s.type('/lsp typescript');
    await waitFor(() => expect(s.frame()).toContain('● typescript connected (pid 4242)'));
    const frame = s.frame();
    expect(frame).toMatch(/scope\s+project/);
    expect(frame).toMatch(/source\s+\/work\/demo\/\.lsp\.json/);
    expect(frame).toMatch(/command\s+typescript-language-server --stdio/);
    expect(frame).toMatch(/server\s+typescript-language-server 5\.3\.0/);
    expect(frame).toMatch(/languages\s+javascript, typescript/);
    expect(frame).toContain('Capabilities (6)');
    expect(frame).toContain('completion, definition, documentSymbol, hover, references, workspaceSymbol');
    expect(frame).toContain('project loaded');
    // A repository's entry (scope project) shows its literals as written (decision 166).
    expect(frame).toContain('Config (as the repository wrote it)');
    expect(frame).toContain('sk-live-abcdef123456');
    // A language server has no MCP lists to show.
    expect(frame).not.toContain('Tools (');
    expect(frame).not.toContain('Prompts (');

    s.stdin.write(KEY.escape);
    await waitFor(() => expect(s.frame()).toContain('Language servers'));
    await s.type('/lsp lsp:python');
    await waitFor(() => expect(s.frame()).toMatch(/⊘ python blocked/));
    expect(s.frame()).toMatch(/reason\s+needs approval/);
    expect(s.frame()).toContain('known once it is connected');
  });

  it('/lsp NAME of an unknown server names the configured ones', async () => {
    const s = await session(both());
    await s.type('/lsp ruby');
    await waitFor(() => expect(s.frame()).toContain('No language server "ruby" is configured.'));
  });

  it('a language server that goes away while shown says so in its own words', async () => {
    const s = await session(both());
    await s.type('/lsp typescript');
    await waitFor(() => expect(s.frame()).toContain('Capabilities (6)'));
    s.setServers([server('alpha')]);
    await waitFor(() => expect(s.frame()).toContain('Language server “typescript” is not configured any more.'));
  });

  it('/reconnect lsp:NAME reconnects it; /mcp auth refuses a language server in words', async () => {
    const s = await session(both());
    await s.type('/reconnect lsp:typescript');
    await waitFor(() => expect(s.frame()).toContain('Reconnecting lsp:typescript…'));
    expect(s.callsOf('servers.reconnect')).toEqual([['lsp:typescript']]);
    await s.type('/mcp auth lsp:typescript');
    await waitFor(() => expect(s.frame()).toContain('typescript is a language server: /mcp auth signs in to remote MCP servers only.'));
    expect(s.callsOf('auth.authenticate')).toEqual([]);
  });

  it('Tab completes a language server by its own name after /lsp', async () => {
    const s = await session(both());
    s.stdin.write('/lsp ty');
    await tick();
    s.stdin.write(KEY.tab);
    await waitFor(() => expect(s.frame()).toContain('/lsp typescript'));
  });

  it('the selected language server stays in view at the end of a long list on a short screen', async () => {
    const mcp = Array.from({ length: 30 }, (_, i) => server(`srv${String(i + 1).padStart(2, '0')}`));
    const s = await session([...mcp, typescript(), languageServer('python', { languages: ['python'] })], { columns: 80, rows: 24 });
    expect(s.frame().split('\n').length).toBeLessThanOrEqual(23);
    s.stdin.write(KEY.end);
    await waitFor(() => expect(s.frame()).toContain('› ● python'));
    expect(s.frame()).toContain('● typescript');
    expect(s.frame()).not.toContain('srv01');
    expect(s.frame().split('\n').length).toBeLessThanOrEqual(23);
    // From the section back up into the MCP rows, one row at a time.
    s.stdin.write(KEY.up);
    s.stdin.write(KEY.up);
    await waitFor(() => expect(s.frame()).toContain('› ● srv30'));
    s.stdin.write(KEY.home);
    await waitFor(() => expect(s.frame()).toContain('› ● srv01'));
    expect(s.frame()).not.toContain('Language servers');
  });

  it('moving up to the first language server of a long section brings its title into view', async () => {
    const lsp = Array.from({ length: 30 }, (_, i) => languageServer(`ls${String(i + 1).padStart(2, '0')}`));
    const s = await session([server('alpha'), ...lsp], { columns: 80, rows: 24 });
    s.stdin.write(KEY.end);
    await waitFor(() => expect(s.frame()).toContain('› ● ls30'));
    expect(s.frame()).not.toContain('Language servers');
    for (let i = 0; i < 29; i++) s.stdin.write(KEY.up);
    await waitFor(() => expect(s.frame()).toContain('› ● ls01'));
    expect(s.frame()).toMatch(/Language servers\n.*› ● ls01/);
    expect(s.frame().split('\n').length).toBeLessThanOrEqual(23);
  });
});

describe('approving a language server', () => {
  it('the dialog names it a language server by its own name, shows its long labels whole, and approves its key', async () => {
    const fake = fakeLive({
      pending: [
        pendingApproval('lsp:python', {
          scope: 'project',
          source: '/work/demo/.lsp.json',
          target: 'pyright-langserver --stdio',
          review: [
            { label: 'command', value: 'pyright-langserver --stdio' },
            { label: 'workspaceFolder', value: '../elsewhere' },
          ],
        }),
      ],
    });
    const ui = render(<App live={fake.live} onExit={() => undefined} />);
    const frame = () => plain(ui.lastFrame());
    await waitFor(() => expect(frame()).toContain('Approve language server “python”?'));
    expect(frame()).toMatch(/! workspaceFolder\s+\.\.\/elsewhere\s+\(outside the workspace\)/);
    ui.stdin.write('a');
    await waitFor(() => expect(fake.callsOf('approvals.approve')).toEqual([['lsp:python', { persist: true, hash: 'hash-lsp:python' }]]));
  });

  it('"approve all" over both kinds calls them servers and marks the language servers', async () => {
    const fake = fakeLive({ pending: [pendingApproval('beta'), pendingApproval('lsp:python', { scope: 'project' })] });
    const ui = render(<App live={fake.live} onExit={() => undefined} />);
    const frame = () => plain(ui.lastFrame());
    await waitFor(() => expect(frame()).toContain('Approve MCP server “beta”?'));
    ui.stdin.write('A');
    await waitFor(() => expect(frame()).toContain('Approve all 2 pending servers?'));
    expect(frame()).toMatch(/python\s+language server · project/);
  });
});
