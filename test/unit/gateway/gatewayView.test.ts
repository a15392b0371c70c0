import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  EMPTY_VIEW,
  EXPOSED_NAME_MODES,
  changedLists,
  exposedNames,
  gatewayView,
  inCallersWords,
  meantToolNames,
  type ExposedNames,
  type LiveLists,
} from '../../../src/model/gateway/gatewayView.js';
import { sha256Hex } from '../../../src/model/sha256Hex.js';
import type { QualifiedTool } from '../../../src/model/report/status.js';
import { qualifyTools, serverNameParts } from '../../../src/model/tools/toolNames.js';

const tool = (server: string, name: string, extra: Partial<QualifiedTool> = {}): QualifiedTool => ({
  name: `mcp__${server}__${name}`,
  server,
  tool: name,
  trust: false,
  ...extra,
});

const lists = (partial: Partial<LiveLists>): LiveLists => ({ tools: [], prompts: [], resources: [], resourceTemplates: [], ...partial });

describe('exposedNames', () => {
  const items = [
    { own: 'echo', qualified: 'mcp__a__echo' },
    { own: 'echo', qualified: 'mcp__b__echo' },
    { own: 'sum', qualified: 'mcp__b__sum' },
  ];

  it("qualified: the library's names", () => {
    expect(exposedNames(items, 'qualified')).toEqual(['mcp__a__echo', 'mcp__b__echo', 'mcp__b__sum']);
  });

  it('server (the default): SERVER__TOOL, the qualified name without its mcp__', () => {
    expect(EXPOSED_NAME_MODES[0]).toBe('server');
    expect(exposedNames(items, 'server')).toEqual(['a__echo', 'b__echo', 'b__sum']);
    // The library's suffixes are kept: a part made unique by a hash, a long name cut with one.
    expect(exposedNames([{ own: 'x', qualified: 'mcp__my_srv_3f2a__x' }], 'server')).toEqual(['my_srv_3f2a__x']);
  });

  it("server: a name without mcp__ stays as it is (the language servers' lsp__hover); one another item is qualified under keeps mcp__", () => {
    const withLsp = [
      { own: 'hover', qualified: 'lsp__hover' },
      // An MCP server named "lsp": its hover would read as the language servers' tool.
      { own: 'hover', qualified: 'mcp__lsp__hover' },
      // A server named "mcp" whose tool is lsp__hover wants mcp__lsp__hover, another's qualified name.
      { own: 'lsp__hover', qualified: 'mcp__mcp__lsp__hover' },
    ];
    expect(exposedNames(withLsp, 'server')).toEqual(['lsp__hover', 'mcp__lsp__hover', 'mcp__mcp__lsp__hover']);
  });

  it('original: an own name outside the pattern is made valid by the library\'s rule; two that read alike both keep the qualified name', () => {
    expect(exposedNames([{ own: 'get.weather', qualified: 'mcp__w__get_weather' }], 'original')).toEqual(['get_weather']);
    const long = 'y'.repeat(70);
    expect(exposedNames([{ own: long, qualified: 'mcp__w__long' }], 'original')).toEqual([`${long.slice(0, 55)}_${sha256Hex(long).slice(0, 8)}`]);
    expect(exposedNames([{ own: 'a.b', qualified: 'mcp__s__a_b' }, { own: 'a_b', qualified: 'mcp__t__a_b' }], 'original')).toEqual([
      'mcp__s__a_b',
      'mcp__t__a_b',
    ]);
    expect(exposedNames([{ own: '', qualified: 'mcp__s__' }], 'original')).toEqual(['mcp__s__']);
  });

  it('original: the own name where it is the only one, else the qualified name', () => {
    expect(exposedNames(items, 'original')).toEqual(['mcp__a__echo', 'mcp__b__echo', 'sum']);
  });

  it("original: an own name that is another item's qualified name is not taken", () => {
    expect(exposedNames([{ own: 'mcp__b__x', qualified: 'mcp__a__mcp__b__x' }, { own: 'x', qualified: 'mcp__b__x' }], 'original')).toEqual([
      'mcp__a__mcp__b__x',
      'x',
    ]);
  });

  it('an item without a qualified name is exposed by its own name only where that is unique', () => {
    expect(exposedNames([{ own: 'p' }, { own: 'q' }, { own: 'q', qualified: 'mcp__b__q' }], 'original')).toEqual(['p', undefined, 'mcp__b__q']);
    expect(exposedNames([{ own: 'p' }], 'qualified')).toEqual([undefined]);
  });

  it('exposed names are unique whenever the qualified names are', () => {
    const name = fc.constantFrom('a', 'b', 'echo', 'mcp__s__a', 'mcp__t__b', 's__a', 'lsp__hover');
    const arbitrary = fc.uniqueArray(
      fc.record({ own: name, qualified: fc.constantFrom('mcp__s__a', 'mcp__t__b', 'mcp__s__echo', 'mcp__t__echo', 'x', 'a', 's__a', 'lsp__hover', 'mcp__lsp__hover') }),
      { selector: (i) => i.qualified },
    );
    fc.assert(
      fc.property(arbitrary, fc.constantFrom(...EXPOSED_NAME_MODES), (items, mode) => {
        const exposed = exposedNames(items, mode);
        expect(new Set(exposed).size).toBe(exposed.length);
      }),
    );
  });
});

