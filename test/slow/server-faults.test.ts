import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { BehaviorSubject, filter, firstValueFrom, timeout } from 'rxjs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AssembleInput } from '../../src/model/settings/assemble.js';
import type { McpLiveEvent } from '../../src/model/report/events.js';
import type { ServerStatus } from '../../src/model/report/status.js';
import { createReconciler, type Reconciler, type ReconcilerDeps } from '../../src/live/reconciler.js';
import { connectMcp } from '../../src/sinks/mcp/connector.js';
import { freePort, startServerEverything, textOf, type RemoteServerProcess } from '../integration/mcpServers.js';
import { isAlive, leftoverServers, sleep, waitForNoLeftovers } from '../integration/processes.js';
import { linuxOnly, posixOnly } from '../platforms.js';
import {
  expectNoSecrets,
  expectScannerWorks,
  fixturePath,
  fullGc,
  mb,
  MB,
  report,
  rssOf,
  sdkFixture,
  secretHeaders,
  SECRET_PROCESS_ENV,
  tiny,
  waitUntil,
} from './kit.js';
import { deadline } from '../deadlines.js';

/**
 * Misbehaving servers against the real pipeline and connector: crash loops, crashes during
 * `initialize`, hangs, stderr floods, huge tool lists, list_changed storms, slow and vanishing
 * HTTP servers. One bad server never disturbs the others, secrets never show, nothing is left
 * running.
 */

let r: Reconciler | undefined;
let events: McpLiveEvent[] = [];
const remotes: (RemoteServerProcess | ChildProcess)[] = [];

beforeAll(() => expectScannerWorks());
afterEach(async () => {
  if (r) {
    expectNoSecrets('events', events);
    for (const s of r.board.list()) {
      expectNoSecrets(`status of ${s.name}`, s);
      expectNoSecrets(`stderr tail of ${s.name}`, r.board.stderrTail(s.name));
    }
    await r.dispose();
  }
  r = undefined;
  events = [];
  for (const remote of remotes.splice(0)) {
    if ('stop' in remote) await remote.stop();
    else if (remote.exitCode === null && remote.signalCode === null) {
      remote.kill('SIGKILL');
      await new Promise((resolve) => remote.once('exit', resolve));
    }
  }
});
afterAll(async () => {
  expect(await waitForNoLeftovers()).toEqual([]);
});

function input(servers: Record<string, unknown>): AssembleInput {
  return { sources: [{ scope: 'user', file: '/tmp/settings.json', servers }], approvals: {}, sessionApprovals: {}, folderTrusted: true };
}

/** Starts a pipeline on `servers` and waits for its first pass. */
async function start(servers: Record<string, unknown>, deps: Partial<ReconcilerDeps> = {}) {
  const inputs = new BehaviorSubject(input(servers));
  const rec = createReconciler(inputs, { connector: connectMcp, debounceMs: 20, env: { ...process.env, ...SECRET_PROCESS_ENV }, ...deps });
  r = rec;
  rec.events$.subscribe((e) => events.push(e));
  const first = nextPass(rec);
  const started = Date.now();
  rec.start();
  const pass = await first;
  return { rec, inputs, pass, ms: Date.now() - started };
}

function nextPass(rec: Reconciler, ms = 60_000) {
  return firstValueFrom(rec.events$.pipe(filter((e) => e.type === 'reconcile'), timeout(ms)));
}

async function waitForStatus(rec: Reconciler, name: string, pred: (s: ServerStatus) => boolean, ms = 30_000): Promise<ServerStatus> {
  const all = await firstValueFrom(
    rec.board.servers$.pipe(
      filter((list) => list.some((s) => s.name === name && pred(s))),
      timeout(ms),
    ),
  );
  return all.find((s) => s.name === name)!;
}

