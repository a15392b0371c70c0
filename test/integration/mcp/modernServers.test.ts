import type { ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import { firstValueFrom, filter } from 'rxjs';
import { describe, expect } from 'vitest';
import { createMcpConnector } from '../../../src/sinks/mcp/connector.js';
import { eraMemory, type EraMemory } from '../../../src/sinks/mcp/eraMemory.js';
import type { SurfaceRecord } from '../../../src/sinks/stores/surfaceStore.js';
import type { ElicitationAnswer, ServerRequestHandlers } from '../../../src/model/connection.js';
import type { ResolvedServerConfig } from '../../../src/model/types.js';
import { connectOnce, errorOf, fixture, nodeServer, remoteServer, startedPids, startListeningFixture, textOf } from '../mcpServers.js';
import { sleep, waitForExit } from '../processes.js';
import { deadline } from '../../deadlines.js';
import { it, noLeftoversAfterAll, type TestScope } from '../workspace.js';

/**
 * MCP servers of the 2026-07-28 era (decisions 380–383): real v2-SDK servers that refuse the 2025
 * handshake, over stdio and stateless Streamable HTTP, and 2025-era servers beside them.
 */

noLeftoversAfterAll();

const MODERN = fixture('modern-server.mjs');
const PICKY = fixture('picky-legacy-server.mjs');

/** An era memory over records held in a map, as the surface store holds them. */
function memory(): { eras: EraMemory; records: Map<string, SurfaceRecord> } {
  const records = new Map<string, SurfaceRecord>();
  return { eras: eraMemory({ get: (key) => records.get(key), put: (record) => void records.set(record.fingerprint, record) }), records };
}

/** The modern fixture over HTTP; ended when the test finishes. */
async function startModernHttp(scope: TestScope, ...args: string[]): Promise<string> {
  return (await startModernHttpChild(scope, ...args)).url;
}

function startModernHttpChild(scope: TestScope, ...args: string[]): Promise<{ url: string; child: ChildProcess }> {
  return startListeningFixture(scope, MODERN, '--http', ...args);
}

/** Answers every form with `answer` after `delayMs`. */
function answering(answer: ElicitationAnswer, delayMs = 0, asked: string[] = []): ServerRequestHandlers {
  return {
    elicit: async (_server, form) => {
      asked.push(form.message);
      await sleep(delayMs);
      return answer;
    },
  };
}

describe.concurrent('servers of the 2026-07-28 era', () => {
  it.for(['stdio', 'http'] as const)('a modern-only server over %s connects, lists and says which revision it speaks', async (kind, { scope }) => {
    const config = kind === 'stdio' ? nodeServer(MODERN) : remoteServer('http', await startModernHttp(scope));
    const { eras } = memory();
    const connection = scope.closes(await connectOnce(createMcpConnector({ eras })('modern', config)));
    expect(connection.server?.protocol).toMatchObject({ version: '2026-07-28', era: 'modern', verdict: { kind: 'modern' } });
    expect(connection.server?.info).toEqual({ name: 'modern-fixture', version: '2.0.0' });
    expect(connection.lists.tools.map((t) => t.name)).toEqual(['echo', 'confirm', 'rounds', 'add-tool', 'touch', 'where', 'summarize', 'log', 'calls']);
    expect(connection.lists.resources.map((r) => r.uri)).toEqual(['modern://note']);
    expect(textOf(await connection.callTool('echo', { text: 'hi' }))).toBe('hi');
    // The verdict is remembered: the next connect uses it.
    expect(eras.recall(config)).toMatchObject({ kind: 'modern', discover: { supportedVersions: ['2026-07-28'] } });
  });

  it('a known era connects without a probe, on one process; a 2025 server that exits on the probe is known after one try', async ({ scope }) => {
    const log = scope.path('starts.log');
    const config = nodeServer(PICKY, ['--on-unknown', 'exit', '--start-log', log]);
    const { eras, records } = memory();
    const connect = createMcpConnector({ eras });
    // Unknown era: the probe (in place, on the one process) ends the server; it is taken for a 2025
    // one and started again within the same connect, straight to initialize: the connect succeeds.
    const first = scope.closes(await connectOnce(connect('picky', config)));
    expect(first.server?.protocol).toMatchObject({ era: 'legacy', version: '2025-11-25' });
    expect(await startedPids(log)).toHaveLength(2);
    expect(eras.recall(config)).toMatchObject({ kind: 'legacy' });
    await first.close();
    // Known: straight to initialize, one more process, no probe.
    const connection = scope.closes(await connectOnce(connect('picky', config)));
    expect(connection.server?.protocol).toMatchObject({ era: 'legacy', version: '2025-11-25' });
    expect(textOf(await connection.callTool('echo', { text: 'ok' }))).toBe('ok');
    expect(await startedPids(log)).toHaveLength(3);
    expect(records.size).toBe(0);

    // A modern server whose era is known: one process per connect, and it still works.
    const modernLog = scope.path('modern.log');
    const modern = nodeServer(MODERN, ['--start-log', modernLog]);
    await (await connectOnce(connect('modern', modern))).close();
    const again = scope.closes(await connectOnce(connect('modern', modern)));
    expect(again.server?.protocol?.verdict?.decidedAt).toBe(eras.recall(modern)?.decidedAt);
    expect(textOf(await again.callTool('echo', { text: 'still' }))).toBe('still');
    expect(await startedPids(modernLog)).toHaveLength(2);
  });

  it('a connect given up during the era probe ends its one process, starts no other, and learns no era (decision 366)', async ({ scope }) => {
    const log = scope.path('starts.log');
    const config = nodeServer(PICKY, ['--on-unknown', 'ignore', '--start-log', log]);
    const { eras } = memory();
    const subscription = createMcpConnector({ eras })('silent', config).subscribe({ error: () => undefined });
    // The server is up and the probe, which it never answers, is under way: the caller gives up.
    const [pid] = await startedPids(log);
    subscription.unsubscribe();
    expect(await waitForExit(pid!)).toBe(true);
    // Killed by its caller is not "ended on the probe": no verdict, and no second process.
    await sleep(deadline(500));
    expect(eras.recall(config)).toBeUndefined();
    expect(await startedPids(log)).toEqual([pid]);
  });

  it('a 2025 server that never answers the probe is connected after the probe timeout, and at once once its era is known', async ({ scope }) => {
    const config = nodeServer(PICKY, ['--on-unknown', 'ignore']);
    const { eras } = memory();
    const connect = createMcpConnector({ eras });
    const t0 = performance.now();
    scope.closes(await connectOnce(connect('silent', config)));
    const unknown = performance.now() - t0;
    const t1 = performance.now();
    const known = scope.closes(await connectOnce(connect('silent', config)));
    const knownMs = performance.now() - t1;
    expect(known.server?.protocol?.era).toBe('legacy');
    // The probe waits 3 s at most on stdio (decision 380); a known era waits for nothing.
    expect(unknown).toBeGreaterThanOrEqual(2_900);
    expect(knownMs).toBeLessThan(unknown - 1_000);
  });

  it('2025-era fixtures still connect under negotiation, and say so', async ({ scope }) => {
    const connection = scope.closes(await connectOnce(createMcpConnector()('echo', nodeServer(fixture('echo-server.mjs')))));
    expect(connection.server?.protocol).toMatchObject({ era: 'legacy', verdict: { kind: 'legacy' } });
    expect(connection.server?.protocol?.version).toMatch(/^2025-/);
    expect(textOf(await connection.callTool('echo', { text: 'old' }))).toBe('old');
  });

  it.for(['stdio', 'http'] as const)('over %s, a list change is heard on the listen stream and the list refreshed', async (kind, { scope }) => {
    const config = kind === 'stdio' ? nodeServer(MODERN) : remoteServer('http', await startModernHttp(scope));
    const connection = scope.closes(await connectOnce(createMcpConnector()('modern', config)));
    const refreshed = firstValueFrom(connection.lists$.pipe(filter((lists) => lists.tools?.some((t) => t.name === 'zap') === true)));
    await connection.callTool('add-tool', { name: 'zap' });
    expect((await refreshed).tools?.map((t) => t.name)).toContain('zap');
  });

  it('a list whose changes nobody tells is fetched again when its ttlMs runs out, not before', async ({ scope }) => {
    // The list is fetched during the connect: its ttl runs from a moment after this one.
    const beforeConnect = performance.now();
    const connection = scope.closes(await connectOnce(createMcpConnector()('modern', nodeServer(MODERN, ['--tools-ttl', '1500', '--no-list-changed']))));
    const refreshes: number[] = [];
    connection.lists$.subscribe((lists) => lists.tools && refreshes.push(performance.now()));
    const refreshed = firstValueFrom(connection.lists$.pipe(filter((lists) => lists.tools?.some((t) => t.name === 'late') === true)));
    await connection.callTool('add-tool', { name: 'late' });
    await refreshed;
    expect(performance.now() - beforeConnect).toBeGreaterThanOrEqual(1_500);
    // Then once per ttl, not more often.
    await sleep(2_000);
    expect(refreshes.length).toBeLessThanOrEqual(3);
    for (let i = 1; i < refreshes.length; i++) expect(refreshes[i]! - refreshes[i - 1]!).toBeGreaterThanOrEqual(1_400);
  });

  it.for(['stdio', 'http'] as const)('over %s, a resource subscription rides the listen stream', async (kind, { scope }) => {
    const config = kind === 'stdio' ? nodeServer(MODERN) : remoteServer('http', await startModernHttp(scope));
    const updated: string[] = [];
    const connection = scope.closes(await connectOnce(createMcpConnector()('modern', config, { resourceUpdated: (_s, uri) => updated.push(uri) })));
    await connection.subscribeResource!('modern://note');
    await connection.callTool('touch', { uri: 'modern://note' });
    await expect.poll(() => updated).toEqual(['modern://note']);
    await connection.unsubscribeResource!('modern://note');
    await connection.callTool('touch', { uri: 'modern://note' });
    await sleep(300);
    expect(updated).toEqual(['modern://note']);
  });

  it('input_required: the form reaches the session\'s elicitation handler; accepted it completes, declined it ends with the server\'s result', async ({ scope }) => {
    const asked: string[] = [];
    const accept = scope.closes(await connectOnce(createMcpConnector()('m', nodeServer(MODERN), answering({ action: 'accept', content: { confirm: true } }, 0, asked))));
    expect(textOf(await accept.callTool('confirm', { env: 'prod' }))).toBe('deployed to prod');
    expect(asked).toEqual(['Deploy to prod?']);
    const decline = scope.closes(await connectOnce(createMcpConnector()('m', nodeServer(MODERN), answering({ action: 'decline' }))));
    expect(await decline.callTool('confirm', { env: 'prod' })).toMatchObject({ isError: true, content: [{ text: 'deploy cancelled (decline)' }] });
  });

  it('input_required over several rounds echoes requestState unchanged; past 8 rounds the call fails saying so', async ({ scope }) => {
    const connection = scope.closes(await connectOnce(createMcpConnector()('m', nodeServer(MODERN), answering({ action: 'accept', content: { ok: true } }))));
    expect(textOf(await connection.callTool('rounds', { count: 7 }))).toBe('7 rounds, requestState echoed unchanged');
    await expect(connection.callTool('rounds', { count: 9 })).rejects.toThrow('the server still asked for input after 8 rounds; mcp-live answers at most 8 in one request');
    // The connection is fine after it.
    expect(textOf(await connection.callTool('echo', { text: 'after' }))).toBe('after');
  });

  it('input_required for roots and sampling is answered by the session\'s roots and model', async ({ scope }) => {
    const handlers: ServerRequestHandlers = {
      roots: () => [{ uri: 'file:///work/a', name: 'a' }],
      sample: () => Promise.resolve({ model: 'host-model', role: 'assistant', content: { type: 'text', text: 'short' } }),
    };
    const connection = scope.closes(await connectOnce(createMcpConnector()('m', nodeServer(MODERN), handlers)));
    expect(textOf(await connection.callTool('where', {}))).toBe('file:///work/a');
    expect(textOf(await connection.callTool('summarize', {}))).toBe('model said: short');
  });

  it.for(['stdio', 'http'] as const)('a modern server over %s logs to a session that hears its logs: every level is asked for; without a log handler none is', async (kind, { scope }) => {
    const config = kind === 'stdio' ? nodeServer(MODERN) : remoteServer('http', await startModernHttp(scope));
    const heard: { server: string; level: string; data: unknown }[] = [];
    const handlers: ServerRequestHandlers = { log: (server, { level, data }) => heard.push({ server, level, data }) };
    const listening = scope.closes(await connectOnce(createMcpConnector()('m', config, handlers)));
    expect(textOf(await listening.callTool('log', {}))).toBe('logLevel=debug');
    // Sent with the call, ahead of its result.
    expect(heard).toEqual(['debug', 'info', 'error'].map((level) => ({ server: 'm', level, data: `${level} from log` })));
    const deaf = scope.closes(await connectOnce(createMcpConnector()('m', config, {})));
    expect(textOf(await deaf.callTool('log', {}))).toBe('logLevel=none');
  });

  it('one timeout covers every round of a call, not each round', async ({ scope }) => {
    const config: ResolvedServerConfig = nodeServer(MODERN, [], { timeout: 1_500, connectTimeout: deadline(20_000) });
    const asked: string[] = [];
    const connection = scope.closes(await connectOnce(createMcpConnector()('m', config, answering({ action: 'accept', content: { ok: true } }, 400, asked))));
    // Each round takes ~400 ms, well within 1 500; five of them do not fit.
    const t0 = performance.now();
    await expect(connection.callTool('rounds', { count: 5 })).rejects.toThrow('timed out after 1500 ms (raise "timeout" in the server\'s entry)');
    expect(performance.now() - t0).toBeLessThan(2_500);
    expect(asked.length).toBeLessThan(5);
  });

  it('a read of a URI the server does not have names it, the server\'s code kept', async ({ scope }) => {
    const connection = scope.closes(await connectOnce(createMcpConnector()('m', nodeServer(MODERN))));
    const error = (await connection.readResource!('modern://nope').catch((e: unknown) => e)) as Error & { code?: number };
    expect(error.message).toBe('resource "modern://nope" not found on server "m": Resource not found: modern://nope');
    expect(error.code).toBe(-32602);
    expect(await connection.readResource!('modern://note')).toMatchObject({ contents: [{ uri: 'modern://note', text: 'a note' }] });
  });

  it('the health check of a modern server asks server/discover (it has no ping): silence loses the connection', async ({ scope }) => {
    const { url, child } = await startModernHttpChild(scope);
    const config = remoteServer('http', url, { healthCheck: { intervalMs: 500, timeoutMs: deadline(500) } });
    const connection = scope.closes(await connectOnce(createMcpConnector()('modern', config)));
    // Checks that are answered keep it up.
    await sleep(1_300);
    expect(textOf(await connection.callTool('echo', { text: 'up' }))).toBe('up');
    const lost = errorOf(connection.lists$);
    child.kill('SIGSTOP');
    expect((await lost).message).toBe(`connection lost: no answer to server/discover within ${deadline(500)} ms (healthCheck)`);
  });

  it('a result without resultType from a server that speaks 2026-07-28 is a clear error of that call; the connection goes on (decision 376)', async ({ scope }) => {
    const calls: string[] = [];
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        const { id, method, params } = JSON.parse(body || '{}') as { id?: number; method?: string; params?: { name?: string } };
        if (id === undefined) return void res.writeHead(202).end();
        const answer = (result: object): void => void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id, result }));
        const cacheable = { resultType: 'complete', ttlMs: 0, cacheScope: 'private' };
        switch (method) {
          case 'server/discover':
            return answer({ ...cacheable, supportedVersions: ['2026-07-28'], capabilities: { tools: {} }, serverInfo: { name: 'bare', version: '1.0.0' } });
          case 'tools/list':
            return answer({ ...cacheable, tools: ['bare', 'echo'].map((name) => ({ name, inputSchema: { type: 'object' } })) });
          case 'tools/call':
            calls.push(params?.name ?? '');
            // `bare` leaves resultType out, as only a server of an earlier revision may.
            return answer(params?.name === 'bare' ? { content: [{ type: 'text', text: 'bare' }] } : { resultType: 'complete', content: [{ type: 'text', text: 'echoed' }] });
          default:
            return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32601, message: `no ${method}` } }));
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    scope.atEnd(() => new Promise((resolve) => server.close(resolve)));
    const config = remoteServer('http', `http://127.0.0.1:${(server.address() as { port: number }).port}/mcp`);
    const connection = scope.closes(await connectOnce(createMcpConnector()('bare', config)));
    expect(connection.server?.protocol).toMatchObject({ version: '2026-07-28', era: 'modern' });
    let lost: unknown;
    connection.lists$.subscribe({ error: (error: unknown) => (lost = error) });
    await expect(connection.callTool('bare', {})).rejects.toThrow(/missing required resultType/);
    // Taken as is: not retried as if more input were asked for, and nothing else ends.
    expect(textOf(await connection.callTool('echo', {}))).toBe('echoed');
    expect(calls).toEqual(['bare', 'echo']);
    expect(lost).toBeUndefined();
  });

  it('a 401 on the probe fails closed: no 2025 handshake is tried and no era is remembered', async ({ scope }) => {
    const methods: string[] = [];
    const wall = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        const method = (JSON.parse(body || '{}') as { method?: string }).method;
        if (method !== undefined) methods.push(method);
        res.writeHead(401, { 'content-type': 'text/plain' }).end('who are you');
      });
    });
    await new Promise<void>((resolve) => wall.listen(0, '127.0.0.1', resolve));
    scope.atEnd(() => new Promise((resolve) => wall.close(resolve)));
    const config = remoteServer('http', `http://127.0.0.1:${(wall.address() as { port: number }).port}/mcp`);
    const { eras } = memory();
    const error = await errorOf(createMcpConnector({ eras })('walled', config));
    expect(error.message).toBe('Error POSTing to endpoint: who are you');
    expect(methods).toEqual(['server/discover']);
    expect(eras.recall(config)).toBeUndefined();
  });
});
