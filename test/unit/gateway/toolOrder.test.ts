import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { gatewayView } from '../../../src/model/gateway/gatewayView.js';
import { keptOrder } from '../../../src/model/gateway/toolOrder.js';
import type { QualifiedTool } from '../../../src/model/report/status.js';

/**
 * The order tools/list keeps across reloads (decision 358), over lists as the library gives
 * them: servers by name, each server's tools in its own order.
 */

type Servers = Record<string, readonly (string | [name: string, description: string])[]>;

/** What `tools.list$` lists for `servers`: servers sorted by name, each one's tools as it lists them. */
function libraryList(servers: Servers): QualifiedTool[] {
  return Object.keys(servers)
    .sort()
    .flatMap((server) =>
      servers[server]!.map((entry) => {
        const [tool, description] = typeof entry === 'string' ? [entry, `Tool ${entry}`] : entry;
        return { name: `mcp__${server}__${tool}`, server, tool, trust: false, description, inputSchema: { type: 'object' as const } };
      }),
    );
}

/** A gateway's reloads: each list kept in the order of the one before; the first as it comes. */
function reloads(...steps: Servers[]): string[][] {
  let order: string[] | undefined;
  return steps.map((servers) => {
    const ordered = keptOrder(order, libraryList(servers), (t) => t.name);
    order = ordered.map((t) => t.name);
    return ordered.map((t) => `${t.server}__${t.tool}`);
  });
}

/** tools/list as a client gets it (the default naming), serialized. */
function listed(tools: readonly QualifiedTool[]): string {
  return JSON.stringify({ tools: gatewayView({ tools, prompts: [], resources: [], resourceTemplates: [] }, 'server').tools });
}

/** How many characters of `before` start `after` too. */
function sharedPrefix(before: string, after: string): number {
  let i = 0;
  while (i < before.length && before[i] === after[i]) i++;
  return i;
}

const start: Servers = { github: ['create_issue', 'search'], clock: ['now', 'zone'], notes: ['read', 'write'] };

describe('keptOrder', () => {
  it('a fresh gateway takes the list as the library gives it: servers by name, each in its own order', () => {
    const fresh = ['clock__now', 'clock__zone', 'github__create_issue', 'github__search', 'notes__read', 'notes__write'];
    expect(reloads(start)[0]).toEqual(fresh);
    // A gateway that came to the same servers by edits lists them in its kept order; a fresh one, by name again.
    const edited = reloads({ notes: start.notes!, github: start.github! }, start).at(-1);
    expect(edited).toEqual(['github__create_issue', 'github__search', 'notes__read', 'notes__write', 'clock__now', 'clock__zone']);
    expect(reloads(start)[0]).toEqual(fresh);
  });

  it('a server added: every tool keeps its place, the new ones come last (sorted by name, they would come first)', () => {
    const [before, after] = reloads(start, { ...start, atlas: ['map', 'route'] });
    expect(after).toEqual([...before!, 'atlas__map', 'atlas__route']);
  });

  it('one server edited — a description changed, a tool added, a tool removed: the rest keep their order, the new tool comes last', () => {
    const [, after] = reloads(start, { ...start, clock: [['now', 'The time, now in UTC'], 'alarm'] });
    expect(after).toEqual(['clock__now', 'github__create_issue', 'github__search', 'notes__read', 'notes__write', 'clock__alarm']);
  });

  it('a server removed: its tools drop out, the others keep their order', () => {
    const [, after] = reloads(start, { clock: start.clock!, notes: start.notes! });
    expect(after).toEqual(['clock__now', 'clock__zone', 'notes__read', 'notes__write']);
  });

  it("a server's own list change (it gained a tool, and lists its tools in another order): its tools keep their places, the new one comes last", () => {
    const [, after] = reloads(start, { ...start, clock: ['zone', 'stopwatch', 'now'] });
    expect(after).toEqual(['clock__now', 'clock__zone', 'github__create_issue', 'github__search', 'notes__read', 'notes__write', 'clock__stopwatch']);
  });

  it('edits in a row: each keeps the order of the one before, not the first', () => {
    const steps = reloads(start, { ...start, atlas: ['map'] }, { ...start, atlas: ['map'], clock: ['now'] }, { atlas: ['map', 'route'], notes: start.notes! });
    expect(steps.at(-1)).toEqual(['notes__read', 'notes__write', 'atlas__map', 'atlas__route']);
  });

  it('the serialized tools/list before an edit that only adds is an exact prefix of the one after, up to its closing brackets', () => {
    const before = libraryList(start);
    const added = keptOrder(
      before.map((t) => t.name),
      libraryList({ ...start, atlas: ['map'], clock: [...start.clock!, 'alarm'] }),
      (t) => t.name,
    );
    const [a, b] = [listed(before), listed(added)];
    expect(b.startsWith(a.slice(0, -2))).toBe(true);
    // Sorted by server, the new server's tools would come first: nothing past `{"tools":[{"name":"` is kept.
    const sorted = listed(libraryList({ ...start, atlas: ['map'], clock: [...start.clock!, 'alarm'] }));
    expect(sharedPrefix(a, sorted)).toBe('{"tools":[{"name":"'.length);
  });

  it('a changed tool keeps its place: the list is kept exactly up to the changed description', () => {
    const before = libraryList(start);
    const edited = keptOrder(
      before.map((t) => t.name),
      libraryList({ ...start, github: ['create_issue', ['search', 'Searches code']] }),
      (t) => t.name,
    );
    expect(edited.map((t) => t.tool)).toEqual(before.map((t) => t.tool));
    const [a, b] = [listed(before), listed(edited)];
    expect(a.slice(0, sharedPrefix(a, b))).toMatch(/"name":"github__search","description":"$/);
  });

  describe('properties', () => {
    const keys = fc.uniqueArray(fc.stringMatching(/^[a-e]{1,2}$/), { maxLength: 12 });
    const previousAndItems = fc.tuple(fc.option(keys, { nil: undefined }), keys);

    it('a permutation of the items', () => {
      fc.assert(
        fc.property(previousAndItems, ([previous, items]) => {
          expect([...keptOrder(previous, items, (k) => k)].sort()).toEqual([...items].sort());
        }),
      );
    });

    it('kept items in their previous order, first; new ones after them in the order they came', () => {
      fc.assert(
        fc.property(keys, keys, (previous, items) => {
          const had = new Set(previous);
          const result = keptOrder(previous, items, (k) => k);
          const kept = previous.filter((k) => items.includes(k));
          expect(result).toEqual([...kept, ...items.filter((k) => !had.has(k))]);
        }),
      );
    });

    it('without a previous order, the items as they came; a list kept against itself is the same list', () => {
      fc.assert(
        fc.property(previousAndItems, ([previous, items]) => {
          expect(keptOrder(undefined, items, (k) => k)).toEqual(items);
          const once = keptOrder(previous, items, (k) => k);
          expect(keptOrder(once, [...items].reverse(), (k) => k)).toEqual(once);
        }),
      );
    });

    it('items of one key keep their order among themselves', () => {
      const tagged = fc.array(fc.tuple(fc.constantFrom('a', 'b', 'c'), fc.nat()), { maxLength: 10 });
      fc.assert(
        fc.property(fc.option(keys, { nil: undefined }), tagged, (previous, items) => {
          const result = keptOrder(previous, items, ([k]) => k);
          for (const key of ['a', 'b', 'c']) expect(result.filter(([k]) => k === key)).toEqual(items.filter(([k]) => k === key));
        }),
      );
    });
  });
});
