import { VirtualTimeScheduler, of } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { approvalHash } from '../../src/model/settings/approvalHash.js';
import type { SurfaceChangedEvent } from '../../src/model/report/events.js';
import { fingerprint } from '../../src/model/reconcile/fingerprint.js';
import type { WantedServer } from '../../src/model/reconcile/plan.js';
import type { ServerStatus } from '../../src/model/report/status.js';
import { surfaceHash, surfaceOf } from '../../src/model/tools/surface.js';
import type { ResolvedServerConfig } from '../../src/model/types.js';
import { createReconciler } from '../../src/live/reconciler.js';
import { lazyConnector } from '../../src/sinks/mcp/lazyConnector.js';
import { createLiveServers } from '../../src/sinks/mcp/liveServers.js';
import type { SurfaceRecord, SurfaceStore } from '../../src/sinks/stores/surfaceStore.js';
import { fakeConnector } from './fakeConnector.js';
import { input, newScheduler, observe, srv } from './inputs.js';

/** The surface record in memory: what the file would hold, without the file. */
function memoryStore(records: SurfaceRecord[] = []): SurfaceStore & { records: Map<string, SurfaceRecord> } {
  const map = new Map(records.map((r) => [r.fingerprint, r]));
  return {
    path: ':memory:',
    records: map,
    load: () => Promise.resolve(),
    get: (fp) => map.get(fp),
    put: (record) => void map.set(record.fingerprint, record),
    delete: (fp) => void map.delete(fp),
    flush: () => Promise.resolve(),
  };
}

function resolved(args: string[], lifecycle: ResolvedServerConfig['lifecycle']): ResolvedServerConfig {
  return { transport: 'stdio', command: 'fake', args, env: {}, headers: {}, timeout: 60_000, connectTimeout: 30_000, lifecycle };
}

function wanted(name: string, config: ResolvedServerConfig, scope: WantedServer['scope'] = 'user'): WantedServer {
  return { name, scope, source: '/s.json', fingerprint: fingerprint(config), view: config.lifecycle ? { lifecycle: config.lifecycle } : {}, resolved: config };
}

/** A record of `tools` for `config`, as an earlier session left it. */
function recordOf(name: string, config: ResolvedServerConfig, tools: string[]): SurfaceRecord {
  const surface = surfaceOf({ tools: tools.map((t) => ({ name: t })), prompts: [], resources: [] });
  return { name, fingerprint: fingerprint(config), hash: surfaceHash(surface), surface, seenAt: 1 };
}

