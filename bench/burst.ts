/**
 * A burst of saves: `saves` writes of the config file within `windowMs`, each changing one
 * server's args (as a user typing and saving, or a tool rewriting the file). Counted: passes
 * and process starts until it settles, and whether it ended on the content of the last save.
 * Target for mcp-live (docs/benchmarks.md, "Targets"): a burst is one reconcile (at most 2 passes).
 */
import { LiveContestant } from './contestant.js';
import { type Entrant, type WaitOptions, breakdown, settle, usableWith } from './edits.js';
import { type ServerMap, fixtureServer, sleep } from './fixtures.js';
import type { BurstSample, BurstSummary } from './results.js';
import { summarize } from './stats.js';

export interface BurstOptions {
  saves: number;
  windowMs: number;
}

export async function measureBurst(e: Entrant, target: string, rep: number, burst: BurstOptions, wait: WaitOptions): Promise<BurstSample> {
  const { c } = e;
  const marker = (i: number) => `b${rep}x${i}`;
  const version = (i: number): ServerMap => ({ ...e.servers, [target]: fixtureServer(target, c.startLog, marker(i)) });
  const last = version(burst.saves - 1);
  const unchanged = Object.keys(last).filter((n) => n !== target);
  const interval = burst.windowMs / burst.saves;
  let firstSaveAt = 0;
  let lastSaveAt = 0;
  let maxSaveGap = 0;
  const s = await settle(e, last, target, usableWith(marker(burst.saves - 1)), wait, async () => {
    const t0 = performance.now();
    for (let i = 0; i < burst.saves; i++) {
      const due = t0 + i * interval;
      const now = performance.now();
      if (due > now) await sleep(due - now);
      c.write(version(i));
      const saved = performance.now();
      if (i === 0) firstSaveAt = saved;
      else maxSaveGap = Math.max(maxSaveGap, saved - lastSaveAt);
      lastSaveAt = saved;
    }
    return t0;
  });
  const converged = s.targetAt !== undefined && s.error === undefined;
  const sample: BurstSample = {
    passes: s.passes,
    restarts: s.starts.length,
    targetRestarts: s.starts.filter((n) => n === target).length,
    unchangedRestarts: s.starts.filter((n) => unchanged.includes(n)).length,
    gapMs: s.gapMs,
    editedGapMs: s.editedGapMs,
    converged,
    spanMs: lastSaveAt - firstSaveAt,
    maxSaveGapMs: maxSaveGap,
  };
  if (s.targetAt !== undefined) sample.lastSaveToUsableMs = Math.max(0, s.targetAt - lastSaveAt);
  if (c instanceof LiveContestant) {
    // The connect that ended the burst is the first one begun after the last save.
    const { triggerMs, connectMs } = breakdown(c.attemptsOf(target), lastSaveAt, s.targetAt);
    Object.assign(sample, { triggerMs, connectMs });
    c.forgetAttempts();
  }
  if (s.error) sample.error = s.error;
  return sample;
}

export function summarizeBursts(samples: BurstSample[]): BurstSummary {
  const pick = (f: (s: BurstSample) => number | undefined) => summarize(samples.map(f));
  return {
    passes: pick((s) => s.passes),
    restarts: pick((s) => s.restarts),
    targetRestarts: pick((s) => s.targetRestarts),
    unchangedRestarts: pick((s) => s.unchangedRestarts),
    gapMs: pick((s) => s.gapMs),
    editedGapMs: pick((s) => s.editedGapMs),
    lastSaveToUsableMs: pick((s) => s.lastSaveToUsableMs),
    ...(samples.some((s) => s.triggerMs !== undefined) ? { triggerMs: pick((s) => s.triggerMs), connectMs: pick((s) => s.connectMs) } : {}),
    converged: samples.filter((s) => s.converged).length,
    maxSaveGapMs: summarize(samples.map((s) => s.maxSaveGapMs)),
    samples,
  };
}
