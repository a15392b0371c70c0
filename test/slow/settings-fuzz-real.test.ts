import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { BehaviorSubject, filter, firstValueFrom, timeout } from 'rxjs';
import { afterAll, describe, expect, it } from 'vitest';
import type { AssembleInput } from '../../src/model/settings/assemble.js';
import type { McpLiveEvent } from '../../src/model/report/events.js';
import { createReconciler } from '../../src/live/reconciler.js';
import { connectMcp } from '../../src/sinks/mcp/connector.js';
import { leftoverServers, sleep, waitForNoLeftovers } from '../integration/processes.js';
import { apply, emptyWorld, expected, NAMES, scenarioArb, toInput, winner, withView, type Cfg, type Expected, type Name, type Scenario, type Step } from './fuzzModel.js';
import { expectNoSecrets, fixturePath, report, secretEnv, SECRET_PROCESS_ENV } from './kit.js';
import { deadline } from '../deadlines.js';

/**
 * The settings fuzz against real processes: the same model and oracle as settings-fuzz.test.ts,
 * with the real connector and the tiny stdio fixture. Starts are counted from the fixture's
 * start log, so "no unchanged server restarted" is checked against real processes.
 */

const RUNS = Number(process.env.MCP_LIVE_FUZZ_REAL_RUNS ?? 100);
const DEBOUNCE_MS = 20;
const dir = mkdtempSync(join(tmpdir(), 'mcp-live-fuzz-real-'));
const startLog = join(dir, 'starts.log');

afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  expect(await waitForNoLeftovers()).toEqual([]);
});

/** A model entry as a real stdio server: the tiny fixture, or a command that cannot start. */
function realEntry(cfg: Cfg, name: Name): Record<string, unknown> {
  const args = [fixturePath('tiny-server.mjs'), '--tools', 'echo,x', '--start-log', startLog, '--log-name', name, '--echo-env', 'API_KEY', '--rev', String(cfg.rev)];
  const entry = cfg.fail
    ? { command: join(dir, 'no-such-server'), args: [`--rev=${cfg.rev}`], env: secretEnv() }
    : { command: process.execPath, args, env: secretEnv() };
  return withView(entry, cfg);
}

function starts(): string[] {
  return readFileSync(startLog, 'utf8').split('\n').filter(Boolean).map((l) => l.replace(/ started$/, ''));
}

const START: Step = {
  ops: [
    { t: 'put', scope: 'user', name: 'a', view: 0, fail: false, disabled: false },
    { t: 'put', scope: 'user', name: 'b', view: 0, fail: false, disabled: false },
  ],
  reload: false,
};

async function runReal(scenario: Scenario, totals: { steps: number; starts: number }): Promise<void> {
  writeFileSync(startLog, '');
  const world = emptyWorld();
  const inputs = new BehaviorSubject<AssembleInput>(toInput(world, realEntry));
  const r = createReconciler(inputs, {
    connector: connectMcp,
    debounceMs: DEBOUNCE_MS,
    allowedMcpServerNames: scenario.flag,
    env: { ...process.env, ...SECRET_PROCESS_ENV },
  });
  const events: McpLiveEvent[] = [];
  const sub = r.events$.subscribe((e) => events.push(e));
  const first = firstValueFrom(r.events$.pipe(filter((e) => e.type === 'reconcile')));
  r.start();
  await first;

  const ever = new Set<Name>();
  let before = new Map<Name, Expected | undefined>();
  let pids = new Map<Name, number | undefined>();
  let startMark = 0;
  try {
    for (const [i, step] of scenario.steps.entries()) {
      for (const op of step.ops) {
        apply(world, op);
        inputs.next(toInput(world, realEntry));
        await sleep(3);
      }
      // Let the watched pass start, then a manual pass: it runs after it, so when it is
      // reported, everything this step changed has settled.
      await sleep(DEBOUNCE_MS + 20);
      const mark = events.length;
      // Subscribed first: with nothing to wait for, the pass runs inside reload().
      const settled = firstValueFrom(r.events$.pipe(filter((e) => e.type === 'reconcile' && e.trigger === 'reload'), timeout(deadline(30_000))));
      r.reload();
      await settled.catch((error: unknown) => {
        throw new Error(`no pass after step ${i + 1} (${String(error)}); events: ${JSON.stringify(events.slice(-12))}; status: ${JSON.stringify(r.board.list().map((s) => [s.name, s.state, s.reason, s.error]))}`);
      });
      expect(events.length).toBeGreaterThan(mark);

      const where = `after step ${i + 1} of ${JSON.stringify(scenario)}`;
      for (const name of NAMES) if (winner(world, name)) ever.add(name);
      const window = starts().slice(startMark);
      startMark += window.length;
      totals.starts += window.length;
      const now = new Map<Name, Expected | undefined>();
      for (const name of NAMES) {
        const want = expected(world, name, scenario.flag, ever.has(name));
        now.set(name, want);
        const live = r.board.status(name);
        if (want === undefined) {
          expect(live, `${where}: ${name}`).toBeUndefined();
          continue;
        }
        expect({ state: live?.state, reason: live?.reason }, `${where}: ${name}`).toEqual({ state: want.state, reason: want.reason });
        if (want.tools) expect(live!.tools.map((t) => t.tool).sort(), `${where}: tools of ${name}`).toEqual(want.tools);
        const started = window.filter((n) => n === name).length;
        if (started > 0) expect(['connected', 'error'], `${where}: ${name} started while blocked`).toContain(want.state);
        const was = before.get(name);
        if (was?.state === 'connected' && want.state === 'connected' && was.fingerprintKey === want.fingerprintKey) {
          expect(started, `${where}: ${name} restarted though unchanged`).toBe(0);
          expect(live!.pid, `${where}: pid of ${name}`).toBe(pids.get(name));
        }
      }
      // Exactly the connected servers have a process — once the processes a make-before-break
      // swap replaced have exited (they close after the swap, off the pass's path: decision 101).
      const connected = r.board.list().filter((s) => s.state === 'connected').length;
      for (let i = 0; i < 100 && leftoverServers(/tiny-server\.mjs/).length > connected; i++) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(leftoverServers(/tiny-server\.mjs/).length, where).toBe(connected);
      before = now;
      pids = new Map(NAMES.map((n) => [n, r.board.status(n)?.pid]));
      totals.steps += 1;
    }
    expectNoSecrets('events', events);
    for (const name of NAMES) expectNoSecrets(`stderr tail of ${name}`, r.board.stderrTail(name));
  } finally {
    sub.unsubscribe();
    await r.dispose();
  }
  expect(leftoverServers(/tiny-server\.mjs/), 'after dispose').toEqual([]);
}

describe('settings fuzz against real processes', () => {
  it(`${RUNS} random edit sequences with the real connector and stdio fixtures`, async () => {
    const totals = { steps: 0, starts: 0 };
    const started = Date.now();
    await fc.assert(
      // Each sequence starts from two running user servers, so there is something to keep.
      fc.asyncProperty(scenarioArb(4), (scenario) => runReal({ ...scenario, steps: [START, ...scenario.steps] }, totals)),
      { numRuns: RUNS, seed: Number(process.env.MCP_LIVE_FUZZ_SEED ?? Date.now() % 2 ** 31), endOnFailure: true },
    );
    report('settings fuzz (real processes)', { sequences: RUNS, ...totals, ms: Date.now() - started });
    expect(totals.starts).toBeGreaterThan(0);
  });
});
