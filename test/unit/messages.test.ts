import { describe, expect, it } from 'vitest';
import { reasonText, toolNotFoundMessage } from '../../src/model/report/messages.js';
import type { Reason } from '../../src/model/types.js';

describe('reasonText', () => {
  it.each<[Reason, 'flag' | 'settings' | undefined, string]>([
    ['pending_approval', undefined, 'needs approval'],
    ['rejected', undefined, 'rejected – edit its config to be asked again'],
    ['excluded', undefined, 'excluded by mcp.excluded'],
    ['not_allowed', 'flag', 'not in --allowed-mcp-server-names'],
    ['not_allowed', 'settings', 'not in mcp.allowed'],
    ['not_allowed', undefined, 'not in mcp.allowed'],
    ['untrusted_folder', undefined, 'untrusted folder – run `mcp-live trust` to trust it'],
    ['disabled', undefined, 'disabled in settings'],
    ['removed', undefined, 'removed from settings'],
  ])('%s (%s) → %s', (reason, by, text) => {
    expect(reasonText(reason, by)).toBe(text);
  });

  it("names a language server's own settings keys, lsp.excluded and lsp.allowed (decision 147)", () => {
    expect(reasonText('excluded', undefined, undefined, 'lsp')).toBe('excluded by lsp.excluded');
    expect(reasonText('not_allowed', 'settings', undefined, 'lsp')).toBe('not in lsp.allowed');
    expect(reasonText('pending_approval', undefined, undefined, 'lsp')).toBe('needs approval');
    expect(reasonText('excluded', undefined, undefined, 'mcp')).toBe('excluded by mcp.excluded');
  });
});

describe('a server disabled for this session', () => {
  it('reads "disabled for this session", and the fix fits where it is read', () => {
    expect(reasonText('disabled', undefined, 'disabled for this session')).toBe('disabled for this session');
    const status = { reason: 'disabled' as const, detail: 'disabled for this session' };
    expect(toolNotFoundMessage('mcp__gh__x', 'gh', status, { audience: 'ui' })).toBe(
      'Tool "mcp__gh__x" is not available: MCP server "gh" is disabled for this session – enable it with /mcp enable gh.',
    );
    expect(toolNotFoundMessage('mcp__gh__x', 'gh', status, { audience: 'json' })).toContain('enable it with {"cmd":"enable","server":"gh"}');
    expect(toolNotFoundMessage('mcp__gh__x', 'gh', { reason: 'disabled' })).toContain('is disabled in settings – set disabled: false');
  });
});

