/**
 * Edit one server's args, add one server, remove one server: for each, from the file write until
 * the change is usable, how many processes started, the tools gap of every server that was not
 * changed (docs/contract.md, "Reconcile": must be 0 for mcp-live), and for an edit the tools gap of
 * the edited server itself (decision 101: 0 with make-before-break).
 */
import { statSync } from 'node:fs';
import { type Attempt, type Contestant, LiveContestant } from './contestant.js';
import { type ServerMap, fixtureServer, readStarts, sleep } from './fixtures.js';
import type { Availability } from './probe.js';
import type { ChangeKind, ChangeSample, ChangeSummary } from './results.js';
import { summarize } from './stats.js';

/** The server added and removed again by the add / remove scenarios (sorts after `s…`). */
export const ADDED = 'x-added';

/** A contestant and the servers its config file holds now. */
export class Entrant {
  constructor(
    readonly c: Contestant,
    public servers: ServerMap,
  ) {}
}

export interface WaitOptions {
  timeoutMs: number;
  /** Nothing may change for this long before a measurement ends (late restarts are caught). */
  quietMs: number;
}

/** How a change is recognised as done for its target server. */
export type TargetTest = (a: Availability) => boolean;

/** Up, and listing the marker tool of the new config. */
export const usableWith =
  (marker: string): TargetTest =>
  (a) =>
    a.up && a.tools.includes(marker);
export const gone: TargetTest = (a) => !a.up;

/** What {@link settle} observed, in raw times. */
export interface Settled {
  t0: number;
  tEnd: number;
  targetAt?: number;
  allUsableAt?: number;
  gapMs: number;
  /** Only when `target` was configured before and after: see {@link ChangeSample.editedGapMs}. */
  editedGapMs?: number;
  starts: string[];
  passes: number;
  error?: string;
}

/**
 * Writes `after` (with `write`, which may write several times) and waits until `target` passes
 * `test`, every server of `after` is usable, at least one pass ended, none is in flight, and
 * nothing changed for `quietMs`; then reads the figures from the probe and the start log.
 */
export async function settle(
  e: Entrant,
  after: ServerMap,
  target: string,
  test: TargetTest,
  wait: WaitOptions,
  write: () => Promise<unknown> | void,
): Promise<Settled> {
  const { c } = e;
  const others = Object.keys(after).filter((n) => n !== target);
  const unchanged = others.filter((n) => Object.hasOwn(e.servers, n));
  c.watch?.(true);
  if (c.watch) await sleep(60); // a fresh poll before the write
  const mark = c.probe.forget();
  const before = c.probe.upNow(unchanged);
  const edited = Object.hasOwn(e.servers, target) && Object.hasOwn(after, target);
  const targetBefore = c.probe.state(target);
  const startsBefore = readStarts(c.startLog).length;
  let logSize = fileSize(c.startLog);
  let lastActivity = performance.now();
  const t0 = performance.now();
  await write();
  const deadline = t0 + wait.timeoutMs;
  let error: string | undefined;
  for (;;) {
    await sleep(5);
    const now = performance.now();
    const size = fileSize(c.startLog);
    if (size !== logSize) {
      logSize = size;
      lastActivity = now;
    }
    const quietSince = Math.max(lastActivity, c.probe.lastChangeAt, c.lastPassEndedAt());
    const done =
      test(c.probe.state(target)) &&
      c.probe.allUp(others) &&
      c.passesEndedSince(t0) >= 1 &&
      c.passesInFlight() === 0 &&
      now - quietSince >= wait.quietMs;
    if (done) break;
    if (now > deadline) {
      error = `timed out after ${wait.timeoutMs} ms`;
      break;
    }
  }
  const tEnd = performance.now();
  c.watch?.(false);
  const starts = readStarts(c.startLog).slice(startsBefore);
  const settled: Settled = {
    t0,
    tEnd,
    targetAt: c.probe.firstTime(mark, target, test),
    allUsableAt: c.probe.allUpSince(mark, Object.hasOwn(after, target) ? [...others, target] : others, t0),
    gapMs: c.probe.longestDown(mark, unchanged, t0, tEnd, before),
    starts,
    passes: c.passesEndedSince(t0),
  };
  if (edited) {
    // The tools it lists before and after: a new marker tool comes, the old one goes, the rest stay.
    const keeps = targetBefore.tools.filter((t) => c.probe.state(target).tools.includes(t));
    const serving = (a: Availability) => a.up && keeps.every((t) => a.tools.includes(t));
    settled.editedGapMs = c.probe.longestDown(mark, [target], t0, tEnd, new Map([[target, serving(targetBefore)]]), serving);
  }
  if (error) settled.error = error;
  e.servers = after;
  return settled;
}

