import { describe, expect, it } from 'vitest';
import type { AssembleInput } from '../../../src/model/settings/assemble.js';
import { createIncrementalDesired } from '../../../src/model/reconcile/incrementalDesired.js';

describe('incremental admission: the language servers’ own bounds', () => {
  it('admits again when lsp.excluded or lsp.allowed changes (an edit of them used to keep the old rules)', () => {
    const incremental = createIncrementalDesired();
    const lspServers = { md: { command: 'marksman', extensionToLanguage: { '.md': 'markdown' } }, ts: { command: 'tsls', extensionToLanguage: { '.ts': 'typescript' } } };
    const input = (lsp?: { excluded?: string[]; allowed?: string[] }): AssembleInput => ({
      sources: [{ scope: 'user', file: 'u', servers: {}, lspServers, ...(lsp ? { lsp } : {}) }],
      approvals: {},
      sessionApprovals: {},
      folderTrusted: true,
    });
    const first = incremental.desiredServers(incremental.assemble(input()), undefined, {});
    expect(Object.keys(first.wanted)).toEqual(['lsp:md', 'lsp:ts']);

    const excluded = incremental.desiredServers(incremental.assemble(input({ excluded: ['md'] })), undefined, {});
    expect(excluded.blocked).toEqual({ 'lsp:md': { reason: 'excluded' } });
    expect(excluded.wanted['lsp:ts']).toBe(first.wanted['lsp:ts']);

    const allowed = incremental.desiredServers(incremental.assemble(input({ allowed: ['md'] })), undefined, {});
    expect(allowed.blocked).toEqual({ 'lsp:ts': { reason: 'not_allowed', notAllowedBy: 'settings' } });

    const again = incremental.desiredServers(incremental.assemble(input()), undefined, {});
    expect(Object.keys(again.wanted)).toEqual(['lsp:md', 'lsp:ts']);
  });
});
