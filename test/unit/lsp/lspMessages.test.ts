import { describe, expect, it } from 'vitest';
import { lspUnavailableText, type UnavailableLanguageServer } from '../../../src/model/lsp/lspMessages.js';
import { runLspTool, type LspToolDeps } from '../../../src/sinks/lsp/lspToolRunner.js';

const md = (more: Partial<UnavailableLanguageServer>): UnavailableLanguageServer => ({
  name: 'lsp:md',
  state: 'blocked',
  source: '/w/.lsp.json',
  ...more,
});

describe('lspUnavailableText (decision 252)', () => {
  it('says why the configured server cannot answer, and the fix', () => {
    const cases: [Partial<UnavailableLanguageServer>, string][] = [
      [{ reason: 'pending_approval' }, 'is waiting for approval: approve lsp:md (mcp-live approvals approve lsp:md, or /mcp in a session)'],
      [{ reason: 'rejected' }, 'was rejected: approve it after all with mcp-live approvals approve lsp:md, or edit its entry in /w/.lsp.json to be asked again'],
      [{ reason: 'disabled' }, 'is disabled in settings: remove "disabled": true from its entry in /w/.lsp.json'],
      [
        { reason: 'disabled', detail: 'disabled for this session' },
        'is disabled for this session: enable it with /mcp enable lsp:md (or {"cmd":"enable","server":"lsp:md"})',
      ],
      [{ reason: 'excluded' }, 'is excluded by lsp.excluded: remove "md" from lsp.excluded'],
      [{ reason: 'not_allowed', notAllowedBy: 'settings' }, 'is not in lsp.allowed: add "md" to lsp.allowed'],
      [{ reason: 'untrusted_folder' }, 'is blocked because this folder is not trusted: trust the folder with mcp-live trust'],
      [{ reason: 'settings_error', detail: '/h/settings.json does not parse (line 3)' }, 'is blocked: /h/settings.json does not parse (line 3)'],
      [
        { state: 'error', error: 'spawn nope ENOENT' },
        'failed: spawn nope ENOENT: check its entry in /w/.lsp.json; /reconnect lsp:md (or {"cmd":"reconnect","server":"lsp:md"}) starts it again',
      ],
      [{ state: 'connecting' }, 'is still starting: try again in a moment'],
    ];
    for (const [status, words] of cases) expect(lspUnavailableText('.md files', md(status))).toBe(`the language server lsp:md for .md files ${words}`);
  });
});

describe('runLspTool: a file whose language server is configured but not connected', () => {
  const deps = (unavailable: UnavailableLanguageServer[] | undefined): LspToolDeps => ({
    workspace: '/w',
    route: () => undefined,
    server: () => undefined,
    servers: () => [],
    languages: () => ['markdown', 'typescript'],
    ...(unavailable === undefined ? {} : { unavailableFor: () => unavailable }),
    documents: { open: () => undefined, get: () => undefined },
    diagnostics: () => [],
  });
  const hover = (d: LspToolDeps) => runLspTool('lsp__hover', { file: 'README.md', line: 1, column: 1 }, d);

  it('is told why and how to fix it, one line per server that takes the file', async () => {
    expect(await hover(deps([md({ reason: 'pending_approval' })]))).toEqual({
      content: [{ type: 'text', text: 'the language server lsp:md for .md files is waiting for approval: approve lsp:md (mcp-live approvals approve lsp:md, or /mcp in a session)' }],
      isError: true,
    });
    const two = await hover(deps([md({ reason: 'excluded' }), md({ name: 'lsp:marksman', state: 'error', error: 'exit 1' })]));
    expect(two.content[0].text.split('\n')).toEqual([
      'the language server lsp:md for .md files is excluded by lsp.excluded: remove "md" from lsp.excluded',
      'the language server lsp:marksman for .md files failed: exit 1: check its entry in /w/.lsp.json; /reconnect lsp:marksman (or {"cmd":"reconnect","server":"lsp:marksman"}) starts it again',
    ]);
  });

  it('keeps "no language server handles" for a file none is configured for', async () => {
    for (const d of [deps([]), deps(undefined)]) {
      expect((await hover(d)).content[0].text).toBe('no language server handles .md files (language servers are configured for markdown, typescript)');
    }
  });
});
