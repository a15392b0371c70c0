import equal from 'fast-deep-equal';
import { VirtualTimeScheduler, type Observable } from 'rxjs';
import type { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import type { AssembleInput } from '../../src/model/settings/assemble.js';
import { approvalHash } from '../../src/model/settings/approvalHash.js';
import type { WantedServer } from '../../src/model/reconcile/plan.js';
import type { QualifiedTool } from '../../src/model/report/status.js';
import type { ResolvedServerConfig } from '../../src/model/types.js';
import { createReconciler, type ReconcilerDeps } from '../../src/live/reconciler.js';
import { createLiveServers } from '../../src/sinks/mcp/liveServers.js';
import { fakeConnector } from './fakeConnector.js';
import { input, newScheduler, srv, play } from './inputs.js';

/**
 * Decision 68: what a host renders never repeats itself — `tools$`, `servers$` and
 * `pendingApprovals$` emit only real changes (so `setTools` runs only then) — tools and statuses
 * carry `trust`, and a tool-not-found message says what hides a tool and how to approve.
 */

function harness(ts: TestScheduler, inputs$: Observable<AssembleInput>, deps: Partial<ReconcilerDeps> = {}) {
  const fake = fakeConnector(ts);
  const r = createReconciler(inputs$, { connector: fake.connector, scheduler: ts, env: {}, random: () => 0.5, ...deps });
  const tools: (readonly QualifiedTool[])[] = [];
  const servers: unknown[] = [];
  const pending: unknown[] = [];
  r.board.tools$.subscribe((t) => tools.push(t));
  r.board.servers$.subscribe((s) => servers.push(s));
  r.pendingApprovals$.subscribe((p) => pending.push(p));
  r.start();
  return { r, fake, tools, servers, pending, toolNames: () => tools.map((list) => list.map((t) => t.name)) };
}

/** Indexes of values equal to the one before. */
function repeats(values: readonly unknown[]): number[] {
  return values.flatMap((v, i) => (i > 0 && equal(v, values[i - 1]) ? [i] : []));
}

describe('tools$, servers$, pendingApprovals$: only real changes', () => {
  it('two servers connecting make three tool lists, one emission each', () => {
    const h = play('a', { a: input({ a: srv(), b: srv('connect=20') }) }, harness);
    expect(h.toolNames()).toEqual([[], ['mcp__a__echo'], ['mcp__a__echo', 'mcp__b__echo']]);
  });

  it('a list_changed with the same tools, an unrelated change and a status-only change emit no tool list', () => {
    const ts = newScheduler();
    ts.run(({ hot, flush }) => {
      const h = harness(
        ts,
        hot('a 500ms b', { a: input({ a: srv(), b: srv() }), b: input({ a: srv(), b: srv(), c: srv('fail=boom') }) }),
      );
      flush();
      const before = h.tools.length;
      h.fake.changeTools('a', ['echo']);
      flush();
      expect(h.tools.length).toBe(before);
      // c went connecting and failed: servers$ changed, the tools did not.
      expect(h.servers.length).toBeGreaterThan(3);
      h.fake.changeTools('a', ['echo', 'more']);
      flush();
      expect(h.toolNames().at(-1)).toEqual(['mcp__a__echo', 'mcp__a__more', 'mcp__b__echo']);
      expect(repeats(h.tools)).toEqual([]);
      expect(repeats(h.servers)).toEqual([]);
    });
  });

  it('pendingApprovals$ and servers$ never repeat a value through approvals, edits and removals', () => {
    const ts = newScheduler();
    const gated = srv('tools=g');
    const other = srv('tools=o');
    ts.run(({ hot, flush }) => {
      const h = harness(
        ts,
        hot('a 500ms b 500ms c 500ms d 500ms e', {
          a: input({ u: srv() }, { project: { p: gated } }),
          b: input({ u: srv() }, { project: { p: gated, q: other } }),
          c: input({ u: srv() }, { project: { p: gated, q: other }, approvals: { q: { hash: approvalHash(other), status: 'approved' } } }),
          d: input({ u: srv('tools=x') }, { project: { p: gated, q: other }, approvals: { q: { hash: approvalHash(other), status: 'approved' } } }),
          e: input({ u: srv('tools=x') }, {}),
        }),
      );
      flush();
      expect(h.pending.map((p) => (p as { name: string }[]).map((x) => x.name))).toEqual([[], ['p'], ['p', 'q'], ['p'], []]);
      expect(repeats(h.pending)).toEqual([]);
      expect(repeats(h.servers)).toEqual([]);
      expect(repeats(h.tools)).toEqual([]);
    });
  });
});

describe('trust on statuses and tools', () => {
  it('follows the entry, and a trust-only edit re-publishes the tools without a reconnect', () => {
    const h = play('a 500ms b', {
      a: input({ t: { ...srv(), trust: true }, u: srv() }),
      b: input({ t: srv(), u: srv() }),
    }, harness);
    const after = (n: number) => h.tools[n]!.map((t) => [t.name, t.trust]);
    const first = h.tools.findIndex((list) => list.length === 2);
    expect(after(first)).toEqual([
      ['mcp__t__echo', true],
      ['mcp__u__echo', false],
    ]);
    expect(after(h.tools.length - 1)).toEqual([
      ['mcp__t__echo', false],
      ['mcp__u__echo', false],
    ]);
    expect(h.r.board.status('t')?.trust).toBe(false);
    expect(h.r.board.status('u')?.trust).toBe(false);
    expect(h.fake.starts('t')).toBe(1);
  });

  it('is on the status while connecting and gone when the server is blocked', () => {
    // The initial pass starts its 50 ms connect at once (decision 220): at 20 it is under way.
    const h = play('a 500ms b', {
      a: input({ t: { ...srv('connect=50'), trust: true } }),
      b: input({ t: { ...srv('connect=50'), trust: true } }, { mcp: { excluded: ['t'] } }),
    }, harness, (h, { ts }) => {
        ts.schedule(() => expect(h.r.board.status('t')).toMatchObject({ state: 'connecting', trust: true }), 20);
      });
    expect(h.r.board.status('t')?.state).toBe('blocked');
    expect(h.r.board.status('t')).not.toHaveProperty('trust');
  });
});

describe('tool-not-found words', () => {
  it('names includeTools or excludeTools when they hide a tool the server offers', () => {
    const h = play('a', {
      a: input({ ex: { ...srv('tools=x,y'), excludeTools: ['y'] }, in: { ...srv('tools=x,y'), includeTools: ['x'] } }),
    }, harness);
    expect(h.r.requests.toolNotFoundMessage('mcp__ex__y')).toBe(
      'Tool "mcp__ex__y" is not available: tool "y" of MCP server "ex" is filtered out by excludeTools – remove it from excludeTools to use it.',
    );
    expect(h.r.requests.toolNotFoundMessage('mcp__in__y')).toContain('tool "y" of MCP server "in" is filtered out by includeTools');
    expect(h.r.requests.toolNotFoundMessage('mcp__in__z')).toBe('Tool "mcp__in__z" is not available: MCP server "in" does not offer it.');
  });

  it("recognises the gateway's names of a listed tool and says the name to call (decision 322)", () => {
    const h = play('a', { a: input({ ex: { ...srv('tools=x,y'), excludeTools: ['y'] }, in: srv('tools=x,z') }) }, harness);
    // `--names server`
    expect(h.r.requests.toolNotFoundMessage('in__z')).toBe(
      'Tool "in__z" is not available under that name: it is how the gateway (mcp-live serve) names a tool; here it is named "mcp__in__z" – call it by that name.',
    );
    // `--names original`: a tool's own name, when one server lists it.
    expect(h.r.requests.toolNotFoundMessage('z')).toContain('here it is named "mcp__in__z"');
    // Both list x: no guess. y is hidden by excludeTools: not listed, so no name to offer.
    expect(h.r.requests.toolNotFoundMessage('x')).toBe('Tool "x" is not available: it does not name a tool of any configured MCP server.');
    expect(h.r.requests.toolNotFoundMessage('ex__y')).toBe('Tool "ex__y" is not available: it does not name a tool of any configured MCP server.');
  });

  it.each([
    [undefined, 'approve it with mcp-live approvals approve p.'],
    ['library', 'approve it with mcp-live approvals approve p.'],
    ['json', 'approve it with {"cmd":"approve","server":"p"} or mcp-live approvals approve p.'],
    ['ui', 'approve it with /mcp.'],
  ] as const)('hints %s: a pending server says %s', (hints, words) => {
    const h = play('a', { a: input({}, { project: { p: srv() } }) }, (ts, inputs$) => harness(ts, inputs$, hints === undefined ? {} : { hints }));
    expect(h.r.requests.toolNotFoundMessage('mcp__p__echo')).toBe(`Tool "mcp__p__echo" is not available: MCP server "p" needs approval – ${words}`);
  });
});

describe('LiveServers keeps an equal list by reference', () => {
  it('a reconnect that brings back the same tools emits no tool list', () => {
    const scheduler = new VirtualTimeScheduler();
    const fake = fakeConnector(scheduler);
    const live = createLiveServers({ connector: fake.connector, scheduler });
    const resolved: ResolvedServerConfig = { transport: 'stdio', command: 'x', args: ['tools=a,b'], env: {}, headers: {}, timeout: 1000 };
    const server: WantedServer = { name: 's', scope: 'user', source: 'f', fingerprint: 's', view: {}, resolved };
    const tools: unknown[] = [];
    live.board.tools$.subscribe((t) => tools.push(t));
    live.lifecycle.connect(server).subscribe();
    scheduler.flush();
    const before = live.board.status('s')!;
    // Connected again: the old connection is closed first, the tools stay listed meanwhile.
    live.lifecycle.connect(server).subscribe();
    scheduler.flush();
    expect(fake.starts('s')).toBe(2);
    expect(live.board.status('s')!.pid).not.toBe(before.pid);
    expect(live.board.status('s')!.tools).toBe(before.tools);
    expect(tools.map((t) => (t as QualifiedTool[]).map((x) => x.name))).toEqual([[], ['mcp__s__a', 'mcp__s__b']]);
  });
});

describe('LiveServers.callTool with a signal', () => {
  function connected() {
    const scheduler = new VirtualTimeScheduler();
    const fake = fakeConnector(scheduler);
    const live = createLiveServers({ connector: fake.connector, scheduler });
    const resolved: ResolvedServerConfig = { transport: 'stdio', command: 'x', args: ['connect=0', 'tools=slow,echo'], env: {}, headers: {}, timeout: 1000 };
    const server: WantedServer = { name: 's', scope: 'user', source: 'f', fingerprint: 's', view: {}, resolved };
    live.lifecycle.connect(server).subscribe();
    scheduler.flush();
    return live;
  }

  it('rejects with the reason as soon as the signal aborts, though the server never answers', async () => {
    const live = connected();
    const abort = new AbortController();
    const call = live.requests.callTool('mcp__s__slow', {}, { signal: abort.signal });
    abort.abort(new Error('cancelled: quitting'));
    await expect(call).rejects.toThrow('cancelled: quitting');
    // Other calls go on.
    await expect(live.requests.callTool('mcp__s__echo', { a: 1 }, { signal: new AbortController().signal })).resolves.toEqual({ tool: 'echo', args: { a: 1 } });
  });

  it('an already aborted signal rejects before routing', async () => {
    const live = connected();
    const abort = new AbortController();
    abort.abort(new Error('too late'));
    await expect(live.requests.callTool('mcp__s__echo', {}, { signal: abort.signal })).rejects.toThrow('too late');
  });
});