/** The items the library lists for `servers` (server → its tools' own names), qualified as the library does. */
function libraryItems(servers: readonly (readonly [string, readonly string[]])[]): { own: string; qualified: string; server: string }[] {
  const parts = serverNameParts(servers.map(([server]) => server));
  return servers.flatMap(([server, tools]) => {
    const part = parts.get(server);
    if (part === undefined) return [];
    const qualified = qualifyTools(server, tools, part);
    return tools.map((own, i) => ({ own, qualified: qualified[i]!, server }));
  });
}

describe('exposed names over what the library lists (decision 223)', () => {
  const piece = fc.constantFrom('a', 'b', '_', '__', '.', '-', ' ', '😀', 'x'.repeat(30), 'mcp__', 'lsp__hover', 'everything', 'my.srv', 'my_srv');
  const text = fc.oneof(
    fc.array(piece, { maxLength: 5 }).map((p) => p.join('')),
    fc.string({ maxLength: 80 }),
    fc.string({ unit: 'grapheme', maxLength: 20 }),
  );
  const servers = fc.uniqueArray(fc.tuple(text, fc.array(text, { maxLength: 4 })), { selector: ([server]) => server, maxLength: 6 });
  const mode = fc.constantFrom(...EXPOSED_NAME_MODES);

  it('property: every name matches ^[A-Za-z0-9_-]{1,64}$ and no two are equal, in every mode', () => {
    fc.assert(
      fc.property(servers, mode, (listed, names) => {
        const exposed = exposedNames(libraryItems(listed), names);
        for (const name of exposed) expect(name).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
        expect(new Set(exposed).size).toBe(exposed.length);
      }),
    );
  });

  it('property: the same items give the same names in any order (and again: no state, no randomness)', () => {
    fc.assert(
      fc.property(servers, mode, fc.nat(), (listed, names, seed) => {
        const items = libraryItems(listed);
        const byItem = (list: typeof items) => {
          const exposed = exposedNames(list, names);
          return new Map(list.map((item, i) => [`${item.server}\0${item.qualified}`, exposed[i]]));
        };
        const shuffled = [...items].sort((x, y) => (sha256Hex(`${seed}${x.qualified}`) < sha256Hex(`${seed}${y.qualified}`) ? -1 : 1));
        expect(byItem(shuffled)).toEqual(byItem(items));
        expect(exposedNames(items, names)).toEqual(exposedNames(items.map((i) => ({ ...i })), names));
      }),
    );
  });

  it('property: under server, each name is the qualified one without mcp__ (so at most 59 characters)', () => {
    fc.assert(
      fc.property(servers, (listed) => {
        const items = libraryItems(listed);
        exposedNames(items, 'server').forEach((name, i) => {
          expect(`mcp__${name}`).toBe(items[i]!.qualified);
          expect(name!.length).toBeLessThanOrEqual(59);
        });
      }),
    );
  });

  it('a long tool name is cut deterministically with the hash suffix of its server and own name', () => {
    const tool = `create_${'very_long_'.repeat(8)}issue`;
    const [item] = libraryItems([['github', [tool]]]);
    const [name] = exposedNames([item!], 'server');
    expect(name).toBe(`${`github__${tool}`.slice(0, 50)}_${sha256Hex(`github\0${tool}`).slice(0, 8)}`);
    expect(exposedNames(libraryItems([['github', [tool]]]), 'server')).toEqual([name]);
    // Two long names that share their first characters stay apart.
    const [one, two] = exposedNames(libraryItems([['github', [`${tool}_one`, `${tool}_two`]]]), 'server');
    expect(one).not.toBe(two);
  });

  it('names that differ only in replaced characters: distinct, as the library makes them', () => {
    const items = libraryItems([
      ['my.srv', ['a.b', 'a_b']],
      ['my_srv', ['a.b']],
    ]);
    const exposed = exposedNames(items, 'server');
    expect(new Set(exposed).size).toBe(3);
    expect(exposed[0]).toBe(`my_srv_${sha256Hex('my.srv').slice(0, 4)}__a_b`);
    expect(exposed[1]).toMatch(new RegExp(`^my_srv_${sha256Hex('my.srv').slice(0, 4)}__a_b_[0-9a-f]{8}$`));
  });
});