function fileSize(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

/** One change of one kind, measured. `rep` makes each edit's marker (and so its args) new. */
export async function measureChange(e: Entrant, kind: ChangeKind, target: string, rep: number, wait: WaitOptions): Promise<ChangeSample> {
  const { c } = e;
  const after: ServerMap = { ...e.servers };
  let test: TargetTest;
  let name = target;
  if (kind === 'edit') {
    after[target] = fixtureServer(target, c.startLog, `e${rep}`);
    test = usableWith(`e${rep}`);
  } else if (kind === 'add') {
    name = ADDED;
    after[ADDED] = fixtureServer(ADDED, c.startLog, `a${rep}`);
    test = usableWith(`a${rep}`);
  } else {
    name = ADDED;
    delete after[ADDED];
    test = gone;
  }
  const unchanged = Object.keys(after).filter((n) => n !== name && Object.hasOwn(e.servers, n));
  const s = await settle(e, after, name, test, wait, () => c.write(after));
  const sample: ChangeSample = {
    ms: s.targetAt === undefined ? undefined : s.targetAt - s.t0,
    allUsableMs: s.allUsableAt === undefined ? undefined : Math.max(s.allUsableAt, s.targetAt ?? s.t0) - s.t0,
    gapMs: s.gapMs,
    restarts: s.starts.length,
    unchangedRestarts: s.starts.filter((n) => unchanged.includes(n)).length,
    passes: s.passes,
  };
  if (s.editedGapMs !== undefined) sample.editedGapMs = s.editedGapMs;
  if (c instanceof LiveContestant) {
    await c.closesSettled(wait.timeoutMs);
    Object.assign(sample, breakdown(c.attemptsOf(name), s.t0, s.targetAt));
    c.forgetAttempts();
  }
  if (s.error) sample.error = s.error;
  return sample;
}

/**
 * mcp-live's latency of one change taken apart, from its connector's stamps: when the pass acted
 * (the first connect or close of the server after the write), the new process's own connect, the
 * swap (listed → usable in `servers$`), and where the old process's close fell — before the new
 * one started (stop-first: on the critical path) or after the swap (make-before-break: off it).
 */
export function breakdown(attempts: readonly Attempt[], t0: number, usableAt: number | undefined): Partial<ChangeSample> {
  const out: Partial<ChangeSample> = {};
  const old = attempts.find((a) => a.startedAt < t0 && a.closeStartedAt !== undefined && a.closeStartedAt >= t0);
  const made = attempts.find((a) => a.startedAt >= t0 && a.connectedAt !== undefined);
  const first = attempts.find((a) => a.startedAt >= t0)?.startedAt;
  const acted = Math.min(first ?? Infinity, old?.closeStartedAt ?? Infinity);
  if (Number.isFinite(acted)) out.triggerMs = acted - t0;
  if (made) {
    out.connectMs = made.connectedAt! - made.startedAt;
    if (usableAt !== undefined) out.swapMs = usableAt - made.connectedAt!;
  }
  if (old && made) {
    if (old.closeStartedAt! < made.startedAt) out.closeMs = made.startedAt - old.closeStartedAt!;
    else if (old.closedAt !== undefined && usableAt !== undefined) out.oldClosedMs = old.closedAt - usableAt;
  }
  return out;
}

/** Summaries of the samples of one change kind. */
export function summarizeChanges(samples: ChangeSample[]): ChangeSummary {
  const pick = (f: (s: ChangeSample) => number | undefined) => summarize(samples.map(f));
  const summary: ChangeSummary = {
    ms: pick((s) => s.ms),
    allUsableMs: pick((s) => s.allUsableMs),
    gapMs: pick((s) => s.gapMs),
    restarts: pick((s) => s.restarts),
    unchangedRestarts: pick((s) => s.unchangedRestarts),
    passes: pick((s) => s.passes),
    samples,
  };
  const optional = ['editedGapMs', 'triggerMs', 'closeMs', 'connectMs', 'swapMs', 'oldClosedMs'] as const;
  for (const key of optional) if (samples.some((s) => s[key] !== undefined)) summary[key] = pick((s) => s[key]);
  return summary;
}

/** After a failed sample: waits (bounded) until every configured server is usable again. */
export async function recover(e: Entrant, timeoutMs: number): Promise<boolean> {
  const names = Object.keys(e.servers);
  e.c.watch?.(true);
  const deadline = performance.now() + timeoutMs;
  let ok = false;
  while (performance.now() < deadline) {
    if (e.c.probe.allUp(names) && e.c.passesInFlight() === 0) {
      ok = true;
      break;
    }
    await sleep(100);
  }
  e.c.watch?.(false);
  return ok;
}
