import { describe, expect, it } from 'vitest';
import { completeCommandLine } from '../../src/hosts/ui/commands/completeCommandLine.js';

const ctx = {
  servers: ['alpha', 'alpine', 'beta'],
  tools: ['mcp__alpha__echo', 'mcp__alpha__add', 'mcp__beta__search'],
};
const complete = (value: string) => completeCommandLine(value, ctx);

describe('completeCommandLine', () => {
  it('completes a unique command name, with a space when an argument may follow', () => {
    expect(complete('/rel')).toEqual({ value: '/reload', candidates: [] });
    expect(complete('/reco')).toEqual({ value: '/reconnect ', candidates: [] });
    expect(complete('/c')).toEqual({ value: '/call ', candidates: [] });
  });

  it('lists several matches and completes their common prefix', () => {
    expect(complete('/re')).toEqual({ value: '/re', candidates: ['/read', '/reconnect', '/reject', '/reload'] });
    expect(complete('/pr')).toEqual({ value: '/prompt ', candidates: [] });
    expect(complete('').candidates).toHaveLength(13);
    expect(complete('').value).toBe('/');
  });

  it('completes server names after a command that takes one', () => {
    expect(complete('/mcp b')).toEqual({ value: '/mcp beta', candidates: [] });
    expect(complete('/reconnect al')).toEqual({ value: '/reconnect alp', candidates: ['alpha', 'alpine'] });
    expect(complete('/tools ')).toEqual({ value: '/tools ', candidates: ['alpha', 'alpine', 'beta'] });
    expect(complete('/approve be')).toEqual({ value: '/approve beta', candidates: [] });
    expect(complete('/reject be').value).toBe('/reject beta');
  });

  it('completes language servers by their own names after /lsp, by their keys where any server goes, never after /mcp or /tools', () => {
    const withLsp = { ...ctx, servers: [...ctx.servers, 'lsp:typescript', 'lsp:tsx', 'lsp:python'] };
    const at = (value: string) => completeCommandLine(value, withLsp);
    expect(at('/lsp p')).toEqual({ value: '/lsp python', candidates: [] });
    expect(at('/lsp t')).toEqual({ value: '/lsp t', candidates: ['tsx', 'typescript'] });
    expect(at('/lsp a')).toEqual({ value: '/lsp a', candidates: [] });
    expect(at('/reconnect lsp:p')).toEqual({ value: '/reconnect lsp:python', candidates: [] });
    expect(at('/approve l').candidates).toEqual(['lsp:python', 'lsp:tsx', 'lsp:typescript']);
    expect(at('/mcp ').candidates).toEqual(['alpha', 'alpine', 'beta']);
    expect(at('/tools l')).toEqual({ value: '/tools l', candidates: [] });
    expect(at('/ls')).toEqual({ value: '/lsp ', candidates: [] });
  });

  it('completes qualified tool names after /call, leaving room for the JSON', () => {
    expect(complete('/call mcp__b')).toEqual({ value: '/call mcp__beta__search ', candidates: [] });
    expect(complete('/call mcp__alpha__')).toEqual({
      value: '/call mcp__alpha__',
      candidates: ['mcp__alpha__add', 'mcp__alpha__echo'],
    });
  });

  it('leaves the line alone when nothing matches or nothing is to be completed', () => {
    expect(complete('/zz')).toEqual({ value: '/zz', candidates: [] });
    expect(complete('/mcp zz')).toEqual({ value: '/mcp zz', candidates: [] });
    expect(complete('/reload x')).toEqual({ value: '/reload x', candidates: [] });
    expect(complete('/call mcp__beta__search {"q')).toEqual({ value: '/call mcp__beta__search {"q', candidates: [] });
    expect(complete('/unknown a')).toEqual({ value: '/unknown a', candidates: [] });
  });
});
