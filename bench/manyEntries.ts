/**
 * The CPU group's end-to-end side (decisions 171–175): the built CLI on a workspace with 20,000
 * gated entries, all pending approval — `status` to its end, `--json` to its `ready`, and SIGTERM
 * sent when the pass has begun (its first `server` event) to the process's exit. Two workspaces
 * side by side: the most a repository may give (5,000 in each of `.mcp.json`, `.lsp.json` and
 * the workspace settings' `mcpServers` and `lspServers`), and 20,000 in one `.mcp.json`, which
 * the cap refuses (a settings-error, none of its servers).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { RunDir } from './fixtures.js';
import type { ManyEntriesResult, ManyEntriesRow } from './results.js';
import { summarize } from './stats.js';

const CLI = join(resolve(import.meta.dirname, '..', '..'), 'dist', 'src', 'cli', 'main.js');

export interface ManyEntriesOptions {
  rounds: number;
  run: RunDir;
  log: (line: string) => void;
}

function entries(n: number, prefix: string, lsp = false): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (let i = 0; i < n; i++) {
    out[`${prefix}${i}`] = lsp
      ? { command: 'node', args: ['/opt/lsp/server.js', '--stdio'], extensionToLanguage: { [`.x${i}`]: `lang${i}` } }
      : { command: 'node', args: ['/opt/servers/server.js', '--port', String(4000 + i)] };
  }
  return out;
}

interface Workspace {
  label: string;
  entries: number;
  home: string;
  cwd: string;
}

function workspace(run: RunDir, name: string, label: string, files: (cwd: string) => Record<string, unknown>): Workspace {
  const root = run.folder(`many-${name}`);
  const home = join(root, 'home');
  const cwd = join(root, 'project');
  mkdirSync(join(home, '.qwen'), { recursive: true });
  let count = 0;
  for (const [file, content] of Object.entries(files(cwd))) {
    mkdirSync(join(file, '..'), { recursive: true });
    writeFileSync(file, JSON.stringify(content));
    const c = content as { mcpServers?: object; lspServers?: object };
    count += c.mcpServers || c.lspServers ? Object.keys(c.mcpServers ?? {}).length + Object.keys(c.lspServers ?? {}).length : Object.keys(content as object).length;
  }
  return { label, entries: count, home, cwd };
}

/** Runs the CLI; resolves with ms from spawn to the first matching NDJSON event (or exit), and to exit after a SIGTERM sent then. */
function measure(ws: Workspace, mode: 'status' | 'ready' | 'sigterm'): Promise<number | undefined> {
  return new Promise((done) => {
    const started = performance.now();
    const args = mode === 'status' ? ['status', '--cwd', ws.cwd] : ['--json', '--cwd', ws.cwd];
    const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, HOME: ws.home }, stdio: ['pipe', 'pipe', 'ignore'] });
    const killer = setTimeout(() => child.kill('SIGKILL'), 300_000);
    let result: number | undefined;
    let killedAt: number | undefined;
    let buffer = '';
    child.stdout.on('data', (chunk: Buffer) => {
      if (mode === 'status') return;
      buffer += chunk.toString();
      for (let i = buffer.indexOf('\n'); i >= 0; i = buffer.indexOf('\n')) {
        const head = buffer.slice(0, Math.min(i, 300));
        buffer = buffer.slice(i + 1);
        const type = /"type":"([^"]+)"/.exec(head)?.[1];
        if (mode === 'ready' && type === 'ready' && result === undefined) {
          result = performance.now() - started;
          child.kill('SIGTERM');
        }
        const passUnderWay = type === 'server' || type === 'ready';
        if (mode === 'sigterm' && passUnderWay && killedAt === undefined) {
          killedAt = performance.now();
          child.kill('SIGTERM');
        }
      }
    });
    child.once('exit', (code) => {
      clearTimeout(killer);
      const end = performance.now();
      if (mode === 'status') return done(code === null ? undefined : end - started);
      if (mode === 'sigterm') return done(killedAt === undefined ? undefined : end - killedAt);
      done(result);
    });
  });
}

export async function runManyEntries(o: ManyEntriesOptions): Promise<ManyEntriesResult> {
  const atCap = workspace(o.run, 'at-cap', '4 gated files × 5,000 (the most a repository may give)', (cwd) => ({
    [join(cwd, '.mcp.json')]: { mcpServers: entries(5_000, 'p') },
    [join(cwd, '.lsp.json')]: entries(5_000, 'l', true),
    [join(cwd, '.qwen', 'settings.json')]: { mcpServers: entries(5_000, 'w'), lspServers: entries(5_000, 'wl', true) },
  }));
  const overCap = workspace(o.run, 'over-cap', 'one .mcp.json × 20,000 (over the cap: refused)', (cwd) => ({
    [join(cwd, '.mcp.json')]: { mcpServers: entries(20_000, 'p') },
  }));
  const rows: ManyEntriesRow[] = [];
  for (const ws of [atCap, overCap]) {
    const samples = { status: [] as (number | undefined)[], ready: [] as (number | undefined)[], sigterm: [] as (number | undefined)[] };
    for (let round = 0; round < o.rounds; round++) {
      for (const mode of ['status', 'ready', 'sigterm'] as const) samples[mode].push(await measure(ws, mode));
    }
    const row: ManyEntriesRow = {
      label: ws.label,
      entries: ws.entries,
      statusMs: summarize(samples.status, 0),
      readyMs: summarize(samples.ready, 0),
      sigtermExitMs: summarize(samples.sigterm, 0),
    };
    o.log(`  ${ws.entries.toLocaleString('en-US')} entries, ${ws.label}: status ${row.statusMs.median} ms, --json ready ${row.readyMs.median} ms, SIGTERM → exit ${row.sigtermExitMs.median} ms`);
    rows.push(row);
  }
  return { rows, rounds: o.rounds };
}
