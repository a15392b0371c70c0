import { readdirSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError, ToolListChangedNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, describe, expect, it } from 'vitest';
import { isAlive } from '../integration/processes.js';
import { linuxOnly } from '../platforms.js';
import { CLI, CliSession, processesMentioning, runCli, waitUntil } from './cliSession.js';
import { backends, daemons, gatewayEnv, gatewayRoots, gatewayWorkspace, stdioClient, trackClient } from './serveKit.js';

/**
 * `mcp-live serve` end to end: the built CLI as MCP clients launch it, real fixture
 * servers behind it, the SDK's Client in front. Processes are found by their command lines, which
 * all name the test's temp directory: the daemon is detached, so it is no descendant of ours.
 */

async function toolNames(client: Client): Promise<string[]> {
  return (await client.listTools()).tools.map((t) => t.name);
}

async function echo(client: Client, text: string): Promise<string> {
  const result = (await client.callTool({ name: 'a__echo', arguments: { text } })) as CallToolResult;
  return result.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
}

afterAll(() => {
  expect(gatewayRoots.flatMap((root) => processesMentioning(root))).toEqual([]);
});

/** A raw request, so that Host can be anything (fetch would not send a foreign Host). */
function rawPost(url: string, headers: Record<string, string>): Promise<number> {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  });
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers },
    });
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe.concurrent('mcp-live serve: every test in a workspace, HOME and gateway of its own, side by side', () => {
  linuxOnly('/proc, unix socket mode bits').describe('mcp-live serve --stdio (one gateway per profile and workspace)', () => {
    it('a second client attaches to the first one’s gateway: one daemon, every server started once; a killed relay leaves the other client working; the daemon lingers, then exits with its servers', async ({ onTestFinished }) => {
      const w = gatewayWorkspace(onTestFinished);
      w.write(w.userSettings, { mcpServers: { a: w.server('a') } });
      const first = await stdioClient(w, ['--linger-ms', '1500']);
      await waitUntil(async () => (await toolNames(first.client)).includes('a__echo'), 'a listed');
      expect(await echo(first.client, 'hello')).toBe('hello');

      const second = await stdioClient(w, ['--linger-ms', '1500']);
      expect(await toolNames(second.client)).toContain('a__echo');
      expect(await echo(second.client, 'again')).toBe('again');
      expect(w.starts()).toEqual(['a']);
      expect(daemons(w)).toHaveLength(1);
      const [daemon] = daemons(w);
      const [backend] = backends(w);
      expect(backend).toBeDefined();

      // The socket is the user's alone.
      const sockets = readdirSync(join(w.home, '.qwen', 'run')).filter((f) => f.endsWith('.sock'));
      expect(sockets).toHaveLength(1);
      expect(statSync(join(w.home, '.qwen', 'run', sockets[0]!)).mode & 0o777).toBe(0o600);
      expect(statSync(join(w.home, '.qwen', 'run')).mode & 0o777).toBe(0o700);

      // The transport forgets its pid once the process is gone: keep it.
      const firstRelay = first.transport.pid!;
      process.kill(firstRelay, 'SIGKILL');
      await waitUntil(() => !isAlive(firstRelay), 'first relay gone');
      expect(await echo(second.client, 'still here')).toBe('still here');
      expect(isAlive(daemon!.pid)).toBe(true);

      // Gone within the linger (1.5 s) and a shutdown, not before the linger: the daemon counts it
      // from when it saw the last relay go, which is after this.
      const closed = Date.now();
      await second.client.close();
      await waitUntil(() => !isAlive(daemon!.pid), 'daemon exits after --linger-ms', 15_000);
      expect(Date.now() - closed).toBeGreaterThanOrEqual(1_500);
      await waitUntil(() => !isAlive(backend!.pid), 'its server ended', 5_000);
      expect(w.starts()).toEqual(['a']);
    });

    it('two clients starting at once end up with one daemon', async ({ onTestFinished }) => {
      const w = gatewayWorkspace(onTestFinished);
      w.write(w.userSettings, { mcpServers: { a: w.server('a') } });
      const [one, two] = await Promise.all([stdioClient(w), stdioClient(w)]);
      await waitUntil(async () => (await toolNames(one.client)).includes('a__echo'), 'a listed');
      expect(await echo(two.client, 'both')).toBe('both');
      // Both clients may have started a daemon: the one that lost the socket exits once it finds the
      // other accepting, which on a loaded machine can be after both clients were answered.
      await waitUntil(() => daemons(w).length === 1, 'one daemon left', 15_000);
      expect(w.starts()).toEqual(['a']);
    });

    it('serve --stop ends the gateway and its servers; the clients see the connection close', async ({ onTestFinished }) => {
      const w = gatewayWorkspace(onTestFinished);
      w.write(w.userSettings, { mcpServers: { a: w.server('a') } });
      const { client } = await stdioClient(w, ['--linger-ms', '60000']);
      await waitUntil(async () => (await toolNames(client)).includes('a__echo'), 'a listed');
      const [daemon] = daemons(w);
      const [backend] = backends(w);
      let closed = false;
      client.onclose = () => (closed = true);

      const stop = await runCli(w, ['serve', '--stop', '--cwd', w.cwd]);
      expect(stop).toMatchObject({ code: 0, stderr: `mcp-live: stopped the gateway of ${w.cwd}\n` });
      // Exited when --stop returns (a zombie until its parent, the relay, reaps it, is not alive).
      expect(daemons(w).map((d) => d.pid)).not.toContain(daemon!.pid);
      await waitUntil(() => !isAlive(backend!.pid), 'its server ended', 5_000);
      await waitUntil(() => closed, 'client closed');
      expect(await runCli(w, ['serve', '--stop', '--cwd', w.cwd])).toMatchObject({ code: 0, stderr: `mcp-live: no gateway runs for ${w.cwd}\n` });
    });

    it('a client with other options is refused with the command that stops that gateway — its profile and workspace — which does (decision 321)', async ({ onTestFinished }) => {
      const w = gatewayWorkspace(onTestFinished);
      w.write(join(w.home, '.gemini', 'settings.json'), { mcpServers: { a: w.server('a') } });
      const { client } = await stdioClient(w, ['--profile', 'gemini', '--linger-ms', '60000']);
      await waitUntil(async () => (await toolNames(client)).includes('a__echo'), 'a listed');
      const refused = await runCli(w, ['serve', '--stdio', '--profile', 'gemini', '--cwd', w.cwd, '--debounce', '100', '--names', 'qualified']);
      expect(refused.code).toBe(1);
      const printed = /end it with (mcp-live serve --stop [^\n]*?) to start one with them/.exec(refused.stderr)?.[1];
      expect(printed).toBe(`mcp-live serve --stop --profile gemini --cwd ${w.cwd}`);
      // Run as printed (the temp path is one plain shell word): it ends that gateway.
      const stop = await runCli(w, printed!.split(' ').slice(1));
      expect(stop).toMatchObject({ code: 0, stderr: `mcp-live: stopped the gateway of ${w.cwd}\n` });
      await waitUntil(() => daemons(w).length === 0, 'the gateway gone', 10_000);
    });

    it('a SIGKILLed daemon’s stale socket is replaced: the next client starts a new gateway, which ends the old one’s servers', async ({ onTestFinished }) => {
      const w = gatewayWorkspace(onTestFinished);
      w.write(w.userSettings, { mcpServers: { a: w.server('a') } });
      const first = await stdioClient(w);
      await waitUntil(async () => (await toolNames(first.client)).includes('a__echo'), 'a listed');
      const [daemon] = daemons(w);
      const [backend] = backends(w);
      process.kill(daemon!.pid, 'SIGKILL');
      await waitUntil(() => daemons(w).length === 0, 'daemon killed');

      const next = await stdioClient(w);
      await waitUntil(async () => (await toolNames(next.client)).includes('a__echo'), 'a listed by the new gateway');
      expect(await echo(next.client, 'new')).toBe('new');
      expect(daemons(w)).toHaveLength(1);
      await waitUntil(() => !isAlive(backend!.pid), 'the dead gateway’s server ended', 10_000);
    });

    it('a gateway serves one workspace: a client of another workspace gets its own', async ({ onTestFinished }) => {
      const w = gatewayWorkspace(onTestFinished);
      w.write(w.userSettings, { mcpServers: { a: w.server('a') } });
      const other = join(w.root, 'other');
      w.write(join(other, '.mcp.json'), {});
      const one = await stdioClient(w);
      await waitUntil(async () => (await toolNames(one.client)).includes('a__echo'), 'a listed');
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [CLI, 'serve', '--stdio', '--cwd', other],
        env: gatewayEnv(w),
        stderr: 'pipe',
      });
      const two = new Client({ name: 'other', version: '1' });
      trackClient(w, two);
      await two.connect(transport);
      expect(daemons(w)).toHaveLength(2);
      // Its own session: the user's server `a` runs once more, in the other gateway.
      await waitUntil(async () => (await toolNames(two)).includes('a__echo'), 'a listed to the other client');
      expect(w.starts()).toEqual(['a', 'a']);
      await runCli(w, ['serve', '--stop', '--cwd', other]);
    });

    it('a gated server’s tools are absent until approved from another process; then the client gets tools/list_changed', async ({ onTestFinished }) => {
      const w = gatewayWorkspace(onTestFinished);
      w.write(w.userSettings, { mcpServers: { a: w.server('a') } });
      w.write(w.mcpJson, { mcpServers: { p: w.server('p') } });
      const { client } = await stdioClient(w);
      let listChanged = 0;
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => void listChanged++);
      await waitUntil(async () => (await toolNames(client)).includes('a__echo'), 'a listed');
      await new Promise((r) => setTimeout(r, 500));
      expect(await toolNames(client)).not.toContain('p__echo');
      expect(w.starts()).toEqual(['a']);
      const before = listChanged;

      expect((await runCli(w, ['approvals', 'approve', 'p', '--cwd', w.cwd])).code).toBe(0);
      await waitUntil(() => listChanged > before, 'tools/list_changed');
      await waitUntil(async () => (await toolNames(client)).includes('p__echo'), 'p listed');
      expect(w.starts()).toEqual(['a', 'p']);
    });

    it('--stdio with --json is a usage error (stdout is the MCP channel)', async ({ onTestFinished }) => {
      const w = gatewayWorkspace(onTestFinished);
      const r = await runCli(w, ['serve', '--stdio', '--json', '--cwd', w.cwd]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('no --json');
      expect(daemons(w)).toEqual([]);
    });
  });

  linuxOnly('/proc').describe('serve --stdio as real clients need it (decisions 222–228)', () => {
    it('names are server__tool by default; an unlisted tool is -32602 with the reason; a client with other --names is refused by the running gateway', async ({ onTestFinished }) => {
      const w = gatewayWorkspace(onTestFinished);
      w.write(w.userSettings, { mcpServers: { a: w.server('a') } });
      w.write(w.mcpJson, { mcpServers: { p: w.server('p') } });
      const { client } = await stdioClient(w);
      await waitUntil(async () => (await toolNames(client)).includes('a__echo'), 'a listed');
      expect(await toolNames(client)).toEqual(['a__echo', 'a__slow']);
      for (const [name, says] of [
        ['p__echo', /^Tool "p__echo" is not available: MCP server "p" .*approv/],
        ['nowhere__echo', /^Tool "nowhere__echo" is not available: no MCP server "nowhere" is configured/],
      ] as const) {
        const error = await client.callTool({ name, arguments: { text: 'x' } }).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(McpError);
        expect((error as McpError).code).toBe(-32602);
        expect((error as McpError).message.replace('MCP error -32602: ', '')).toMatch(says);
      }
      const qualified = await runCli(w, ['serve', '--stdio', '--cwd', w.cwd, '--debounce', '100', '--names', 'qualified']);
      expect(qualified.code).not.toBe(0);
      expect(qualified.stderr).toContain('runs with other options than these');
      // --restart-on-change is the relay's own: the same gateway serves it.
      const restarting = await stdioClient(w, ['--restart-on-change']);
      expect(await toolNames(restarting.client)).toEqual(['a__echo', 'a__slow']);
      expect(daemons(w)).toHaveLength(1);
    });

    it('tools keep their order across a settings edit: a server added is listed last, a tool a server gains after its others, for a client that comes later too (decision 358)', async ({ onTestFinished }) => {
      const w = gatewayWorkspace(onTestFinished);
      w.write(w.userSettings, { mcpServers: { m: w.server('m'), z: w.server('z') } });
      const { client } = await stdioClient(w);
      await waitUntil(async () => (await toolNames(client)).includes('z__echo'), 'z listed');
      expect(await toolNames(client)).toEqual(['m__echo', 'm__slow', 'z__echo', 'z__slow']);

      // Sorted by server, `a` would come first and m's new tool before z's: each comes last.
      w.write(w.userSettings, { mcpServers: { m: w.server('m'), z: w.server('z'), a: w.server('a') } });
      await waitUntil(async () => (await toolNames(client)).includes('a__echo'), 'a listed');
      w.write(w.userSettings, { mcpServers: { m: w.server('m', ['--tools', 'extra']), z: w.server('z'), a: w.server('a') } });
      await waitUntil(async () => (await toolNames(client)).includes('m__extra'), 'm__extra listed');
      const kept = ['m__echo', 'm__slow', 'z__echo', 'z__slow', 'a__echo', 'a__slow', 'm__extra'];
      expect(await toolNames(client)).toEqual(kept);
      const later = await stdioClient(w);
      expect(await toolNames(later.client)).toEqual(kept);
    });

    it('--restart-on-change: a settings edit ends that relay (it exits, the client sees it go) once the change settles; the daemon and the other client go on; a new relay lists the change', async ({ onTestFinished }) => {
      const w = gatewayWorkspace(onTestFinished);
      w.write(w.userSettings, { mcpServers: { a: w.server('a') } });
      const staying = await stdioClient(w, ['--linger-ms', '60000']);
      await waitUntil(async () => (await toolNames(staying.client)).includes('a__echo'), 'a listed');
      const restarting = await stdioClient(w, ['--restart-on-change']);
      // Like Qwen Code: it lists once and ignores tools/list_changed.
      expect(await toolNames(restarting.client)).toEqual(['a__echo', 'a__slow']);
      const relay = restarting.transport.pid!;
      let stderr = '';
      restarting.transport.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      let closed = false;
      restarting.client.onclose = () => (closed = true);
      const [daemon] = daemons(w);
      // Nothing changed: it stays.
      await new Promise((r) => setTimeout(r, 1_500));
      expect(closed).toBe(false);

      w.atomicWrite(w.userSettings, { mcpServers: { a: w.server('a'), b: w.server('b', ['--tools', 'added']) } });
      await waitUntil(() => closed, 'the restarting client sees its server go away');
      await waitUntil(() => !isAlive(relay), 'the relay exited');
      expect(stderr).toContain('ending this session so the client reconnects');
      expect(isAlive(daemon!.pid)).toBe(true);
      expect(daemons(w).map((d) => d.pid)).toEqual([daemon!.pid]);
      await waitUntil(async () => (await toolNames(staying.client)).includes('b__added'), 'b listed by the client that stayed');
      expect(await echo(staying.client, 'still here')).toBe('still here');
      // What a client that reconnects by itself gets: the new list, from the same gateway.
      const again = await stdioClient(w, ['--restart-on-change']);
      expect(await toolNames(again.client)).toEqual(expect.arrayContaining(['a__echo', 'b__added']));
      expect(daemons(w).map((d) => d.pid)).toEqual([daemon!.pid]);
      expect(w.starts()).toEqual(['a', 'b']);
    });
  });

  linuxOnly('/proc, mode bits').describe('mcp-live serve over Streamable HTTP', () => {
    it('a call works with the bearer token; no or a wrong token → 401; a foreign Host or Origin → 403; the token is never printed', async ({ onTestFinished }) => {
      const w = gatewayWorkspace(onTestFinished);
      w.write(w.userSettings, { mcpServers: { a: w.server('a') } });
      const session = CliSession.start(w, ['serve', '--port', '0']);
      const listening = await session.waitFor((e) => e.type === 'gateway-listening', { what: 'gateway-listening' });
      const url = listening.url as string;
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
      await session.waitFor((e) => e.type === 'ready', { what: 'ready' });

      const printed = await runCli(w, ['serve', '--print-token', '--cwd', w.cwd]);
      const token = printed.stdout.trim();
      expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(statSync(join(w.home, '.qwen', 'mcpGatewayToken.json')).mode & 0o777).toBe(0o600);

      const client = new Client({ name: 'http-e2e', version: '1.0.0' });
      const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } });
      trackClient(w, client);
      await client.connect(transport);
      expect(await toolNames(client)).toContain('a__echo');
      expect(await echo(client, 'over http')).toBe('over http');
      await session.waitFor((e) => e.type === 'client-connected' && e.transport === 'http', { what: 'client-connected' });

      const host = new URL(url).host;
      expect(await rawPost(url, {})).toBe(401);
      expect(await rawPost(url, { Authorization: 'Bearer wrong' })).toBe(401);
      expect(await rawPost(url, { Authorization: `Bearer ${token}x` })).toBe(401);
      expect(await rawPost(url, { Authorization: `Bearer ${token}`, Host: `evil.example:${new URL(url).port}` })).toBe(403);
      expect(await rawPost(url, { Authorization: `Bearer ${token}`, Origin: 'http://evil.example' })).toBe(403);
      expect(await rawPost(url, { Authorization: `Bearer ${token}`, Host: host, Origin: 'http://localhost:3000' })).toBe(200);

      // DELETE ends the MCP session (close() alone only drops the connection).
      await transport.terminateSession();
      await client.close();
      await session.waitFor((e) => e.type === 'client-disconnected' && e.transport === 'http', { what: 'client-disconnected' });
      expect(session.events.map((e) => JSON.stringify(e)).join('\n')).not.toContain(token);
      expect(session.stderr).not.toContain(token);
      const [backend] = backends(w);
      expect(await session.stop()).toBe(0);
      await waitUntil(() => !isAlive(backend!.pid), 'its server ended', 5_000);
    });

    it('a call’s SSE stream opens with a priming event (an event id, `retry`), and a client resumes it with Last-Event-ID and gets the answer', async ({
      onTestFinished,
    }) => {
      const w = gatewayWorkspace(onTestFinished);
      w.write(w.userSettings, { mcpServers: { a: w.server('a') } });
      const session = CliSession.start(w, ['serve', '--port', '0']);
      const url = (await session.waitFor((e) => e.type === 'gateway-listening', { what: 'gateway-listening' })).url as string;
      await session.waitFor((e) => e.type === 'ready', { what: 'ready' });
      const token = (await runCli(w, ['serve', '--print-token', '--cwd', w.cwd])).stdout.trim();
      const version = '2025-11-25';
      const headers: Record<string, string> = {
        Authorization: `Bearer ${token}`,
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
      };
      const post = (message: object) => fetch(url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', ...message }) });

      const initialized = await post({ id: 1, method: 'initialize', params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'sse', version: '1' } } });
      await initialized.text();
      headers['mcp-session-id'] = initialized.headers.get('mcp-session-id')!;
      headers['mcp-protocol-version'] = version;
      expect((await post({ method: 'notifications/initialized' })).status).toBe(202);

      const call = await post({ id: 2, method: 'tools/call', params: { name: 'a__echo', arguments: { text: 'resumed' } } });
      expect(call.headers.get('content-type')).toMatch(/^text\/event-stream/);
      const [priming, ...rest] = sseEvents(await call.text());
      expect(priming).toEqual({ id: priming?.id, retry: '1000', data: '' });
      expect(priming?.id).toMatch(/^\S+$/);
      expect(rest.map((e) => JSON.parse(e.data!) as { id?: number })).toContainEqual(expect.objectContaining({ id: 2 }));

      // The stream is over; a client that lost it after the priming event asks for what followed.
      const resumed = new AbortController();
      const replay = await fetch(url, {
        method: 'GET',
        headers: { ...headers, Accept: 'text/event-stream', 'Last-Event-ID': priming!.id! },
        signal: resumed.signal,
      });
      expect(replay.status).toBe(200);
      let text = '';
      for await (const chunk of replay.body! as AsyncIterable<Uint8Array>) {
        text += Buffer.from(chunk).toString('utf8');
        if (text.includes('resumed')) break;
      }
      resumed.abort();
      const answers = sseEvents(text).map((e) => JSON.parse(e.data!) as { id?: number; result?: CallToolResult });
      expect(answers.find((a) => a.id === 2)?.result?.content).toEqual([{ type: 'text', text: 'resumed' }]);
      expect(await session.stop()).toBe(0);
    });
  });
});

/** The events of an SSE body, each as its fields (`id`, `retry`, `data`, …); comments skipped. */
function sseEvents(body: string): Record<string, string>[] {
  return body
    .split(/\n\n/)
    .filter((block) => block.trim() !== '')
    .map((block) => {
      const event: Record<string, string> = {};
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon === -1 ? line : line.slice(0, colon);
        const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
        event[field] = field in event ? `${event[field]}\n${value}` : value;
      }
      return event;
    })
    .filter((event) => Object.keys(event).length > 0);
}