/** Virtual time, with the promise continuations of each step run before the next. */
function clock() {
  const vt = new VirtualTimeScheduler();
  const tick = async (): Promise<void> => {
    for (let i = 0; i < 10; i += 1) {
      vt.flush();
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  return { vt, tick };
}

function session(vt: VirtualTimeScheduler, store: SurfaceStore) {
  const fake = fakeConnector(vt);
  const live = createLiveServers({ connector: lazyConnector(fake.connector, { surfaces: store, scheduler: vt }), scheduler: vt });
  const statuses: ServerStatus[] = [];
  live.board.changes$.subscribe((s) => statuses.push(s));
  const states = (name: string) => statuses.filter((s) => s.name === name).map((s) => `${s.state}${s.idle ? `:${s.idle}` : ''}${s.pid ? ' pid' : ''}`);
  return { fake, live, statuses, states };
}

describe('lazy and idle servers (decision 196)', () => {
  it('a lazy server with a record is listed at once and starts no process', async () => {
    const { vt, tick } = clock();
    const config = resolved(['tools=a,b'], { lazy: true });
    const s = session(vt, memoryStore([recordOf('lz', config, ['a', 'b'])]));
    s.live.lifecycle.connect(wanted('lz', config)).subscribe();
    await tick();
    expect(s.fake.starts('lz')).toBe(0);
    expect(s.live.board.status('lz')).toMatchObject({ state: 'idle', idle: 'lazy' });
    expect(s.live.board.status('lz')?.pid).toBeUndefined();
    expect(s.live.board.status('lz')?.tools.map((t) => t.name)).toEqual(['mcp__lz__a', 'mcp__lz__b']);
    // One status change: never a `connected` without a process first.
    expect(s.states('lz')).toEqual(['connecting', 'idle:lazy']);
  });

  it('concurrent first calls share one start, and the server then runs like any other', async () => {
    const { vt, tick } = clock();
    const config = resolved(['tools=a', 'connect=50'], { lazy: true });
    const s = session(vt, memoryStore([recordOf('lz', config, ['a'])]));
    s.live.lifecycle.connect(wanted('lz', config)).subscribe();
    await tick();
    const calls = [s.live.requests.callTool('mcp__lz__a', { n: 1 }), s.live.requests.callTool('mcp__lz__a', { n: 2 }), s.live.requests.callTool('mcp__lz__a', { n: 3 })];
    await tick();
    await expect(Promise.all(calls)).resolves.toEqual([1, 2, 3].map((n) => ({ tool: 'a', args: { n } })));
    expect(s.fake.starts('lz')).toBe(1);
    expect(s.live.board.status('lz')?.state).toBe('connected');
    expect(s.live.board.status('lz')?.idle).toBeUndefined();
    expect(s.live.board.status('lz')?.pid).toBeGreaterThan(0);
    // No idleTimeout: it keeps running after the calls.
    vt.schedule(() => undefined, 3_600_000);
    await tick();
    expect(s.fake.log.filter((l) => l.includes('close lz'))).toEqual([]);
  });

  it('a lazy server without a record is learned once: started, listed, recorded, stopped', async () => {
    const { vt, tick } = clock();
    const store = memoryStore();
    const config = resolved(['tools=x,y'], { lazy: true });
    const fake = fakeConnector(vt);
    const live = createLiveServers({
      connector: lazyConnector(fake.connector, { surfaces: store, scheduler: vt }),
      scheduler: vt,
      surfaces: { observe: (server, lists) => (store.put({ ...recordOf(server.name, config, lists.tools.map((t) => t.name)) }), { tools: new Set<string>(), prompts: new Set<string>(), instructions: false }), forget: () => undefined },
    });
    live.lifecycle.connect(wanted('lz', config)).subscribe();
    await tick();
    expect(fake.starts('lz')).toBe(1);
    expect(fake.log.filter((l) => / (connected|closed) lz/.test(l)).map((l) => l.split(' ')[1])).toEqual(['connected', 'closed']);
    expect(live.board.status('lz')).toMatchObject({ state: 'idle', idle: 'lazy' });
    expect(live.board.status('lz')?.tools.map((t) => t.tool)).toEqual(['x', 'y']);
    expect(store.get(fingerprint(config))?.surface.tools.map((t) => t.name)).toEqual(['x', 'y']);
  });

  it('idleTimeout stops the process after that long without a request; the next request starts it again', async () => {
    const { vt, tick } = clock();
    const config = resolved(['tools=a', 'connect=10'], { idleTimeoutMs: 1_000 });
    const s = session(vt, memoryStore());
    s.live.lifecycle.connect(wanted('it', config)).subscribe();
    await tick();
    // Connected at 10, stopped at 1,010 (closed at 1,015).
    expect(s.fake.log.find((l) => l.includes('close it'))).toBe('1010 close it pid=101');
    expect(s.live.board.status('it')).toMatchObject({ state: 'idle', idle: 'idle-timeout', idleTimeoutMs: 1_000 });
    const call = s.live.requests.callTool('mcp__it__a', {});
    await tick();
    await call;
    expect(s.fake.starts('it')).toBe(2);
    // The call at 1,015 started it (connected at 1,025): 1,000 ms after the call ended.
    expect(s.fake.log.filter((l) => l.includes('close it'))).toEqual(['1010 close it pid=101', '2025 close it pid=102']);
    expect(s.states('it')).toEqual(['connecting', 'connected pid', 'idle:idle-timeout', 'connected pid', 'idle:idle-timeout']);
  });

  it('a request in flight holds the process past idleTimeout', async () => {
    const { vt, tick } = clock();
    const config = resolved(['tools=slow'], { idleTimeoutMs: 1_000 });
    const s = session(vt, memoryStore());
    s.live.lifecycle.connect(wanted('it', config)).subscribe();
    vt.flush();
    await new Promise((resolve) => setImmediate(resolve));
    void s.live.requests.callTool('mcp__it__slow', {});
    vt.schedule(() => undefined, 10_000);
    await tick();
    expect(s.fake.log.filter((l) => l.includes('close it'))).toEqual([]);
    expect(s.live.board.status('it')?.state).toBe('connected');
  });

  it('a crash of an idle-able server returns it to idle with why, not to error; the next call starts it', async () => {
    const { vt, tick } = clock();
    const config = resolved(['tools=a'], { idleTimeoutMs: 60_000 });
    const s = session(vt, memoryStore());
    s.live.lifecycle.connect(wanted('cr', config)).subscribe();
    vt.flush();
    await new Promise((resolve) => setImmediate(resolve));
    expect(s.live.board.status('cr')?.state).toBe('connected');
    s.fake.kill('cr', 'process exited with code 3');
    await new Promise((resolve) => setImmediate(resolve));
    expect(s.live.board.status('cr')).toMatchObject({ state: 'idle', error: 'process exited with code 3' });
    expect(s.live.board.status('cr')?.tools.map((t) => t.tool)).toEqual(['a']);
    const call = s.live.requests.callTool('mcp__cr__a', {});
    await tick();
    await expect(call).resolves.toEqual({ tool: 'a', args: {} });
    expect(s.fake.starts('cr')).toBe(2);
  });

  it('a disconnect while a first call is starting the server fails that call instead of leaving it waiting', async () => {
    const { vt, tick } = clock();
    const config = resolved(['tools=a', 'connect=500'], { lazy: true });
    const s = session(vt, memoryStore([recordOf('lz', config, ['a'])]));
    s.live.lifecycle.connect(wanted('lz', config)).subscribe();
    await tick();
    const call = s.live.requests.callTool('mcp__lz__a', {});
    const failed = call.then(
      () => 'resolved',
      (error: unknown) => (error as Error).message,
    );
    s.live.lifecycle.disconnect('lz').subscribe();
    await tick();
    expect(await failed).toBe('server "lz" was stopped before it started');
    expect(s.fake.aborts).toEqual(['0 aborted lz']);
  });

  it('wake starts an idle server (what /reconnect does for one)', async () => {
    const { vt, tick } = clock();
    const config = resolved(['tools=a'], { lazy: true });
    const s = session(vt, memoryStore([recordOf('lz', config, ['a'])]));
    s.live.lifecycle.connect(wanted('lz', config)).subscribe();
    await tick();
    expect(s.live.lifecycle.wake('nobody')).toBeUndefined();
    const woken = s.live.lifecycle.wake('lz');
    await tick();
    await woken;
    expect(s.live.board.status('lz')).toMatchObject({ state: 'connected' });
    expect(s.live.lifecycle.wake('lz')).toBeUndefined();
  });

  it('the tools the process lists replace the record at once (the record was of an older version)', async () => {
    const { vt, tick } = clock();
    const config = resolved(['tools=a,c'], { lazy: true });
    const s = session(vt, memoryStore([recordOf('lz', config, ['a', 'b'])]));
    s.live.lifecycle.connect(wanted('lz', config)).subscribe();
    await tick();
    expect(s.live.board.status('lz')?.tools.map((t) => t.tool)).toEqual(['a', 'b']);
    const call = s.live.requests.callTool('mcp__lz__a', {});
    await tick();
    await call;
    expect(s.live.board.status('lz')?.tools.map((t) => t.tool)).toEqual(['a', 'c']);
    // A removed tool is refused with the usual words, never routed to a server that lacks it.
    await expect(s.live.requests.callTool('mcp__lz__b', {})).rejects.toThrow(/mcp__lz__b/);
  });
});

describe('pinning (decision 197)', () => {
  const projectServer = srv('tools=a');

  function pinned(mcp?: { pinTools?: 'strict' | 'report' }) {
    const ts = newScheduler();
    const store = memoryStore();
    const approvals = { p: approvalHash(projectServer) };
    let o!: ReturnType<typeof observe>;
    let fake!: ReturnType<typeof fakeConnector>;
    ts.run(({ flush }) => {
      fake = fakeConnector(ts);
      const r = createReconciler(of(input({ u: srv('tools=a') }, { project: { p: projectServer }, sessionApprovals: approvals, mcp })), {
        connector: fake.connector,
        scheduler: ts,
        env: {},
        surfaces: store,
      });
      o = observe(r);
      flush();
    });
    return { ts, store, fake, o };
  }

  it("a gated server's first surface is its pin; a tool added later is withheld, reported before it is published, and asked for", () => {
    const { ts, fake, o } = pinned();
    ts.run(({ flush }) => {
      expect(o.server('p')?.tools.map((t) => t.tool)).toEqual(['a']);
      const before = o.events.length;
      const published = o.snapshots.length;
      fake.changeTools('p', ['a', 'sneaky']);
      // The event goes out at once, with the list change; the withheld list is published on the scheduler.
      const changed = o.events.slice(before).find((e): e is SurfaceChangedEvent => e.type === 'surface-changed');
      expect(changed).toMatchObject({ server: 'p', withheld: ['sneaky'], changes: [{ kind: 'tool', name: 'sneaky', change: 'added', after: '{"name":"sneaky"}' }] });
      expect(o.snapshots.length).toBe(published);
      flush();
      expect(o.server('p')?.tools.map((t) => t.tool)).toEqual(['a']);
      expect(o.server('p')?.withheld).toEqual(['sneaky']);
      const asked = o.events.slice(before).filter((e) => e.type === 'approval-required');
      expect(asked).toHaveLength(1);
      expect(asked[0]).toMatchObject({ servers: [{ name: 'p', surface: [{ name: 'sneaky', change: 'added' }] }] });
      expect(o.pending.at(-1)).toEqual(['p']);
      // The same surface again (a second list_changed) is neither reported nor asked for again.
      const after = o.events.length;
      fake.changeTools('p', ['a', 'sneaky']);
      flush();
      expect(o.events.slice(after).filter((e) => e.type === 'surface-changed' || e.type === 'approval-required')).toEqual([]);
    });
  });

  it('approving the new surface by its hash lets the tool through at once and makes it the pin', () => {
    const { ts, fake, o, store } = pinned();
    ts.run(({ flush }) => {
      fake.changeTools('p', ['a', 'sneaky']);
      flush();
      const waiting = o.r.surfaceWaiting('p')!;
      expect(o.r.approveSurface('p', 'not-the-hash')).toBe(false);
      expect(o.r.approveSurface('p', waiting.hash)).toBe(true);
      flush();
      expect(o.server('p')?.tools.map((t) => t.tool)).toEqual(['a', 'sneaky']);
      expect(o.server('p')?.withheld).toBeUndefined();
      expect(o.pending.at(-1)).toEqual([]);
      const record = [...store.records.values()].find((r) => r.name === 'p')!;
      expect(record.pinned?.surface.tools.map((t) => t.name)).toEqual(['a', 'sneaky']);
    });
  });

  it('a user-scope server is reported, not withheld; with mcp.pinTools "strict" it is withheld too', () => {
    const report = pinned();
    report.ts.run(({ flush }) => {
      report.fake.changeTools('u', ['a', 'b']);
      flush();
      expect(report.o.events.find((e) => e.type === 'surface-changed')).toMatchObject({ server: 'u', changes: [{ name: 'b', change: 'added' }] });
      expect((report.o.events.find((e) => e.type === 'surface-changed') as SurfaceChangedEvent).withheld).toBeUndefined();
      expect(report.o.server('u')?.tools.map((t) => t.tool)).toEqual(['a', 'b']);
    });
    const strict = pinned({ pinTools: 'strict' });
    strict.ts.run(({ flush }) => {
      strict.fake.changeTools('u', ['a', 'b']);
      flush();
      expect(strict.o.server('u')?.tools.map((t) => t.tool)).toEqual(['a']);
      expect(strict.o.server('u')?.withheld).toEqual(['b']);
      expect(strict.o.pending.at(-1)).toEqual(['u']);
    });
  });

  it('a removed tool just goes, and asks nothing', () => {
    const { ts, fake, o } = pinned();
    ts.run(({ flush }) => {
      fake.changeTools('p', []);
      flush();
      expect(o.server('p')?.tools).toEqual([]);
      expect(o.events.find((e) => e.type === 'surface-changed')).toMatchObject({ changes: [{ name: 'a', change: 'removed' }] });
      expect(o.pending.at(-1) ?? []).toEqual([]);
    });
  });
});
