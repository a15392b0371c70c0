/**
 * The contestants side by side at one N: each started with the same N fixture servers
 * (in its own temp folder), then the same edits in rounds — every round gives each contestant
 * one edit, one add and one remove, in a rotating order, so a noisy moment of the shared
 * machine does not always land on the same one. Then the bursts. Then everything is stopped
 * and the run checks that none of their fixture processes is left.
 */
import { measureBurst, summarizeBursts, type BurstOptions } from './burst.js';
import { bareConnect } from './coldStart.js';
import { type Contestant, type ContestantId, HUB_STABILITY_MS, LiveContestant } from './contestant.js';
import { Entrant, measureChange, recover, summarizeChanges } from './edits.js';
import { type RunDir, fixtureProcesses, fixtureServers, killPids, serverName, waitForNoFixtures } from './fixtures.js';
import { HubContestant } from './mcpHub.js';
import type { BurstSample, ChangeKind, ChangeSample, EntrantResult, SessionsAtN } from './results.js';
import { summarize } from './stats.js';

export interface SessionsOptions {
  n: number;
  reps: number;
  /** Rounds in which a contestant also gets an add and a remove (full restart at large N is slow). */
  addRemoveReps: (id: ContestantId, n: number) => number;
  editReps: (id: ContestantId, n: number) => number;
  burstReps: (id: ContestantId, n: number) => number;
  burst: BurstOptions;
  /** Which parts run. */
  edits: boolean;
  bursts: boolean;
  contestants: readonly ContestantId[];
  /** Why a contestant does not run at this N (undefined: it runs). */
  skip: (id: ContestantId, n: number) => string | undefined;
  debounceMs: number;
  run: RunDir;
  log: (line: string) => void;
}

const KINDS: readonly ChangeKind[] = ['edit', 'add', 'remove'];

function make(id: ContestantId, dir: string, debounceMs: number): Contestant {
  if (id === 'mcp-hub') return new HubContestant(dir);
  // Ours with mcp-hub's floor as its debounce: raw latencies compare without netting floors out.
  if (id === 'equal-floor') return new LiveContestant({ id, strategy: 'incremental', dir, debounceMs: HUB_STABILITY_MS });
  return new LiveContestant({ strategy: id, dir, debounceMs });
}

