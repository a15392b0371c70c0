import type { TestScheduler } from 'rxjs/testing';
import { timer, type Observable } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { AssembleInput } from '../../src/model/settings/assemble.js';
import { approvalHash } from '../../src/model/settings/approvalHash.js';
import type { McpLiveEvent, ReconcileEvent } from '../../src/model/report/events.js';
import type { PendingApproval } from '../../src/model/report/status.js';
import { createReconciler, type ReconcilerDeps } from '../../src/live/reconciler.js';
import { fakeConnector } from './fakeConnector.js';
import { input, newScheduler, observe, play, srv, type InputOptions, type Stage } from './inputs.js';

/** Starts a reconciler on `inputs$` and records everything it says. */
function harness(ts: TestScheduler, inputs$: Observable<AssembleInput>, deps: Partial<ReconcilerDeps> = {}) {
  const fake = fakeConnector(ts);
  const seen = observe(createReconciler(inputs$, { connector: fake.connector, scheduler: ts, env: {}, random: () => 0.5, ...deps }));
  const passes = () => seen.events.filter((e): e is ReconcileEvent => e.type === 'reconcile');
  return { fake, ...seen, passes };
}

type Harness = ReturnType<typeof harness>;

/** Plays `marbles` of `values` to a reconciler with `deps` (see {@link play}); returns its harness. */
function scene(
  marbles: string,
  values: Record<string, AssembleInput>,
  { deps, meanwhile }: { deps?: Partial<ReconcilerDeps>; meanwhile?: (h: Harness, stage: Stage) => void } = {},
): Harness {
  return play(marbles, values, (ts, inputs$) => harness(ts, inputs$, deps), meanwhile);
}

/** The promptable set as it stands, with what each entry shows. */
function latestPending(h: Harness): readonly PendingApproval[] {
  let latest: readonly PendingApproval[] = [];
  h.r.pendingApprovals$.subscribe((p) => (latest = p)).unsubscribe();
  return latest;
}

/** When NAME last entered STATE (virtual ms). */
function since(h: Harness, name: string, state: string): number {
  return h.server(name)?.history.filter((x) => x.state === state).at(-1)?.ts ?? Infinity;
}