describe('misbehaving stdio servers', () => {
  it('a crash loop: restarted with backoff, given up after 5 failures in a row; its neighbour untouched', async () => {
    const log = join(mkdtempSync(join(tmpdir(), 'mcp-live-crash-')), 'starts.log');
    writeFileSync(log, '');
    const { rec } = await start(
      { ok: tiny('ok'), loop: sdkFixture('crash-server.mjs', ['--after', '300', '--echo-env', 'API_KEY', '--start-log', log]) },
      { random: () => 0 },
    );
    const okPid = rec.board.status('ok')!.pid!;
    const started = Date.now();
    const gaveUp = await waitForStatus(rec, 'loop', (s) => s.state === 'error' && /gave up after 5 failures/.test(s.error ?? ''), 60_000);
    const ms = Date.now() - started;
    expect(gaveUp.error).toMatch(/^process exited with code 1: Error: boom/);
    // The first start and 4 restarts (a crash before the connect completed counts the same).
    const connects = readFileSync(log, 'utf8').split('\n').filter(Boolean).length;
    expect(connects).toBe(5);
    await sleep(1_000);
    expect(readFileSync(log, 'utf8').split('\n').filter(Boolean)).toHaveLength(5);
    // Backoff 800 + 1600 + 3200 + 6400 ms (jitter pinned at its minimum), plus the 5 runs.
    expect(ms).toBeGreaterThan(12_000 - 1_000);
    expect(rec.board.status('ok')).toMatchObject({ state: 'connected', pid: okPid });
    expect(leftoverServers(/crash-server/)).toEqual([]);
    // A pass retries it.
    const again = nextPass(rec);
    rec.reload();
    expect(await again).toMatchObject({ reconnected: ['loop'] });
    report('crash loop', { restartsUntilGiveUp: connects, msUntilGiveUp: ms });
  });

  it('a crash during initialize: error with exit code and last stderr line, not retried until the next pass', async () => {
    const { rec, pass } = await start({ ok: tiny('ok'), early: sdkFixture('crash-server.mjs', ['--after', '0', '--message', 'Error: cannot start', '--echo-env', 'API_KEY']) });
    expect(pass).toMatchObject({ added: ['early', 'ok'] });
    expect(rec.board.status('early')).toMatchObject({ state: 'error' });
    expect(rec.board.status('early')!.error).toMatch(/^process exited with code 1: Error: cannot start \*\*\*$/);
    await sleep(1500);
    expect(rec.board.status('early')!.history.filter((h) => h.state === 'connecting')).toHaveLength(1);
    const again = nextPass(rec);
    rec.reload();
    expect(await again).toMatchObject({ reconnected: ['early'], unchanged: 1 });
  });

  it('a server that hangs forever: timed out after its timeout, its process ended, the pass goes on', async () => {
    const { rec, pass, ms } = await start({ ok: tiny('ok'), stuck: sdkFixture('hang-server.mjs', [], { timeout: 1500 }) });
    expect(pass).toMatchObject({ added: ['ok', 'stuck'] });
    expect(rec.board.status('stuck')).toMatchObject({ state: 'error', error: 'timed out after 1500 ms (raise "connectTimeout" in the server\'s entry)' });
    expect(rec.board.status('ok')?.state).toBe('connected');
    expect(ms).toBeGreaterThanOrEqual(1500);
    expect(ms).toBeLessThan(1500 + 8_000);
    await waitUntil('the hung process ended', () => leftoverServers(/hang-server/).length === 0, 5_000);
    report('hang forever', { passMs: ms, timeoutMs: 1500 });
  });

  linuxOnly('/proc memory figures').it('10 MB of stderr: connected, calls answered, at most 200 lines kept, no secret in them, memory bounded', async () => {
    fullGc();
    const heapBefore = process.memoryUsage().heapUsed;
    const started = Date.now();
    const { rec } = await start({ loud: sdkFixture('stderr-flood-server.mjs', ['--mb', '10', '--echo-env', 'API_KEY']) });
    const connectMs = Date.now() - started;
    expect(rec.board.status('loud')?.state).toBe('connected');
    expect(textOf(await rec.requests.callTool('mcp__loud__echo', { text: 'still here' }))).toBe('still here');
    // stderr is its own pipe: it may still be draining.
    await waitUntil('the last stderr line', () => rec.board.stderrTail('loud').at(-1) === 'last line with ***', 10_000);
    const tail = rec.board.stderrTail('loud');
    expect(tail.length).toBeLessThanOrEqual(200);
    expect(tail.at(-1)).toBe('last line with ***');
    expect(tail.every((l) => l.length <= 8 * 1024 + 1)).toBe(true);
    expectNoSecrets('the stderr tail', tail);
    fullGc();
    const heapGrowth = process.memoryUsage().heapUsed - heapBefore;
    expect(heapGrowth).toBeLessThan(20 * MB);
    report('stderr flood 10 MB', { connectMs, tailLines: tail.length, heapGrowth: mb(heapGrowth), rss: mb(rssOf()) });
  });

  it('5,000 tools: listed, qualified, callable, refreshed on list_changed; a view change filters in place', async () => {
    const started = Date.now();
    const { rec, inputs } = await start({ many: sdkFixture('many-tools-server.mjs', ['--count', '5000']) });
    const connectMs = Date.now() - started;
    expect(rec.board.status('many')?.tools).toHaveLength(5001);
    expect(rec.board.status('many')?.tools.at(-1)?.name).toMatch(/^mcp__many__/);
    const pid = rec.board.status('many')!.pid;
    const refreshed = waitForStatus(rec, 'many', (s) => s.tools.length === 5101);
    await rec.requests.callTool('mcp__many__add_more', { n: 100 });
    await refreshed;
    const filtered = nextPass(rec);
    inputs.next(input({ many: { ...sdkFixture('many-tools-server.mjs', ['--count', '5000']), excludeTools: ['tool_1', 'tool_2'] } }));
    expect(await filtered).toMatchObject({ updated: ['many'] });
    expect(rec.board.status('many')).toMatchObject({ pid });
    expect(rec.board.status('many')?.tools).toHaveLength(5099);
    report('5,000 tools', { connectMs });
  });

  it('5,000 tools in pages of 50 (100 pages: the page limit)', async () => {
    const { rec } = await start({ paged: sdkFixture('many-tools-server.mjs', ['--count', '4999', '--page-size', '50']) });
    expect(rec.board.status('paged')?.tools).toHaveLength(5000);
  });

  it('list_changed 100 times a second for 5 s: the list follows, calls stay quick, the neighbour is untouched', async () => {
    const { rec } = await start({ storm: sdkFixture('list-changed-flood-server.mjs', ['--rate', '100', '--seconds', '5']), calm: tiny('calm') });
    const calmPid = rec.board.status('calm')!.pid;
    const latencies: number[] = [];
    const until = Date.now() + deadline(5_000);
    fullGc();
    const heapBefore = process.memoryUsage().heapUsed;
    while (Date.now() < until) {
      const t = Date.now();
      await rec.requests.callTool('mcp__storm__echo', {});
      latencies.push(Date.now() - t);
      await sleep(50);
    }
    // After the storm, the last list arrives.
    const stats = JSON.parse(textOf(await rec.requests.callTool('mcp__storm__stats', {}))) as { sent: number; lists: number };
    await waitForStatus(rec, 'storm', (s) => s.tools.some((t) => t.tool === `gen_${stats.sent}`), 10_000);
    const serverEvents = events.filter((e) => e.type === 'server' && e.name === 'storm').length;
    latencies.sort((a, b) => a - b);
    const p95 = latencies[Math.floor(latencies.length * 0.95)]!;
    expect(p95).toBeLessThan(1_000);
    expect(rec.board.status('calm')).toMatchObject({ state: 'connected', pid: calmPid });
    fullGc();
    const heapGrowth = process.memoryUsage().heapUsed - heapBefore;
    report('list_changed storm', { notifications: stats.sent, listRequests: stats.lists, serverEvents, callP95Ms: p95, calls: latencies.length, heapGrowth: mb(heapGrowth) });
    expect(stats.sent).toBeGreaterThan(200);
  });

  it('list_changed 100 times a second from a server that takes 50 ms to list: the list still moves during the storm', async () => {
    const { rec } = await start({ storm: sdkFixture('list-changed-flood-server.mjs', ['--rate', '100', '--seconds', '4', '--list-delay', '50']) });
    const seen = new Set<string>();
    const sub = rec.board.servers$.subscribe((all) => {
      const gen = all.find((s) => s.name === 'storm')?.tools.find((t) => t.tool.startsWith('gen_'));
      if (gen) seen.add(gen.tool);
    });
    await sleep(4_000);
    const during = seen.size;
    const stats = JSON.parse(textOf(await rec.requests.callTool('mcp__storm__stats', {}))) as { sent: number; lists: number };
    await waitForStatus(rec, 'storm', (s) => s.tools.some((t) => t.tool === `gen_${stats.sent}`), 10_000);
    sub.unsubscribe();
    report('list_changed storm, 50 ms lists', { notifications: stats.sent, listRequests: stats.lists, distinctListsSeenDuringStorm: during });
    // One refresh in flight at a time, the latest notification after it: about one list per 50 ms.
    expect(during).toBeGreaterThan(20);
    expect(stats.lists).toBeLessThan(stats.sent);
  });
});

