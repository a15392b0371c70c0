import { mkdirSync } from 'node:fs';
import { createServer, request, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttpTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport as ModernStdioTransport } from '@modelcontextprotocol/client/stdio';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, LoggingMessageNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, describe, expect, it } from 'vitest';
import { linuxOnly } from '../platforms.js';
import { CLI, CliSession, FIXTURES, processesMentioning, runCli, type Workspace } from './cliSession.js';
import { gatewayEnv, gatewayRoots, gatewayWorkspace, trackClient } from './serveKit.js';

/**
 * `mcp-live serve` for clients of the 2026-07-28 revision (decisions 387-391): the SDK's v2
 * `Client` pinned to that revision over HTTP and over a `serve --stdio` relay, next to a 2025
 * client of the v1 SDK on the same gateway; what a backend asks or logs crosses between the eras; two
 * gateway processes behind a round-robin proxy serve one modern client.
 */

const MODERN = { versionNegotiation: { mode: { pin: '2026-07-28' as const } } };

const fixture = (w: Workspace, file: string) => ({ command: process.execPath, args: [join(FIXTURES, file), '--start-log', w.startLog] });

function text(result: unknown): string {
  return (result as CallToolResult).content.map((c) => (c.type === 'text' ? c.text : '')).join('');
}

afterAll(() => {
  expect(gatewayRoots.flatMap((root) => processesMentioning(root))).toEqual([]);
});

/** A gateway over HTTP (`serve --port 0`), its URL and token. */
async function httpGateway(w: Workspace, env: Record<string, string> = {}): Promise<{ session: CliSession; url: string; token: string }> {
  const session = CliSession.start(w, ['serve', '--port', '0', '--debounce', '100'], env);
  const listening = await session.waitFor((e) => e.type === 'gateway-listening', { what: 'gateway-listening' });
  await session.waitFor((e) => e.type === 'ready', { what: 'ready' });
  const token = (await runCli(w, ['serve', '--print-token', '--cwd', w.cwd])).stdout.trim();
  return { session, url: listening.url as string, token };
}

/** A v2 client pinned to 2026-07-28 over HTTP, closed with the test. */
async function modernHttpClient(
  onFinished: (fn: () => Promise<void>) => void,
  url: string,
  token: string,
  answer?: (message: string) => Record<string, unknown>,
  negotiation: 'pin' | 'auto' = 'pin',
): Promise<ModernClient> {
  const versionNegotiation = negotiation === 'auto' ? { versionNegotiation: { mode: 'auto' as const } } : MODERN;
  const client = new ModernClient({ name: 'modern-e2e', version: '1.0.0' }, { ...versionNegotiation, capabilities: answer ? { elicitation: { form: {} } } : {} });
  if (answer) client.setRequestHandler('elicitation/create', (req) => Promise.resolve({ action: 'accept' as const, content: answer(req.params.message) as Record<string, string> }));
  onFinished(() => client.close().catch(() => undefined));
  await client.connect(new ModernHttpTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  return client;
}

/** A v1 client over HTTP (a 2025 session), closed with the test. */
async function legacyHttpClient(w: Workspace, url: string, token: string, answer?: Record<string, unknown>): Promise<Client> {
  const client = new Client({ name: 'legacy-e2e', version: '1.0.0' }, { capabilities: answer ? { elicitation: {} } : {} });
  if (answer) client.setRequestHandler(ElicitRequestSchema, () => ({ action: 'accept', content: answer as Record<string, string> }));
  trackClient(w, client);
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  return client;
}

/** One raw JSON-RPC POST (fetch would not send a foreign Host), its status, headers and body. */
function rawPost(url: string, headers: Record<string, string>, body: unknown): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers } });
    req.on('response', (res) => {
      let data = '';
      res.on('data', (chunk: Buffer) => (data += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: data }));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
};
const modernHeaders = (token: string, method: string, name?: string): Record<string, string> => ({
  Authorization: `Bearer ${token}`,
  'MCP-Protocol-Version': '2026-07-28',
  'Mcp-Method': method,
  ...(name === undefined ? {} : { 'Mcp-Name': name }),
});

const TRACE = {
  traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
  tracestate: 'vendor=opaque',
  baggage: 'team=gateway',
};