export async function runSessions(o: SessionsOptions): Promise<SessionsAtN> {
  const { n } = o;
  const target = serverName(Math.floor(n / 2));
  const result: SessionsAtN = { n, target, reps: {}, bareConnectMs: summarize([]), entrants: {} };
  const entrants: Entrant[] = [];
  const folders: string[] = [];
  const changeSamples = new Map<ContestantId, Record<ChangeKind, ChangeSample[]>>();
  const burstSamples = new Map<ContestantId, BurstSample[]>();
  const wait = { timeoutMs: 30_000 + n * 1_000, quietMs: 250 };
  const burstWait = { timeoutMs: 40_000 + n * 1_000, quietMs: 500 };

  try {
    for (const id of o.contestants) {
      const entrant: EntrantResult = { floorMs: 0, changes: {} };
      result.entrants[id] = entrant;
      const skipped = o.skip(id, n);
      if (skipped) {
        entrant.skipped = skipped;
        continue;
      }
      const dir = o.run.folder(`n${n}-${id}`);
      folders.push(dir);
      const c = make(id, dir, o.debounceMs);
      entrant.floorMs = c.floorMs;
      const servers = fixtureServers(n, c.startLog);
      try {
        entrant.coldStartMs = Math.round(await c.start(servers));
        o.log(`  N=${n} ${id}: ${n} servers usable after ${entrant.coldStartMs} ms`);
        entrants.push(new Entrant(c, servers));
        changeSamples.set(id, { edit: [], add: [], remove: [] });
        burstSamples.set(id, []);
      } catch (error) {
        entrant.skipped = `did not start: ${String(error)}`;
        o.log(`  N=${n} ${id}: ${entrant.skipped}`);
        await c.stop();
      }
    }

    const bare: number[] = [];
    const broken = new Set<ContestantId>();
    if (o.edits) {
      for (let rep = 0; rep < o.reps; rep++) {
        bare.push(await bareConnect());
        const order = rotate(entrants, rep);
        for (const e of order) {
          const id = e.c.id;
          if (broken.has(id)) continue;
          for (const kind of KINDS) {
            const reps = kind === 'edit' ? o.editReps(id, n) : o.addRemoveReps(id, n);
            if (rep >= reps) continue;
            const sample = await measureChange(e, kind, target, rep, wait);
            changeSamples.get(id)![kind].push(sample);
            if (sample.error && !(await recover(e, wait.timeoutMs))) {
              broken.add(id);
              o.log(`  N=${n} ${id}: did not recover after a failed ${kind}; no more rounds for it`);
              break;
            }
          }
        }
        o.log(`  N=${n} round ${rep + 1}/${o.reps}: ${entrants.map((e) => `${e.c.id} ${describeRound(changeSamples.get(e.c.id)!, rep)}`).join(' · ')}`);
      }
    }
    const burstRounds = Math.max(0, ...entrants.map((e) => o.burstReps(e.c.id, n)));
    if (o.bursts) {
      for (let rep = 0; rep < burstRounds; rep++) {
        if (!o.edits) bare.push(await bareConnect());
        for (const e of rotate(entrants, rep)) {
          if (broken.has(e.c.id) || rep >= o.burstReps(e.c.id, n)) continue;
          const sample = await measureBurst(e, target, rep, o.burst, burstWait);
          burstSamples.get(e.c.id)!.push(sample);
          if (sample.error && !(await recover(e, burstWait.timeoutMs))) broken.add(e.c.id);
        }
        o.log(
          `  N=${n} burst ${rep + 1}/${burstRounds}: ${entrants
            .map((e) => {
              const s = burstSamples.get(e.c.id)![rep];
              return `${e.c.id} ${s ? `${s.passes} passes, ${s.restarts} starts, longest gap between saves ${Math.round(s.maxSaveGapMs ?? 0)} ms${s.converged ? '' : ' (did not converge)'}` : '–'}`;
            })
            .join(' · ')}`,
        );
      }
    }
    result.bareConnectMs = summarize(bare);
    for (const e of entrants) {
      const id = e.c.id;
      const entrant = result.entrants[id]!;
      const samples = changeSamples.get(id)!;
      result.reps[id] = samples.edit.length;
      for (const kind of KINDS) if (samples[kind].length > 0) entrant.changes[kind] = summarizeChanges(samples[kind]);
      const bursts = burstSamples.get(id)!;
      if (bursts.length > 0) entrant.burst = summarizeBursts(bursts);
      if (broken.has(id)) entrant.skipped = 'stopped early: a change did not settle and it did not recover';
    }
  } finally {
    for (const e of entrants) await e.c.stop();
    for (const dir of folders) {
      const left = await waitForNoFixtures(dir, 10_000);
      if (left.length > 0) {
        o.log(`  N=${n}: ${left.length} fixture process(es) left by ${dir}; ending them`);
        killPids(left);
      }
    }
  }
  return result;
}

/** Fixture processes of these folders still alive (for the final check). */
export function leftovers(folders: readonly string[]): number[] {
  return folders.flatMap((f) => fixtureProcesses(f));
}

function rotate<T>(items: readonly T[], by: number): T[] {
  if (items.length === 0) return [];
  const k = by % items.length;
  return [...items.slice(k), ...items.slice(0, k)];
}

function describeRound(samples: Record<ChangeKind, ChangeSample[]>, rep: number): string {
  return KINDS.map((k) => {
    const s = samples[k][rep];
    if (!s) return `${k[0]}:–`;
    if (s.error) return `${k[0]}:ERR`;
    return `${k[0]}:${Math.round(s.allUsableMs ?? Number.NaN)}ms/gap ${Math.round(s.gapMs ?? 0)}`;
  }).join(' ');
}