/** Starts the HTTP fixture; resolves with its port once it listens. */
async function startHttpFixture(args: string[] = []): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, [fixturePath('http-server.mjs'), ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  remotes.push(child);
  const port = await new Promise<number>((resolve, reject) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      const m = /^listening (\d+)$/.exec(line);
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', () => reject(new Error('http fixture exited')));
  });
  return { child, port };
}

describe('misbehaving HTTP servers', () => {
  it('a slow HTTP server: connects within its timeout, times out below it, calls wait for it', async () => {
    const { port } = await startHttpFixture(['--delay', '700']);
    const url = `http://127.0.0.1:${port}/mcp`;
    const started = Date.now();
    const { rec } = await start({
      patient: { httpUrl: url, headers: secretHeaders(), timeout: 10_000 },
      hasty: { httpUrl: url, headers: secretHeaders(), timeout: 1_000 },
    });
    const ms = Date.now() - started;
    expect(rec.board.status('patient')?.state).toBe('connected');
    expect(rec.board.status('hasty')).toMatchObject({ state: 'error', error: 'timed out after 1000 ms (raise "connectTimeout" in the server\'s entry)' });
    const t = Date.now();
    expect(textOf(await rec.requests.callTool('mcp__patient__echo', { text: 'slowly' }))).toBe('slowly');
    const callMs = Date.now() - t;
    expect(callMs).toBeGreaterThanOrEqual(700);
    report('slow HTTP server (700 ms a request)', { firstPassMs: ms, callMs });
  });

  it('an HTTP server that goes away and comes back: error, supervised retries, connected again', async () => {
    const port = await freePort();
    const first = await startServerEverything('streamableHttp', port);
    remotes.push(first);
    const url = `http://127.0.0.1:${port}/mcp`;
    const { rec } = await start({ remote: { httpUrl: url, headers: secretHeaders(), timeout: 5_000 }, local: tiny('local') }, { random: () => 0 });
    expect(rec.board.status('remote')?.state).toBe('connected');
    const localPid = rec.board.status('local')!.pid;

    const gone = Date.now();
    await first.stop();
    const lost = await waitForStatus(rec, 'remote', (s) => s.state === 'error', 30_000);
    const noticedMs = Date.now() - gone;
    expect(lost.error).toMatch(/connection lost|ECONNREFUSED|fetch failed/);
    await expect(rec.requests.callTool('mcp__remote__echo', { message: 'x' })).rejects.toThrow(/mcp__remote__echo|not connected/);

    await sleep(1_000);
    const second = await startServerEverything('streamableHttp', port);
    remotes.push(second);
    const back = Date.now();
    await waitForStatus(rec, 'remote', (s) => s.state === 'connected', 30_000);
    const reconnectMs = Date.now() - back;
    expect(textOf(await rec.requests.callTool('mcp__remote__echo', { message: 'again' }))).toBe('Echo: again');
    expect(rec.board.status('local')).toMatchObject({ state: 'connected', pid: localPid });
    report('HTTP server gone and back', { noticedMs, reconnectMsAfterBack: reconnectMs });
  });
});

