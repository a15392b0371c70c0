import { BehaviorSubject } from 'rxjs';
import { describe, expect } from 'vitest';
import { createReconciler } from '../../../src/live/reconciler.js';
import { connectMcp } from '../../../src/sinks/mcp/connector.js';
import { echoEntry as echo, freePort, reconcilePass as pass, userSettingsInput as input } from '../mcpServers.js';
import { isAlive } from '../processes.js';
import { it, noLeftoversAfterAll } from '../workspace.js';

/**
 * Make-before-break with real processes (decision 101): an edited server's new process starts while
 * the old one serves, the two swap in one emission, so the edited server never shows zero tools;
 * a server that holds a port cannot start beside its predecessor, falls back to the old order and
 * still ends connected.
 */

noLeftoversAfterAll();

describe.concurrent('make-before-break reconnect with real processes', () => {
  it('the edited server keeps its tools through the edit: one swap, then the old process exits', async ({ scope }) => {
    const inputs = new BehaviorSubject(input({ a: echo('--tools', 'x,y'), b: echo() }));
    const r = scope.track(createReconciler(inputs, { connector: connectMcp, debounceMs: 50 }));
    const first = pass(r, 1);
    r.start();
    await first;
    const oldPid = r.board.status('a')!.pid!;
    const toolsOfA: string[][] = [];
    const sub = r.board.tools$.subscribe((tools) => toolsOfA.push(tools.filter((t) => t.server === 'a').map((t) => t.tool).sort()));

    const second = pass(r, 2);
    inputs.next(input({ a: echo('--tools', 'x,y', '--stderr-lines', '1'), b: echo() }));
    expect(await second).toMatchObject({ reconnected: ['a'], unchanged: 1 });
    const newPid = r.board.status('a')!.pid!;
    expect(newPid).not.toBe(oldPid);
    // Never a moment without a's tools; and no new list at all, since its tool names stayed.
    expect(toolsOfA.every((tools) => tools.join() === 'echo,slow,x,y')).toBe(true);
    expect(toolsOfA).toHaveLength(1);
    sub.unsubscribe();
    for (let i = 0; i < 100 && isAlive(oldPid); i++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(isAlive(oldPid)).toBe(false);
    // The swap is a line of its own in the history, though the state stayed `connected` (decision 331).
    expect(r.board.status('a')?.history.map((h) => h.state)).toEqual(['connecting', 'connected', 'connected']);
    expect(r.board.status('a')?.history.at(-1)?.message).toBe(`replaced by its new config, the old connection serving until then (pid ${oldPid} → ${newPid})`);
  });

  it('a server that holds a port cannot start beside its predecessor: it falls back, says so, and ends connected', async ({ scope }) => {
    const port = String(await freePort());
    const inputs = new BehaviorSubject(input({ p: echo('--hold-port', port) }));
    const r = scope.track(createReconciler(inputs, { connector: connectMcp, debounceMs: 50 }));
    const first = pass(r, 1);
    r.start();
    await first;
    const oldPid = r.board.status('p')!.pid!;

    const second = pass(r, 2);
    inputs.next(input({ p: echo('--hold-port', port, '--tools', 'more') }));
    await second;
    const after = r.board.status('p')!;
    expect(after).toMatchObject({ state: 'connected' });
    expect(after.pid).not.toBe(oldPid);
    expect(isAlive(oldPid)).toBe(false);
    expect(after.tools.map((t) => t.tool)).toContain('more');
    expect(after.history.some((h) => /^the new config did not start while the old process ran \(.*\); stopping the old one and trying again$/.test(h.message ?? ''))).toBe(true);
  });

  it('"restart": "stop-first" keeps the old order: the old process is gone before the new one starts', async ({ scope }) => {
    const inputs = new BehaviorSubject(input({ s: { ...echo(), restart: 'stop-first' } }));
    const r = scope.track(createReconciler(inputs, { connector: connectMcp, debounceMs: 50 }));
    const first = pass(r, 1);
    r.start();
    await first;
    const states: string[] = [];
    const sub = r.board.servers$.subscribe((all) => states.push(all.find((s) => s.name === 's')!.state));
    const second = pass(r, 2);
    inputs.next(input({ s: { ...echo('--tools', 'z'), restart: 'stop-first' } }));
    await second;
    sub.unsubscribe();
    expect(states).toContain('disconnected');
    expect(r.board.status('s')?.state).toBe('connected');
  });
});
