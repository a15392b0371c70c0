import { BehaviorSubject, filter, firstValueFrom } from 'rxjs';
import { describe, expect } from 'vitest';
import type { ServerStatus } from '../../src/model/report/status.js';
import { createReconciler } from '../../src/live/reconciler.js';
import { connectMcp } from '../../src/sinks/mcp/connector.js';
import { echoEntry as echo, fixture, reconcilePass as pass, userSettingsInput as input } from './mcpServers.js';
import { isAlive } from './processes.js';
import { it, noLeftoversAfterAll } from './workspace.js';

noLeftoversAfterAll();

describe.concurrent('the reconcile pipeline with the real connector', () => {
  it('three servers up; an args edit replaces only that process, and the others never lose a tool meanwhile', async ({ scope }) => {
    const inputs = new BehaviorSubject(input({ a: echo(), b: echo(), c: echo() }));
    const r = scope.track(createReconciler(inputs, { connector: connectMcp, debounceMs: 50 }));
    // Every status the pipeline ever showed, to find any gap of a, c.
    const seen: (readonly ServerStatus[])[] = [];
    const sub = r.board.servers$.subscribe((s) => seen.push(s));
    const first = pass(r, 1);
    r.start();
    await first;
    const pid = (n: string) => r.board.status(n)?.pid;
    const before = { a: pid('a')!, b: pid('b')!, c: pid('c')! };
    expect(Object.values(before).every((p) => typeof p === 'number' && isAlive(p))).toBe(true);
    const mark = seen.length;

    const second = pass(r, 2);
    inputs.next(input({ a: echo(), b: echo('--tools', 'more'), c: echo() }));
    expect(await second).toMatchObject({ reconnected: ['b'], unchanged: 2 });

    expect(pid('a')).toBe(before.a);
    expect(pid('c')).toBe(before.c);
    expect(pid('b')).not.toBe(before.b);
    // Make-before-break (decision 101): the old process is closed after the swap, off the pass's path.
    for (let i = 0; i < 100 && isAlive(before.b); i++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(isAlive(before.b)).toBe(false);
    expect(r.board.status('b')?.tools.map((t) => t.name)).toContain('mcp__b__more');
    for (const snapshot of seen.slice(mark)) {
      for (const name of ['a', 'c']) {
        const s = snapshot.find((x) => x.name === name)!;
        expect(s.state).toBe('connected');
        expect(s.tools.map((t) => t.tool).sort()).toEqual(['echo', 'slow']);
      }
    }
    sub.unsubscribe();
  });

  it('an includeTools-only change filters in place: no new process', async ({ scope }) => {
    const inputs = new BehaviorSubject(input({ a: echo('--tools', 'x,y') }));
    const r = scope.track(createReconciler(inputs, { connector: connectMcp, debounceMs: 50 }));
    const first = pass(r, 1);
    r.start();
    await first;
    const pidBefore = r.board.status('a')?.pid;
    const second = pass(r, 2);
    inputs.next(input({ a: { ...echo('--tools', 'x,y'), includeTools: ['x', 'echo'] } }));
    expect(await second).toMatchObject({ updated: ['a'], reconnected: [] });
    expect(r.board.status('a')?.pid).toBe(pidBefore);
    expect(r.board.status('a')?.tools.map((t) => t.name).sort()).toEqual(['mcp__a__echo', 'mcp__a__x']);
    await expect(r.requests.callTool('mcp__a__x', {})).resolves.toMatchObject({ content: [{ text: 'x' }] });
    await expect(r.requests.callTool('mcp__a__y', {})).rejects.toThrow(/mcp__a__y/);
  });

  it('a crashing server is supervised; the others are not affected', async ({ scope }) => {
    const inputs = new BehaviorSubject(
      input({ ok: echo(), crash: { command: process.execPath, args: [fixture('crash-server.mjs'), '--after', '300'] } }),
    );
    const r = scope.track(createReconciler(inputs, { connector: connectMcp, debounceMs: 20, random: () => 0 }));
    const first = pass(r, 1);
    r.start();
    await first;
    const okPid = r.board.status('ok')?.pid;
    // dies after 300 ms → error with exit code and the last stderr line, then restarted (≥ 800 ms later)
    const failed = await firstValueFrom(
      r.board.servers$.pipe(filter((all) => all.some((s) => s.name === 'crash' && s.state === 'error'))),
    );
    expect(failed.find((s) => s.name === 'crash')?.error).toMatch(/exited with code 1/);
    await firstValueFrom(
      r.board.servers$.pipe(filter((all) => all.some((s) => s.name === 'crash' && s.history.filter((h) => h.state === 'connected').length >= 2))),
    );
    expect(r.board.status('ok')).toMatchObject({ state: 'connected', pid: okPid });
    expect(r.board.stderrTail('crash').length).toBeGreaterThan(0);
  });
});
