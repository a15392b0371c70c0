/**
 * The shape of `bench/results/<name>.json`: every raw sample plus its summaries, so the
 * report (docs/benchmarks.md) can be regenerated from a file without running anything again.
 */
import type { ContestantId } from './contestant.js';
import type { McpHubStatus } from './mcpHub.js';
import type { Summary } from './stats.js';
import type { PoolResult } from './poolSessions.js';
import type { ProgressiveResult } from './progressive.js';
import type { UiFramesResult } from './uiFrames.js';

export type ChangeKind = 'edit' | 'add' | 'remove';

/** One measured config change of one contestant. */
export interface ChangeSample {
  /** Write → the changed server usable with its new tools (edit, add) or its tools gone (remove). */
  ms?: number;
  /** Write → every configured server usable again (the session whole). */
  allUsableMs?: number;
  /** Longest time any server that was not changed had no tools. */
  gapMs?: number;
  /**
   * Edit only: longest time the edited server itself was not listing every tool it lists both
   * before and after the edit (the tools whose names stay); absent in older results.
   */
  editedGapMs?: number;
  /** Process starts after the write: all, and of servers that were not changed. */
  restarts?: number;
  unchangedRestarts?: number;
  /** Passes (mcp-live) / config changes applied (mcp-hub) after the write. */
  passes?: number;
  /** mcp-live only: write → the pass acted on the server (watcher + debounce + plan): its first connect or close began. */
  triggerMs?: number;
  /** mcp-live only, edit: closing the old process before the new one started (stop-first order, and every edit in older results). */
  closeMs?: number;
  /** mcp-live only: the new process's own connect (spawn → initialized and listed; older results: connecting → connected in `servers$`). */
  connectMs?: number;
  /** mcp-live only: the new connection listed → the server usable with it in `servers$` (the swap / registry); absent in older results. */
  swapMs?: number;
  /** mcp-live only, edit: the server usable on the new process → the old process gone (make-before-break: off the critical path). */
  oldClosedMs?: number;
  error?: string;
}

export interface ChangeSummary {
  ms: Summary;
  allUsableMs: Summary;
  gapMs: Summary;
  restarts: Summary;
  unchangedRestarts: Summary;
  passes: Summary;
  editedGapMs?: Summary;
  triggerMs?: Summary;
  closeMs?: Summary;
  connectMs?: Summary;
  swapMs?: Summary;
  oldClosedMs?: Summary;
  samples: ChangeSample[];
}

/** One burst: `saves` writes within `windowMs`. */
export interface BurstSample {
  passes?: number;
  restarts?: number;
  targetRestarts?: number;
  unchangedRestarts?: number;
  gapMs?: number;
  /** Longest time the edited server was not listing every tool it keeps (see {@link ChangeSample.editedGapMs}). */
  editedGapMs?: number;
  /** Last save → the server usable with the content of the last save. */
  lastSaveToUsableMs?: number;
  /** mcp-live only: last save → the pass began the connect that ended the burst. */
  triggerMs?: number;
  /** mcp-live only: that connect, spawn → listed. */
  connectMs?: number;
  /** Whether it ended on the content of the last save. */
  converged: boolean;
  /** First save → last save as written (the plan: `windowMs` minus one interval). */
  spanMs?: number;
  /** The longest time between two consecutive saves: a stalled writer makes a burst two. */
  maxSaveGapMs?: number;
  error?: string;
}

export interface BurstSummary {
  passes: Summary;
  restarts: Summary;
  targetRestarts: Summary;
  unchangedRestarts: Summary;
  gapMs: Summary;
  editedGapMs?: Summary;
  lastSaveToUsableMs: Summary;
  triggerMs?: Summary;
  connectMs?: Summary;
  converged: number;
  maxSaveGapMs?: Summary;
  samples: BurstSample[];
}