describe('reconcile pipeline (virtual time)', () => {
  describe('debounce and the equality gate', () => {
    /** Marble values for `keys`: the first has the user server s0, each one after it adds the next (s1, s2, …). */
    const eachAddsOne = (keys: string) =>
      Object.fromEntries([...keys].map((key, n) => [key, input(Object.fromEntries(Array.from({ length: n + 1 }, (_, i) => [`s${i}`, srv()])))]));

    it('five saves within 300 ms make one pass with the last state', () => {
      // The settled start (i), then five saves from 1000 to 1204.
      const h = scene('i 999ms a 50ms b 50ms c 50ms d 50ms e', eachAddsOne('iabcde'));
      expect(h.passes().map((p) => [p.trigger, p.added])).toEqual([
        ['initial', ['s0']],
        ['watch', ['s1', 's2', 's3', 's4', 's5']],
      ]);
      // The initial pass went out at once (decision 220) and took the 10 ms connect; the burst's
      // pass started 300 ms after its last save (1204 ms) and took the 10 ms connect.
      expect(h.passes()[0]!.ts).toBe(0 + 10);
      expect(h.passes()[1]!.ts).toBe(1204 + 300 + 10);
    });

    it('two bursts 400 ms apart make two passes', () => {
      // The settled start (i), then a burst at 1000 and 1051, and one at 1452 and 1503.
      const h = scene('i 999ms a 50ms b 400ms c 50ms d', eachAddsOne('iabcd'));
      expect(h.passes().map((p) => p.added)).toEqual([['s0'], ['s1', 's2'], ['s3', 's4']]);
      expect(h.passes().map((p) => p.trigger)).toEqual(['initial', 'watch', 'watch']);
      // The initial pass at once (decision 220); each burst's 300 ms after its last save (+ the 10 ms connect).
      expect(h.passes().map((p) => p.ts)).toEqual([0 + 10, 1051 + 300 + 10, 1503 + 300 + 10]);
    });

    it('a theme-only change (servers and gating equal) makes no pass', () => {
      const h = scene('a 500ms b', { a: input({ s1: srv() }), b: input({ s1: srv() }) });
      expect(h.passes()).toHaveLength(1);
      expect(h.fake.starts('s1')).toBe(1);
    });

    it('a change of mcp.excluded only makes a pass that disconnects the excluded server', () => {
      const h = scene('a 500ms b', {
        a: input({ s1: srv(), s2: srv() }),
        b: input({ s1: srv(), s2: srv() }, { mcp: { excluded: ['s2'] } }),
      });
      expect(h.passes()).toHaveLength(2);
      expect(h.passes()[1]!.blocked).toEqual(['s2']);
      expect(h.server('s2')).toMatchObject({ state: 'blocked', reason: 'excluded', tools: [] });
      expect(h.server('s1')?.state).toBe('connected');
      expect(h.fake.log.some((l) => l.includes('closed s2'))).toBe(true);
    });

    it('mcp.allowed going from absent to [] makes a pass that blocks everything', () => {
      const h = scene('a 500ms b', {
        a: input({ s1: srv(), s2: srv() }),
        b: input({ s1: srv(), s2: srv() }, { mcp: { allowed: [] } }),
      });
      expect(h.passes()).toHaveLength(2);
      expect(h.passes()[1]!.blocked).toEqual(['s1', 's2']);
      for (const name of ['s1', 's2']) {
        expect(h.server(name)).toMatchObject({ state: 'blocked', reason: 'not_allowed', notAllowedBy: 'settings' });
      }
    });
  });

  describe('one pass at a time', () => {
    it('a change during a running pass stops its waiting: the newer state applies at once, the slow connect goes on', () => {
      const slow = srv('connect=1300');
      const h = scene('a 349ms b 349ms c', {
        a: input({ slow }),
        b: input({ slow, b1: srv() }),
        c: input({ slow, c1: srv() }),
      });
      // pass 1 from 0 (decision 220; slow connects until 1300); b settles at 650: pass 1 stops waiting and
      // pass 2 connects b1 at once; c settles at 1000: the same again. The last pass keeps slow's
      // attempt and waits for it, so its reconcile event follows slow's `connected`.
      expect(h.passes().map((p) => [p.generation, p.ts, p.added, p.removed, p.unchanged])).toEqual([
        [1, 650, ['slow'], [], 0],
        [2, 1000, ['b1'], [], 1],
        [3, 1300, ['c1'], ['b1'], 1],
      ]);
      expect(h.server('b1')?.history.map((x) => [x.ts, x.state])).toEqual([
        [650, 'connecting'],
        [660, 'connected'],
        [1000, 'disconnected'],
      ]);
      expect(h.events.findIndex((e) => e.type === 'server' && e.name === 'slow' && e.state === 'connected')).toBeLessThan(
        h.events.findIndex((e) => e.type === 'reconcile' && e.generation === 3),
      );
      // One process for slow throughout: still wanted, never aborted, connected when it was ready.
      expect(h.fake.starts('slow')).toBe(1);
      expect(h.fake.aborts).toEqual([]);
      expect(h.server('slow')?.history.map((x) => [x.ts, x.state])).toEqual([
        [0, 'connecting'],
        [1300, 'connected'],
      ]);
    });

    it('what a superseded pass had not started yet is planned again by the next pass', () => {
      // One slot: h1 holds it from 0 (the initial pass, at once) until 5000, so s2 is still queued when b arrives.
      const h1 = srv('connect=5000');
      const h = scene('a 999ms b', { a: input({ h1, s2: srv() }), b: input({ h1, s2: srv(), t: srv() }) }, { deps: { concurrency: 1 } });
      expect(h.fake.starts('s2')).toBe(1);
      expect(h.fake.starts('h1')).toBe(1);
      expect(h.fake.aborts).toEqual([]);
      // one slot: s2 then t, 10 ms each; h1 (kept, connecting) needs no slot
      expect(since(h, 's2', 'connected')).toBe(1310);
      expect(since(h, 't', 'connected')).toBe(1320);
      expect(h.passes().map((p) => [p.ts, p.added, p.unchanged])).toEqual([
        [1300, ['h1', 's2'], 0],
        [5000, ['s2', 't'], 1],
      ]);
    });

    it('a manual reload during a pass runs at once, without restarting the slow connect', () => {
      const h = scene('a', { a: input({ slow: srv('connect=500') }) }, {
        meanwhile: (h, { cold }) => {
          cold('400ms r 10ms r').subscribe(() => h.r.reload());
        },
      });
      // The first pass runs from 0 (decision 220) and stops waiting at 400; each reload is a pass
      // of its own, and the last one waits for the connect it kept (until 500).
      expect(h.passes().map((p) => [p.trigger, p.ts, p.unchanged])).toEqual([
        ['initial', 400, 0],
        ['reload', 411, 1],
        ['reload', 500, 1],
      ]);
      expect(h.fake.starts('slow')).toBe(1);
      expect(h.server('slow')?.state).toBe('connected');
    });
  });

  describe('a newer desired state never waits on a hung connect (decision 17)', () => {
    // `hang` never answers initialize; `good` is connected. The newer input arrives at 1000 and
    // settles at 1300 (debounce 300): everything it asks for is done by 1300 + the 5 ms close.
    const hang = srv('hang');
    const good = srv();
    const APPLIED_BY = 1000 + 300 + 10;
    const project = (o: InputOptions) => input({}, { ...o, project: { good, hang } });
    const approved = { good: { hash: approvalHash(good), status: 'approved' as const }, hang: { hash: approvalHash(hang), status: 'approved' as const } };
    const rejected = { good: { ...approved.good, status: 'rejected' as const }, hang: { ...approved.hang, status: 'rejected' as const } };
    const untrusted = (a: AssembleInput): AssembleInput => ({
      ...a,
      folderTrusted: false,
      sources: a.sources.map((src) => (src.scope === 'user' ? { ...src, folderTrustEnabled: true } : src)),
    });

    /** Starts with `before`, writes `after` at 1000; returns the harness after everything settled. */
    const run = (before: AssembleInput, after: AssembleInput) => scene('a 999ms b', { a: before, b: after });

    const kills: [string, AssembleInput, AssembleInput, string, 'blocked' | 'disconnected'][] = [
      ['excluded', input({ good, hang }), input({ good, hang }, { mcp: { excluded: ['good', 'hang'] } }), 'excluded', 'blocked'],
      ['disabled', input({ good, hang }), input({ good: { ...good, disabled: true }, hang: { ...hang, disabled: true } }), 'disabled', 'blocked'],
      ['removed', input({ good, hang }), input({}), 'removed', 'disconnected'],
      ['not in mcp.allowed', input({ good, hang }), input({ good, hang }, { mcp: { allowed: [] } }), 'not_allowed', 'blocked'],
      ['folder untrusted', input({ good, hang }), untrusted(input({ good, hang })), 'untrusted_folder', 'blocked'],
      ['rejected', project({ approvals: approved }), project({ approvals: rejected }), 'rejected', 'blocked'],
    ];
    for (const [what, before, after, reason, state] of kills) {
      it(`${what}: the hung connect is aborted and both servers are down by debounce + 10 ms`, async () => {
        const h = run(before, after);
        expect(h.fake.aborts).toEqual(['1300 aborted hang']);
        for (const name of ['good', 'hang']) {
          expect(h.server(name)).toMatchObject({ state, reason, tools: [] });
          expect(since(h, name, state)).toBeLessThanOrEqual(APPLIED_BY);
        }
        expect(h.passes().map((p) => [p.generation, p.ts])).toEqual([
          [1, 1300],
          [2, 1305],
        ]);
        await expect(h.r.requests.callTool('mcp__good__echo', {})).rejects.toThrow(/mcp__good__echo/);
      });
    }

    it('changed: the hung attempt is aborted and the new config connects at once', () => {
      const h = run(input({ good, hang }), input({ good, hang: srv('tools=fixed') }));
      expect(h.fake.aborts).toEqual(['1300 aborted hang']);
      expect(h.fake.log.filter((l) => l.endsWith('connect hang'))).toEqual(['0 connect hang', '1300 connect hang']);
      expect(h.server('hang')).toMatchObject({ state: 'connected', tools: [{ tool: 'fixed' }] });
      expect(h.passes()[1]).toMatchObject({ ts: 1310, reconnected: ['hang'], unchanged: 1 });
    });

    it('a change that does not concern the hung server keeps its attempt, and applies at once', () => {
      const h = run(input({ good, hang }), input({ good, hang, other: srv() }));
      expect(h.fake.aborts).toEqual([]);
      expect(h.fake.starts('hang')).toBe(1);
      expect(h.server('hang')?.state).toBe('connecting');
      expect(since(h, 'other', 'connected')).toBe(1310);
      // The second pass keeps hang's attempt and, as any pass, waits for it: no report yet.
      expect(h.passes().map((p) => [p.generation, p.ts])).toEqual([[1, 1300]]);
    });

    it('ready comes after the first pass that ran to its end, not after a superseded one', () => {
      const h = run(input({ good, hang }), input({ good, hang }, { mcp: { excluded: ['hang'] } }));
      expect(h.events.filter((e) => e.type === 'reconcile' || e.type === 'ready').map((e) => `${e.type}@${e.ts}`)).toEqual([
        'reconcile@1300',
        'reconcile@1300',
        'ready@1300',
      ]);
    });

    it('/reconnect of a hung server aborts its attempt and starts a new one at once', () => {
      const h = scene('a', { a: input({ good, hang }) }, {
        meanwhile: (h, { ts }) => {
          timer(1000, ts).subscribe(() => h.r.reconnect('hang'));
        },
      });
      expect(h.fake.aborts).toEqual(['1000 aborted hang']);
      expect(h.fake.log.filter((l) => l.endsWith('connect hang'))).toEqual(['0 connect hang', '1000 connect hang']);
      // The first pass stopped waiting at 1000; the reconnect's pass waits for the new attempt.
      expect(h.passes().map((p) => [p.trigger, p.ts])).toEqual([['initial', 1000]]);
      expect(h.server('hang')?.history.map((x) => [x.ts, x.state])).toEqual([
        [0, 'connecting'],
        [1000, 'disconnected'],
        [1000, 'connecting'],
      ]);
    });

    it('a hung server added in the same pass does not hold up the block of another (no slot needed)', () => {
      // One slot, and `a1` sorts first: a block that queued for a slot would wait forever.
      const h = scene('a 999ms b', { a: input({ good }), b: input({ good, a1: hang }, { mcp: { excluded: ['good'] } }) }, { deps: { concurrency: 1 } });
      expect(h.server('good')).toMatchObject({ state: 'blocked', reason: 'excluded' });
      expect(since(h, 'good', 'blocked')).toBe(1305);
      expect(h.server('a1')?.state).toBe('connecting');
    });

    it('a pass waiting for a wedged process to close does not hold up a newer state; the close still finishes', () => {
      const wedged = srv('close=5000');
      const h = scene('a 999ms b 999ms c', {
        a: input({ good, wedged }),
        b: input({ good }),
        c: input({ good }, { mcp: { excluded: ['good'] } }),
      });
      // b (1300): wedged's tools go at once, its process takes until 6300 to end.
      expect(since(h, 'wedged', 'disconnected')).toBe(1300);
      // c (2300): good is blocked 5 ms later, while wedged is still closing.
      expect(since(h, 'good', 'blocked')).toBe(2305);
      expect(h.passes().map((p) => [p.generation, p.ts])).toEqual([
        [1, 10],
        [2, 2300],
        // the pass of c blocked good at 2305, then waited for wedged's old process to end
        [3, 6300],
      ]);
      expect(h.fake.log.filter((l) => l.includes(' wedged '))).toEqual(['10 connected wedged pid=102', '1300 close wedged pid=102', '6300 closed wedged pid=102']);
      expect(h.server('wedged')).toMatchObject({ state: 'disconnected', reason: 'removed' });
    });

    it('a stop-first server whose old process is still closing connects only after it is gone', () => {
      const stopFirst = (...args: string[]) => ({ ...srv(...args), restart: 'stop-first' });
      const h = scene('a 999ms b 999ms c', {
        a: input({ x: stopFirst('close=5000') }),
        b: input({ x: stopFirst('close=5000', 'v2') }),
        c: input({ x: stopFirst('close=5000', 'v2'), y: srv() }),
      });
      // b (1300): x's reconnect waits for the close (until 6300); c (2300) supersedes that pass,
      // and the next pass keeps x's pending attempt: it starts only when the old process is gone.
      expect(h.fake.log.filter((l) => / x( |$)/.test(l))).toEqual([
        '0 connect x',
        '10 connected x pid=101',
        '1300 close x pid=101',
        '6300 closed x pid=101',
        '6300 connect x',
        '6310 connected x pid=103',
      ]);
      expect(h.server('y')?.state).toBe('connected');
      expect(since(h, 'y', 'connected')).toBe(2310);
    });
  });

  describe('per-server reconcile', () => {
    it("a stop-first reconnect's disconnect completes before its connect, while another server's slow connect overlaps", () => {
      const h = scene('a 999ms b', {
        a: input({ x: { ...srv('close=100'), restart: 'stop-first' } }),
        b: input({ x: { ...srv('close=100', 'v2'), restart: 'stop-first' }, z: srv('connect=200') }),
      });
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

    it('make-before-break: the new config connects while the old one serves, one swap emission, then the old one closes', () => {
      // Every tools$ value while it runs: the edited server's tools never go away.
      const tools: string[][] = [];
      const h = scene('a 999ms b', {
        a: input({ x: srv('close=100', 'connect=50', 'tools=t1,t2') }),
        b: input({ x: srv('close=100', 'connect=50', 'tools=t1,t2', 'v2') }),
      }, {
        meanwhile: (h) => {
          h.r.board.tools$.subscribe((list) => tools.push(list.filter((t) => t.server === 'x').map((t) => t.tool)));
        },
      });
      expect(h.fake.log.filter((l) => / x( |$)/.test(l))).toEqual([
        '0 connect x',
        '50 connected x pid=101',
        // b at 1000 → pass at 1300: the new process starts while pid 101 still serves …
        '1300 connect x',
        '1350 connected x pid=102',
        // … and the old one is closed only after the swap.
        '1350 close x pid=101',
        '1450 closed x pid=101',
      ]);
      expect(tools.filter((t) => t.length === 0)).toEqual([[]]); // only before the first connect
      expect(h.server('x')).toMatchObject({ state: 'connected', pid: 102 });
      // The swap is one status change: connected (pid 101) → connected (pid 102), nothing between;
      // its history says it happened (decision 331).
      const states = h.server('x')!.history.map((e) => e.state);
      expect(states).toEqual(['connecting', 'connected', 'connected']);
      expect(h.server('x')!.history.at(-1)).toEqual({ ts: 1350, state: 'connected', message: 'replaced by its new config, the old connection serving until then (pid 101 → 102)' });
      expect(h.passes()[1]).toMatchObject({ reconnected: ['x'], ts: 1350 });
    });

    it('make-before-break fallback: a new config that fails while the old one runs stops the old one and tries again, and says so', () => {
      const h = scene('a 999ms b', {
        a: input({ x: srv('close=100', 'connect=50') }),
        b: input({ x: srv('close=100', 'connect=50', 'fail=port in use') }),
      });
      expect(h.fake.log.filter((l) => / x( |$)/.test(l))).toEqual([
        '0 connect x',
        '50 connected x pid=101',
        '1300 connect x',
        '1350 failed x',
        '1350 close x pid=101',
        '1450 closed x pid=101',
        '1450 connect x',
        '1500 failed x',
      ]);
      expect(h.server('x')?.history.map((e) => e.message).filter(Boolean)).toContain(
        'the new config did not start while the old process ran (port in use); stopping the old one and trying again',
      );
      expect(h.passes()[1]).toMatchObject({ reconnected: ['x'], ts: 1500 });
    });

    it('a call in flight on the old connection finishes on it: the old process closes when it ends, or when the session does', async () => {
      const ts = newScheduler();
      let h!: Harness;
      let slow: Promise<unknown> | undefined;
      ts.run(({ hot, flush }) => {
        h = harness(
          ts,
          hot('a 999ms b', {
            a: input({ x: srv('close=10', 'tools=slow,t') }),
            b: input({ x: srv('close=10', 'tools=slow,t', 'v2') }),
          }),
        );
        timer(500, ts).subscribe(() => {
          slow = h.r.requests.callTool('mcp__x__slow', {}).catch(() => 'ended');
        });
        flush();
        // Swapped at 1310; pid 101 still has the slow call, so it stays.
        expect(h.server('x')).toMatchObject({ state: 'connected', pid: 102 });
        expect(h.fake.log.some((l) => l.includes('close x pid=101'))).toBe(false);
      });
      // New calls go to the new connection.
      expect(await h.r.requests.callTool('mcp__x__t', { a: 1 })).toEqual({ tool: 't', args: { a: 1 } });
      // dispose() awaits between its steps: keep virtual time moving until it is done (outside
      // run(), a TestScheduler stops at frame 750 unless told otherwise).
      ts.maxFrames = Infinity;
      let done = false;
      const disposed = h.r.dispose().then(() => (done = true));
      for (let i = 0; i < 100 && !done; i++) {
        ts.flush();
        await new Promise((resolve) => setImmediate(resolve));
      }
      await disposed;
      expect(h.fake.log.filter((l) => l.includes('close x'))).toEqual(expect.arrayContaining([expect.stringContaining('close x pid=101'), expect.stringContaining('close x pid=102')]));
      expect(slow).toBeDefined();
    });

    it('a change during a replacement supersedes it: the new attempt is aborted, the old connection goes on serving until the newest swaps in', () => {
      const h = scene('a 999ms b 399ms c', {
        a: input({ x: srv('close=10', 'connect=10') }),
        b: input({ x: srv('close=10', 'connect=5000', 'v2') }),
        c: input({ x: srv('close=10', 'connect=10', 'v3') }),
      });
      expect(h.fake.aborts).toEqual(['1700 aborted x']);
      expect(h.fake.log.filter((l) => / x( |$)/.test(l))).toEqual([
        '0 connect x',
        '10 connected x pid=101',
        '1300 connect x',
        '1700 connect x',
        '1710 connected x pid=102',
        '1710 close x pid=101',
        '1720 closed x pid=101',
      ]);
    });

    it('an unchanged server is never disconnected across any sequence of passes (no 0-tools gap)', () => {
      const keep = srv('tools=k1,k2');
      const h = scene('a 499ms b 499ms c 499ms d 499ms e 499ms f', {
        a: input({ keep }),
        b: input({ keep, other: srv() }),
        c: input({ keep, other: srv('v2') }),
        d: input({ keep, other: srv('v2') }, { mcp: { excluded: ['other'] } }),
        e: input({ keep: { ...keep, includeTools: ['k1', 'k2'] } }),
        f: input({ keep }, { project: { gated: srv() } }),
      });
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

    it('a view-field change re-filters in place: same process, filtered tools', () => {
      const h = scene('a 499ms b', {
        a: input({ s: srv('tools=a,b,c') }),
        b: input({ s: { ...srv('tools=a,b,c'), excludeTools: ['b'], description: 'x' } }),
      });
      expect(h.passes()[1]).toMatchObject({ updated: ['s'], reconnected: [] });
      expect(h.fake.starts('s')).toBe(1);
      expect(h.server('s')?.tools.map((t) => t.tool)).toEqual(['a', 'c']);
    });

    it('a connect that errors leaves only that server in error; the next pass retries it', () => {
      const h = scene('a', { a: input({ bad: srv('fail=boom'), good: srv() }) }, {
        meanwhile: (h, { cold }) => {
          cold('1s r').subscribe(() => h.r.reload());
        },
      });
      expect(h.server('good')?.state).toBe('connected');
      expect(h.server('bad')).toMatchObject({ state: 'error', error: 'boom', tools: [] });
      expect(h.passes()[1]).toMatchObject({ reconnected: ['bad'], unchanged: 1 });
      expect(h.fake.starts('bad')).toBe(2);
      expect(h.fake.starts('good')).toBe(1);
    });

    it('an invalid entry breaks only itself', () => {
      const h = scene('a', { a: input({ bad: { command: 'x', args: 'not-an-array' }, good: srv() }) });
      expect(h.server('good')?.state).toBe('connected');
      expect(h.server('bad')?.state).toBe('error');
      expect(h.server('bad')?.error).toMatch(/^invalid_config: .*args/);
      expect(h.fake.starts('bad')).toBe(0);
    });

    it('servers$ lists every known server sorted by name, whenever it arrived', () => {
      const h = scene('a 499ms b', { a: input({ z: srv(), m: srv() }), b: input({ z: srv(), m: srv(), a: srv(), q: srv() }) });
      expect(h.snapshots.at(-1)!.map((s) => s.name)).toEqual(['a', 'm', 'q', 'z']);
    });

    it('a removed server is disconnected and keeps the reason removed', () => {
      const h = scene('a 499ms b', { a: input({ s: srv(), t: srv() }), b: input({ t: srv() }) });
      expect(h.passes()[1]!.removed).toEqual(['s']);
      expect(h.server('s')).toMatchObject({ state: 'disconnected', reason: 'removed', tools: [] });
      expect(h.r.requests.toolNotFoundMessage('mcp__s__echo')).toMatch(/add it back to settings/);
    });

    it('tools/list_changed refreshes the tool list without a reconnect', () => {
      const h = scene('a', { a: input({ s: srv('tools=a') }) }, {
        meanwhile: (h, { cold }) => {
          cold('1s x').subscribe(() => h.fake.changeTools('s', ['a', 'b']));
        },
      });
      expect(h.server('s')?.tools.map((t) => t.tool)).toEqual(['a', 'b']);
      expect(h.fake.starts('s')).toBe(1);
    });
  });

  describe('the full-restart strategy (kept for comparison)', () => {
    it('restarts every server on a one-server edit, tearing all down before connecting any', () => {
      const h = scene('a 499ms b', { a: input({ x: srv(), y: srv(), z: srv() }), b: input({ x: srv('v2'), y: srv(), z: srv() }) }, { deps: { strategy: 'full' } });
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

  describe('supervision', () => {
    it('a dead server is restarted after 1 s, 2 s, 4 s, 8 s and left in error after 5 failures in a row', async () => {
      const h = scene('a', { a: input({ s: srv() }) }, {
        // The initial pass connects it at once (decision 220); each time it is up again (connects
        // take 10 ms), it dies 100 ms later.
        meanwhile: (h, { ts }) => {
          for (const at of [110, 1220, 3330, 7440, 15550]) {
            timer(at, ts).subscribe(() => h.fake.kill('s', 'process exited with code 1: boom'));
          }
        },
      });
      const connects = h.fake.log.filter((l) => l.endsWith('connect s')).map((l) => Number(l.split(' ')[0]));
      expect(connects).toEqual([0, 1110, 3220, 7330, 15440]);
      // gaps = 110 ms up + the backoff: 1 s, 2 s, 4 s, 8 s
      expect(connects.slice(1).map((t, i) => t - connects[i]! - 110)).toEqual([1000, 2000, 4000, 8000]);
      expect(h.server('s')).toMatchObject({ state: 'error', tools: [] });
      expect(h.server('s')?.error).toMatch(/process exited with code 1: boom.*gave up after 5/);
      // A call to the dead server fails at once, naming the tool and the error.
      await expect(h.r.requests.callTool('mcp__s__echo', {})).rejects.toThrow(/mcp__s__echo.*process exited with code 1/s);
    });

    it('a manual reconnect after giving up starts it again', () => {
      const h = scene('a', { a: input({ s: srv() }) }, {
        deps: { maxFailures: 1 },
        meanwhile: (h, { ts }) => {
          timer(410, ts).subscribe(() => h.fake.kill('s'));
          timer(5000, ts).subscribe(() => h.r.reconnect('s'));
        },
      });
      expect(h.fake.starts('s')).toBe(2);
      expect(h.server('s')?.state).toBe('connected');
      expect(h.passes().at(-1)).toMatchObject({ trigger: 'reconnect', reconnected: ['s'] });
    });
  });

  describe('approvals', () => {
    it('a new gated server raises approval-required and is never connected until approved', () => {
      const gated = srv();
      const edited = srv('v2');
      const h = scene('a 499ms b 499ms c 499ms d 499ms e', {
        a: input({ u: srv() }),
        b: input({ u: srv() }, { project: { p: gated } }),
        c: input({ u: srv() }, { project: { p: gated }, approvals: { p: { hash: approvalHash(gated), status: 'rejected' } } }),
        d: input({ u: srv(), other: srv() }, { project: { p: gated }, approvals: { p: { hash: approvalHash(gated), status: 'rejected' } } }),
        e: input({ u: srv(), other: srv() }, { project: { p: edited }, approvals: { p: { hash: approvalHash(gated), status: 'rejected' } } }),
      });
      const asks = h.events.filter((e) => e.type === 'approval-required');
      // b: asked; c: rejected (no ask); d: unrelated edit (no ask); e: config edited → asked again.
      expect(asks.map((e) => (e.type === 'approval-required' ? e.servers.map((s) => s.name) : []))).toEqual([['p'], ['p']]);
      expect(h.fake.starts('p')).toBe(0);
      expect(h.server('p')).toMatchObject({ state: 'blocked', reason: 'pending_approval', scope: 'project' });
      expect(h.pending).toEqual([[], ['p'], [], ['p']]);
    });

    it('a rejected server shows the reason rejected', () => {
      const gated = srv();
      const h = scene('a 499ms b', {
        a: input({}, { project: { p: gated } }),
        b: input({}, { project: { p: gated }, approvals: { p: { hash: approvalHash(gated), status: 'rejected' } } }),
      });
      expect(h.server('p')).toMatchObject({ state: 'blocked', reason: 'rejected' });
      expect(h.r.requests.toolNotFoundMessage('mcp__p__echo')).toMatch(/edit its config to be asked again/);
    });

    it('approving (persisted or for this session) connects the server', () => {
      const g1 = srv();
      const g2 = srv('two');
      const h = scene('a 499ms b', {
        a: input({}, { project: { g1, g2 } }),
        b: input({}, { project: { g1, g2 }, approvals: { g1: { hash: approvalHash(g1), status: 'approved' } }, sessionApprovals: { g2: approvalHash(g2) } }),
      });
      expect(h.passes()[1]!.added).toEqual(['g1', 'g2']);
      expect(h.server('g1')?.state).toBe('connected');
      expect(h.server('g2')?.state).toBe('connected');
      expect(h.pending.at(-1)).toEqual([]);
    });

    it('an approval bound to an older hash does not admit an edited config', () => {
      const before = srv();
      const after = srv('--evil');
      const h = scene('a', { a: input({}, { project: { p: after }, approvals: { p: { hash: approvalHash(before), status: 'approved' } } }) });
      expect(h.fake.starts('p')).toBe(0);
      expect(h.server('p')?.reason).toBe('pending_approval');
    });

    it('an approved entry edited in this session asks again with the fields that changed, before → now (decision 331)', () => {
      const before = srv('--mode', 'safe');
      const after = srv('--mode', 'fast');
      const approved = { p: { hash: approvalHash(before), status: 'approved' as const } };
      const h = scene('a 499ms b', {
        a: input({}, { project: { p: before }, approvals: approved }),
        b: input({}, { project: { p: after }, approvals: approved }),
      });
      expect(h.server('p')?.reason).toBe('pending_approval');
      expect(latestPending(h)).toMatchObject([
        { name: 'p', hash: approvalHash(after), edited: { changes: [{ label: 'command', before: 'fake --mode safe', after: 'fake --mode fast' }] } },
      ]);
      // The NDJSON `approval-required` says the same.
      const asked = h.events.filter((e) => e.type === 'approval-required').at(-1);
      expect(asked).toMatchObject({ servers: [{ name: 'p', edited: { changes: [{ label: 'command', before: 'fake --mode safe', after: 'fake --mode fast' }] } }] });
    });

    it('an entry approved before this session and edited since asks again, saying the earlier entry was not kept; a new one is no edit', () => {
      const h = scene('a', { a: input({}, { project: { p: srv('--evil'), q: srv() }, approvals: { p: { hash: approvalHash(srv()), status: 'approved' } } }) });
      const [p, q] = latestPending(h);
      expect(p).toMatchObject({ name: 'p', edited: {} });
      expect(p!.edited?.changes).toBeUndefined();
      expect(q).toMatchObject({ name: 'q' });
      expect(q!.edited).toBeUndefined();
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
      const h = scene('a', { a: input({ s: srv() }) });
      expect(h.events.map((e) => (e.type === 'server' ? `server:${e.state}` : e.type))).toEqual([
        'server:connecting',
        'server:connected',
        'reconcile',
        'ready',
      ]);
    });
  });
});
