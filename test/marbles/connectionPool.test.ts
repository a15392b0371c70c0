import type { TestScheduler } from 'rxjs/testing';
import { map, mergeMap, takeUntil, tap, timer, type Observable } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { AssembleInput } from '../../src/model/settings/assemble.js';
import { approvalHash } from '../../src/model/settings/approvalHash.js';
import type { Connection, Connector } from '../../src/model/connection.js';
import { fingerprint } from '../../src/model/reconcile/fingerprint.js';
import type { ApprovalDecisions, ResolvedServerConfig } from '../../src/model/types.js';
import { resolveServerConfig } from '../../src/model/settings/validate.js';
import { createReconciler, type ReconcilerDeps } from '../../src/live/reconciler.js';
import { createConnectionPool } from '../../src/sinks/mcp/connectionPool.js';
import { fakeConnector } from './fakeConnector.js';
import { input, newScheduler, observe, srv } from './inputs.js';

function resolved(config: unknown): ResolvedServerConfig {
  const r = resolveServerConfig(config, {});
  if (!r.ok) throw new Error(r.error);
  return r.resolved;
}

const GRACE = 1_000;

/** One fake connector behind one pool, shared by every session a test starts. */
function world(ts: TestScheduler, idleGraceMs = GRACE) {
  const fake = fakeConnector(ts);
  const pool = createConnectionPool({ connector: fake.connector, idleGraceMs, scheduler: ts });
  /** `<time> <session> <name>` for every acquire a session made. */
  const acquires: string[] = [];
  const session = (label: string, inputs$: Observable<AssembleInput>, deps: Partial<ReconcilerDeps> = {}) => {
    const spy: Connector = (name, config) => {
      acquires.push(`${ts.now()} ${label} ${name}`);
      return pool.connector(name, config);
    };
    return observe(createReconciler(inputs$, { connector: spy, scheduler: ts, env: {}, random: () => 0.5, ...deps }));
  };
  const closes = (name: string) => fake.log.filter((l) => l.includes(` close ${name} `));
  /** The connects, closes and closeds of NAME, in order. */
  const lifecycle = (name: string) =>
    fake.log.filter((l) => {
      const [, what, who] = l.split(' ');
      return who === name && (what === 'connect' || what === 'close' || what === 'closed');
    });
  return { fake, pool, acquires, session, closes, lifecycle };
}

const time = (entry: string | undefined) => Number(entry?.split(' ')[0]);