/** Per contestant, at one N. */
export interface EntrantResult {
  /** Start → all N usable (one sample: the set-up of this N). */
  coldStartMs?: number;
  /** Floor of this contestant: debounce (mcp-live) / write-stability window (mcp-hub). */
  floorMs: number;
  changes: Partial<Record<ChangeKind, ChangeSummary>>;
  burst?: BurstSummary;
  /** Why it did not take part or stopped early at this N. */
  skipped?: string;
}

export interface SessionsAtN {
  n: number;
  /** Edited server (the middle one by name, so no strategy gets it first by luck). */
  target: string;
  reps: Partial<Record<ContestantId, number>>;
  bareConnectMs: Summary;
  entrants: Partial<Record<ContestantId, EntrantResult>>;
}

export interface ColdStartAtN {
  n: number;
  bounded: Summary;
  sequential: Summary;
  /** sequential / bounded, of the medians. */
  ratio: number;
  /** Heap / RSS growth of our process with N servers connected (after gc), bounded runs. */
  heapDeltaMB: Summary;
  rssDeltaMB: Summary;
  bareConnectMs: Summary;
}

export interface ColdStartResult {
  concurrency: number;
  ns: ColdStartAtN[];
  /** Marginal memory per connected server: slope between the two largest N, in KB. */
  perServer: { heapKB: number; rssKB: number; between: [number, number] };
  gcExposed: boolean;
  /**
   * A bare connect of one server whose era is unknown (probed) against one whose era is known
   * (no probe, decision 380), per kind of server; absent in older results.
   */
  eras?: EraConnectRow[];
}

/** One kind of server of {@link ColdStartResult.eras}: ms of a connect with the era unknown and known. */
export interface EraConnectRow {
  server: string;
  unknownMs: Summary;
  knownMs: Summary;
}

/** One way of computing a reconcile decision, timed (bench/cpu.ts). */
export interface CpuPass {
  iterations: number;
  /** One whole pass: assemble + the reconcile gate + admission (desiredServers → admitAll) + plan, µs (older results: without the gate). */
  passUs: Summary;
  assembleUs: Summary;
  /** The reconcile gate (`desiredStateEqual` of the previous desired state and this one), µs; absent in older results. */
  gateUs?: Summary;
  desiredUs: Summary;
  planUs: Summary;
  /** Garbage collection inside the timed pass (V8 `gc` performance entries), µs; absent in older results. */
  gcUs?: Summary;
  /** passUs.median / servers, in ns. */
  nsPerServer: number;
  /** The median of (pass − its gc) / servers, in ns: the model's own work; absent in older results. */
  nsPerServerWithoutGc?: number;
}

/** From scratch at the top level (the pure functions), and the incremental desired state beside it. */
export interface CpuAtN extends CpuPass {
  servers: number;
  /** The same passes through a warm `createIncrementalDesired()` (decision 102); absent in older results. */
  incremental?: CpuPass;
}

export interface CpuResult {
  ns: CpuAtN[];
  /** The built CLI on 20,000 gated entries (bench/manyEntries.ts); absent in older results. */
  manyEntries?: ManyEntriesResult;
}

/** One workspace of many gated entries, every one pending approval: wall-clock ms. */
export interface ManyEntriesRow {
  label: string;
  entries: number;
  /** `mcp-live status`, spawn to exit. */
  statusMs: Summary;
  /** `mcp-live --json`, spawn to the `ready` event. */
  readyMs: Summary;
  /** `--json`, SIGTERM sent at the pass's first `server` event (or `ready`) to the exit. */
  sigtermExitMs: Summary;
}

export interface ManyEntriesResult {
  rows: ManyEntriesRow[];
  rounds: number;
}

export interface IdleSide {
  /** CPU used over the whole idle window, ms (utime + stime from /proc, both sides alike). */
  cpuMs: number;
  /** mcp-live only: process.cpuUsage() over the same window (µs resolution). */
  cpuUsageMs?: number;
  /** Median CPU of the slices, ms per s: the steady cost. */
  steadyMsPerS: number;
  /** CPU of the busiest slice, ms. */
  maxSliceMs: number;
  /** Share of one core over the window, %. */
  cpuPercent: number;
  rssStartMB: number;
  rssEndMB: number;
  heapUsedMB?: number;
  startMs: number;
}

