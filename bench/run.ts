/**
 * `npm run bench` / `npm run bench:quick`: runs the scenario groups, writes
 * `bench/results/<name>.json` and regenerates `docs/benchmarks.md` (+ its SVG chart).
 *
 *   node --expose-gc dist/bench/run.js [--quick] [--only cpu|cold|sessions|edits|burst|idle|pool|ui|gateway|prefix|lsp|surfaces]
 *        [--reps R] [--ns 1,10,50] [--idle-seconds S] [--name NAME] [--docs | --no-docs]
 *        [--no-hub] [--report bench/results/full.json]   (regenerate the docs from a file)
 *
 * Full: N = 1, 10, 50, 100 (full restart up to 50), 5 rounds, idle 30 s (~20 min).
 * Quick: N = 1, 10, 3 rounds, idle 5 s (~4 min); writes results/quick.local.json (untracked), not the docs.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import type { ContestantId } from './contestant.js';
import { runColdStart } from './coldStart.js';
import { runCpu } from './cpu.js';
import { runManyEntries } from './manyEntries.js';
import { runGatewayBench } from './gateway.js';
import { runPrefixKept } from './prefixKept.js';
import { runLspBench } from './lsp.js';
import { ROOT, RunDir, fixtureProcesses, fixtureServers, killPids } from './fixtures.js';
import { runIdle } from './idle.js';
import { POLL_MS, checkMcpHub, type McpHubStatus } from './mcpHub.js';
import { evaluateTargets, writeReport } from './report.js';
import { resultsFileName, type BenchResults, type PreviousRun } from './results.js';
import { runSessions } from './sessions.js';
import { runPoolSessions } from './poolSessions.js';
import { runUiFrames } from './uiFrames.js';
import { runSurfaces } from './surfaces.js';
import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';

const GROUPS = ['cpu', 'cold', 'sessions', 'edits', 'burst', 'idle', 'pool', 'ui', 'gateway', 'prefix', 'lsp', 'surfaces'] as const;
type Group = (typeof GROUPS)[number];

interface Flags {
  quick: boolean;
  only?: Group;
  reps?: number;
  ns?: number[];
  idleSeconds?: number;
  name?: string;
  docs?: boolean;
  hub: boolean;
  report?: string;
}

function parseFlags(argv: readonly string[]): Flags {
  const flags: Flags = { quick: false, hub: true };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const value = (): string => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${arg} needs a value`);
      return v;
    };
    if (arg === '--quick') flags.quick = true;
    else if (arg === '--only') {
      const g = value();
      if (!(GROUPS as readonly string[]).includes(g)) throw new Error(`--only: one of ${GROUPS.join(', ')}`);
      flags.only = g as Group;
    } else if (arg === '--reps') flags.reps = positive(arg, value());
    else if (arg === '--ns') flags.ns = value().split(',').map((v) => positive(arg, v));
    else if (arg === '--idle-seconds') flags.idleSeconds = positive(arg, value());
    else if (arg === '--name') flags.name = value();
    else if (arg === '--docs') flags.docs = true;
    else if (arg === '--no-docs') flags.docs = false;
    else if (arg === '--no-hub') flags.hub = false;
    else if (arg === '--report') flags.report = value();
    else if (arg === '--help' || arg === '-h') {
      console.log(readFileSync(new URL(import.meta.url), 'utf8').split('*/')[0]);
      process.exit(0);
    } else throw new Error(`unknown flag ${arg}`);
  }
  return flags;
}

