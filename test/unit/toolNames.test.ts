import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { MAX_TOOL_NAME_LENGTH, filterTools, parseQualifiedToolName, qualifiedToolName, qualifyTools } from '../../src/model/toolNames.js';
import { sha256Hex } from '../../src/model/sha256Hex.js';

describe('qualifiedToolName', () => {
  it('is mcp__<server>__<tool>', () => {
    expect(qualifiedToolName('github', 'create_issue')).toBe('mcp__github__create_issue');
    expect(qualifiedToolName('my-srv', 'get-x')).toBe('mcp__my-srv__get-x');
  });

  it('replaces characters outside [A-Za-z0-9_-] with _, one per code point', () => {
    expect(qualifiedToolName('a.b', 'c/d e')).toBe('mcp__a_b__c_d_e');
    expect(qualifiedToolName('ü', '😀')).toBe('mcp__' + '_' + '__' + '_');
  });

  it('keeps a name of exactly 64 characters', () => {
    const tool = 'x'.repeat(64 - 'mcp__s__'.length);
    expect(qualifiedToolName('s', tool)).toBe(`mcp__s__${tool}`);
    expect(qualifiedToolName('s', tool)).toHaveLength(64);
  });

  it('shortens a 70-character name to 64 with a hash suffix of the unsanitised name', () => {
    const tool = 'x'.repeat(70 - 'mcp__s__'.length);
    const name = qualifiedToolName('s', tool);
    expect(name).toHaveLength(MAX_TOOL_NAME_LENGTH);
    expect(name).toBe(`${`mcp__s__${tool}`.slice(0, 55)}_${sha256Hex(`s\0${tool}`).slice(0, 8)}`);
  });

  it('keeps distinct long names distinct even when they share the first 55 characters', () => {
    const prefix = 'y'.repeat(60);
    expect(qualifiedToolName('s', `${prefix}_one`)).not.toBe(qualifiedToolName('s', `${prefix}_two`));
    expect(qualifiedToolName('s.x', prefix)).not.toBe(qualifiedToolName('s_x', prefix));
  });

  it('separates server and tool in the hash (no ambiguity at the boundary)', () => {
    const long = 'z'.repeat(70);
    expect(qualifiedToolName('a', `b${long}`)).not.toBe(qualifiedToolName('ab', long));
  });

  it('property: always valid and at most 64 characters', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), fc.string({ unit: 'grapheme' }), (server, tool) => {
        const name = qualifiedToolName(server, tool);
        expect(name).toMatch(/^mcp__[A-Za-z0-9_-]*$/);
        expect(name.length).toBeLessThanOrEqual(MAX_TOOL_NAME_LENGTH);
      }),
    );
  });
});

describe('parseQualifiedToolName', () => {
  it('splits on the first __ after mcp__', () => {
    expect(parseQualifiedToolName('mcp__github__create_issue')).toEqual({ server: 'github', tool: 'create_issue' });
    expect(parseQualifiedToolName('mcp__a__b__c')).toEqual({ server: 'a', tool: 'b__c' });
  });

  it('round-trips simple names', () => {
    expect(parseQualifiedToolName(qualifiedToolName('srv-1', 'do_it'))).toEqual({ server: 'srv-1', tool: 'do_it' });
  });

  it.each(['github__x', 'mcp__', 'mcp____tool', 'mcp__server', 'mcp__server__', 'mcp_x__y'])('is undefined for %s', (q) => {
    expect(parseQualifiedToolName(q)).toBeUndefined();
  });
});

describe('filterTools', () => {
  const tools = [{ name: 'a' }, { name: 'b' }, { name: 'c' }];

  it('keeps everything without view fields', () => {
    expect(filterTools(tools, {})).toEqual(tools);
  });

  it('includeTools keeps only listed names; [] keeps none', () => {
    expect(filterTools(tools, { includeTools: ['a', 'c', 'zzz'] })).toEqual([{ name: 'a' }, { name: 'c' }]);
    expect(filterTools(tools, { includeTools: [] })).toEqual([]);
  });

  it('excludeTools removes names and wins over include', () => {
    expect(filterTools(tools, { excludeTools: ['b'] })).toEqual([{ name: 'a' }, { name: 'c' }]);
    expect(filterTools(tools, { includeTools: ['a', 'b'], excludeTools: ['a'] })).toEqual([{ name: 'b' }]);
  });

  it('matches exact names only, no globs', () => {
    expect(filterTools(tools, { excludeTools: ['*'] })).toEqual(tools);
  });

  it('keeps the other fields of each tool', () => {
    const described = [{ name: 'a', description: 'x', inputSchema: {} }];
    expect(filterTools(described, { includeTools: ['a'] })[0]).toBe(described[0]);
  });
});

describe('qualifyTools', () => {
  it('keeps names unique within a server when sanitising makes two tools collide', () => {
    const names = qualifyTools('srv', ['a.b', 'a_b', 'echo']);
    expect(names[0]).toBe('mcp__srv__a_b');
    expect(names[1]).toMatch(/^mcp__srv__a_b_[0-9a-f]{8}$/);
    expect(names[2]).toBe('mcp__srv__echo');
    expect(new Set(names).size).toBe(3);
  });

  it('gives the plain qualified names when nothing collides', () => {
    expect(qualifyTools('s', ['x', 'y'])).toEqual([qualifiedToolName('s', 'x'), qualifiedToolName('s', 'y')]);
  });
});
