import { map, type Observable } from 'rxjs';
import type { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import type { AssembleInput } from '../../src/model/settings/assemble.js';
import { approvalHash } from '../../src/model/settings/approvalHash.js';
import type { Connector } from '../../src/model/connection.js';
import type { ReconcileEvent, ServerEvent } from '../../src/model/report/events.js';
import { createReconciler } from '../../src/live/reconciler.js';
import { fakeConnector } from './fakeConnector.js';
import { newScheduler, observe, srv, play } from './inputs.js';

/**
 * The shared reconcile core with a second server kind (decision 145): language servers come through
 * the same sources, gate, passes, per-server reconcile and supervision as MCP servers. The fake
 * language server is the MCP fake (behaviour from its args) with an LSP face: no tools, a
 * capability summary, and a `reconfigure` that records the settings it is given.
 */
function lspFake(ts: TestScheduler) {
  const fake = fakeConnector(ts);
  const reconfigured: string[] = [];
  const connector: Connector = (name, config, handlers) =>
    config.lsp === undefined
      ? fake.connector(name, config, handlers)
      : fake.connector(name, config, handlers).pipe(
          map((conn) => ({
            ...conn,
            lists: { tools: [], prompts: [], resources: [] },
            server: { info: { name: 'fake-ls', version: '1' }, capabilities: ['definition', 'hover'] },
            reconfigure: (view) => void reconfigured.push(`${ts.now()} ${name} ${JSON.stringify(view.lsp?.settings)}`),
          })),
        );
  return { ...fake, connector, reconfigured };
}

const ls = (settings?: unknown, ...args: string[]) => ({ command: 'fake-ls', args, extensionToLanguage: { '.ts': 'typescript' }, ...(settings === undefined ? {} : { settings }) });

function inputOf(user: { mcp?: Record<string, unknown>; lsp?: Record<string, unknown> }, project: Record<string, unknown> = {}, approvals: AssembleInput['approvals'] = {}): AssembleInput {
  return {
    sources: [
      { scope: 'user', file: '/home/u/.qwen/settings.json', servers: user.mcp ?? {}, lspServers: user.lsp ?? {} },
      { scope: 'project', file: '/work/p/.lsp.json', servers: {}, lspServers: project },
    ],
    approvals,
    sessionApprovals: {},
    folderTrusted: true,
  };
}

function harness(ts: TestScheduler, inputs: Observable<AssembleInput>) {
  const fake = lspFake(ts);
  const seen = observe(createReconciler(inputs, { connector: fake.connector, scheduler: ts, env: {}, random: () => 0.5, cwd: '/work/p' }));
  const passes = () => seen.events.filter((e): e is ReconcileEvent => e.type === 'reconcile');
  return { fake, ...seen, passes };
}

describe('one reconcile core for MCP and language servers (virtual time)', () => {
  it('connects both kinds in one pass; editing one language server’s args restarts only it, make-before-break; the others keep their process', () => {
    const ts = newScheduler();
    ts.run(({ hot, flush }) => {
      const h = harness(
        ts,
        hot('a 1000ms b', {
          a: inputOf({ mcp: { a: srv() }, lsp: { ts: ls(), py: ls() } }),
          b: inputOf({ mcp: { a: srv() }, lsp: { ts: ls(), py: ls(undefined, 'connect=20') } }),
        }),
      );
      flush();
      const [first, second] = h.passes();
      expect(first!.added).toEqual(['a', 'lsp:py', 'lsp:ts']);
      expect(second).toMatchObject({ reconnected: ['lsp:py'], unchanged: 2, added: [], removed: [] });
      expect([h.fake.starts('a'), h.fake.starts('lsp:ts'), h.fake.starts('lsp:py')]).toEqual([1, 1, 2]);
      // Make-before-break: the new process connected before the old one was closed.
      const py = h.fake.log.filter((l) => l.includes('lsp:py')).map((l) => l.replace(/^\d+ /, ''));
      expect(py).toEqual(['connect lsp:py', 'connected lsp:py pid=102', 'connect lsp:py', 'connected lsp:py pid=104', 'close lsp:py pid=102', 'closed lsp:py pid=102']);
      expect(h.server('lsp:ts')).toMatchObject({ kind: 'lsp', state: 'connected', languages: ['typescript'], capabilities: ['definition', 'hover'], tools: [] });
      expect(h.server('a')!.kind).toBeUndefined();
      const events = h.events.filter((e): e is ServerEvent => e.type === 'server' && e.state === 'connected');
      expect(events.find((e) => e.name === 'lsp:ts')).toMatchObject({ kind: 'lsp', languages: ['typescript'], capabilities: ['definition', 'hover'] });
      expect(events.find((e) => e.name === 'a')).toMatchObject({ kind: 'mcp', tools: ['mcp__a__echo'] });
    });
  });

  it('a change of settings only is applied to the live connection: one reconfigure, no restart', () => {
    const ts = newScheduler();
    ts.run(({ hot, flush }) => {
      const h = harness(
        ts,
        hot('a 1000ms b 1000ms c', {
          a: inputOf({ lsp: { ts: ls({ strict: false }) } }),
          b: inputOf({ lsp: { ts: ls({ strict: true }) } }),
          c: inputOf({ lsp: { ts: ls({ strict: true }) } }),
        }),
      );
      flush();
      expect(h.passes().map((p) => p.updated)).toEqual([[], ['lsp:ts']]);
      expect(h.fake.starts('lsp:ts')).toBe(1);
      expect(h.fake.reconfigured).toEqual(['1301 lsp:ts {"strict":true}']);
    });
  });

  it('a removed language server is closed and says removed', () => {
    const h = play('a 1000ms b', { a: inputOf({ lsp: { ts: ls(), py: ls() } }), b: inputOf({ lsp: { ts: ls() } }) }, harness);
    expect(h.passes()[1]).toMatchObject({ removed: ['lsp:py'], unchanged: 1 });
    expect(h.fake.log.some((l) => l.endsWith('closed lsp:py pid=101'))).toBe(true);
    expect(h.server('lsp:py')).toMatchObject({ state: 'disconnected', reason: 'removed' });
  });

  it('a project .lsp.json server is never started before its approval, which is its own (lsp:NAME)', () => {
    const ts = newScheduler();
    const entry = ls();
    ts.run(({ hot, flush }) => {
      const h = harness(
        ts,
        hot('a 1000ms b 1000ms c', {
          a: inputOf({}, { ts: entry }),
          // An approval of an MCP server called "ts" approves nothing here.
          b: inputOf({}, { ts: entry }, { ts: { hash: approvalHash(entry), status: 'approved' } }),
          c: inputOf({}, { ts: entry }, { 'lsp:ts': { hash: approvalHash(entry), status: 'approved' } }),
        }),
      );
      flush();
      expect(h.pending[1]).toEqual(['lsp:ts']);
      expect(h.passes().map((p) => p.added)).toEqual([[], ['lsp:ts']]);
      expect(h.fake.log.filter((l) => l.includes('connect lsp:ts')).map((l) => Number(l.split(' ')[0]))).toEqual([2302]);
    });
  });

  it('honours restartOnCrash: false and maxRestarts', () => {
    const h = play('a', { a: inputOf({ lsp: { once: { ...ls(), restartOnCrash: false }, twice: { ...ls(), maxRestarts: 2 } } }) }, harness, (h, { ts }) => {
        ts.schedule(() => h.fake.kill('lsp:once'), 500);
        for (const at of [500, 5_000, 10_000]) ts.schedule(() => h.fake.kill('lsp:twice'), at);
      });
    expect(h.fake.starts('lsp:once')).toBe(1);
    expect(h.server('lsp:once')).toMatchObject({ state: 'error' });
    expect(h.server('lsp:once')!.error).toContain('not restarted: restartOnCrash is false');
    expect(h.fake.starts('lsp:twice')).toBe(3);
    expect(h.server('lsp:twice')).toMatchObject({ state: 'error' });
    expect(h.server('lsp:twice')!.error).toContain('gave up after 3 failures');
  });
});
