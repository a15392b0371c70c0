import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { createMcpLive } from '../../src/live/createMcpLive.js';
import { type McpLive } from '../../src/live/types.js';
import type { ServerStatus } from '../../src/model/report/status.js';
import { leftoverServers, sleep, waitForNoLeftovers } from '../integration/processes.js';
import { linuxOnly } from '../platforms.js';
import { expectNoSecrets, fdCount, fullGc, mb, MB, report, rssOf, SECRET_PROCESS_ENV, tiny } from './kit.js';
import { deadline } from '../deadlines.js';

/**
 * An hour of editing compressed: 5,000 edits of the user settings at random intervals against
 * 20 real stdio servers (plus a few that come and go), through real files, chokidar, the
 * pipeline and the real connector. Every 250 edits the session must settle on exactly what the
 * file says; at the end memory is flat, and no file descriptor or process is left over.
 */

const EDITS = Number(process.env.MCP_LIVE_SOAK_EDITS ?? 5000);
const CHECK_EVERY = 250;
const SERVERS = 20;
const DEBOUNCE_MS = 50;

afterAll(async () => {
  expect(await waitForNoLeftovers()).toEqual([]);
});

/** A small seeded PRNG (mulberry32), so a failing run can be repeated with its seed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Model {
  servers: Map<string, { rev: number; view: number }>;
  excluded: Set<string>;
  /** Formatting noise: a change of it changes nothing. */
  noise: number;
}

const names = Array.from({ length: SERVERS }, (_, i) => `s${String(i).padStart(2, '0')}`);
const extras = ['x0', 'x1', 'x2', 'x3', 'x4'];

function settingsText(m: Model): string {
  const mcpServers: Record<string, unknown> = {};
  for (const [name, { rev, view }] of m.servers) {
    const entry: Record<string, unknown> = { ...tiny(name, { tools: ['echo', 'x'], rev }) };
    if (view === 1) entry.includeTools = ['x'];
    if (view === 2) entry.excludeTools = ['x'];
    if (view === 3) entry.description = `rev ${rev}`;
    mcpServers[name] = entry;
  }
  const body = JSON.stringify({ mcp: { excluded: [...m.excluded].sort() }, mcpServers }, null, m.noise % 2 === 0 ? 2 : 4);
  return `// edit ${m.noise}\n${body}\n`;
}

/** What the live state must be for `m`: name → state and tools. */
function expectedOf(m: Model, everConfigured: Set<string>): Map<string, string> {
  const out = new Map<string, string>();
  for (const name of everConfigured) {
    const s = m.servers.get(name);
    if (!s) out.set(name, 'disconnected:removed');
    else if (m.excluded.has(name)) out.set(name, 'blocked:excluded');
    else out.set(name, `connected:${s.view === 1 ? 'x' : s.view === 2 ? 'echo' : 'echo,x'}`);
  }
  return out;
}

function liveOf(statuses: readonly ServerStatus[]): Map<string, string> {
  return new Map(
    statuses.map((s) => [
      s.name,
      s.state === 'connected' ? `connected:${s.tools.map((t) => t.tool).sort().join(',')}` : `${s.state}:${s.reason ?? s.error ?? ''}`,
    ]),
  );
}

