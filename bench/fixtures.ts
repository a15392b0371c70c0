/**
 * The fixture servers every contestant runs, the temp directories they live in, and the check
 * that no fixture process outlives the benchmark.
 *
 * Every fixture started by a run carries `--start-log <run dir>/…` in its argv, so the run can
 * count restarts (one log line per process start) and find its own processes — and only its
 * own — in `/proc` at the end.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

/** The package root, found from wherever this file runs (`bench/` or `dist/bench/`). */
export const ROOT = findPackageRoot(import.meta.dirname);
export const FIXTURE = join(ROOT, 'test', 'fixtures', 'echo-server.mjs');

function findPackageRoot(from: string): string {
  let dir = resolve(from);
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) {
      const name = (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name;
      if (name === 'mcp-live') return dir;
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`package root of mcp-live not found above ${from}`);
    dir = parent;
  }
}

/** One stdio server entry, as written to every contestant's config file. */
export interface ServerEntry {
  command: string;
  args: string[];
}

export type ServerMap = Record<string, ServerEntry>;

/** `s000`, `s001`, …: sorted by name in creation order. */
export function serverName(index: number): string {
  return `s${String(index).padStart(3, '0')}`;
}

/**
 * The echo fixture as `name`, logging its start to `startLog`; `marker` becomes an extra tool,
 * so a new process of an edited server is told apart from the old one by its tool list.
 */
export function fixtureServer(name: string, startLog: string, marker: string): ServerEntry {
  return {
    command: process.execPath,
    args: [FIXTURE, '--start-log', startLog, '--log-name', name, '--tools', marker],
  };
}

/** `count` fixture servers named `s000…`, each with the tool `base`. */
export function fixtureServers(count: number, startLog: string): ServerMap {
  const servers: ServerMap = {};
  for (let i = 0; i < count; i++) servers[serverName(i)] = fixtureServer(serverName(i), startLog, 'base');
  return servers;
}

/** The temp directory of one run: every contestant gets a folder inside it. */
export class RunDir {
  readonly root = mkdtempSync(join(tmpdir(), 'mcp-live-bench-'));

  /** A fresh folder for one contestant or scenario. */
  folder(name: string): string {
    const dir = join(this.root, name);
    mkdirSync(dir, { recursive: true });
    return dir;
  }

  cleanup(): void {
    rmSync(this.root, { recursive: true, force: true });
  }
}

/** Writes JSON in place (truncate + write), creating the directory: the same save for everyone. */
export function writeJson(file: string, value: unknown): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}

/** The names in a start log, one per process start, in order. */
export function readStarts(startLog: string): string[] {
  if (!existsSync(startLog)) return [];
  return readFileSync(startLog, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => line.replace(/ started$/, ''));
}

/** Pids of live fixture processes whose argv mentions `tag` (the run directory). */
export function fixtureProcesses(tag: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let cmdline: string;
    try {
      cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    if (cmdline.includes(FIXTURE) && cmdline.includes(tag)) pids.push(Number(entry));
  }
  return pids;
}

/** Waits until no fixture process of `tag` is left, or `timeoutMs` passed; returns those left. */
export async function waitForNoFixtures(tag: string, timeoutMs: number): Promise<number[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const left = fixtureProcesses(tag);
    if (left.length === 0 || Date.now() > deadline) return left;
    await sleep(100);
  }
}

/** Ends the given pids (ours: found by {@link fixtureProcesses}) with SIGKILL. */
export function killPids(pids: readonly number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
