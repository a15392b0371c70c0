/**
 * Language servers (decision 159): edit one of N language servers → usable again; the others untouched.
 *
 * The library in-process, as a host embeds it (`createMcpLive`, debounce 300 ms), with N fixture
 * language servers (test/fixtures/lsp-server.mjs on vscode-languageserver) in the user settings.
 * Per round the last server's `args` change; measured:
 *
 * - **save → usable**: from the write of the settings file until the edited server's new process
 *   (new pid, connected) has answered a hover — what a host waits for;
 * - **the new process's own time**: the pass that replaced it (its `reconcile` event's `ms`: a
 *   one-server pass is that server's connect and little else) and its first answer (the swap seen
 *   → the hover answered: a fresh process's first request, as an MCP server's first `tools/list`
 *   is part of its connect); **ours** = usable − debounce − both, per round; of it, the detection
 *   (save → the pass's start, less the debounce) is measured;
 * - **a bare connect**: the fixture's connect alone (spawn → `initialize` answered, via the LSP
 *   connector) in the same rounds under the same load (the probe below runs through it too), a
 *   cross-check of the pass's figure;
 * - **the others**: their pids before and after (restarts), and a hover to the first server every
 *   10 ms through the edit (failed answers = a gap).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { firstValueFrom, filter } from 'rxjs';
import { createMcpLive, type McpLive, type ReconcileEvent } from '../src/index.js';
import { LspDocuments } from '../src/sinks/lsp/documents.js';
import { createLspConnector } from '../src/sinks/lsp/lspConnector.js';
import { resolveLspConfig } from '../src/model/lsp/lspConfig.js';
import { ROOT, RunDir, sleep, writeJson } from './fixtures.js';
import type { LspAtN, LspResult } from './results.js';
import { summarize } from './stats.js';

const LSP_FIXTURE = join(ROOT, 'test', 'fixtures', 'lsp-server.mjs');
const DEBOUNCE_MS = 300;
const PROBE_EVERY_MS = 10;

export interface LspBenchOptions {
  ns: readonly number[];
  rounds: number;
  log: (line: string) => void;
}

const entry = (round: number) => ({
  command: process.execPath,
  args: [LSP_FIXTURE, '--stderr', `round-${round}`],
  extensionToLanguage: { '.txt': 'plaintext' },
});

export async function runLspBench(o: LspBenchOptions): Promise<LspResult> {
  const ns: LspAtN[] = [];
  for (const n of o.ns) {
    o.log(`lsp: ${n} language server${n === 1 ? '' : 's'}, ${o.rounds} edits of one`);
    ns.push(await atN(n, o.rounds));
  }
  return { debounceMs: DEBOUNCE_MS, ns };
}

async function atN(n: number, rounds: number): Promise<LspAtN> {
  const dir = new RunDir();
  const home = dir.folder('home');
  const cwd = dir.folder('project');
  const settings = join(home, '.qwen', 'settings.json');
  const file = join(cwd, 'probe.txt');
  writeFileSync(file, 'alpha beta gamma\n');
  const names = Array.from({ length: n }, (_, i) => `ls${String(i).padStart(3, '0')}`);
  const edited = `lsp:${names.at(-1)!}`;
  const write = (round: number) => writeJson(settings, { lspServers: Object.fromEntries(names.map((name, i) => [name, entry(i === n - 1 ? round : 0)])) });
  write(0);
  const live = createMcpLive({ homeDir: home, cwd, debounceMs: DEBOUNCE_MS });
  const usable: number[] = [];
  const floor: number[] = [];
  const connect: number[] = [];
  const detect: number[] = [];
  const answer: number[] = [];
  let otherRestarts = 0;
  let probes = 0;
  let probeFailures = 0;
  try {
    await live.start();
    await live.lsp.open(file);
    for (let round = 1; round <= rounds; round++) {
      const before = pidsOf(live);
      const probing = probe(live, names[0]!, file);
      // The floor under the same load as the edit: the probe runs through both.
      floor.push(await fixtureConnectMs(cwd));
      const pass = firstValueFrom(live.events$.pipe(filter((e): e is ReconcileEvent => e.type === 'reconcile' && e.reconnected.includes(edited))));
      const t0 = performance.now();
      const wall0 = Date.now();
      write(round);
      const oldPid = before.get(edited);
      await firstValueFrom(live.servers.list$.pipe(filter((all) => all.some((s) => s.name === edited && s.state === 'connected' && s.pid !== oldPid))));
      const swapped = performance.now();
      await live.lsp.request('textDocument/hover', hoverAt(file), { server: edited });
      usable.push(performance.now() - t0);
      answer.push(performance.now() - swapped);
      const replaced = await pass;
      connect.push(replaced.ms);
      // The pass began once the debounce after the first watcher event ran out (event stamps are Date.now()).
      detect.push(replaced.ts - replaced.ms - wall0 - DEBOUNCE_MS);
      await sleep(200);
      const counted = await probing.stop();
      probes += counted.probes;
      probeFailures += counted.failures;
      const after = pidsOf(live);
      otherRestarts += [...before].filter(([name, pid]) => name !== edited && after.get(name) !== pid).length;
    }
  } finally {
    await live.dispose();
    dir.cleanup();
  }
  return {
    n,
    rounds,
    usableMs: summarize(usable),
    connectMs: summarize(connect),
    floorMs: summarize(floor),
    overheadMs: summarize(usable.map((u, i) => u - DEBOUNCE_MS - connect[i]! - answer[i]!)),
    detectMs: summarize(detect),
    answerMs: summarize(answer),
    otherRestarts,
    probes,
    probeFailures,
  };
}

const hoverAt = (file: string) => ({ textDocument: { uri: `file://${file}` }, position: { line: 0, character: 1 } });

function pidsOf(live: McpLive): Map<string, number | undefined> {
  return new Map(live.servers.status().filter((s) => s.kind === 'lsp').map((s) => [s.name, s.pid]));
}

/** Hovers on `name` every 10 ms until stopped: every answer that fails is a gap of that server. */
function probe(live: McpLive, name: string, file: string): { stop(): Promise<{ probes: number; failures: number }> } {
  let running = true;
  let probes = 0;
  let failures = 0;
  const loop = (async () => {
    while (running) {
      probes += 1;
      await live.lsp.request('textDocument/hover', hoverAt(file), { server: name }).catch(() => (failures += 1));
      await sleep(PROBE_EVERY_MS);
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return { probes, failures };
    },
  };
}

/** The fixture's own connect, alone: spawn → `initialize` answered (the LSP connector's emission), then closed. */
async function fixtureConnectMs(cwd: string): Promise<number> {
  const resolution = resolveLspConfig(entry(0), process.env, cwd);
  if (!resolution.ok) throw new Error(resolution.error);
  const connect = createLspConnector({ documents: new LspDocuments({ base: cwd }) });
  const t0 = performance.now();
  const connection = await firstValueFrom(connect('lsp:floor', resolution.resolved));
  const ms = performance.now() - t0;
  await connection.close();
  return ms;
}