linuxOnly('/proc memory and descriptor counts').describe('soak', () => {
  it(`${EDITS} edits at random intervals against ${SERVERS} servers: every edit applied, memory flat, nothing leaked`, async () => {
    const seed = Number(process.env.MCP_LIVE_SOAK_SEED ?? Date.now() % 2 ** 31);
    const random = prng(seed);
    const root = mkdtempSync(join(tmpdir(), 'mcp-live-soak-'));
    const home = join(root, 'home');
    const cwd = join(root, 'project');
    const file = join(home, '.qwen', 'settings.json');
    mkdirSync(join(home, '.qwen'), { recursive: true });
    mkdirSync(cwd);

    const m: Model = { servers: new Map(names.map((n) => [n, { rev: 0, view: 0 }])), excluded: new Set(), noise: 0 };
    const ever = new Set<string>(names);
    const write = (): void => {
      const text = settingsText(m);
      if (random() < 0.7) {
        writeFileSync(`${file}.tmp`, text);
        renameSync(`${file}.tmp`, file);
      } else {
        writeFileSync(file, text);
      }
    };
    write();

    let passes = 0;
    let settingsErrors = 0;
    let otherErrors: string[] = [];
    const live: McpLive = createMcpLive({ cwd, homeDir: home, debounceMs: DEBOUNCE_MS, env: { ...process.env, ...SECRET_PROCESS_ENV } });
    const sub = live.events$.subscribe((e) => {
      if (e.type === 'reconcile') passes += 1;
      if (e.type === 'settings-error') {
        settingsErrors += 1;
        // A read in the middle of an in-place write sees an empty or cut-short file.
        if (!/the file is empty|settings\.json:\d+:\d+:/.test(e.error)) otherErrors.push(e.error);
      }
      if (e.type === 'log' && e.level !== 'debug') otherErrors.push(e.message);
      if (e.type === 'server' && e.state === 'error') otherErrors.push(`${e.name}: ${e.error ?? ''}`);
      expectNoSecrets('an event', e);
    });
    const started = Date.now();
    try {
      await live.start();
      const l = live;
      let settleMs = 0;
      const settle = async (what: string): Promise<void> => {
        const t0 = Date.now();
        const giveUpAt = Date.now() + deadline(30_000);
        let got = liveOf(l.servers.status());
        // An extra added and removed again within one burst never reached a pass: the session
        // never knew it, so it has no `removed` status either.
        const wanted = (): Map<string, string> =>
          new Map([...expectedOf(m, ever)].filter(([name, v]) => v !== 'disconnected:removed' || got.has(name)));
        let want = wanted();
        while (JSON.stringify([...got].sort()) !== JSON.stringify([...want].sort())) {
          if (Date.now() > giveUpAt) expect(Object.fromEntries(got), what).toEqual(Object.fromEntries(want));
          await sleep(50);
          got = liveOf(l.servers.status());
          want = wanted();
        }
        // Exactly the connected servers have a process.
        const connected = [...want.values()].filter((v) => v.startsWith('connected')).length;
        await waitForProcessCount(connected);
        settleMs += Date.now() - t0;
      };
      await settle('after start');
      fullGc();
      const baseline = { heap: process.memoryUsage().heapUsed, rss: rssOf(), fds: fdCount(), processes: leftoverServers(/tiny-server/).length };
      let warm = baseline;

      const counts = { view: 0, args: 0, exclude: 0, addRemove: 0, noop: 0 };
      /** Heap after a full GC every 1,000 edits: bounded buffers fill up first, then it stays. */
      const heapSeries: string[] = [];
      for (let edit = 1; edit <= EDITS; edit++) {
        const r = random();
        const name = names[Math.floor(random() * SERVERS)]!;
        if (r < 0.5) {
          const s = m.servers.get(name)!;
          s.view = (s.view + 1 + Math.floor(random() * 3)) % 4;
          counts.view += 1;
        } else if (r < 0.7) {
          counts.noop += 1;
        } else if (r < 0.8) {
          m.servers.get(name)!.rev += 1;
          counts.args += 1;
        } else if (r < 0.9) {
          if (m.excluded.has(name)) m.excluded.delete(name);
          else m.excluded.add(name);
          counts.exclude += 1;
        } else {
          const extra = extras[Math.floor(random() * extras.length)]!;
          if (m.servers.has(extra)) m.servers.delete(extra);
          else {
            m.servers.set(extra, { rev: edit, view: 0 });
            ever.add(extra);
          }
          counts.addRemove += 1;
        }
        m.noise += 1;
        write();
        // Random intervals: mostly inside the debounce window (bursts), sometimes well past it.
        const gap = random() < 0.85 ? random() * 20 : DEBOUNCE_MS + random() * 60;
        await sleep(gap);
        if (edit % CHECK_EVERY === 0) {
          await settle(`after edit ${edit}`);
          if (edit % 1000 === 0) {
            fullGc();
            heapSeries.push(mb(process.memoryUsage().heapUsed));
          }
          if (edit === CHECK_EVERY) {
            fullGc();
            warm = { heap: process.memoryUsage().heapUsed, rss: rssOf(), fds: fdCount(), processes: leftoverServers(/tiny-server/).length };
          }
        }
      }
      await settle('after the last edit');
      // Back to where it started (20 servers, none excluded, no extras): the same processes, the same descriptors.
      m.servers = new Map(names.map((n) => [n, { rev: (m.servers.get(n)?.rev ?? 0) + 1, view: 0 }]));
      m.excluded.clear();
      m.noise += 1;
      write();
      await settle('back at the start');
      fullGc();
      const end = { heap: process.memoryUsage().heapUsed, rss: rssOf(), fds: fdCount(), processes: leftoverServers(/tiny-server/).length };
      const connected = l.servers.status().filter((s) => s.state === 'connected').length;
      report('soak', {
        seed,
        edits: EDITS,
        passes,
        minutes: ((Date.now() - started) / 60_000).toFixed(1),
        settleMs,
        kinds: counts,
        settingsErrorsTransient: settingsErrors,
        heap: { start: mb(baseline.heap), afterWarmup: mb(warm.heap), every1000Edits: heapSeries, end: mb(end.heap) },
        rss: { start: mb(baseline.rss), afterWarmup: mb(warm.rss), end: mb(end.rss) },
        fds: { start: baseline.fds, afterWarmup: warm.fds, end: end.fds },
        serverProcesses: { start: baseline.processes, end: end.processes, connectedAtEnd: connected },
      });
      expect(otherErrors).toEqual([]);
      expect(end.heap - warm.heap, 'heap growth after warm-up').toBeLessThan(10 * MB);
      expect(end.fds - baseline.fds, 'file descriptors').toBeLessThanOrEqual(3);
      expect(end.processes).toBe(connected);
      expect(end.processes).toBe(baseline.processes);
      for (const s of l.servers.status()) expectNoSecrets(`stderr of ${s.name}`, l.servers.stderrTail(s.name));
    } finally {
      sub.unsubscribe();
      await live.dispose();
      otherErrors = [];
      rmSync(root, { recursive: true, force: true });
    }
    expect(leftoverServers(/tiny-server/)).toEqual([]);
  });
});

async function waitForProcessCount(n: number): Promise<void> {
  const giveUpAt = Date.now() + deadline(10_000);
  while (leftoverServers(/tiny-server/).length !== n) {
    if (Date.now() > giveUpAt) expect(leftoverServers(/tiny-server/).length, 'server processes').toBe(n);
    await sleep(50);
  }
}
