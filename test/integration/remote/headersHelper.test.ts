import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { filter, firstValueFrom, map, timeout } from 'rxjs';
import { z } from 'zod';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMcpLive } from '../../../src/live/createMcpLive.js';
import type { McpLive } from '../../../src/live/types.js';
import type { McpLiveEvent } from '../../../src/model/report/events.js';
import { maskText } from '../../../src/model/settings/secrets.js';
import type { ServerStatus } from '../../../src/model/report/status.js';
import { resolveServerConfig } from '../../../src/model/settings/validate.js';
import { createMcpConnector } from '../../../src/sinks/mcp/connector.js';
import { HEADERS_HELPER_MAX_BYTES, runHeadersHelper } from '../../../src/sinks/remote/headersHelper.js';
import { connectOnce, errorOf, fixture, textOf } from '../mcpServers.js';
import { descendants } from '../processes.js';
import { posixOnly } from '../../platforms.js';
import { deadline } from '../../deadlines.js';
import { noLeftoversAfterAll } from '../workspace.js';

/**
 * `headersHelper` (decision 240) with real processes: the helper is a shell command
 * running test/fixtures/headers-helper.mjs, the server a real Streamable HTTP MCP server on
 * 127.0.0.1 that accepts one API key. The helper runs at connect and again on a 401, its headers
 * go over the entry's, it is bounded (time, output), it fails only its server in clear words,
 * its output is masked everywhere, and a repository's helper never runs before approval.
 */

const HELPER = fixture('headers-helper.mjs');
/** The shell command running the helper fixture with `args`. */
const helper = (...args: string[]): string => [process.execPath, HELPER, ...args].map((w) => `'${w}'`).join(' ');

let dir: string;
let live: McpLive | undefined;
let http: Server | undefined;

/** What the server accepts and saw. */
const api = {
  accepted: 'key-1',
  /** Answer a refused key with 500 and the key in the body (a careless server), instead of 401. */
  echoRefusedKey: false,
  seen: [] as IncomingHttpHeaders[],
  refused: 0,
};

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'mcp-live-helper-'));
  Object.assign(api, { accepted: 'key-1', echoRefusedKey: false, seen: [], refused: 0 });
});
afterEach(async () => {
  await live?.dispose();
  live = undefined;
  await new Promise<void>((resolve) => (http ? http.close(() => resolve()) : resolve()));
  http?.closeAllConnections();
  http = undefined;
  rmSync(dir, { recursive: true, force: true });
});
noLeftoversAfterAll();

