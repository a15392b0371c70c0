import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  MAX_SERVER_PART_LENGTH,
  MAX_TOOL_NAME_LENGTH,
  filterTools,
  parseQualifiedToolName,
  qualifiedToolName,
  qualifyTools,
  resolveServerParts,
  serverNameParts,
} from '../../../src/model/tools/toolNames.js';
import { sha256Hex } from '../../../src/model/sha256Hex.js';

describe('qualifiedToolName', () => {
  it('is mcp__<server>__<tool>', () => {
    expect(qualifiedToolName('github', 'create_issue')).toBe('mcp__github__create_issue');
    expect(qualifiedToolName('my-srv', 'get-x')).toBe('mcp__my-srv__get-x');
  });

  it('replaces characters outside [A-Za-z0-9_-] with _, one per code point', () => {
    expect(qualifiedToolName('a.b', 'c/d e')).toBe('mcp__a_b__c_d_e');
    expect(qualifiedToolName('ü', 'x😀')).toBe('mcp__' + sha256Hex('ü').slice(0, 4) + '__x_');
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

describe('qualifyTools: a taken fallback', () => {
  it('counts on when the hashed name is taken too (a server may list any names)', () => {
    const hashed = qualifyTools('srv', ['a.b', 'a_b'])[1]!;
    const tool = hashed.slice('mcp__srv__'.length);
    const names = qualifyTools('srv', ['a.b', tool, 'a_b', 'a_b']);
    expect(new Set(names).size).toBe(4);
    expect(names[2]).toMatch(/^mcp__srv__a_b_[0-9a-f]{8}2$/);
  });
});

describe('serverNameParts: unique across servers', () => {
  const h4 = (name: string) => sha256Hex(name).slice(0, 4);

  it('keeps a name that collides with none as it sanitises', () => {
    expect(serverNameParts(['github', 'my-srv', 'a.b', '_x'])).toEqual(
      new Map([
        ['_x', '_x'],
        ['a.b', 'a_b'],
        ['github', 'github'],
        ['my-srv', 'my-srv'],
      ]),
    );
  });

  it('gives both my_srv and my.srv a suffix from their own name, whatever the order', () => {
    const parts = serverNameParts(['my_srv', 'my.srv']);
    expect(parts.get('my_srv')).toBe(`my_srv_${h4('my_srv')}`);
    expect(parts.get('my.srv')).toBe(`my_srv_${h4('my.srv')}`);
    expect(serverNameParts(['my.srv', 'my_srv'])).toEqual(parts);
    expect(qualifyTools('my_srv', ['echo'], parts.get('my_srv'))).not.toEqual(qualifyTools('my.srv', ['echo'], parts.get('my.srv')));
    // Others keep their names.
    expect(serverNameParts(['my_srv', 'my.srv', 'other']).get('other')).toBe('other');
  });

  it('a.b vs a_b, and three names at once', () => {
    const parts = serverNameParts(['a.b', 'a_b', 'a b']);
    expect(new Set(parts.values()).size).toBe(3);
    for (const [name, part] of parts) expect(part).toBe(`a_b_${h4(name)}`);
  });

  it('a server name containing __ cannot run into another server: a__b/c vs a/b__c', () => {
    const parts = serverNameParts(['a__b', 'a']);
    expect(parts.get('a')).toBe('a');
    expect(parts.get('a__b')).toBe(`a_b_${h4('a__b')}`);
    expect(qualifiedToolName('a__b', 'c', parts.get('a__b'))).not.toBe(qualifiedToolName('a', 'b__c', parts.get('a')));
  });

  it('a server part never ends with _ (a_/t vs a/_t) and is never empty', () => {
    const parts = serverNameParts(['a_', 'a', '', '.']);
    expect(parts.get('a')).toBe('a');
    expect(parts.get('a_')).toBe(`a_${h4('a_')}`);
    expect(parts.get('')).toBe(h4(''));
    expect(parts.get('.')).toBe(h4('.'));
    expect(qualifiedToolName('a_', 't', parts.get('a_'))).not.toBe(qualifiedToolName('a', '_t', parts.get('a')));
  });

  it('shortens a long server name to 40 characters with a suffix, so the tool name stays in view', () => {
    const long = 's'.repeat(60);
    const part = serverNameParts([long]).get(long)!;
    expect(part).toBe(`${'s'.repeat(35)}_${h4(long)}`);
    expect(qualifiedToolName(long, 'echo', part)).toBe(`mcp__${part}__echo`);
    expect(serverNameParts(['s'.repeat(40)]).get('s'.repeat(40))).toBe('s'.repeat(40));
  });

  it('a plain name equal to another one\'s suffixed part is moved off it too: nobody keeps a contested part', () => {
    const contested = `my_srv_${h4('my_srv')}`;
    const { parts, collisions } = resolveServerParts(['my_srv', 'my.srv', contested]);
    expect([...parts.values()]).not.toContain(contested);
    expect(parts.get('my_srv')).toBe(`my_srv_${sha256Hex('my_srv').slice(0, 8)}`);
    expect(parts.get(contested)).toBe(`${contested}_${h4(contested)}`);
    expect(parts.get('my.srv')).toBe(`my_srv_${h4('my.srv')}`);
    expect(new Set(parts.values()).size).toBe(3);
    expect(collisions).toEqual([['my.srv', 'my_srv'], ['my_srv', contested]]);
  });

  it('longer suffixes when hash prefixes collide; no part at all past the last level', () => {
    // A hash seam: both names share their first 8 hex digits, then differ.
    const hash = (name: string) => `abcdabcd${name === 'a.b' ? '1' : '2'}`.padEnd(64, '0');
    expect(resolveServerParts(['a.b', 'a_b'], hash).parts).toEqual(
      new Map([
        ['a.b', `a_b_abcdabcd10000000`],
        ['a_b', `a_b_abcdabcd20000000`],
      ]),
    );
    const same = resolveServerParts(['a.b', 'a_b', 'c'], () => '0'.repeat(64));
    expect(same.parts).toEqual(new Map([['c', 'c']]));
    expect(same.collisions).toEqual([['a.b', 'a_b']]);
  });

  it('reports only real collisions', () => {
    expect(resolveServerParts(['a__b', 'x'.repeat(50), 'github']).collisions).toEqual([]);
  });

  const piece = fc.constantFrom('a', 'b', '_', '__', '.', '-', ' ', '😀', 'x'.repeat(20), 'my_srv', 'my.srv');
  const name = fc.oneof(
    fc.array(piece, { maxLength: 5 }).map((p) => p.join('')),
    fc.string({ maxLength: 70 }),
  );

  it('property: every qualified name of every (server, tool) is distinct, valid and at most 64 characters', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.tuple(name, fc.array(name, { maxLength: 4 })), { selector: ([server]) => server, maxLength: 8 }),
        (servers) => {
          const parts = serverNameParts(servers.map(([server]) => server));
          const all: string[] = [];
          for (const [server, tools] of servers) {
            const part = parts.get(server)!;
            expect(part.length).toBeLessThanOrEqual(MAX_SERVER_PART_LENGTH);
            expect(part).toMatch(/^[A-Za-z0-9_-]+$/);
            expect(part).not.toMatch(/__|_$/);
            for (const q of qualifyTools(server, tools, part)) {
              expect(q).toMatch(/^[A-Za-z0-9_-]+$/);
              expect(q.length).toBeLessThanOrEqual(MAX_TOOL_NAME_LENGTH);
              expect(q.startsWith(`mcp__${part}__`)).toBe(true);
              all.push(q);
            }
          }
          expect(new Set(all).size).toBe(all.length);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('property: a server\'s part does not depend on the order of the names', () => {
    fc.assert(
      fc.property(fc.array(name, { maxLength: 8 }), fc.nat(), (names, seed) => {
        const shuffled = [...names].sort((a, b) => (hashOrder(a, seed) < hashOrder(b, seed) ? -1 : 1));
        expect(serverNameParts(shuffled)).toEqual(serverNameParts(names));
        expect(resolveServerParts(shuffled).collisions).toEqual(resolveServerParts(names).collisions);
      }),
    );
  });
});

function hashOrder(text: string, seed: number): string {
  return sha256Hex(`${seed}\0${text}`);
}
