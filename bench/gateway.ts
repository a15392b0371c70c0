/**
 * `mcp-live serve` (decision 142): what a call costs through the gateway, and what a list_changed
 * costs to fan out to many clients.
 *
 * - **Call overhead**: one echo fixture server behind the gateway. The same call is made, in turn,
 *   by a client of the gateway over Streamable HTTP on loopback, by a client that launched
 *   `serve --stdio` (the relay over the gateway's local socket, what a client config runs), and by
 *   two direct clients with the same transports: one with its own stdio process of the echo
 *   fixture, one of an echo server over Streamable HTTP (test/fixtures/http-server.mjs --sessions).
 *   Calls alternate between the four, so a noisy neighbour hits all alike; what the gateway adds
 *   = its median − the direct median over the same transport.
 * - **Fan-out**: 1 and then `clients` HTTP clients; the settings file gains (then loses) a server;
 *   each client re-lists tools on `notifications/tools/list_changed`. Measured per edit: from the
 *   first client's notification to the last client's new list (the fan-out itself), and from the
 *   save to the last client's new list.
 * - **Eras**: a 2025-era client (the SDK's v1 line, session and handshake) and a 2026-07-28 client
 *   (the SDK's v2 line, no session, its `subscriptions/listen` stream) attached side by side; the
 *   same edits; from the save to each one's new list.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttpTransport } from '@modelcontextprotocol/client';
import { FIXTURE, ROOT, RunDir, fixtureServer, sleep, writeJson } from './fixtures.js';
import type { GatewayResult } from './results.js';
import { summarize } from './stats.js';

const CLI = join(ROOT, 'dist', 'src', 'cli', 'main.js');

export interface GatewayBenchOptions {
  /** Timed calls per way (after a warm-up of a tenth as many). */
  calls: number;
  /** Clients of the fan-out. */
  clients: number;
  /** Edits per fan-out size. */
  edits: number;
  log: (line: string) => void;
}

interface Gateway {
  child: ChildProcess;
  url: string;
  token: string;
  home: string;
  cwd: string;
  settings: string;
}

export async function runGatewayBench(o: GatewayBenchOptions): Promise<GatewayResult> {
  const dir = new RunDir();
  const gateway = await startGateway(dir);
  const opened: Client[] = [];
  const stops: (() => Promise<void>)[] = [];
  try {
    const httpServer = await startHttpEcho(dir);
    stops.push(httpServer.stop);
    const ways = {
      direct: [await connect(opened, new StdioClientTransport({ command: process.execPath, args: [FIXTURE] })), 'echo'],
      directHttp: [await connect(opened, new StreamableHTTPClientTransport(new URL(httpServer.url))), 'echo'],
      http: [await connect(opened, httpTransport(gateway)), 'echo__echo'],
      socket: [
        await connect(
          opened,
          new StdioClientTransport({ command: process.execPath, args: [CLI, 'serve', '--stdio', ...gatewayArgs(gateway)], env: envOf(gateway), stderr: 'ignore' }),
        ),
        'echo__echo',
      ],
    } as const;
    const samples: Record<keyof typeof ways, number[]> = { direct: [], directHttp: [], http: [], socket: [] };
    const warm = Math.max(10, Math.round(o.calls / 10));
    for (let i = 0; i < warm + o.calls; i++) {
      for (const way of Object.keys(ways) as (keyof typeof ways)[]) {
        const [client, tool] = ways[way];
        const t0 = performance.now();
        await client.callTool({ name: tool, arguments: { text: 'x' } });
        if (i >= warm) samples[way].push(performance.now() - t0);
      }
    }
    const calls = {
      directMs: summarize(samples.direct, 3),
      directHttpMs: summarize(samples.directHttp, 3),
      httpMs: summarize(samples.http, 3),
      socketMs: summarize(samples.socket, 3),
    };
    o.log(
      `  gateway calls (median of ${o.calls}): stdio direct ${calls.directMs.median} ms, via serve --stdio ${calls.socketMs.median} ms; HTTP direct ${calls.directHttpMs.median} ms, via the gateway ${calls.httpMs.median} ms`,
    );

    const fanOut = [];
    for (const clients of [1, o.clients]) {
      const result = await measureFanOut(gateway, clients, o.edits, opened);
      o.log(`  gateway fan-out to ${clients}: spread ${result.spreadMs.median} ms, save → last client listed ${result.saveToLastMs.median} ms`);
      fanOut.push(result);
    }
    const eras = await measureEras(gateway, o.edits, opened);
    o.log(`  gateway edit → new list by era: 2025 client ${eras.legacySaveToListedMs.median} ms, 2026-07-28 client ${eras.modernSaveToListedMs.median} ms`);
    return { calls: o.calls, ...calls, fanOut, eras };
  } finally {
    await Promise.all(opened.map((c) => c.close().catch(() => undefined)));
    await Promise.all(stops.map((stop) => stop()));
    gateway.child.kill('SIGTERM');
    if (gateway.child.exitCode === null) await once(gateway.child, 'exit');
    dir.cleanup();
  }
}

