import { describe, expect, it } from 'vitest';
import { completeCommandLine } from '../../src/sinks/ui/completeCommandLine.js';

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
    expect(complete('').candidates).toHaveLength(11);
    expect(complete('').value).toBe('/');
  });

  it('completes server names after a command that takes one', () => {
    expect(complete('/mcp b')).toEqual({ value: '/mcp beta', candidates: [] });
    expect(complete('/reconnect al')).toEqual({ value: '/reconnect alp', candidates: ['alpha', 'alpine'] });
    expect(complete('/tools ')).toEqual({ value: '/tools ', candidates: ['alpha', 'alpine', 'beta'] });
    expect(complete('/approve be')).toEqual({ value: '/approve beta', candidates: [] });
    expect(complete('/reject be').value).toBe('/reject beta');
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