function positive(flag: string, v: string): number {
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${flag}: a positive number, not "${v}"`);
  return n;
}

function git(...args: string[]): string | undefined {
  try {
    return execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], maxBuffer: 64 * 1024 * 1024 }).trim();
  } catch {
    return undefined;
  }
}

/**
 * Cold start and idle of the committed full run: the baseline of "no worse than before". Read
 * from git, not the working copy, which this run (or an aborted one) may already have replaced.
 */
function previousRun(): PreviousRun | undefined {
  const source = 'HEAD:bench/results/full.json';
  const text = git('show', source);
  if (!text) return undefined;
  const before = JSON.parse(text) as BenchResults;
  const previous: PreviousRun = { source: `git show ${source}`, startedAt: before.startedAt };
  if (before.commit) previous.commit = before.commit;
  if (before.coldStart) previous.coldStart = before.coldStart.ns.map((x) => ({ n: x.n, bounded: x.bounded }));
  if (before.idle) previous.idle = before.idle;
  return previous;
}

/**
 * Every contestant's servers get the same environment: the SDK's default inherited set (HOME,
 * LOGNAME, PATH, SHELL, TERM, USER), which is all mcp-hub hands its children. mcp-live (in this
 * process, and the session children it forks) hands a child the whole process environment
 * (docs/contract.md, "Server entries"), so the run keeps only that set for itself: a variable such
 * as NODE_EXTRA_CA_CERTS makes each Node fixture boot tens of ms slower, and would count against
 * one contestant only. Returns the names kept and dropped (never values) for the report.
 */
function sameChildEnvironment(): { kept: string[]; dropped: string[] } {
  const keep = getDefaultEnvironment();
  const dropped = Object.keys(process.env).filter((key) => !(key in keep)).sort();
  for (const key of dropped) delete process.env[key];
  return { kept: Object.keys(keep).sort(), dropped };
}

async function main(): Promise<void> {
  const flags = parseFlags(process.argv.slice(2));
  if (flags.report) {
    const results = JSON.parse(readFileSync(flags.report, 'utf8')) as BenchResults;
    results.targets = evaluateTargets(results);
    writeReport(results, join(ROOT, 'docs'));
    console.log(`docs/benchmarks.md regenerated from ${flags.report}`);
    return;
  }
  const quick = flags.quick;
  const mode = quick ? 'quick' : 'full';
  const reps = flags.reps ?? (quick ? 3 : 5);
  const ns = flags.ns ?? (quick ? [1, 10] : [1, 10, 50, 100]);
  const coldNs = ns.filter((n) => n <= 50);
  const idleSeconds = flags.idleSeconds ?? (quick ? 5 : 30);
  const debounceMs = 300;
  const fullMaxN = 50;
  const hubMaxN = 50;
  const burst = { saves: 50, windowMs: 2_000, reps: quick ? 1 : 3 };
  const runs = (g: Group) => !flags.only || flags.only === g || (flags.only === 'sessions' && (g === 'edits' || g === 'burst'));
  const sessionsRun = runs('edits') || runs('burst');
  const name = flags.name ?? (flags.only ? `${mode}-${flags.only}` : mode);
  const writeDocs = flags.docs ?? (!quick && !flags.only);

  const environment = sameChildEnvironment();
  const started = Date.now();
  const log = (line: string) => console.log(`[${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s] ${line}`);
  const run = new RunDir();
  const tag = run.root;
  const dirty = (git('status', '--porcelain') ?? '') !== '';
  const results: BenchResults = {
    name,
    mode,
    startedAt: new Date(started).toISOString(),
    durationS: 0,
    machine: {
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model ?? 'unknown',
      memoryGiB: Math.round(totalmem() / 1024 ** 3),
      node: process.version,
      platform: `${process.platform} ${process.arch}`,
      loadAverageStart: loadavg().map((l) => Math.round(l * 100) / 100),
      loadAverageEnd: [],
      environment,
    },
    commit: git('rev-parse', '--short', 'HEAD')?.concat(dirty ? ' + uncommitted changes' : ''),
    config: { ns, reps, debounceMs, idleSeconds, burst, fullMaxN, hubMaxN, hubPollMs: POLL_MS },
    mcpHub: { available: false, installScripts: [], dependencies: [], checks: [], reason: 'not checked (--no-hub)' },
    leftoverFixtures: { found: [], killed: false },
    notes: [],
  };
  if (flags.only) results.only = flags.only;
  if (runs('cold') || runs('idle')) results.previous = previousRun();

  // Ctrl-C: end what this run started (its fixtures are found by the run folder in their argv).
  const abort = () => {
    killPids(fixtureProcesses(tag));
    run.cleanup();
    process.exit(130);
  };
  process.once('SIGINT', abort);
  process.once('SIGTERM', abort);

  if (typeof (globalThis as { gc?: unknown }).gc !== 'function') {
    results.notes.push('run without --expose-gc: memory deltas are not after a forced gc');
    log('warning: run with node --expose-gc for the memory figures');
  }
  log(`mcp-live bench (${mode}): N=${ns.join(', ')}, ${reps} rounds, ${cpus().length} cores, Node ${process.version}, temp ${run.root}`);

  try {
    let hub: McpHubStatus = results.mcpHub;
    if (flags.hub && (sessionsRun || runs('idle'))) {
      const dir = run.folder('mcp-hub-check');
      hub = await checkMcpHub(dir, fixtureServers(1, join(dir, 'starts.log')));
      results.mcpHub = hub;
      log(`mcp-hub: ${hub.available ? `available (${hub.version})` : `not available — ${hub.reason}`}`);
    }

    if (runs('pool')) {
      log('pool: 10 sessions × the same 10 servers, pool off vs on');
      results.pool = await runPoolSessions(run, 10, 10);
    }

    if (runs('ui')) {
      log('ui: 100 servers, a reconcile every 500 ms for 10 s, frames rendered');
      results.ui = await runUiFrames({ servers: 100, seconds: 10, everyMs: 500 });
    }

    if (runs('gateway')) {
      log('gateway: a call direct vs through mcp-live serve; list_changed fan-out to 1 and 10 clients');
      results.gateway = await runGatewayBench({ calls: quick ? 200 : 1_000, clients: 10, edits: quick ? 2 : 5, log });
    }

    if (runs('prefix')) {
      log('prefix: the share of tools/list still an exact prefix after an edit, kept order vs sorted by server (10 servers × 30 tools)');
      results.prefix = await runPrefixKept({ run, log });
    }

    if (runs('lsp')) {
      log('lsp: edit one of N language servers → usable again; the others untouched');
      results.lsp = await runLspBench({ ns: quick ? [1, 10] : [1, 10, 50], rounds: quick ? 3 : reps, log });
    }

    if (runs('surfaces')) {
      log('surfaces: 50 lazy servers × 30 tools listed from the record vs started eagerly; first call vs bare connect; progressive tools/list');
      results.surfaces = await runSurfaces({
        servers: 50,
        toolsPerServer: 30,
        listReps: quick ? 5 : 10,
        startReps: quick ? 1 : Math.min(reps, 3),
        callReps: quick ? 10 : 20,
        debounceMs,
        run,
        log,
      });
    }

    if (runs('cpu')) {
      log('cpu: assemble + admission + plan, one change');
      results.cpu = await runCpu({ ns: [100, 1_000, 10_000], budgetMs: quick ? 500 : 2_000, minIterations: 15, log });
      log('cpu: 20,000 gated entries with the built CLI: status, --json ready, SIGTERM mid-pass');
      results.cpu.manyEntries = await runManyEntries({ rounds: quick ? 1 : 3, run, log });
    }

    if (runs('cold')) {
      log(`cold start: N=${coldNs.join(', ')}, concurrency 8 vs 1`);
      results.coldStart = await runColdStart({
        ns: coldNs,
        reps: (n) => (n >= 50 ? Math.min(reps, 3) : reps),
        concurrency: 8,
        debounceMs,
        run,
        log,
      });
    }

    if (sessionsRun) {
      results.sessions = [];
      const contestants: ContestantId[] = ['incremental', 'full', 'equal-floor', 'mcp-hub'];
      for (const n of ns) {
        log(`sessions N=${n}: ${runs('edits') ? 'edit/add/remove' : ''}${runs('edits') && runs('burst') ? ' + ' : ''}${runs('burst') ? 'burst' : ''}`);
        results.sessions.push(
          await runSessions({
            n,
            reps,
            editReps: () => reps,
            addRemoveReps: (id, at) => (id === 'full' && at >= 50 ? Math.min(reps, 3) : reps),
            burstReps: (id, at) => (id === 'full' && at >= 50 ? Math.min(burst.reps, 2) : burst.reps),
            burst,
            edits: runs('edits'),
            bursts: runs('burst'),
            contestants,
            skip: (id, at) => {
              if (id === 'full' && at > fullMaxN) return `not run above N=${fullMaxN} (time budget: every change restarts all ${at} servers)`;
              // mcp-hub's counterpart runs wherever mcp-hub would by the time budget, so a run without it still has the figures.
              if (id === 'equal-floor' && at > hubMaxN) return `not run above N=${hubMaxN} (the counterpart of mcp-hub, which runs up to N=${hubMaxN})`;
              if (id === 'mcp-hub' && !hub.available) return hub.reason ?? 'not available';
              if (id === 'mcp-hub' && at > hubMaxN) return `not run above N=${hubMaxN} (time budget: it starts every server at once, and 100 took about 2.5 min on 2 cores)`;
              return undefined;
            },
            debounceMs,
            run,
            log,
          }),
        );
      }
    }

    if (runs('idle')) {
      const servers = quick ? 10 : 50;
      log(`idle: ${servers} servers, ${idleSeconds} s`);
      results.idle = await runIdle({ servers, seconds: idleSeconds, settleSeconds: quick ? 3 : 20, debounceMs, withHub: hub.available, run, log });
    }
  } finally {
    const left = fixtureProcesses(tag);
    results.leftoverFixtures = { found: left, killed: left.length > 0 };
    if (left.length > 0) {
      killPids(left);
      log(`LEFTOVER: ${left.length} fixture process(es) were still running and have been killed: ${left.join(', ')}`);
    } else log('no fixture process left');
    run.cleanup();
  }

  results.machine.loadAverageEnd = loadavg().map((l) => Math.round(l * 100) / 100);
  results.durationS = Math.round((Date.now() - started) / 1000);
  results.targets = evaluateTargets(results);
  const dir = join(ROOT, 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, resultsFileName(name, mode));
  writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
  log(`results: ${file}`);
  if (writeDocs) {
    writeReport(results, join(ROOT, 'docs'));
    log('docs/benchmarks.md and docs/benchmarks-growth.svg regenerated');
  }
  for (const t of results.targets) log(`target ${t.met === true ? 'MET    ' : t.met === false ? 'NOT MET' : 'n/a    '} ${t.target}: ${t.measured}`);
  log(`done in ${results.durationS} s`);
  if (results.leftoverFixtures.found.length > 0) process.exitCode = 1;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
