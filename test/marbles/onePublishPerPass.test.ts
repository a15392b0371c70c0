import { describe, expect, it } from 'vitest';
import type { TestScheduler } from 'rxjs/testing';
import type { Observable } from 'rxjs';
import type { AssembleInput } from '../../src/model/settings/assemble.js';
import { approvalHash } from '../../src/model/settings/approvalHash.js';
import type { ServerEvent } from '../../src/model/report/events.js';
import { createReconciler, type ReconcilerDeps } from '../../src/live/reconciler.js';
import { fakeConnector } from './fakeConnector.js';
import { input, newScheduler, srv, play } from './inputs.js';

/**
 * Decision 171: `servers$` publishes once per pass, and status changes that land together (a
 * burst of connects settling in one frame, list changes of many servers at once) make one
 * emission — never one list of all N statuses per single change, which made a pass O(N²).
 * The per-server `server` events stay one per change, in order, ahead of the pass's `reconcile`.
 */

const N = 300;

function gatedEntries(n: number, ...args: string[]): Record<string, unknown> {
  const entries: Record<string, unknown> = {};
  for (let i = 0; i < n; i++) entries[`g${String(i).padStart(4, '0')}`] = srv(...args);
  return entries;
}

function harness(ts: TestScheduler, inputs$: Observable<AssembleInput>, deps: Partial<ReconcilerDeps> = {}) {
  const fake = fakeConnector(ts);
  const r = createReconciler(inputs$, { connector: fake.connector, scheduler: ts, env: {}, random: () => 0.5, ...deps });
  const servers: { at: number; size: number }[] = [];
  const pending: number[] = [];
  const order: string[] = [];
  const serverEvents: ServerEvent[] = [];
  r.board.servers$.subscribe((s) => servers.push({ at: ts.now(), size: s.length }));
  r.pendingApprovals$.subscribe((p) => pending.push(p.length));
  r.events$.subscribe((e) => {
    if (e.type === 'server') serverEvents.push(e);
    if (e.type === 'reconcile' || e.type === 'approval-required' || e.type === 'ready') order.push(e.type);
  });
  r.start();
  return { r, fake, servers, pending, order, serverEvents };
}

describe('one publish per pass (decision 171)', () => {
  it(`${N} gated entries, all pending: one servers$ emission for the pass, one server event each`, () => {
    const h = play('a', { a: input({}, { project: gatedEntries(N) }) }, harness);
    // The replayed empty list, then the pass.
    expect(h.servers.map((s) => s.size)).toEqual([0, N]);
    expect(h.pending.filter((n) => n > 0)).toEqual([N]);
    expect(h.serverEvents).toHaveLength(N);
    expect(h.serverEvents.every((e) => e.reason === 'pending_approval')).toBe(true);
    expect(h.order).toEqual(['approval-required', 'reconcile', 'ready']);
    expect(h.r.board.list()).toHaveLength(N);
  });

  it('2,500 gated entries, a pass applied in chunks (decision 174): still one emission, every entry blocked', () => {
    const h = play('a', { a: input({}, { project: gatedEntries(2_500) }) }, harness);
    expect(h.servers.map((s) => s.size)).toEqual([0, 2_500]);
    expect(h.serverEvents).toHaveLength(2_500);
    expect(h.order).toEqual(['approval-required', 'reconcile', 'ready']);
  });

  it('approving all of them: the unblocking pass publishes once, each frame of settling connects once more', () => {
    const ts = newScheduler();
    const project = gatedEntries(N);
    const approvals = Object.fromEntries(Object.entries(project).map(([name, config]) => [name, { hash: approvalHash(config), status: 'approved' as const }]));
    ts.run(({ hot, flush }) => {
      const h = harness(
        ts,
        hot('a 1s b', { a: input({}, { project }), b: input({}, { project, approvals }) }),
        // Every connect at once: they all settle in one frame.
        { concurrency: Infinity },
      );
      flush();
      const second = h.servers.filter((s) => s.at > 1000);
      // The pass (every server connecting), then the frame in which every connect settled.
      expect(second).toHaveLength(2);
      expect(h.r.board.list().every((s) => s.state === 'connected')).toBe(true);
      // connecting + connected for each: the events are per change, not coalesced.
      expect(h.serverEvents.filter((e) => e.ts > 1000)).toHaveLength(2 * N);
    });
  });

  it('a close that waits for its process publishes `disconnected` at once, not when the close ends (decision 174)', () => {
    const seen: { at: number; state?: string }[] = [];
    const h = play('a 1s b', { a: input({ slow: srv('close=5000'), other: srv() }), b: input({ other: srv() }) }, harness, (h, { ts }) => {
        h.r.board.servers$.subscribe((all) => seen.push({ at: ts.now(), state: all.find((x) => x.name === 'slow')?.state }));
      });
    const removedAt = seen.find((x) => x.state === 'disconnected')?.at;
    // The pass starts after the debounce (300 ms) of the edit at 1 s; its close takes 5 s.
    expect(removedAt).toBeDefined();
    expect(removedAt!).toBeLessThan(1_000 + 300 + 5_000);
    expect(h.r.board.list().find((x) => x.name === 'slow')).toMatchObject({ state: 'disconnected', reason: 'removed' });
  });

  it('many list changes in one frame outside a pass coalesce into one emission', () => {
    const ts = newScheduler();
    const users = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`u${i}`, srv()]));
    ts.run(({ hot, flush }) => {
      const h = harness(ts, hot('a', { a: input(users) }), { concurrency: Infinity });
      flush();
      const before = h.servers.length;
      for (let i = 0; i < 50; i++) h.fake.changeTools(`u${i}`, ['echo', 'more']);
      // Published on the scheduler (this frame), not once per server: list() is current at once.
      expect(h.servers.length).toBe(before);
      expect(h.r.board.list().every((s) => s.tools.length === 2)).toBe(true);
      flush();
      expect(h.servers.length).toBe(before + 1);
    });
  });
});