describe('secrets in every way a remote server can fail', () => {
  it('tokens in URLs (query, password, path) and headers never show, whatever the server quotes back', async () => {
    // Quotes the request line and every header back in a 401, as some servers do.
    const { createServer } = await import('node:http');
    const quoting = createServer((req, res) => {
      res.writeHead(401, { 'content-type': 'text/plain' });
      res.end(`denied ${req.url ?? ''} ${JSON.stringify(req.headers)}`);
    });
    await new Promise<void>((resolve) => quoting.listen(0, '127.0.0.1', resolve));
    const port = (quoting.address() as { port: number }).port;
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const silentPort = (silent.address() as { port: number }).port;
    const base = `http://127.0.0.1:${port}`;
    try {
      const { rec } = await start({
        query: { httpUrl: `${base}/mcp?api_key=\${MCP_LIVE_SLOW_SECRET}`, headers: secretHeaders(), timeout: 3_000 },
        password: { httpUrl: `http://bot:\${MCP_LIVE_SLOW_SECRET}@127.0.0.1:${port}/mcp`, timeout: 3_000 },
        path: { httpUrl: `${base}/s/\${MCP_LIVE_SLOW_SECRET}/mcp`, headers: secretHeaders(), timeout: 3_000 },
        sse: { url: `${base}/sse?token=\${MCP_LIVE_SLOW_SECRET}`, headers: secretHeaders(), timeout: 3_000 },
        refused: { httpUrl: `http://127.0.0.1:9/mcp?api_key=\${MCP_LIVE_SLOW_SECRET}`, headers: secretHeaders(), timeout: 3_000 },
        silent: { httpUrl: `http://127.0.0.1:${silentPort}/mcp?api_key=\${MCP_LIVE_SLOW_SECRET}`, headers: secretHeaders(), timeout: 1_000 },
        leaky: sdkFixture('crash-server.mjs', ['--after', '0', '--echo-env', 'GITHUB_TOKEN']),
      });
      const errors = rec.board.list().map((st) => [st.name, st.state, st.error]);
      for (const [name, state] of errors) expect(state, String(name)).toBe('error');
      expectNoSecrets('errors', errors);
      report('secrets in remote failures', { servers: errors.length, errors: Object.fromEntries(errors.map(([n, , e]) => [n, String(e).slice(0, 90)])) });
    } finally {
      quoting.closeAllConnections();
      silent.closeAllConnections();
      await Promise.all([new Promise((resolve) => quoting.close(resolve)), new Promise((resolve) => silent.close(resolve))]);
    }
  });
});

posixOnly('/bin/sh').describe('every process is gone after dispose', () => {
  it('a mixed session of 6 servers leaves nothing behind', async () => {
    const { rec } = await start({
      a: tiny('a'),
      b: sdkFixture('echo-server.mjs', ['--echo-env', 'API_KEY']),
      c: { command: '/bin/sh', args: ['-c', `exec ${process.execPath} ${fixturePath('tiny-server.mjs')} --log-name c`], env: { API_KEY: 'x'.repeat(8) } },
      d: sdkFixture('echo-server.mjs', ['--stubborn']),
      e: sdkFixture('hang-server.mjs', [], { timeout: 500 }),
      f: tiny('f'),
    });
    const pids = ['a', 'b', 'c', 'd', 'f'].map((n) => rec.board.status(n)!.pid!);
    await rec.dispose();
    r = undefined;
    for (const pid of pids) expect(isAlive(pid), `pid ${pid}`).toBe(false);
    expect(leftoverServers()).toEqual([]);
  });
});