export interface IdleResult {
  servers: number;
  seconds: number;
  sides: Partial<Record<'mcp-live' | 'mcp-hub', IdleSide>>;
  notes: string[];
}

/**
 * The cold start and idle figures of the run before this one (the committed
 * `bench/results/full.json`), kept in the new results so that "no worse than before" is judged
 * from one file.
 */
export interface PreviousRun {
  /** Where they were read from. */
  source: string;
  startedAt: string;
  commit?: string;
  coldStart?: { n: number; bounded: Summary }[];
  idle?: IdleResult;
}

/** Language servers (decision 159): edit one of N → usable again (bench/lsp.ts). */
export interface LspResult {
  debounceMs: number;
  ns: LspAtN[];
}

export interface LspAtN {
  n: number;
  rounds: number;
  /** Save → the edited server's new process answered a hover. */
  usableMs: Summary;
  /** The pass that replaced the edited server (its `reconcile` event's `ms`): its new process's own connect. */
  connectMs: Summary;
  /** The fixture language server's connect alone (spawn → `initialize` answered): a cross-check. */
  floorMs: Summary;
  /** usable − debounce − that round's pass − its first answer, per round: ours. */
  overheadMs: Summary;
  /** Of ours: save → the pass's start, less the debounce (the watcher event and the read). */
  detectMs: Summary;
  /** The swap seen in `servers$` → the new process's first hover answered (the server's first request). */
  answerMs: Summary;
  /** Servers other than the edited one whose pid changed over all rounds. */
  otherRestarts: number;
  /** Hovers to an unedited server during the edits, and how many failed. */
  probes: number;
  probeFailures: number;
}

/** `mcp-live serve` (decision 142): one echo server behind the gateway. */
export interface GatewayResult {
  /** Timed calls per way. */
  calls: number;
  /** A client with its own stdio connection to the server. */
  directMs: Summary;
  /** A client of an echo server over Streamable HTTP (sessions), on loopback. */
  directHttpMs: Summary;
  /** A client of the gateway over Streamable HTTP on loopback. */
  httpMs: Summary;
  /** A client that launched `serve --stdio` (relay → local socket → gateway). */
  socketMs: Summary;
  fanOut: {
    clients: number;
    edits: number;
    /** From the first client's list_changed to the last client's new tool list. */
    spreadMs: Summary;
    /** From the save to the last client's new tool list. */
    saveToLastMs: Summary;
  }[];
  /** A 2025-era and a 2026-07-28 client side by side: from the save to each one's new tool list. */
  eras?: { edits: number; legacySaveToListedMs: Summary; modernSaveToListedMs: Summary };
}

/** tools/list's prefix kept across an edit (decision 358): bench/prefixKept.ts. */
export interface PrefixKeptResult {
  servers: number;
  toolsPerServer: number;
  /** The server added, and the one edited, changed by itself and removed (the middle ones by name). */
  added: string;
  edited: string;
  /** One after another, each against the list just before it. */
  edits: {
    edit: string;
    toolsBefore: number;
    toolsAfter: number;
    /** UTF-8 bytes of the serialized tools/list before the edit. */
    bytesBefore: number;
    /** Of those bytes, the share still an exact prefix after it, in %: the gateway's kept order. */
    keptOrderPercent: number;
    /** The same, in the order before decision 358: servers by name, each server's tools in its own order. */
    sortedOrderPercent: number;
  }[];
}