/** A foreground `serve --port 0 --json` with one echo server; resolves once that server is connected. */
async function startGateway(dir: RunDir): Promise<Gateway> {
  const home = dir.folder('home');
  const cwd = dir.folder('work');
  const settings = join(home, '.qwen', 'settings.json');
  writeJson(settings, { mcpServers: { echo: fixtureServer('echo', join(dir.root, 'starts.log'), 'base') } });
  const partial = { home, cwd, settings };
  const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--json', ...gatewayArgs(partial)], {
    env: envOf(partial),
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  let url: string | undefined;
  const lines = createInterface({ input: child.stdout });
  for await (const line of lines) {
    const event = JSON.parse(line) as { type: string; url?: string; name?: string; state?: string };
    if (event.type === 'gateway-listening') url = event.url;
    if (event.type === 'server' && event.name === 'echo' && event.state === 'connected') break;
  }
  // Keep draining the events, so the gateway never blocks on a full pipe.
  child.stdout.resume();
  if (url === undefined) throw new Error('serve --json did not say where it listens');
  const { stdout: token } = await promisify(execFile)(process.execPath, [CLI, 'serve', '--print-token', ...gatewayArgs(partial)], { env: envOf(partial) });
  return { child, url, token: token.trim(), ...partial };
}

/** The echo fixture over Streamable HTTP with sessions, as a long-lived HTTP server runs. */
async function startHttpEcho(dir: RunDir): Promise<{ url: string; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, [join(ROOT, 'test', 'fixtures', 'http-server.mjs'), '--sessions', '--start-log', join(dir.root, 'http-starts.log')], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const lines = createInterface({ input: child.stdout });
  const [line] = (await once(lines, 'line')) as [string];
  const port = /^listening (\d+)$/.exec(line)?.[1];
  if (port === undefined) throw new Error(`the HTTP echo server said "${line}"`);
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    stop: async () => {
      child.kill('SIGTERM');
      if (child.exitCode === null) await once(child, 'exit');
    },
  };
}

function gatewayArgs(g: Pick<Gateway, 'cwd' | 'settings'>): string[] {
  return ['--cwd', g.cwd, '--user-settings', g.settings, '--debounce', '100'];
}

function envOf(g: Pick<Gateway, 'home'>): Record<string, string> {
  return { ...(process.env as Record<string, string>), HOME: g.home };
}

function httpTransport(g: Gateway): StreamableHTTPClientTransport {
  return new StreamableHTTPClientTransport(new URL(g.url), { requestInit: { headers: { Authorization: `Bearer ${g.token}` } } });
}

async function connect(opened: Client[], transport: StdioClientTransport | StreamableHTTPClientTransport): Promise<Client> {
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(transport);
  opened.push(client);
  return client;
}

