import { expect } from 'vitest';
import type { Observable } from 'rxjs';
import { TestScheduler, type RunHelpers } from 'rxjs/testing';
import type { AssembleInput } from '../../src/model/settings/assemble.js';
import type { ApprovalDecisions, McpSettings } from '../../src/model/types.js';
import type { McpLiveEvent } from '../../src/model/report/events.js';
import type { ServerStatus } from '../../src/model/report/status.js';
import type { Reconciler } from '../../src/live/reconciler.js';

/** A fake stdio server whose behaviour is its args (see fakeConnector). */
export const srv = (...args: string[]) => ({ command: 'fake', args });

export interface InputOptions {
  project?: Record<string, unknown>;
  mcp?: McpSettings;
  approvals?: ApprovalDecisions;
  sessionApprovals?: Record<string, string>;
}

/** Inputs as the sources would deliver them: user settings plus a `.mcp.json`. */
export function input(user: Record<string, unknown>, o: InputOptions = {}): AssembleInput {
  return {
    sources: [
      { scope: 'user', file: '/home/u/.qwen/settings.json', servers: user, mcp: o.mcp },
      { scope: 'project', file: '/work/p/.mcp.json', servers: o.project ?? {} },
    ],
    approvals: o.approvals ?? {},
    sessionApprovals: o.sessionApprovals ?? {},
    folderTrusted: true,
  };
}

/** A TestScheduler whose frame assertions are vitest's `toStrictEqual`. */
export function newScheduler(): TestScheduler {
  return new TestScheduler((actual, expected) => expect(actual).toStrictEqual(expected));
}

/** Records everything a reconciler says, then starts it. */
export function observe(r: Reconciler) {
  const events: McpLiveEvent[] = [];
  const snapshots: (readonly ServerStatus[])[] = [];
  const pending: string[][] = [];
  r.events$.subscribe((e) => events.push(e));
  r.board.servers$.subscribe((s) => snapshots.push(s));
  r.pendingApprovals$.subscribe((p) => pending.push(p.map((x) => x.name)));
  r.start();
  const server = (name: string) => snapshots.at(-1)?.find((s) => s.name === name);
  return { r, events, snapshots, pending, server };
}

/** What a scene's `meanwhile` may use: the run's helpers (`cold`, `hot`, …) and its scheduler. */
export type Stage = RunHelpers & { ts: TestScheduler };

/**
 * One scene in virtual time: `start` builds what is under test on the inputs `marbles` (a hot
 * observable of `values`), `meanwhile` schedules what else happens (reloads, kills, calls),
 * then time runs until nothing is left. Returns what `start` built, to assert on.
 */
export function play<H>(
  marbles: string,
  values: Record<string, AssembleInput>,
  start: (ts: TestScheduler, inputs$: Observable<AssembleInput>) => H,
  meanwhile?: (h: H, stage: Stage) => void,
): H {
  const ts = newScheduler();
  let h!: H;
  ts.run((helpers) => {
    h = start(ts, helpers.hot(marbles, values));
    meanwhile?.(h, { ...helpers, ts });
    helpers.flush();
  });
  return h;
}