/** Many lazy servers (decisions 195–198): bench/surfaces.ts. */
export interface SurfacesResult {
  servers: number;
  toolsPerServer: number;
  /** servers × toolsPerServer. */
  tools: number;
  /** A session without a record, every entry lazy: start → every server learned (started, listed, recorded, stopped) and idle. */
  learn: { ms: Summary; starts: number[] };
  /** A new session on the record: start() → every tool in tools$, per repetition. */
  listing: {
    ms: Summary;
    /** start() alone (until its first pass ended). */
    startMs: Summary;
    /** The session's debounce: later passes wait it; the first does not (decision 220). */
    debounceMs: number;
    /** The first pass's own time (its `reconcile` event's `ms`). */
    passMs: Summary;
    /** Tools listed at the end of each repetition. */
    listed: number[];
    /** Server processes started (start log lines), and fixture processes running once listed. */
    starts: number[];
    running: number[];
  };
  /** The same servers with `lazy: false`: start → all connected. */
  eager: { ms: Summary; starts: number[] };
  /** A call to an idle lazy server (fresh session) until its result vs a bare connect of the same server, in turns. */
  firstCall: {
    reps: number;
    toolsOfServer: number;
    callMs: Summary;
    bareConnectMs: Summary;
    /** callMs.median − bareConnectMs.median. */
    overheadMs: number;
    /** Processes each first call started (1 each). */
    starts: number[];
    samples: { callMs: number[]; bareConnectMs: number[] };
  };
  /** `serve --progressive` over a 1,500-tool catalog (bench/progressive.ts). */
  progressive: ProgressiveResult;
  /** Not measured here: mcp-hub starts every server; the committed full run's start at N is kept as a reference. */
  mcpHub: { note: string; reference?: { source: string; startedAt: string; n: number; coldStartMs: number } };
  /** Fixture processes that outlived their session's dispose (killed). */
  leftover: number[];
  notes: string[];
}

export interface TargetVerdict {
  target: string;
  measured: string;
  met: boolean | 'n/a';
  why?: string;
}

export interface BenchResults {
  name: string;
  mode: 'full' | 'quick';
  only?: string;
  startedAt: string;
  durationS: number;
  machine: {
    cpus: number;
    cpuModel: string;
    memoryGiB: number;
    node: string;
    platform: string;
    loadAverageStart: number[];
    loadAverageEnd: number[];
    /** The environment every contestant and its servers ran with: names only (bench/run.ts). */
    environment?: { kept: string[]; dropped: string[] };
  };
  commit?: string;
  config: {
    ns: number[];
    reps: number;
    debounceMs: number;
    idleSeconds: number;
    burst: { saves: number; windowMs: number; reps?: number };
    fullMaxN: number;
    hubMaxN?: number;
    hubPollMs: number;
  };
  mcpHub: McpHubStatus;
  coldStart?: ColdStartResult;
  sessions?: SessionsAtN[];
  cpu?: CpuResult;
  idle?: IdleResult;
  /** 10 sessions × 10 identical servers, pool off vs on (bench/poolSessions.ts). */
  pool?: PoolResult;
  /** Frames the Ink UI renders under a reconcile storm (bench/uiFrames.tsx). */
  ui?: UiFramesResult;
  /** `mcp-live serve`: call overhead and list_changed fan-out (bench/gateway.ts). */
  gateway?: GatewayResult;
  /** tools/list's prefix kept across an edit, kept order vs sorted by server (bench/prefixKept.ts). */
  prefix?: PrefixKeptResult;
  /** Language servers: edit one of N → usable again, the others untouched (bench/lsp.ts). */
  lsp?: LspResult;
  /** Many lazy servers: listing from the surface record, first call, progressive discovery (bench/surfaces.ts). */
  surfaces?: SurfacesResult;
  leftoverFixtures: { found: number[]; killed: boolean };
  /** Cold start and idle of the previous run, the baseline of their target; absent when none was found. */
  previous?: PreviousRun;
  targets?: TargetVerdict[];
  notes: string[];
}

/**
 * Where a run's results go, under `bench/results/`: a full run's `<name>.json` is the committed
 * record the docs are generated from; a quick run's is a check on one's own machine, so it is
 * `<name>.local.json`, ignored by git (decision 328) — `npm run bench:quick` leaves a clone clean.
 */
export function resultsFileName(name: string, mode: BenchResults['mode']): string {
  return mode === 'quick' ? `${name}.local.json` : `${name}.json`;
}
