import type { TestScheduler } from 'rxjs/testing';
import { timer, type Observable } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { AssembleInput } from '../../src/model/assemble.js';
import { approvalHash } from '../../src/model/approvalHash.js';
import type { McpLiveEvent, ReconcileEvent } from '../../src/model/events.js';
import { createReconciler, type ReconcilerDeps } from '../../src/reconciler.js';
import { fakeConnector } from './fakeConnector.js';
import { input, newScheduler, observe, srv } from './inputs.js';

/** Starts a reconciler on `inputs$` and records everything it says. */
function harness(ts: TestScheduler, inputs$: Observable<AssembleInput>, deps: Partial<ReconcilerDeps> = {}) {
  const fake = fakeConnector(ts);
  const seen = observe(createReconciler(inputs$, { connector: fake.connector, scheduler: ts, env: {}, random: () => 0.5, ...deps }));
  const passes = () => seen.events.filter((e): e is ReconcileEvent => e.type === 'reconcile');
  return { fake, ...seen, passes };
}

describe('reconcile pipeline (virtual time)', () => {
  describe('debounce and the equality gate', () => {
    it('five saves within 300 ms make one pass with the last state', () => {
      const ts = newScheduler();
      ts.run(({ hot, flush }) => {
        const h = harness(
          ts,
          hot('a 50ms b 50ms c 50ms d 50ms e', {
            a: input({ s1: srv() }),
            b: input({ s1: srv(), s2: srv() }),
            c: input({ s1: srv(), s2: srv(), s3: srv() }),
            d: input({ s1: srv(), s2: srv(), s3: srv(), s4: srv() }),
            e: input({ s1: srv(), s2: srv(), s3: srv(), s4: srv(), s5: srv() }),
          }),
        );
        flush();
        expect(h.passes()).toHaveLength(1);
        expect(h.passes()[0]!.added).toEqual(['s1', 's2', 's3', 's4', 's5']);
        expect(h.passes()[0]!.trigger).toBe('initial');
        // The pass started 300 ms after the last save (204 ms) and took the 10 ms connect.
        expect(h.passes()[0]!.ts).toBe(204 + 300 + 10);
      });
    });

    it('two bursts 400 ms apart make two passes', () => {
      const ts = newScheduler();
      ts.run(({ hot, flush }) => {
        const h = harness(
          ts,
          hot('a 50ms b 400ms c 50ms d', {
            a: input({ s1: srv() }),
            b: input({ s1: srv(), s2: srv() }),
            c: input({ s1: srv(), s2: srv(), s3: srv() }),
            d: input({ s1: srv(), s2: srv(), s3: srv(), s4: srv() }),
          }),
        );
        flush();
        expect(h.passes().map((p) => p.added)).toEqual([['s1', 's2'], ['s3', 's4']]);
        expect(h.passes().map((p) => p.trigger)).toEqual(['initial', 'watch']);
      });
    });

    it('a theme-only change (servers and gating equal) makes no pass', () => {
      const ts = newScheduler();
      ts.run(({ hot, flush }) => {
        const h = harness(ts, hot('a 500ms b', { a: input({ s1: srv() }), b: input({ s1: srv() }) }));
        flush();
        expect(h.passes()).toHaveLength(1);
        expect(h.fake.starts('s1')).toBe(1);
      });
    });

    it('a change of mcp.excluded only makes a pass that disconnects the excluded server', () => {
      const ts = newScheduler();
      ts.run(({ hot, flush }) => {
        const h = harness(
          ts,
          hot('a 500ms b', {
            a: input({ s1: srv(), s2: srv() }),
            b: input({ s1: srv(), s2: srv() }, { mcp: { excluded: ['s2'] } }),
          }),
        );
        flush();
        expect(h.passes()).toHaveLength(2);
        expect(h.passes()[1]!.blocked).toEqual(['s2']);
        expect(h.server('s2')).toMatchObject({ state: 'blocked', reason: 'excluded', tools: [] });
        expect(h.server('s1')?.state).toBe('connected');
        expect(h.fake.log.some((l) => l.includes('closed s2'))).toBe(true);
      });
    });

    it('mcp.allowed going from absent to [] makes a pass that blocks everything', () => {
      const ts = newScheduler();
      ts.run(({ hot, flush }) => {
        const h = harness(
          ts,
          hot('a 500ms b', {
            a: input({ s1: srv(), s2: srv() }),
            b: input({ s1: srv(), s2: srv() }, { mcp: { allowed: [] } }),
          }),
        );
        flush();
        expect(h.passes()).toHaveLength(2);
        expect(h.passes()[1]!.blocked).toEqual(['s1', 's2']);
        for (const name of ['s1', 's2']) {
          expect(h.server(name)).toMatchObject({ state: 'blocked', reason: 'not_allowed', notAllowedBy: 'settings' });
        }
      });
    });
  });

  describe('one pass at a time', () => {
    it('changes during a running pass make exactly one trailing pass, with the latest state', () => {
      const ts = newScheduler();
      ts.run(({ hot, flush }) => {
        const slow = srv('connect=1000');
        const h = harness(
          ts,
          hot('a 349ms b 349ms c', {
            a: input({ slow }),
            b: input({ slow, b1: srv() }),
            c: input({ slow, c1: srv() }),
          }),
        );
        flush();
        // pass 1: 300 → 1310 (slow connect); b settles at 650 and c at 1000, both during it.
        expect(h.passes().map((p) => [p.generation, p.added])).toEqual([
          [1, ['slow']],
          [2, ['c1']],
        ]);
        expect(h.fake.starts('b1')).toBe(0);
        expect(h.passes()[1]!.ts).toBeGreaterThanOrEqual(h.passes()[0]!.ts);
      });
    });

    it('a trailing pass is skipped when the latest state equals what was just applied', () => {
      const ts = newScheduler();
      ts.run(({ hot, flush }) => {
        const slow = srv('connect=1000');
        const h = harness(
          ts,
          hot('a 349ms b 349ms c', {
            a: input({ slow }),
            b: input({ slow, b1: srv() }),
            c: input({ slow }),
          }),
        );
        flush();
        expect(h.passes()).toHaveLength(1);
        expect(h.fake.starts('b1')).toBe(0);
      });
    });

    it('a manual reload bypasses the gate but still waits for the running pass', () => {
      const ts = newScheduler();
      ts.run(({ hot, cold, flush }) => {
        const h = harness(ts, hot('a', { a: input({ slow: srv('connect=500') }) }));
        cold('400ms r 10ms r').subscribe(() => h.r.reload());
        flush();
        // The first pass runs 300 → 810; both reloads coalesce into one trailing pass.
        expect(h.passes().map((p) => p.trigger)).toEqual(['initial', 'reload']);
        expect(h.passes()[1]!.unchanged).toBe(1);
        expect(h.fake.starts('slow')).toBe(1);
      });
    });
  });

  describe('per-server reconcile', () => {
    it("a reconnect's disconnect completes before its connect, while another server's slow connect overlaps", () => {
      const ts = newScheduler();
      ts.run(({ hot, flush }) => {
        const h = harness(
          ts,
          hot('a 999ms b', {
            a: input({ x: srv('close=100') }),
            b: input({ x: srv('close=100', 'v2'), z: srv('connect=200') }),
          }),
        );
        flush();
        const log = h.fake.log;
        const time = (entry: string) => Number(log.find((l) => l.endsWith(entry))?.split(' ')[0]);
        const closeX = Number(log.find((l) => l.includes('close x'))?.split(' ')[0]);
        const closedX = Number(log.find((l) => l.includes('closed x'))?.split(' ')[0]);
        const reconnectX = Number(log.filter((l) => l.endsWith('connect x')).at(1)?.split(' ')[0]);
        expect(closedX - closeX).toBe(100);
        expect(reconnectX).toBeGreaterThanOrEqual(closedX);
        // z's slow connect started with the pass and was still running when x reconnected.
        expect(time('connect z')).toBeLessThan(closedX);
        expect(time('connect z') + 200).toBeGreaterThan(reconnectX);
        expect(h.passes()[1]).toMatchObject({ added: ['z'], reconnected: ['x'] });
      });
    });

    it('an unchanged server is never disconnected across any sequence of passes (no 0-tools gap)', () => {
      const ts = newScheduler();
      ts.run(({ hot, flush }) => {
        const keep = srv('tools=k1,k2');
        const h = harness(
          ts,
          hot('a 499ms b 499ms c 499ms d 499ms e 499ms f', {
            a: input({ keep }),
            b: input({ keep, other: srv() }),
            c: input({ keep, other: srv('v2') }),
            d: input({ keep, other: srv('v2') }, { mcp: { excluded: ['other'] } }),
            e: input({ keep: { ...keep, includeTools: ['k1', 'k2'] } }),
            f: input({ keep }, { project: { gated: srv() } }),
          }),
        );
        flush();
        expect(h.passes()).toHaveLength(6);
        expect(h.fake.starts('keep')).toBe(1);
        expect(h.fake.log.some((l) => l.includes('close keep'))).toBe(false);
        const connectedAt = h.snapshots.findIndex((s) => s.find((x) => x.name === 'keep')?.state === 'connected');
        for (const snapshot of h.snapshots.slice(connectedAt)) {
          const keepNow = snapshot.find((x) => x.name === 'keep');
          expect(keepNow?.state).toBe('connected');
          expect(keepNow?.tools.map((t) => t.name)).toEqual(['mcp__keep__k1', 'mcp__keep__k2']);
        }
      });
    });

    it('a view-field change re-filters in place: same process, filtered tools', () => {
      const ts = newScheduler();
      ts.run(({ hot, flush }) => {
        const h = harness(
          ts,
          hot('a 499ms b', {
            a: input({ s: srv('tools=a,b,c') }),
            b: input({ s: { ...srv('tools=a,b,c'), excludeTools: ['b'], description: 'x' } }),
          }),
        );
        flush();
        expect(h.passes()[1]).toMatchObject({ updated: ['s'], reconnected: [] });
        expect(h.fake.starts('s')).toBe(1);
        expect(h.server('s')?.tools.map((t) => t.tool)).toEqual(['a', 'c']);
      });
    });

    it('a connect that errors leaves only that server in error; the next pass retries it', () => {
      const ts = newScheduler();
      ts.run(({ hot, cold, flush }) => {
        const h = harness(ts, hot('a', { a: input({ bad: srv('fail=boom'), good: srv() }) }));
        cold('1s r').subscribe(() => h.r.reload());
        flush();
        expect(h.server('good')?.state).toBe('connected');
        expect(h.server('bad')).toMatchObject({ state: 'error', error: 'boom', tools: [] });
        expect(h.passes()[1]).toMatchObject({ reconnected: ['bad'], unchanged: 1 });
        expect(h.fake.starts('bad')).toBe(2);
        expect(h.fake.starts('good')).toBe(1);
      });
    });

    it('an invalid entry breaks only itself', () => {
      const ts = newScheduler();
      ts.run(({ hot, flush }) => {
        const h = harness(ts, hot('a', { a: input({ bad: { command: 'x', args: 'not-an-array' }, good: srv() }) }));
        flush();
        expect(h.server('good')?.state).toBe('connected');
        expect(h.server('bad')?.state).toBe('error');
        expect(h.server('bad')?.error).toMatch(/^invalid_config: .*args/);
        expect(h.fake.starts('bad')).toBe(0);
      });
    });

    it('servers$ lists every known server sorted by name, whenever it arrived', () => {
      const ts = newScheduler();
      ts.run(({ hot, flush }) => {
        const h = harness(ts, hot('a 499ms b', { a: input({ z: srv(), m: srv() }), b: input({ z: srv(), m: srv(), a: srv(), q: srv() }) }));
        flush();
        expect(h.snapshots.at(-1)!.map((s) => s.name)).toEqual(['a', 'm', 'q', 'z']);
      });
    });

    it('a removed server is disconnected and keeps the reason removed', () => {
      const ts = newScheduler();
      ts.run(({ hot, flush }) => {
        const h = harness(ts, hot('a 499ms b', { a: input({ s: srv(), t: srv() }), b: input({ t: srv() }) }));
        flush();
        expect(h.passes()[1]!.removed).toEqual(['s']);
        expect(h.server('s')).toMatchObject({ state: 'disconnected', reason: 'removed', tools: [] });
        expect(h.r.toolNotFoundMessage('mcp__s__echo')).toMatch(/add it back to settings/);
      });
    });

    it('tools/list_changed refreshes the tool list without a reconnect', () => {
      const ts = newScheduler();
      ts.run(({ hot, cold, flush }) => {
        const h = harness(ts, hot('a', { a: input({ s: srv('tools=a') }) }));
        cold('1s x').subscribe(() => h.fake.changeTools('s', ['a', 'b']));
        flush();
        expect(h.server('s')?.tools.map((t) => t.tool)).toEqual(['a', 'b']);
        expect(h.fake.starts('s')).toBe(1);
      });
    });
  });

  describe('the full-restart strategy (kept for comparison)', () => {
    it('restarts every server on a one-server edit, tearing all down before connecting any', () => {
      const ts = newScheduler();
      ts.run(({ hot, flush }) => {
        const h = harness(
          ts,
          hot('a 499ms b', { a: input({ x: srv(), y: srv(), z: srv() }), b: input({ x: srv('v2'), y: srv(), z: srv() }) }),
          { strategy: 'full' },
        );
        flush();
        expect(h.passes()[1]).toMatchObject({ reconnected: ['x', 'y', 'z'], unchanged: 0 });
        for (const n of ['x', 'y', 'z']) expect(h.fake.starts(n)).toBe(2);
        const lastClosed = Math.max(...h.fake.log.filter((l) => l.includes(' closed ')).map((l) => Number(l.split(' ')[0])));
        const reconnects = h.fake.log.filter((l) => / connect /.test(l)).slice(3).map((l) => Number(l.split(' ')[0]));
        expect(Math.min(...reconnects)).toBeGreaterThanOrEqual(lastClosed);
        // y and z had no tools in between: the 0-tools gap this project exists to avoid
        const gap = h.snapshots.some((snap) => snap.find((s) => s.name === 'y')?.tools.length === 0 && snap.length === 3);
        expect(gap).toBe(true);
      });
    });
  });

  describe('supervision', () => {
    it('a dead server is restarted after 1 s, 2 s, 4 s, 8 s and left in error after 5 failures in a row', async () => {
      const ts = newScheduler();
      let h!: ReturnType<typeof harness>;
      ts.run(({ hot, flush }) => {
        h = harness(ts, hot('a', { a: input({ s: srv() }) }));
        // Each time it is up again (connects take 10 ms), it dies 100 ms later.
        for (const at of [410, 1520, 3630, 7740, 15850]) {
          timer(at, ts).subscribe(() => h.fake.kill('s', 'process exited with code 1: boom'));
        }
        flush();
        const connects = h.fake.log.filter((l) => l.endsWith('connect s')).map((l) => Number(l.split(' ')[0]));
        expect(connects).toEqual([300, 1410, 3520, 7630, 15740]);
        // gaps = 110 ms up + the backoff: 1 s, 2 s, 4 s, 8 s
        expect(connects.slice(1).map((t, i) => t - connects[i]! - 110)).toEqual([1000, 2000, 4000, 8000]);
        expect(h.server('s')).toMatchObject({ state: 'error', tools: [] });
        expect(h.server('s')?.error).toMatch(/process exited with code 1: boom.*gave up after 5/);
      });
      // A call to the dead server fails at once, naming the tool and the error.
      await expect(h.r.callTool('mcp__s__echo', {})).rejects.toThrow(/mcp__s__echo.*process exited with code 1/s);
    });

    it('a manual reconnect after giving up starts it again', () => {
      const ts = newScheduler();
      ts.run(({ hot, flush }) => {
        const h = harness(ts, hot('a', { a: input({ s: srv() }) }), { maxFailures: 1 });
        timer(410, ts).subscribe(() => h.fake.kill('s'));
        timer(5000, ts).subscribe(() => h.r.reconnect('s'));
        flush();
        expect(h.fake.starts('s')).toBe(2);
        expect(h.server('s')?.state).toBe('connected');
        expect(h.passes().at(-1)).toMatchObject({ trigger: 'reconnect', reconnected: ['s'] });
      });
    });
  });

  describe('approvals', () => {
    it('a new gated server raises approval-required and is never connected until approved', () => {
      const ts = newScheduler();
      ts.run(({ hot, flush }) => {
        const gated = srv();
        const edited = srv('v2');
        const h = harness(
          ts,
          hot('a 499ms b 499ms c 499ms d 499ms e', {
            a: input({ u: srv() }),
            b: input({ u: srv() }, { project: { p: gated } }),
            c: input({ u: srv() }, { project: { p: gated }, approvals: { p: { hash: approvalHash(gated), status: 'rejected' } } }),
            d: input({ u: srv(), other: srv() }, { project: { p: gated }, approvals: { p: { hash: approvalHash(gated), status: 'rejected' } } }),
            e: input({ u: srv(), other: srv() }, { project: { p: edited }, approvals: { p: { hash: approvalHash(gated), status: 'rejected' } } }),
          }),
        );
        flush();
        const asks = h.events.filter((e) => e.type === 'approval-required');
        // b: asked; c: rejected (no ask); d: unrelated edit (no ask); e: config edited → asked again.
        expect(asks.map((e) => (e.type === 'approval-required' ? e.servers.map((s) => s.name) : []))).toEqual([['p'], ['p']]);
        expect(h.fake.starts('p')).toBe(0);
        expect(h.server('p')).toMatchObject({ state: 'blocked', reason: 'pending_approval', scope: 'project' });
        expect(h.pending).toEqual([[], ['p'], [], ['p']]);
      });
    });

    it('a rejected server shows the reason rejected', () => {
      const ts = newScheduler();
      ts.run(({ hot, flush }) => {
        const gated = srv();
        const h = harness(
          ts,
          hot('a 499ms b', {
            a: input({}, { project: { p: gated } }),
            b: input({}, { project: { p: gated }, approvals: { p: { hash: approvalHash(gated), status: 'rejected' } } }),
          }),
        );
        flush();
        expect(h.server('p')).toMatchObject({ state: 'blocked', reason: 'rejected' });
        expect(h.r.toolNotFoundMessage('mcp__p__echo')).toMatch(/edit its config to be asked again/);
      });
    });

    it('approving (persisted or for this session) connects the server', () => {
      const ts = newScheduler();
      ts.run(({ hot, flush }) => {
        const g1 = srv();
        const g2 = srv('two');
        const h = harness(
          ts,
          hot('a 499ms b', {
            a: input({}, { project: { g1, g2 } }),
            b: input({}, { project: { g1, g2 }, approvals: { g1: { hash: approvalHash(g1), status: 'approved' } }, sessionApprovals: { g2: approvalHash(g2) } }),
          }),
        );
        flush();
        expect(h.passes()[1]!.added).toEqual(['g1', 'g2']);
        expect(h.server('g1')?.state).toBe('connected');
        expect(h.server('g2')?.state).toBe('connected');
        expect(h.pending.at(-1)).toEqual([]);
      });
    });

    it('an approval bound to an older hash does not admit an edited config', () => {
      const ts = newScheduler();
      ts.run(({ hot, flush }) => {
        const before = srv();
        const after = srv('--evil');
        const h = harness(ts, hot('a', { a: input({}, { project: { p: after }, approvals: { p: { hash: approvalHash(before), status: 'approved' } } }) }));
        flush();
        expect(h.fake.starts('p')).toBe(0);
        expect(h.server('p')?.reason).toBe('pending_approval');
      });
    });
  });

  describe('lifecycle', () => {
    it('reload before start is a no-op', () => {
      const ts = newScheduler();
      ts.run(({ hot, flush }) => {
        const fake = fakeConnector(ts);
        const r = createReconciler(hot('a', { a: input({ s: srv() }) }), { connector: fake.connector, scheduler: ts, env: {} });
        const events: McpLiveEvent[] = [];
        r.events$.subscribe((e) => events.push(e));
        r.reload();
        flush();
        expect(events).toEqual([]);
        expect(fake.log).toEqual([]);
      });
    });

    it('events: server events of a pass come before its reconcile event, then ready', () => {
      const ts = newScheduler();
      ts.run(({ hot, flush }) => {
        const h = harness(ts, hot('a', { a: input({ s: srv() }) }));
        flush();
        expect(h.events.map((e) => (e.type === 'server' ? `server:${e.state}` : e.type))).toEqual([
          'server:connecting',
          'server:connected',
          'reconcile',
          'ready',
        ]);
      });
    });
  });
});