describe('meantToolNames and inCallersWords: a call of a name that is not listed', () => {
  const lsp = (name: string) => name === 'lsp__hover';

  it('server: the qualified name first; a language server tool\'s own name first; a qualified name as it is', () => {
    expect(meantToolNames('gated__echo', 'server', lsp)).toEqual(['mcp__gated__echo', 'gated__echo']);
    expect(meantToolNames('lsp__hover', 'server', lsp)).toEqual(['lsp__hover', 'mcp__lsp__hover']);
    expect(meantToolNames('mcp__gated__echo', 'server', lsp)).toEqual(['mcp__gated__echo']);
    for (const names of ['qualified', 'original'] as ExposedNames[]) expect(meantToolNames('gated__echo', names, lsp)).toEqual(['gated__echo']);
  });

  it("the library's words name the tool as the client called it; other words are left alone", () => {
    const words = 'Tool "mcp__gated__echo" is not available: MCP server "gated" is pending approval – approve it.';
    expect(inCallersWords(words, 'mcp__gated__echo', 'gated__echo')).toBe(
      'Tool "gated__echo" is not available: MCP server "gated" is pending approval – approve it.',
    );
    expect(inCallersWords(words, 'mcp__gated__echo', 'mcp__gated__echo')).toBe(words);
    expect(inCallersWords('something else', 'mcp__gated__echo', 'gated__echo')).toBe('something else');
  });
});

describe('gatewayView', () => {
  it('shows tools in MCP shape under their exposed names, with what the server said, and routes back to the qualified name', () => {
    const view = gatewayView(
      lists({
        tools: [
          tool('a', 'echo', { title: 'Echo', description: 'd', inputSchema: { type: 'object', properties: {} }, annotations: { readOnlyHint: true }, _meta: { k: 1 } }),
          tool('b', 'bare', { trust: true }),
        ],
      }),
      'original',
    );
    expect(view.tools).toEqual([
      { name: 'echo', title: 'Echo', description: 'd', inputSchema: { type: 'object', properties: {} }, annotations: { readOnlyHint: true }, _meta: { k: 1 } },
      // MCP requires an input schema: none means no arguments. `trust` and `server` are ours, not the server's.
      { name: 'bare', inputSchema: { type: 'object' } },
    ]);
    expect(view.toolRoutes.get('echo')).toEqual({ qualified: 'mcp__a__echo', server: 'a' });
  });

  it('prompts by qualified name route to their server and own name; resources keep their URIs and get a name if they had none', () => {
    const view = gatewayView(
      lists({
        prompts: [{ name: 'greet', qualifiedName: 'mcp__a__greet', server: 'a', arguments: [{ name: 'who', required: true }] }],
        resources: [{ uri: 'x://1', server: 'a', mimeType: 'text/plain' }],
        resourceTemplates: [{ uriTemplate: 'x://{id}', name: 'item', server: 'a' }],
      }),
      'qualified',
    );
    expect(view.prompts).toEqual([{ name: 'mcp__a__greet', arguments: [{ name: 'who', required: true }] }]);
    expect(view.promptRoutes.get('mcp__a__greet')).toEqual({ server: 'a', prompt: 'greet' });
    expect(view.resources).toEqual([{ uri: 'x://1', name: 'x://1', mimeType: 'text/plain' }]);
    expect(view.resourceTemplates).toEqual([{ uriTemplate: 'x://{id}', name: 'item' }]);
  });
});

describe('changedLists', () => {
  const base = gatewayView(lists({ tools: [tool('a', 'echo', { inputSchema: { type: 'object' } })] }), 'qualified');

  it('nothing for an equal view built anew', () => {
    expect(changedLists(base, gatewayView(lists({ tools: [tool('a', 'echo', { inputSchema: { type: 'object' } })] }), 'qualified'))).toEqual([]);
  });

  it('tools when a schema changed; each kind on its own', () => {
    const schema = gatewayView(lists({ tools: [tool('a', 'echo', { inputSchema: { type: 'object', required: ['x'] } })] }), 'qualified');
    expect(changedLists(base, schema)).toEqual(['tools']);
    const withPrompt = gatewayView(
      lists({ tools: [tool('a', 'echo', { inputSchema: { type: 'object' } })], prompts: [{ name: 'p', qualifiedName: 'mcp__a__p', server: 'a' }] }),
      'qualified',
    );
    expect(changedLists(base, withPrompt)).toEqual(['prompts']);
    expect(changedLists(EMPTY_VIEW, gatewayView(lists({ resourceTemplates: [{ uriTemplate: 't', server: 'a' }] }), 'qualified'))).toEqual(['resources']);
  });
});