describe('toolNotFoundMessage', () => {
  const tool = 'mcp__gh__create';

  it.each<[Reason, 'flag' | 'settings' | undefined, string]>([
    ['removed', undefined, 'add it back to settings'],
    ['excluded', undefined, 'remove it from mcp.excluded'],
    ['not_allowed', 'settings', 'add it to mcp.allowed (within --allowed-mcp-server-names)'],
    ['not_allowed', 'flag', 'restart with it in --allowed-mcp-server-names'],
    ['pending_approval', undefined, 'approve it with mcp-live approvals approve gh'],
    ['rejected', undefined, 'edit its config to be asked again'],
    ['untrusted_folder', undefined, 'run `mcp-live trust` to trust it'],
    ['disabled', undefined, 'set disabled: false'],
  ])('%s (%s) names the server and the fix: %s', (reason, notAllowedBy, fix) => {
    const message = toolNotFoundMessage(tool, 'gh', notAllowedBy === undefined ? { reason } : { reason, notAllowedBy });
    expect(message).toContain(tool);
    expect(message).toContain('"gh"');
    expect(message).toContain(fix);
  });

  it('reads naturally', () => {
    expect(toolNotFoundMessage(tool, 'gh', { reason: 'pending_approval' }, { audience: 'ui' })).toBe(
      'Tool "mcp__gh__create" is not available: MCP server "gh" needs approval – approve it with /mcp.',
    );
  });

  describe('the approval hint names what works where it is read', () => {
    const pending = { reason: 'pending_approval' as const };

    it('ui: /mcp', () => {
      expect(toolNotFoundMessage(tool, 'gh', pending, { audience: 'ui' })).toContain('– approve it with /mcp.');
    });

    it('json: the approve command line, or the approvals command', () => {
      expect(toolNotFoundMessage(tool, 'gh', pending, { audience: 'json' })).toBe(
        'Tool "mcp__gh__create" is not available: MCP server "gh" needs approval – ' +
          'approve it with {"cmd":"approve","server":"gh"} or mcp-live approvals approve gh.',
      );
    });

    it('library (the default): the approvals command, never /mcp', () => {
      for (const message of [toolNotFoundMessage(tool, 'gh', pending), toolNotFoundMessage(tool, 'gh', pending, { audience: 'library' })]) {
        expect(message).toBe(
          'Tool "mcp__gh__create" is not available: MCP server "gh" needs approval – approve it with mcp-live approvals approve gh.',
        );
      }
    });

    it('quotes a name the shell would split, and escapes it in JSON', () => {
      const name = `it's "odd"`;
      const json = toolNotFoundMessage('mcp__x__t', name, pending, { audience: 'json' });
      expect(json).toContain(`{"cmd":"approve","server":"it's \\"odd\\""}`);
      expect(json).toContain(`mcp-live approvals approve 'it'\\''s "odd"'`);
    });

    it('other reasons read the same for every audience', () => {
      for (const audience of ['ui', 'json', 'library'] as const) {
        expect(toolNotFoundMessage(tool, 'gh', { reason: 'excluded' }, { audience })).toBe(
          'Tool "mcp__gh__create" is not available: MCP server "gh" is excluded by mcp.excluded – remove it from mcp.excluded.',
        );
      }
    });
  });

  it('an error gives the error text', () => {
    const message = toolNotFoundMessage(tool, 'gh', { error: 'spawn gh-mcp ENOENT' });
    expect(message).toContain('"gh"');
    expect(message).toContain('spawn gh-mcp ENOENT');
  });

  it('a blocked reason wins over a stale error', () => {
    expect(toolNotFoundMessage(tool, 'gh', { reason: 'excluded', error: 'old' })).toContain('remove it from mcp.excluded');
  });

  it('an unknown server says no such server is configured', () => {
    expect(toolNotFoundMessage(tool, 'gh', undefined)).toBe('Tool "mcp__gh__create" is not available: no MCP server "gh" is configured.');
  });

  it('a name that points at no server says so', () => {
    expect(toolNotFoundMessage('create', undefined, undefined)).toContain('does not name a tool of any configured MCP server');
  });

  it('a server that is up but lacks the tool says so, and only that', () => {
    expect(toolNotFoundMessage(tool, 'gh', {})).toBe('Tool "mcp__gh__create" is not available: MCP server "gh" does not offer it.');
  });

  it('a tool hidden by excludeTools or includeTools names the field and the fix', () => {
    expect(toolNotFoundMessage(tool, 'gh', {}, { filteredOut: { tool: 'create', by: 'excludeTools' } })).toBe(
      'Tool "mcp__gh__create" is not available: tool "create" of MCP server "gh" is filtered out by excludeTools – remove it from excludeTools to use it.',
    );
    expect(toolNotFoundMessage(tool, 'gh', {}, { filteredOut: { tool: 'create', by: 'includeTools' } })).toBe(
      'Tool "mcp__gh__create" is not available: tool "create" of MCP server "gh" is filtered out by includeTools (it is not listed there) – add it to includeTools to use it.',
    );
  });

  it('a blocked server or an error wins over a filter', () => {
    const filteredOut = { tool: 'create', by: 'excludeTools' as const };
    expect(toolNotFoundMessage(tool, 'gh', { reason: 'disabled' }, { filteredOut })).toContain('is disabled in settings');
    expect(toolNotFoundMessage(tool, 'gh', { error: 'boom' }, { filteredOut })).toContain('failed: boom');
  });
});