/** A stateless Streamable HTTP MCP server that wants `X-Api-Key: api.accepted`; resolves with its URL. */
async function startServer(): Promise<string> {
  http = createServer((req, res) => {
    api.seen.push(req.headers);
    if (req.headers['x-api-key'] !== api.accepted) {
      api.refused += 1;
      if (api.echoRefusedKey) return void res.writeHead(500).end(`refused key ${String(req.headers['x-api-key'])}`);
      return void res.writeHead(401, { 'content-type': 'text/plain' }).end('bad key');
    }
    if (req.method !== 'POST') return void res.writeHead(405).end();
    const server = new McpServer({ name: 'keyed', version: '1.0.0' });
    server.registerTool('echo', { inputSchema: { text: z.string() } }, ({ text }) => ({ content: [{ type: 'text', text }] }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    void server.connect(transport).then(() => transport.handleRequest(req, res));
  });
  await new Promise<void>((resolve) => http!.listen(0, '127.0.0.1', resolve));
  const address = http.address();
  if (typeof address !== 'object' || address === null) throw new Error('no address');
  return `http://127.0.0.1:${address.port}/mcp`;
}

function resolved(raw: unknown) {
  const result = resolveServerConfig(raw, process.env, dir);
  if (!result.ok) throw new Error(result.error);
  return result.resolved;
}

const runsLog = (): string[] => (existsSync(join(dir, 'runs.log')) ? readFileSync(join(dir, 'runs.log'), 'utf8').trim().split('\n') : []);

describe('running a helper', () => {
  const run = (command: string, options: Partial<Parameters<typeof runHeadersHelper>[1]> = {}) =>
    runHeadersHelper({ command, cwd: dir }, { server: 'corp', url: 'https://corp.example/mcp', ...options });

  it('gives its JSON object of headers; the server name and URL are in its environment (ours and Claude Code\'s names); it runs in the workspace', async () => {
    writeFileSync(join(dir, 'token'), 'tok-abcdef-1\n');
    const headers = await run(helper('--token-file', join(dir, 'token'), '--runs-log', join(dir, 'runs.log')));
    expect(headers).toEqual({ 'X-Api-Key': 'tok-abcdef-1' });
    expect(runsLog()).toEqual([`corp https://corp.example/mcp corp ${dir}`]);
    // Its output is a secret from now on, in every text.
    expect(maskText('the key was tok-abcdef-1.')).toBe('the key was ***.');
  });

  it('an exit code fails with the code and the first stderr line, made safe for a terminal', async () => {
    await expect(run(helper('--exit', '3', '--stderr', 'no credentials \u001b[31mfor corp'))).rejects.toThrow(
      'headersHelper exited with code 3: no credentials \\x1b[31mfor corp',
    );
    await expect(run('exit 4')).rejects.toThrow(/^headersHelper exited with code 4$/);
  });

  it('a helper that outlasts its timeout is killed, with whatever its shell started', async () => {
    const started = Date.now();
    // `; true` keeps the shell from exec-ing node: the helper is the shell's child, in its group.
    await expect(run(`${helper('--sleep', '30000')}; true`, { timeoutMs: 300 })).rejects.toThrow('headersHelper timed out after 300 ms');
    expect(Date.now() - started).toBeLessThan(2_000);
    const giveUpAt = Date.now() + deadline(2_000);
    while (descendants().some((p) => p.command.includes('headers-helper.mjs')) && Date.now() < giveUpAt) await new Promise((r) => setTimeout(r, 50));
    expect(descendants().filter((p) => p.command.includes('headers-helper.mjs'))).toEqual([]);
  });

  it('more output than the cap is refused (and the helper killed)', async () => {
    await expect(run(helper('--flood', String(HEADERS_HELPER_MAX_BYTES + 10)))).rejects.toThrow(
      `headersHelper printed more than ${HEADERS_HELPER_MAX_BYTES} bytes (a JSON object of headers is expected)`,
    );
  });

  it.each<[string, string]>([
    ['not JSON', 'headersHelper did not print JSON (a JSON object of string headers is expected)'],
    ['["a"]', 'headersHelper did not print a JSON object of string headers'],
    ['{"X-Count": 3}', 'headersHelper printed a header that is not a string ("X-Count")'],
    ['{"bad name": "v"}', 'headersHelper printed an invalid header name ("bad name")'],
    ['{"X-A": "a\\r\\nX-Injected: 1"}', 'headersHelper printed a header whose value holds a line break ("X-A")'],
  ])('printing %s is refused in words that never quote a value', async (printed, message) => {
    await expect(run(helper('--print', printed))).rejects.toThrow(message);
  });

  it('a run given up (the connect ended) stops the helper', async () => {
    const controller = new AbortController();
    const running = run(helper('--sleep', '30000'), { signal: controller.signal });
    setTimeout(() => controller.abort(), 100);
    await expect(running).rejects.toThrow('headersHelper was stopped: the connect was given up');
  });
});

describe('a remote server with a headersHelper', () => {
  it('sends the helper\'s headers over the entry\'s from the first request; on a 401 it runs the helper again and retries', async () => {
    const url = await startServer();
    writeFileSync(join(dir, 'token'), 'key-1');
    const config = resolved({
      httpUrl: url,
      headers: { 'x-api-key': 'from-the-entry', 'X-Static': 'kept' },
      headersHelper: helper('--token-file', join(dir, 'token'), '--runs-log', join(dir, 'runs.log')),
      healthCheck: false,
    });
    const connection = await connectOnce(createMcpConnector()('keyed', config));
    try {
      expect(runsLog()).toHaveLength(1);
      expect(api.refused).toBe(0);
      // One x-api-key, the helper's; the entry's other headers stay.
      expect(api.seen[0]).toMatchObject({ 'x-api-key': 'key-1', 'x-static': 'kept' });

      // The key rotates: the next request is refused, the helper runs again, the request is retried.
      api.accepted = 'key-2';
      writeFileSync(join(dir, 'token'), 'key-2');
      expect(textOf(await connection.callTool('echo', { text: 'after rotation' }))).toBe('after rotation');
      expect(runsLog()).toHaveLength(2);
      expect(api.refused).toBe(1);
      expect(api.seen.at(-1)).toMatchObject({ 'x-api-key': 'key-2' });
    } finally {
      await connection.close();
    }
  });

  it('a helper that gives the same refused headers again does not loop: the 401 stands', async () => {
    const url = await startServer();
    writeFileSync(join(dir, 'token'), 'wrong');
    const config = resolved({ httpUrl: url, headersHelper: helper('--token-file', join(dir, 'token'), '--runs-log', join(dir, 'runs.log')), healthCheck: false });
    const error = await errorOf(createMcpConnector()('keyed', config));
    expect(error.message).toBe('Error POSTing to endpoint: bad key');
    // Run at connect and once more on the 401; the same headers are not sent again.
    expect(runsLog()).toHaveLength(2);
    expect(api.refused).toBe(1);
  });

  it('a failing helper fails only its server, with the helper\'s words; the other server connects', async () => {
    const url = await startServer();
    mkdirSync(join(dir, 'home', '.qwen'), { recursive: true });
    mkdirSync(join(dir, 'work'));
    writeFileSync(join(dir, 'token'), 'key-1');
    writeFileSync(
      join(dir, 'home', '.qwen', 'settings.json'),
      JSON.stringify({
        mcpServers: {
          broken: { httpUrl: url, headersHelper: helper('--exit', '2', '--stderr', 'please run corp-login first') },
          fine: { httpUrl: url, headersHelper: helper('--token-file', join(dir, 'token')) },
        },
      }),
    );
    live = createMcpLive({ homeDir: join(dir, 'home'), cwd: join(dir, 'work'), runtimeDir: join(dir, 'run'), debounceMs: 20 });
    await live.start();
    const broken = await until(live, 'broken', (s) => s.state === 'error');
    expect(broken.error).toBe('headersHelper exited with code 2: please run corp-login first');
    await until(live, 'fine', (s) => s.state === 'connected');
  }, deadline(30_000));

  it("the helper's output appears in no event, status or error text", async () => {
    const url = await startServer();
    const secret = 'sekrit-api-key-98765';
    api.accepted = secret;
    mkdirSync(join(dir, 'home', '.qwen'), { recursive: true });
    mkdirSync(join(dir, 'work'));
    writeFileSync(join(dir, 'token'), secret);
    const entry = { httpUrl: url, headersHelper: helper('--token-file', join(dir, 'token')) };
    writeFileSync(join(dir, 'home', '.qwen', 'settings.json'), JSON.stringify({ mcpServers: { keyed: entry } }));
    const events: McpLiveEvent[] = [];
    live = createMcpLive({ homeDir: join(dir, 'home'), cwd: join(dir, 'work'), runtimeDir: join(dir, 'run'), debounceMs: 20 });
    live.events$.subscribe((e) => events.push(e));
    await live.start();
    await until(live, 'keyed', (s) => s.state === 'connected');
    expect(textOf(await live.tools.call('mcp__keyed__echo', { text: 'ok' }))).toBe('ok');

    // A rotated key under a session that has OAuth: the helper is asked before OAuth is (no needs_auth).
    const rotated = 'sekrit-api-key-rotated-2';
    api.accepted = rotated;
    writeFileSync(join(dir, 'token'), rotated);
    expect(textOf(await live.tools.call('mcp__keyed__echo', { text: 'rotated' }))).toBe('rotated');
    expect(live.servers.status().find((s) => s.name === 'keyed')?.state).toBe('connected');

    // The server now refuses the key, quoting it back in a 500: the error text masks it.
    api.accepted = 'another';
    api.echoRefusedKey = true;
    const call = await live.tools.call('mcp__keyed__echo', { text: 'x' }).then(
      () => 'resolved',
      (e: Error) => e.message,
    );
    expect(call).toContain('refused key ***');
    live.servers.reconnect('keyed');
    const failed = await until(live, 'keyed', (s) => s.state === 'error');
    expect(failed.error).toContain('refused key ***');
    const everything = JSON.stringify(events) + JSON.stringify(live.servers.status()) + call + live.servers.stderrTail('keyed').join('\n');
    expect(api.seen.some((h) => h['x-api-key'] === secret)).toBe(true);
    expect(everything).not.toContain(secret);
    expect(everything).not.toContain(rotated);
  }, deadline(30_000));

  posixOnly('sh scripts').it("a user's helper runs in the home directory: its ./token.sh is the home's, never the workspace's", async () => {
    const url = await startServer();
    const home = join(dir, 'home');
    const work = join(dir, 'work');
    mkdirSync(join(home, '.qwen'), { recursive: true });
    mkdirSync(work);
    writeFileSync(join(dir, 'token'), 'key-1');
    const script = (marker: string): string =>
      `#!/bin/sh\n${marker}exec ${helper('--token-file', join(dir, 'token'), '--runs-log', join(dir, 'runs.log'))}\n`;
    // Both would print the right key: only where the helper runs tells them apart.
    writeFileSync(join(home, 'token.sh'), script(''));
    writeFileSync(join(work, 'token.sh'), script(`: > '${join(dir, 'pwned')}'\n`));
    chmodSync(join(home, 'token.sh'), 0o755);
    chmodSync(join(work, 'token.sh'), 0o755);
    writeFileSync(join(home, '.qwen', 'settings.json'), JSON.stringify({ mcpServers: { corp: { httpUrl: url, headersHelper: './token.sh', healthCheck: false } } }));
    live = createMcpLive({ homeDir: home, cwd: work, runtimeDir: join(dir, 'run'), debounceMs: 20 });
    await live.start();
    await until(live, 'corp', (s) => s.state === 'connected');
    expect(existsSync(join(dir, 'pwned'))).toBe(false);
    expect(runsLog()).toEqual([`corp ${url} corp ${home}`]);
  }, deadline(30_000));

  it("a repository's helper never runs before approval; approved, it runs and the server connects", async () => {
    const url = await startServer();
    mkdirSync(join(dir, 'home', '.qwen'), { recursive: true });
    mkdirSync(join(dir, 'work'));
    writeFileSync(join(dir, 'token'), 'key-1');
    const entry = { type: 'http', url, headersHelper: helper('--token-file', join(dir, 'token'), '--runs-log', join(dir, 'runs.log')) };
    writeFileSync(join(dir, 'work', '.mcp.json'), JSON.stringify({ mcpServers: { repo: entry } }));
    live = createMcpLive({ homeDir: join(dir, 'home'), cwd: join(dir, 'work'), runtimeDir: join(dir, 'run'), debounceMs: 20 });
    await live.start();
    const pending = await until(live, 'repo', (s) => s.reason === 'pending_approval');
    expect(pending.state).toBe('blocked');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(runsLog()).toEqual([]);
    expect(api.seen).toEqual([]);

    await live.approvals.approve('repo');
    await until(live, 'repo', (s) => s.state === 'connected');
    expect(runsLog()).toEqual([`repo ${url} repo ${join(dir, 'work')}`]);
  }, deadline(30_000));
});

function until(l: McpLive, name: string, test: (s: ServerStatus) => boolean, ms = 15_000): Promise<ServerStatus> {
  return firstValueFrom(
    l.servers.list$.pipe(
      map((all) => all.find((s) => s.name === name)),
      filter((s): s is ServerStatus => s !== undefined && test(s)),
      timeout(ms),
    ),
  );
}