describe('the shared connection pool (virtual time)', () => {
  describe('acquire', () => {
    it('two sessions with the same server config share one spawn', () => {
      const ts = newScheduler();
      ts.run(({ hot, flush }) => {
        const w = world(ts);
        const a = w.session('A', hot('a', { a: input({ s: srv('tools=x,y') }) }));
        const b = w.session('B', hot('a', { a: input({ s: srv('tools=x,y') }) }));
        flush();
        expect(w.fake.starts('s')).toBe(1);
        for (const h of [a, b]) {
          expect(h.server('s')).toMatchObject({ state: 'connected', pid: 101 });
          expect(h.server('s')?.tools.map((t) => t.name)).toEqual(['mcp__s__x', 'mcp__s__y']);
        }
        expect(w.pool.stats()).toEqual([
          { key: fingerprint(resolved(srv('tools=x,y'))), refs: 2, pid: 101, idle: false },
        ]);
      });
    });

    it('concurrent acquires of one key in the same frame spawn once, whatever the name', () => {
      const ts = newScheduler();
      ts.run(({ expectObservable, flush }) => {
        const w = world(ts);
        const config = resolved(srv());
        const pid = (c: Connection) => c.pid;
        // The fake's connect takes 10 ms: every acquire gets a handle on the one process then.
        expectObservable(w.pool.connector('x', config).pipe(map(pid))).toBe('10ms (p|)', { p: 101 });
        expectObservable(w.pool.connector('x', config).pipe(map(pid))).toBe('10ms (p|)', { p: 101 });
        // The name is not part of the key: the same config under another name shares it.
        expectObservable(w.pool.connector('alias', config).pipe(map(pid))).toBe('10ms (p|)', { p: 101 });
        flush();
        expect(w.fake.starts('x')).toBe(1);
        expect(w.fake.starts('alias')).toBe(0);
        expect(w.pool.stats()).toMatchObject([{ refs: 3, pid: 101 }]);
      });
    });

    it('an acquire of a live connection attaches at once, with the current lists', () => {
      const ts = newScheduler();
      ts.run(({ hot, cold, expectObservable, flush }) => {
        const w = world(ts);
        const a = w.session('A', hot('a', { a: input({ s: srv('tools=a') }) }));
        const b = w.session('B', hot('a', { a: input({ s: srv('tools=a') }) }));
        cold('1s x').subscribe(() => w.fake.changeTools('s', ['a', 'b']));
        // Acquired after the list_changed: a handle in the same frame (no spawn), whose lists
        // are the shared connection's now, not the ones it started with.
        const late$ = cold('2s (x|)').pipe(mergeMap(() => w.pool.connector('s', resolved(srv('tools=a')))));
        const tools: string[][] = [];
        expectObservable(late$.pipe(map((c) => (tools.push(c.lists.tools.map((t) => t.name)), c.pid)))).toBe('2s (p|)', {
          p: 101,
        });
        expectObservable(cold('2s x').pipe(map(() => w.pool.stats()[0]?.refs))).toBe('2s x', { x: 3 });
        flush();
        expect(tools).toEqual([['a', 'b']]);
        // Every session heard the list_changed of the one process.
        for (const h of [a, b]) expect(h.server('s')?.tools.map((t) => t.tool)).toEqual(['a', 'b']);
        expect(w.fake.starts('s')).toBe(1);
      });
    });

    it('a failed spawn is not cached: every waiter gets the error, the next acquire tries again', () => {
      const ts = newScheduler();
      ts.run(({ hot, cold, flush }) => {
        const w = world(ts);
        const a = w.session('A', hot('a', { a: input({ bad: srv('fail=boom') }) }));
        const b = w.session('B', hot('a', { a: input({ bad: srv('fail=boom') }) }));
        let statsAfterFailure: unknown;
        cold('500ms x').subscribe(() => (statsAfterFailure = w.pool.stats()));
        cold('1s r').subscribe(() => a.r.reload());
        flush();
        expect(statsAfterFailure).toEqual([]);
        for (const h of [a, b]) expect(h.server('bad')).toMatchObject({ state: 'error', error: 'boom' });
        // Both sessions' first attempts (their initial passes, at once) were one spawn; A's reload spawned again.
        expect(w.fake.log.filter((l) => l.endsWith('connect bad')).map(time)).toEqual([0, 1000]);
        expect(w.acquires).toEqual(['0 A bad', '0 B bad', '1000 A bad']);
      });
    });

    it('an acquire that unsubscribes while waiting drops its reference; the last one aborts the spawn', () => {
      const ts = newScheduler();
      ts.run(({ expectObservable, cold, flush }) => {
        const w = world(ts);
        const config = resolved(srv());
        const pid = (c: Connection) => c.pid;
        // Two waiters, one leaves at 5 ms: the other gets the handle, and holds the only reference.
        expectObservable(w.pool.connector('s', config).pipe(map(pid)), '^ 4ms !').toBe('');
        expectObservable(w.pool.connector('s', config).pipe(map(pid))).toBe('10ms (p|)', { p: 101 });
        let refs: unknown;
        cold('20ms x').subscribe(() => (refs = w.pool.stats()));
        flush();
        expect(refs).toMatchObject([{ refs: 1, pid: 101 }]);
      });

      const ts2 = newScheduler();
      ts2.run(({ expectObservable, cold, flush }) => {
        const w = world(ts2);
        const config = resolved(srv());
        // The only waiter leaves at 5 ms: the spawn is aborted and nothing stays in the pool.
        expectObservable(w.pool.connector('s', config), '^ 4ms !').toBe('');
        let after: unknown;
        cold('20ms x').subscribe(() => (after = w.pool.stats()));
        cold('30ms x').pipe(mergeMap(() => w.pool.connector('s', config))).subscribe();
        flush();
        expect(after).toEqual([]);
        expect(w.fake.log).toEqual(['0 connect s', '30 connect s', '40 connected s pid=101']);
      });
    });
  });

  describe('release', () => {
    it('one session removing the server leaves the connection to the other', () => {
      const ts = newScheduler();
      ts.run(({ hot, flush }) => {
        const w = world(ts);
        const a = w.session('A', hot('a 499ms b', { a: input({ s: srv() }), b: input({}) }));
        const b = w.session('B', hot('a', { a: input({ s: srv() }) }));
        flush();
        expect(a.server('s')).toMatchObject({ state: 'disconnected', reason: 'removed', tools: [] });
        expect(b.server('s')).toMatchObject({ state: 'connected', pid: 101 });
        expect(w.closes('s')).toEqual([]);
        expect(w.pool.stats()).toMatchObject([{ refs: 1, pid: 101, idle: false }]);
      });
    });

    it('both removing it closes it exactly idleGraceMs after the last release', () => {
      const ts = newScheduler();
      ts.run(({ hot, cold, flush }) => {
        const w = world(ts);
        w.session('A', hot('a 499ms b', { a: input({ s: srv() }), b: input({}) }));
        w.session('B', hot('a 999ms b', { a: input({ s: srv() }), b: input({}) }));
        let during: unknown;
        cold('2299ms x').subscribe(() => (during = w.pool.stats()));
        flush();
        // A released at 800, B at 1300 (each removal settles 300 ms after the save).
        expect(during).toMatchObject([{ refs: 0, pid: 101, idle: true }]);
        expect(w.closes('s').map(time)).toEqual([1300 + GRACE]);
        expect(w.fake.log.at(-1)).toBe(`${1300 + GRACE + 5} closed s pid=101`);
        expect(w.pool.stats()).toEqual([]);
      });
    });

    it('a re-acquire within the grace cancels the close; after the grace it spawns anew', () => {
      const ts = newScheduler();
      ts.run(({ hot, flush }) => {
        const w = world(ts);
        // released at 800, acquired again at 1300 (< 800 + 1000)
        const a = w.session('A', hot('a 499ms b 499ms c', { a: input({ s: srv() }), b: input({}), c: input({ s: srv() }) }));
        flush();
        expect(w.fake.starts('s')).toBe(1);
        expect(w.closes('s')).toEqual([]);
        expect(a.server('s')).toMatchObject({ state: 'connected', pid: 101 });
        expect(w.pool.stats()).toMatchObject([{ refs: 1, idle: false }]);
      });

      const ts2 = newScheduler();
      ts2.run(({ hot, flush }) => {
        const w = world(ts2);
        // released at 800, closed at 1800, acquired again at 2300
        const a = w.session('A', hot('a 499ms b 1499ms c', { a: input({ s: srv() }), b: input({}), c: input({ s: srv() }) }));
        flush();
        expect(w.closes('s').map(time)).toEqual([800 + GRACE]);
        expect(w.fake.log.filter((l) => l.endsWith('connect s')).map(time)).toEqual([0, 2300]);
        expect(a.server('s')).toMatchObject({ state: 'connected', pid: 102 });
      });
    });

    it("a handle's close is idempotent, completes at once, and its calls fail afterwards", async () => {
      const ts = newScheduler();
      const handles: Connection[] = [];
      let w!: ReturnType<typeof world>;
      ts.run(({ expectObservable, cold, flush }) => {
        w = world(ts);
        const config = resolved(srv());
        w.pool.connector('s', config).subscribe((c) => handles.push(c));
        w.pool.connector('s', config).subscribe((c) => handles.push(c));
        // Closing the first handle twice drops one reference, not two: the other keeps it open.
        cold('20ms x').subscribe(() => {
          void handles[0]!.close();
          void handles[0]!.close();
        });
        expectObservable(cold('20ms x').pipe(map(() => 0))).toBe('20ms x', { x: 0 });
        flush();
        expect(w.pool.stats()).toMatchObject([{ refs: 1, idle: false }]);
        expect(w.closes('s')).toEqual([]);
      });
      await expect(handles[0]!.callTool('echo', {})).rejects.toThrow(/connection closed/);
      await expect(handles[1]!.callTool('echo', { a: 1 })).resolves.toEqual({ tool: 'echo', args: { a: 1 } });
    });

    it('dispose closes every pooled connection now; acquires after it fail', () => {
      const ts = newScheduler();
      ts.run(({ cold, flush }) => {
        const w = world(ts);
        const held = resolved(srv());
        const idle = resolved(srv('other'));
        const errors: string[] = [];
        const seen = (e: unknown) => errors.push(e instanceof Error ? e.message : String(e));
        // A session holding one connection (listening to it), and one released (idle).
        const listening = w.pool.connector('held', held).pipe(mergeMap((c) => c.lists$)).subscribe({ error: seen });
        w.pool.connector('idle', idle).subscribe((c) => void c.close());
        cold('100ms x').subscribe(() => void w.pool.dispose());
        cold('200ms x').pipe(mergeMap(() => w.pool.connector('held', held))).subscribe({ error: seen });
        flush();
        expect(w.fake.log.filter((l) => l.includes(' close ')).map((l) => l.split(' pid')[0])).toEqual([
          '100 close held',
          '100 close idle',
        ]);
        expect(errors).toEqual(['connection pool disposed', 'connection pool disposed']);
        expect(w.fake.starts('held')).toBe(1);
        expect(w.pool.stats()).toEqual([]);
        expect(listening.closed).toBe(true);
      });
    });
  });

  describe('supervision', () => {
    const jitters: [string, number, number][] = [
      ['in the same frame', 0.5, 0.5],
      ['at different times (jitter)', 0.5, 0.9],
    ];
    for (const [when, randomA, randomB] of jitters) {
      it(`a crash seen by both sessions restarts it once (${when})`, () => {
        const ts = newScheduler();
        ts.run(({ hot, flush }) => {
          const w = world(ts);
          const a = w.session('A', hot('a', { a: input({ s: srv() }) }), { random: () => randomA });
          const b = w.session('B', hot('a', { a: input({ s: srv() }) }), { random: () => randomB });
          let statsAfterKill: unknown;
          timer(500, ts).subscribe(() => {
            w.fake.kill('s', 'process exited with code 1: boom');
            statsAfterKill = w.pool.stats();
          });
          flush();
          // The dead entry left the pool at once, so the first restart spawned and the other attached.
          expect(statsAfterKill).toEqual([]);
          expect(w.fake.starts('s')).toBe(2);
          for (const h of [a, b]) {
            expect(h.server('s')).toMatchObject({ state: 'connected', pid: 102 });
            expect(h.server('s')?.history.map((x) => x.message).filter(Boolean)).toEqual([
              'process exited with code 1: boom',
            ]);
          }
          expect(w.pool.stats()).toMatchObject([{ refs: 2, pid: 102 }]);
          expect(w.closes('s')).toEqual([]);
        });
      });
    }
  });

  describe('reconnect', () => {
    it('/reconnect in pool mode restarts the shared process for every session: old gone first, one spawn', () => {
      const ts = newScheduler();
      ts.run(({ hot, cold, flush }) => {
        const w = world(ts);
        const a = w.session('A', hot('a', { a: input({ s: srv('close=50') }) }), { restartShared: (key) => w.pool.restart(key) });
        const b = w.session('B', hot('a', { a: input({ s: srv('close=50') }) }));
        cold('1s x').subscribe(() => a.r.reconnect('s'));
        flush();
        expect(a.events.filter((e) => e.type === 'reconcile').at(-1)).toMatchObject({ trigger: 'reconnect', reconnected: ['s'] });
        // B follows at once (no backoff); A after its disconnect finished, when the old process was gone.
        expect(w.acquires).toEqual(['0 A s', '0 B s', '1000 B s', '1050 A s']);
        expect(w.lifecycle('s')).toEqual([
          '0 connect s',
          '1000 close s pid=101',
          '1050 closed s pid=101',
          '1050 connect s',
        ]);
        for (const h of [a, b]) expect(h.server('s')).toMatchObject({ state: 'connected', pid: 102 });
        expect(b.server('s')?.history.map((x) => x.message).filter(Boolean)).toEqual([
          'restarted by /reconnect in another session',
        ]);
        expect(w.pool.stats()).toMatchObject([{ refs: 2, pid: 102 }]);
      });
    });

    it('without restartShared, /reconnect re-attaches to the live process', () => {
      const ts = newScheduler();
      ts.run(({ hot, cold, flush }) => {
        const w = world(ts);
        const a = w.session('A', hot('a', { a: input({ s: srv() }) }));
        const b = w.session('B', hot('a', { a: input({ s: srv() }) }));
        cold('1s x').subscribe(() => a.r.reconnect('s'));
        flush();
        expect(w.acquires).toEqual(['0 A s', '0 B s', '1000 A s']);
        expect(w.fake.starts('s')).toBe(1);
        expect(w.closes('s')).toEqual([]);
        for (const h of [a, b]) expect(h.server('s')).toMatchObject({ state: 'connected', pid: 101 });
      });
    });

    it('restart(key) of a key with no live connection does nothing', () => {
      const ts = newScheduler();
      ts.run(({ flush }) => {
        const w = world(ts);
        expect(w.pool.restart('no-such-key')).toBeUndefined();
        flush();
        expect(w.fake.log).toEqual([]);
      });
    });
  });

  describe('one process per config at a time', () => {
    it('an acquire while the idle close is under way waits until the old process is gone, then spawns', () => {
      const ts = newScheduler();
      ts.run(({ hot, flush }) => {
        const w = world(ts);
        // released at 800, close starts at 1800 and takes 200 ms, acquired again at 1900 (save at 1600)
        const a = w.session('A', hot('a 499ms b 1099ms c', { a: input({ s: srv('close=200') }), b: input({}), c: input({ s: srv('close=200') }) }));
        flush();
        expect(w.lifecycle('s')).toEqual([
          '0 connect s',
          '1800 close s pid=101',
          '2000 closed s pid=101',
          '2000 connect s',
        ]);
        expect(a.server('s')).toMatchObject({ state: 'connected', pid: 102 });
      });
    });

    it('an acquire that gives up while waiting for the close spawns nothing', () => {
      const ts = newScheduler();
      ts.run(({ flush }) => {
        const w = world(ts);
        const config = resolved(srv('close=200'));
        // Connected at 10, released at 110, idle close from 1110 to 1310; an acquire at 1200 waits and leaves at 1250.
        w.pool
          .connector('s', config)
          .pipe(mergeMap((handle) => timer(100, ts).pipe(tap(() => void handle.close()))))
          .subscribe();
        timer(1200, ts)
          .pipe(mergeMap(() => w.pool.connector('s', config).pipe(takeUntil(timer(50, ts)))))
          .subscribe();
        flush();
        expect(w.lifecycle('s')).toEqual([
          '0 connect s',
          '1110 close s pid=101',
          '1310 closed s pid=101',
        ]);
        expect(w.pool.stats()).toEqual([]);
      });
    });
  });

  describe('per-session state', () => {
    it('a fingerprint change in session A only: A gets a new connection, B keeps the old one', () => {
      const ts = newScheduler();
      ts.run(({ hot, flush }) => {
        const w = world(ts);
        const a = w.session('A', hot('a 499ms b', { a: input({ s: srv() }), b: input({ s: srv('v2') }) }));
        const b = w.session('B', hot('a', { a: input({ s: srv() }) }));
        flush();
        expect(a.server('s')).toMatchObject({ state: 'connected', pid: 102, fingerprint: fingerprint(resolved(srv('v2'))) });
        expect(b.server('s')).toMatchObject({ state: 'connected', pid: 101, fingerprint: fingerprint(resolved(srv())) });
        expect(w.closes('s')).toEqual([]);
        expect(w.pool.stats().map((s) => [s.pid, s.refs]).sort()).toEqual([[101, 1], [102, 1]]);
      });
    });

    it('a view-field change re-filters that session only, without touching the pool', () => {
      const ts = newScheduler();
      ts.run(({ hot, flush }) => {
        const w = world(ts);
        const a = w.session('A', hot('a 499ms b', {
          a: input({ s: srv('tools=a,b') }),
          b: input({ s: { ...srv('tools=a,b'), excludeTools: ['b'] } }),
        }));
        const b = w.session('B', hot('a', { a: input({ s: srv('tools=a,b') }) }));
        flush();
        expect(a.server('s')?.tools.map((t) => t.tool)).toEqual(['a']);
        expect(b.server('s')?.tools.map((t) => t.tool)).toEqual(['a', 'b']);
        expect(w.acquires).toEqual(['0 A s', '0 B s']);
        expect(w.fake.starts('s')).toBe(1);
      });
    });

    it('a gated .mcp.json server added by hot reload is never acquired until approved, and only by the session that approved it', () => {
      const ts = newScheduler();
      ts.run(({ hot, flush }) => {
        const w = world(ts);
        const gated = srv('gated');
        const project = { p: gated };
        const rejected: ApprovalDecisions = { p: { hash: approvalHash(gated), status: 'rejected' } };
        // A: p added at 500 (pending), approved for this session at 1500 → pass at 1800.
        const a = w.session('A', hot('a 499ms b 999ms c', {
          a: input({}),
          b: input({}, { project }),
          c: input({}, { project, sessionApprovals: { p: approvalHash(gated) } }),
        }));
        // B: p added at 500 (pending), rejected at 1000, an unrelated edit at 1500.
        const b = w.session('B', hot('a 499ms b 499ms c 499ms d', {
          a: input({}),
          b: input({}, { project }),
          c: input({}, { project, approvals: rejected }),
          d: input({ u: srv() }, { project, approvals: rejected }),
        }));
        flush();
        expect(w.acquires).toEqual(['1800 A p', '1800 B u']);
        expect(w.fake.log.filter((l) => l.endsWith('connect p')).map(time)).toEqual([1800]);
        expect(a.server('p')).toMatchObject({ state: 'connected', scope: 'project' });
        expect(a.pending).toEqual([[], ['p'], []]);
        // B never had it, though A's process runs in the shared pool.
        expect(b.server('p')).toMatchObject({ state: 'blocked', reason: 'rejected', tools: [] });
        expect(b.r.requests.toolNotFoundMessage('mcp__p__echo')).toMatch(/edit its config to be asked again/);
        expect(b.pending).toEqual([[], ['p'], []]);
        expect(w.pool.stats()).toHaveLength(2);
      });
    });
  });
});