describe.concurrent('mcp-live serve for 2026-07-28 clients, beside 2025 ones', () => {
  linuxOnly('/proc, unix sockets').describe('over HTTP', () => {
    it('a modern client discovers, lists, calls, gets -32602 for an unknown tool, and hears a settings edit on its listen stream; a 2025 client works beside it', async ({ onTestFinished }) => {
      const w = gatewayWorkspace(onTestFinished);
      w.write(w.userSettings, { mcpServers: { a: w.server('a') } });
      const { session, url, token } = await httpGateway(w);

      const modern = await modernHttpClient(onTestFinished, url, token);
      expect(modern.getProtocolEra()).toBe('modern');
      expect(modern.getServerCapabilities()?.tools?.listChanged).toBe(true);
      expect((await modern.listTools()).tools.map((t) => t.name)).toEqual(['a__echo', 'a__slow']);
      expect(text(await modern.callTool({ name: 'a__echo', arguments: { text: 'modern' } }))).toBe('modern');
      const unknown = await modern.callTool({ name: 'nope__tool', arguments: {} }).then(
        () => undefined,
        (error: unknown) => error as { code?: number; message?: string },
      );
      expect(unknown?.code).toBe(-32602);
      expect(unknown?.message).toContain('nope__tool');

      const legacy = await legacyHttpClient(w, url, token);
      expect(text(await legacy.callTool({ name: 'a__echo', arguments: { text: 'legacy' } }))).toBe('legacy');

      const heard = new Promise<void>((resolve) => modern.setNotificationHandler('notifications/tools/list_changed', () => resolve()));
      const listen = await modern.listen({ toolsListChanged: true });
      expect(listen.honoredFilter.toolsListChanged).toBe(true);
      // A listening modern client counts as connected, under the name it gives on its requests.
      await session.waitFor((e) => e.type === 'client-connected' && e.transport === 'http' && e.clientName === 'modern-e2e', { what: 'the modern client connected' });
      w.write(w.userSettings, { mcpServers: { a: w.server('a'), b: w.server('b') } });
      await heard;
      expect((await modern.listTools()).tools.map((t) => t.name).sort()).toEqual(['a__echo', 'a__slow', 'b__echo', 'b__slow']);
      expect((await legacy.listTools()).tools.map((t) => t.name).sort()).toEqual(['a__echo', 'a__slow', 'b__echo', 'b__slow']);
      await listen.close();
      expect(await session.stop()).toBe(0);
    });

    it('prompts, completions and resources are served; a listen stream that names a resource hears its updates; a resource no server lists is -32602', async ({ onTestFinished }) => {
      const w = gatewayWorkspace(onTestFinished);
      w.write(w.userSettings, { mcpServers: { g: fixture(w, 'gateway-backend.mjs') } });
      const { session, url, token } = await httpGateway(w);
      const modern = await modernHttpClient(onTestFinished, url, token);
      expect((await modern.listPrompts()).prompts.map((p) => p.name)).toEqual(['g__summary']);
      const prompt = await modern.getPrompt({ name: 'g__summary', arguments: { topic: 'alpha' } });
      expect(prompt.messages[0]?.content).toEqual({ type: 'text', text: 'Summarise alpha' });
      const completed = await modern.complete({ ref: { type: 'ref/prompt', name: 'g__summary' }, argument: { name: 'topic', value: 'a' } });
      expect(completed.completion.values).toEqual(['alpha']);
      expect((await modern.listResources()).resources.map((r) => r.uri)).toEqual(['gw://counter']);
      expect((await modern.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate)).toEqual(['gw://items/{id}']);
      const updated = new Promise<string>((resolve) => modern.setNotificationHandler('notifications/resources/updated', (n) => resolve(n.params.uri)));
      const listen = await modern.listen({ resourceSubscriptions: ['gw://counter'] });
      expect(listen.honoredFilter.resourceSubscriptions).toEqual(['gw://counter']);
      // The backend was asked for it: its bump says so, and the client hears the update.
      expect(text(await modern.callTool({ name: 'g__bump', arguments: {} }))).toBe('counter 1 (subscribed)');
      expect(await updated).toBe('gw://counter');
      const read = await modern.readResource({ uri: 'gw://counter' });
      expect(read.contents).toEqual([{ uri: 'gw://counter', text: '1' }]);
      const unknown = await modern.readResource({ uri: 'gw://nowhere' }).then(
        () => undefined,
        (error: unknown) => error as { code?: number },
      );
      expect(unknown?.code).toBe(-32602);
      // The stream's end lets the backend go.
      await listen.close();
      let bumped = '';
      for (const until = Date.now() + 5_000; Date.now() < until && !/^counter \d+$/.test(bumped); ) {
        bumped = text(await modern.callTool({ name: 'g__bump', arguments: {} }));
      }
      expect(bumped).toMatch(/^counter \d+$/);
      expect(await session.stop()).toBe(0);
    });

    it('a raw modern request: no Mcp-Session-Id, no-cache list hints, Mcp-Method and Mcp-Name checked against the body; the token, Host and Origin checks hold for it', async ({ onTestFinished }) => {
      const w = gatewayWorkspace(onTestFinished);
      w.write(w.userSettings, { mcpServers: { a: w.server('a') } });
      const { session, url, token } = await httpGateway(w);
      const list = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: ENVELOPE } };

      const ok = await rawPost(url, modernHeaders(token, 'tools/list'), list);
      expect(ok.status).toBe(200);
      expect(ok.headers['mcp-session-id']).toBeUndefined();
      const answered = JSON.parse(ok.body.startsWith('{') ? ok.body : ok.body.split('\n').find((l) => l.startsWith('data: '))!.slice(6)) as {
        result: { tools: { name: string }[]; ttlMs: number; cacheScope: string };
      };
      expect(answered.result.tools.map((t) => t.name)).toEqual(['a__echo', 'a__slow']);
      expect(answered.result).toMatchObject({ ttlMs: 0, cacheScope: 'private' });

      const mismatch = await rawPost(url, modernHeaders(token, 'tools/call', 'a__echo'), list);
      expect(mismatch.status).toBe(400);
      expect((JSON.parse(mismatch.body) as { error: { code: number } }).error.code).toBe(-32020);

      const call = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'a__echo', arguments: { text: 'hi' }, _meta: ENVELOPE } };
      const named = await rawPost(url, modernHeaders(token, 'tools/call', 'a__echo'), call);
      expect(named.status).toBe(200);
      expect(named.body).toContain('"text":"hi"');
      const misnamed = await rawPost(url, modernHeaders(token, 'tools/call', 'a__slow'), call);
      expect(misnamed.status).toBe(400);
      expect((JSON.parse(misnamed.body) as { error: { code: number } }).error.code).toBe(-32020);

      expect((await rawPost(url, { ...modernHeaders(token, 'tools/list'), Authorization: 'Bearer wrong' }, list)).status).toBe(401);
      expect((await rawPost(url, { ...modernHeaders(token, 'tools/list'), Origin: 'http://evil.example' }, list)).status).toBe(403);
      expect((await rawPost(url, { ...modernHeaders(token, 'tools/list'), Host: `evil.example:${new URL(url).port}` }, list)).status).toBe(403);
      expect(await session.stop()).toBe(0);
    });

    it('a modern backend’s log messages reach the 2025 clients whose call it serves, each filtered by its own logging/setLevel', async ({ onTestFinished }) => {
      const w = gatewayWorkspace(onTestFinished);
      w.write(w.userSettings, { mcpServers: { m: fixture(w, 'modern-server.mjs') } });
      const { session, url, token } = await httpGateway(w);
      const heard = async (level?: 'warning'): Promise<{ asked: string; levels: string[] }> => {
        const client = await legacyHttpClient(w, url, token);
        const levels: string[] = [];
        client.setNotificationHandler(LoggingMessageNotificationSchema, ({ params }) => void levels.push(params.level));
        if (level) await client.setLoggingLevel(level);
        const asked = text(await client.callTool({ name: 'm__log', arguments: {} }));
        return { asked, levels };
      };
      // The backend is asked for every level (decision 369); each client hears what its own level lets through.
      expect(await heard()).toEqual({ asked: 'logLevel=debug', levels: ['debug', 'info', 'error'] });
      expect(await heard('warning')).toEqual({ asked: 'logLevel=debug', levels: ['error'] });
      expect(await session.stop()).toBe(0);
    });

    it('questions cross the eras: a 2025 backend’s form reaches a modern client as input_required, a modern backend’s input_required reaches a 2025 client as elicitation/create and a modern one unchanged; trace context reaches the backend', async ({ onTestFinished }) => {
      const w = gatewayWorkspace(onTestFinished);
      w.write(w.userSettings, { mcpServers: { e: fixture(w, 'era-bridge-server.mjs'), m: fixture(w, 'modern-backend-server.mjs') } });
      const { session, url, token } = await httpGateway(w);
      const asked: string[] = [];
      const modern = await modernHttpClient(onTestFinished, url, token, (message) => {
        asked.push(message);
        return message.includes('Approve') ? { approved: true } : { ok: true };
      });
      expect(text(await modern.callTool({ name: 'e__confirm', arguments: {} }))).toBe('confirm: accept {"ok":true}');
      expect(text(await modern.callTool({ name: 'm__approve', arguments: {} }))).toBe('approve: accept {"approved":true}');
      expect(asked).toEqual(['[e] Go ahead?', '[m] Approve?'].map((m) => expect.stringContaining(m.slice(4)) as unknown as string));

      const legacy = await legacyHttpClient(w, url, token, { approved: true });
      expect(text(await legacy.callTool({ name: 'm__approve', arguments: {} }))).toBe('approve: accept {"approved":true}');

      const echoed = JSON.parse(text(await modern.callTool({ name: 'e__meta', arguments: {}, _meta: { ...TRACE, other: 'kept here' } }))) as Record<string, unknown>;
      expect(echoed).toMatchObject(TRACE);
      expect(echoed.other).toBeUndefined();
      const fromLegacy = JSON.parse(text(await legacy.callTool({ name: 'e__meta', arguments: {}, _meta: TRACE }))) as Record<string, unknown>;
      expect(fromLegacy).toMatchObject(TRACE);

      // A retry with a requestState no process holds is refused in words.
      const stale = await rawPost(
        url,
        modernHeaders(token, 'tools/call', 'e__confirm'),
        { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'e__confirm', arguments: {}, requestState: 'elsewhere.x', inputResponses: {}, _meta: { ...ENVELOPE, 'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } } } } },
      );
      expect(stale.body).toContain('-32602');
      expect(stale.body).toContain('another gateway process');

      // A modern backend's input_required reaches a modern client unchanged, and the retry reaches
      // the backend as sent (decision 372): its own key, no state of the gateway's.
      const canElicit = { ...ENVELOPE, 'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } } };
      const answerOf = (body: string): { result?: Record<string, unknown>; error?: { code: number; data?: unknown } } =>
        JSON.parse(body.startsWith('{') ? body : body.split('\n').find((l) => l.startsWith('data: '))!.slice(6)) as never;
      const passed = answerOf(
        (await rawPost(url, modernHeaders(token, 'tools/call', 'm__approve'), { jsonrpc: '2.0', id: 10, method: 'tools/call', params: { name: 'm__approve', arguments: {}, _meta: canElicit } })).body,
      );
      expect(passed.result).toMatchObject({ resultType: 'input_required', inputRequests: { approval: { method: 'elicitation/create' } } });
      expect(passed.result!.requestState).toBeUndefined();
      const answered = answerOf(
        (
          await rawPost(url, modernHeaders(token, 'tools/call', 'm__approve'), {
            jsonrpc: '2.0',
            id: 11,
            method: 'tools/call',
            params: { name: 'm__approve', arguments: {}, inputResponses: { approval: { action: 'accept', content: { approved: true } } }, _meta: canElicit },
          })
        ).body,
      );
      expect(answered.result).toMatchObject({ content: [{ type: 'text', text: 'approve: accept {"approved":true}' }] });
      // The backend sees the client's own capabilities: without elicitation it is -32021, with its data.
      const refused = await rawPost(url, modernHeaders(token, 'tools/call', 'm__approve'), {
        jsonrpc: '2.0',
        id: 12,
        method: 'tools/call',
        params: { name: 'm__approve', arguments: {}, _meta: ENVELOPE },
      });
      expect(answerOf(refused.body).error).toMatchObject({ code: -32021, data: { requiredCapabilities: { elicitation: {} } } });
      expect(await session.stop()).toBe(0);
    });
  });

  linuxOnly('/proc, unix sockets').describe('over a serve --stdio relay', () => {
    it('a modern client’s opening is served: it lists, calls, and hears a resource update and a settings edit on its listen stream', async ({ onTestFinished }) => {
      const w = gatewayWorkspace(onTestFinished);
      w.write(w.userSettings, { mcpServers: { a: w.server('a'), g: fixture(w, 'gateway-backend.mjs') } });
      const client = new ModernClient({ name: 'modern-stdio-e2e', version: '1.0.0' }, MODERN);
      onTestFinished(() => client.close().catch(() => undefined));
      await client.connect(
        new ModernStdioTransport({ command: process.execPath, args: [CLI, 'serve', '--stdio', '--cwd', w.cwd, '--debounce', '100'], env: gatewayEnv(w), stderr: 'pipe' }),
      );
      expect(client.getProtocolEra()).toBe('modern');
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('a__echo');
      expect(text(await client.callTool({ name: 'a__echo', arguments: { text: 'relayed' } }))).toBe('relayed');
      const heard = new Promise<void>((resolve) => client.setNotificationHandler('notifications/tools/list_changed', () => resolve()));
      const updated = new Promise<string>((resolve) => client.setNotificationHandler('notifications/resources/updated', (n) => resolve(n.params.uri)));
      await client.listen({ toolsListChanged: true, resourceSubscriptions: ['gw://counter'] });
      expect(text(await client.callTool({ name: 'g__bump', arguments: {} }))).toBe('counter 1 (subscribed)');
      expect(await updated).toBe('gw://counter');
      w.write(w.userSettings, { mcpServers: { a: w.server('a'), b: w.server('b'), g: fixture(w, 'gateway-backend.mjs') } });
      await heard;
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(expect.arrayContaining(['a__echo', 'b__echo', 'g__bump']));
    });
  });

  linuxOnly('/proc, unix sockets').describe('beyond one machine', () => {
    it('two gateway processes on the same settings behind a round-robin proxy serve one modern client, and a settings edit reaches both', async ({ onTestFinished }) => {
      const w = gatewayWorkspace(onTestFinished);
      w.write(w.userSettings, { mcpServers: { a: w.server('a') } });
      // One HOME (settings and token), a runtime directory each (each takes its own local socket).
      const runtime = (name: string): Record<string, string> => {
        const dir = join(w.root, name);
        mkdirSync(dir, { mode: 0o700 });
        return { XDG_RUNTIME_DIR: dir };
      };
      const one = await httpGateway(w, runtime('r1'));
      const two = await httpGateway(w, runtime('r2'));
      expect(two.token).toBe(one.token);

      const targets = [new URL(one.url), new URL(two.url)];
      const served = [0, 0];
      let next = 0;
      const proxy = createServer((req, res) => {
        const i = next++ % targets.length;
        served[i]!++;
        const target = targets[i]!;
        const upstream = request(
          { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: { ...req.headers, host: target.host } },
          (answer) => {
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(res);
          },
        );
        upstream.on('error', () => res.destroy());
        res.on('close', () => upstream.destroy());
        req.pipe(upstream);
      });
      await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', () => resolve()));
      onTestFinished(() => new Promise<void>((resolve) => proxy.close(() => resolve())));
      proxy.on('connection', (socket) => onTestFinished(() => void socket.destroy()));
      const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/mcp`;

      // Negotiating (`auto`): its server/discover probe finds the 2026-07-28 revision.
      const client = await modernHttpClient(onTestFinished, url, one.token, undefined, 'auto');
      expect(client.getProtocolEra()).toBe('modern');
      for (let i = 0; i < 4; i++) {
        expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['a__echo', 'a__slow']);
        expect(text(await client.callTool({ name: 'a__echo', arguments: { text: `round ${i}` } }))).toBe(`round ${i}`);
      }
      expect(served[0]).toBeGreaterThanOrEqual(4);
      expect(served[1]).toBeGreaterThanOrEqual(4);

      const heard = new Promise<void>((resolve) => client.setNotificationHandler('notifications/tools/list_changed', () => resolve()));
      await client.listen({ toolsListChanged: true });
      w.write(w.userSettings, { mcpServers: { a: w.server('a'), b: w.server('b') } });
      await heard;
      // Both processes reloaded: whichever answers, the new server is listed.
      await Promise.all([one.session, two.session].map((s) => s.waitFor((e) => e.type === 'server' && e.name === 'b' && e.state === 'connected', { what: 'b connected' })));
      for (let i = 0; i < 4; i++) expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(['a__echo', 'a__slow', 'b__echo', 'b__slow']);
      await client.close();
      expect(await one.session.stop()).toBe(0);
      expect(await two.session.stop()).toBe(0);
    });
  });
});