/** `clients` clients re-listing on list_changed; the settings gain and lose a server `edits` times. */
async function measureFanOut(g: Gateway, clients: number, edits: number, opened: Client[]): Promise<GatewayResult['fanOut'][number]> {
  const noticed: number[][] = [];
  const listed: { at: number; names: string[] }[][] = [];
  const fleet = await Promise.all(
    Array.from({ length: clients }, async (_, i) => {
      const client = await connect(opened, httpTransport(g));
      noticed[i] = [];
      listed[i] = [];
      client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
        noticed[i]!.push(performance.now());
        const { tools } = await client.listTools();
        listed[i]!.push({ at: performance.now(), names: tools.map((t) => t.name) });
      });
      return client;
    }),
  );
  const spread: number[] = [];
  const saveToLast: number[] = [];
  for (let edit = 0; edit < edits * 2; edit++) {
    const adding = edit % 2 === 0;
    const servers: Record<string, unknown> = { echo: fixtureServer('echo', join(g.home, 'starts.log'), 'base') };
    if (adding) servers.extra = fixtureServer('extra', join(g.home, 'starts.log'), 'base');
    const before = noticed.map((n) => n.length);
    const saved = performance.now();
    writeJson(g.settings, { mcpServers: servers });
    const wanted = (names: string[]) => names.includes('extra__echo') === adding;
    const deadline = saved + 30_000;
    while (!listed.every((l) => l.some((x) => x.at > saved && wanted(x.names)))) {
      if (performance.now() > deadline) throw new Error(`fan-out to ${clients}: not every client saw the new tools within 30 s`);
      await sleep(5);
    }
    const firstNotice = Math.min(...noticed.map((n, i) => n[before[i]!]!));
    const lastListed = Math.max(...listed.map((l) => l.find((x) => x.at > saved && wanted(x.names))!.at));
    spread.push(lastListed - firstNotice);
    saveToLast.push(lastListed - saved);
    await sleep(200);
  }
  await Promise.all(fleet.map((c) => c.close()));
  return { clients, edits: edits * 2, spreadMs: summarize(spread), saveToLastMs: summarize(saveToLast) };
}

/**
 * A 2025-era client and a 2026-07-28 client of the gateway side by side, each re-listing when told
 * its tools changed (the first by the unsolicited notification, the second on its listen stream);
 * the settings gain and lose a server `edits` times. From the save to each one's new list.
 */
async function measureEras(g: Gateway, edits: number, opened: Client[]): Promise<NonNullable<GatewayResult['eras']>> {
  const legacy = await connect(opened, httpTransport(g));
  const modern = new ModernClient({ name: 'bench', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await modern.connect(new ModernHttpTransport(new URL(g.url), { requestInit: { headers: { Authorization: `Bearer ${g.token}` } } }));
  const listed: Record<'legacy' | 'modern', { at: number; names: string[] }[]> = { legacy: [], modern: [] };
  legacy.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
    const { tools } = await legacy.listTools();
    listed.legacy.push({ at: performance.now(), names: tools.map((t) => t.name) });
  });
  modern.setNotificationHandler('notifications/tools/list_changed', async () => {
    const { tools } = await modern.listTools(undefined, { cacheMode: 'bypass' });
    listed.modern.push({ at: performance.now(), names: tools.map((t) => t.name) });
  });
  const subscription = await modern.listen({ toolsListChanged: true });
  const legacyMs: number[] = [];
  const modernMs: number[] = [];
  try {
    for (let edit = 0; edit < edits * 2; edit++) {
      const adding = edit % 2 === 0;
      const servers: Record<string, unknown> = { echo: fixtureServer('echo', join(g.home, 'starts.log'), 'base') };
      if (adding) servers.extra = fixtureServer('extra', join(g.home, 'starts.log'), 'base');
      const saved = performance.now();
      writeJson(g.settings, { mcpServers: servers });
      const seen = (era: 'legacy' | 'modern') => listed[era].find((x) => x.at > saved && x.names.includes('extra__echo') === adding);
      const deadline = saved + 30_000;
      while (seen('legacy') === undefined || seen('modern') === undefined) {
        if (performance.now() > deadline) throw new Error('eras: a client did not see the new tools within 30 s');
        await sleep(5);
      }
      legacyMs.push(seen('legacy')!.at - saved);
      modernMs.push(seen('modern')!.at - saved);
      await sleep(200);
    }
  } finally {
    await subscription.close();
    await modern.close();
  }
  return { edits: edits * 2, legacySaveToListedMs: summarize(legacyMs), modernSaveToListedMs: summarize(modernMs) };
}

