import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EMPTY_VIEW, changedLists, exposedNames, gatewayView, type LiveLists } from '../../src/model/gatewayView.js';
import type { QualifiedTool } from '../../src/model/status.js';

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
    const name = fc.constantFrom('a', 'b', 'echo', 'mcp__s__a', 'mcp__t__b');
    const arbitrary = fc.uniqueArray(fc.record({ own: name, qualified: fc.constantFrom('mcp__s__a', 'mcp__t__b', 'mcp__s__echo', 'mcp__t__echo', 'x', 'a') }), {
      selector: (i) => i.qualified,
    });
    fc.assert(
      fc.property(arbitrary, fc.constantFrom('qualified' as const, 'original' as const), (items, mode) => {
        const exposed = exposedNames(items, mode);
        expect(new Set(exposed).size).toBe(exposed.length);
      }),
    );
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
