import { describe, expect, it } from 'vitest';
import { reasonText, toolNotFoundMessage } from '../../src/model/messages.js';
import type { Reason } from '../../src/model/types.js';

describe('reasonText', () => {
  it.each<[Reason, 'flag' | 'settings' | undefined, string]>([
    ['pending_approval', undefined, 'needs approval'],
    ['rejected', undefined, 'rejected – edit its config to be asked again'],
    ['excluded', undefined, 'excluded by mcp.excluded'],
    ['not_allowed', 'flag', 'not in --allowed-mcp-server-names'],
    ['not_allowed', 'settings', 'not in mcp.allowed'],
    ['not_allowed', undefined, 'not in mcp.allowed'],
    ['untrusted_folder', undefined, 'untrusted folder'],
    ['disabled', undefined, 'disabled in settings'],
    ['removed', undefined, 'removed from settings'],
  ])('%s (%s) → %s', (reason, by, text) => {
    expect(reasonText(reason, by)).toBe(text);
  });
});

describe('toolNotFoundMessage', () => {
  const tool = 'mcp__gh__create';

  it.each<[Reason, 'flag' | 'settings' | undefined, string]>([
    ['removed', undefined, 'add it back to settings'],
    ['excluded', undefined, 'remove it from mcp.excluded'],
    ['not_allowed', 'settings', 'add it to mcp.allowed (within --allowed-mcp-server-names)'],
    ['not_allowed', 'flag', 'restart with it in --allowed-mcp-server-names'],
    ['pending_approval', undefined, 'approve it with /mcp'],
    ['rejected', undefined, 'edit its config to be asked again'],
    ['untrusted_folder', undefined, 'trust this folder'],
    ['disabled', undefined, 'set disabled: false'],
  ])('%s (%s) names the server and the fix: %s', (reason, notAllowedBy, fix) => {
    const message = toolNotFoundMessage(tool, 'gh', notAllowedBy === undefined ? { reason } : { reason, notAllowedBy });
    expect(message).toContain(tool);
    expect(message).toContain('"gh"');
    expect(message).toContain(fix);
  });

  it('reads naturally', () => {
    expect(toolNotFoundMessage(tool, 'gh', { reason: 'pending_approval' })).toBe(
      'Tool "mcp__gh__create" is not available: MCP server "gh" needs approval – approve it with /mcp.',
    );
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

  it('a server that is up but lacks the tool says so', () => {
    const message = toolNotFoundMessage(tool, 'gh', {});
    expect(message).toContain('"gh" does not offer it');
    expect(message).toContain('includeTools/excludeTools');
  });
});
