import fc from 'fast-check';
import { BehaviorSubject } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import type { AssembleInput } from '../../src/model/settings/assemble.js';
import { createReconciler } from '../../src/live/reconciler.js';
import { fakeConnector } from '../marbles/fakeConnector.js';
import { apply, emptyWorld, expected, NAMES, scenarioArb, toInput, winner, type Expected, type Name, type Scenario } from './fuzzModel.js';
import { report } from './kit.js';

/**
 * Generative fuzz of settings edits against the real pipeline (createReconciler: debounce, gate,
 * one pass at a time, plan, per-server ordering, LiveServers) with a fake connector, in virtual
 * time. After every settle, live state must equal what admission says: no extra server, none
 * missing, no blocked (gated, excluded, …) server ever connected, no unchanged server restarted.
 */

const RUNS = Number(process.env.MCP_LIVE_FUZZ_RUNS ?? 3000);
const STEP_MS = 1000;
const BURST_GAP_MS = 40;

/** Deliberate faults, to show the checks can fail. */
interface Sabotage {
  /** The pipeline runs with this flag while the oracle uses the scenario's. */
  pipelineFlag?: Name[];
  /** Kills a server's connection at this virtual time (supervision restarts it). */
  kill?: { name: Name; at: number };
}

/** Runs one scenario; throws with the first difference found. */
function runVirtual(scenario: Scenario, sabotage: Sabotage = {}): { steps: number; passes: number; connects: number } {
  const ts = new TestScheduler((a, b) => expect(a).toEqual(b));
  let passes = 0;
  let connects = 0;
  ts.run(({ flush }) => {
    const world = emptyWorld();
    const inputs = new BehaviorSubject<AssembleInput>(toInput(world));
    const fake = fakeConnector(ts);
    const r = createReconciler(inputs, {
      connector: fake.connector,
      scheduler: ts,
      env: {},
      random: () => 0.5,
      allowedMcpServerNames: 'pipelineFlag' in sabotage ? sabotage.pipelineFlag : scenario.flag,
    });
    if (sabotage.kill) {
      const { name, at } = sabotage.kill;
      ts.schedule(() => fake.kill(name), at);
    }
    r.events$.subscribe((e) => {
      if (e.type === 'reconcile') passes += 1;
    });
    r.start();

    const ever = new Set<Name>();
    let before = new Map<Name, Expected | undefined>();
    let pids = new Map<Name, number | undefined>();
    let logMark = 0;

    const check = (step: number): void => {
      const where = `after step ${step}`;
      const now = new Map<Name, Expected | undefined>();
      for (const name of NAMES) if (winner(world, name)) ever.add(name);
      const window = fake.log.slice(logMark);
      logMark = fake.log.length;
      const started = (name: Name) => window.filter((l) => l.endsWith(` connect ${name}`)).length;
      connects += window.filter((l) => / connect /.test(l)).length;
      for (const name of NAMES) {
        const want = expected(world, name, scenario.flag, ever.has(name));
        now.set(name, want);
        const live = r.board.status(name);
        if (want === undefined) {
          expect(live, `${where}: ${name} was never configured`).toBeUndefined();
          continue;
        }
        expect(live, `${where}: ${name} must be known`).toBeDefined();
        expect({ state: live!.state, reason: live!.reason }, `${where}: ${name}`).toEqual({ state: want.state, reason: want.reason });
        if (want.tools) expect(live!.tools.map((t) => t.tool).sort(), `${where}: tools of ${name}`).toEqual(want.tools);
        // Nothing blocked is ever started: every start in this window was of an admitted server.
        if (started(name) > 0) {
          expect(['connected', 'error'], `${where}: ${name} was started while ${want.state}/${want.reason}`).toContain(want.state);
        }
        // An admitted server whose connection did not change keeps its process.
        const was = before.get(name);
        if (was?.state === 'connected' && want.state === 'connected' && was.fingerprintKey === want.fingerprintKey) {
          expect(started(name), `${where}: ${name} was restarted though unchanged`).toBe(0);
          expect(live!.pid, `${where}: pid of ${name}`).toBe(pids.get(name));
        }
      }
      // No server the model does not know of.
      expect(r.board.list().map((s) => s.name).filter((n) => !ever.has(n as Name)), where).toEqual([]);
      before = now;
      pids = new Map(NAMES.map((n) => [n, r.board.status(n)?.pid]));
    };

    ts.schedule(() => check(0), STEP_MS - 50);
    scenario.steps.forEach((step, i) => {
      const at = STEP_MS * (i + 1);
      step.ops.forEach((op, j) =>
        ts.schedule(() => {
          apply(world, op);
          inputs.next(toInput(world));
        }, at + BURST_GAP_MS * j),
      );
      if (step.reload) ts.schedule(() => r.reload(), at + 600);
      ts.schedule(() => check(i + 1), at + STEP_MS - 50);
    });
    flush();
  });
  return { steps: scenario.steps.length, passes, connects };
}

describe('settings fuzz, virtual time, fake connector', () => {
  it(`${RUNS} random edit sequences: live state equals admission after every settle`, () => {
    let steps = 0;
    let passes = 0;
    let connects = 0;
    const started = Date.now();
    fc.assert(
      fc.property(scenarioArb(12), (scenario) => {
        const r = runVirtual(scenario);
        steps += r.steps;
        passes += r.passes;
        connects += r.connects;
      }),
      { numRuns: RUNS, seed: Number(process.env.MCP_LIVE_FUZZ_SEED ?? Date.now() % 2 ** 31) },
    );
    report('settings fuzz (virtual)', { sequences: RUNS, steps, passes, connects, ms: Date.now() - started });
    expect(steps).toBeGreaterThan(RUNS);
  });

  it('the checks can fail: a missing server, an extra server and a restart are each caught', () => {
    const one: Scenario = {
      steps: [
        { ops: [{ t: 'put', scope: 'user', name: 'a', view: 0, fail: false, disabled: false }], reload: false },
        { ops: [{ t: 'view', scope: 'user', name: 'a', view: 1 }], reload: true },
      ],
    };
    expect(() => runVirtual(one)).not.toThrow();
    // Blocked by the pipeline, expected connected: missing.
    expect(() => runVirtual(one, { pipelineFlag: ['b'] })).toThrow(/after step 1: a/);
    // Connected by the pipeline, expected blocked: extra (and started while blocked).
    expect(() => runVirtual({ ...one, flag: ['b'] }, { pipelineFlag: undefined })).toThrow(/after step 1: a/);
    // Restarted (here by a crash and supervision) though its config did not change.
    expect(() => runVirtual(one, { kill: { name: 'a', at: 1960 } })).toThrow(/after step 2: a was restarted though unchanged/);
  });
});
