import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { ToolListChangedNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe } from 'vitest';
import { createMcpLive } from '../../../src/live/createMcpLive.js';
import { createGateway, type Gateway } from '../../../src/hosts/gateway/gateway.js';
import { relayStdio, type RelayEnd } from '../../../src/hosts/gateway/gatewayDaemon.js';
import { claimGatewaySocket, connectGateway, gatewayAddress, type GatewayAddress } from '../../../src/hosts/gateway/localSocket.js';
import { SocketServerTransport } from '../../../src/hosts/gateway/socketTransport.js';
import { Workspace } from '../../e2e/cliSession.js';
import { fixture } from '../mcpServers.js';
import { sleep } from '../processes.js';
import { it, noLeftoversAfterAll, type TestScope } from '../workspace.js';
import { deadline } from '../../deadlines.js';

/**
 * `serve --stdio --restart-on-change` (decisions 226, 227), in process: a gateway on its real
 * local socket as the daemon runs it, relays over real socket connections, SDK clients on the
 * relays' stdio streams, real echo servers behind, the settings file edited. The relay process
 * itself (its exit) is covered by test/e2e/serve.test.ts.
 */

const QUIET_MS = 300;
const echo = (...extra: string[]) => ({ command: process.execPath, args: [fixture('echo-server.mjs'), ...extra] });

noLeftoversAfterAll();

/** A gateway serving its local socket, as `serve --daemon` does, over a workspace whose user settings list `servers`. */
async function daemonOver(scope: TestScope, servers: Record<string, unknown>): Promise<{ gateway: Gateway; ws: Workspace; address: GatewayAddress }> {
  const ws = new Workspace();
  scope.atEnd(() => ws.cleanup());
  ws.write(ws.userSettings, { mcpServers: servers });
  const runtimeDir = join(ws.root, 'run');
  const gateway = createGateway((hooks) => createMcpLive({ homeDir: ws.home, cwd: ws.cwd, runtimeDir, debounceMs: 50, ...hooks }));
  const address = gatewayAddress(runtimeDir, 'qwen', { userSettings: ws.userSettings, cwd: ws.cwd });
  const claim = await claimGatewaySocket(address, { cwd: ws.cwd, config: 'test' }, (socket: Socket) => {
    gateway.connect(new SocketServerTransport(socket), 'socket').catch(() => socket.destroy());
  });
  if (!claim.ok) throw new Error('the socket is taken');
  const { socket } = claim;
  scope.atEnd(async () => {
    await socket.close();
    await gateway.close();
    await gateway.live.dispose();
  });
  await gateway.live.start();
  return { gateway, ws, address };
}

interface Relayed {
  client: Client;
  /** Settles when the relay ends, with how. */
  ended: Promise<RelayEnd>;
  /** Whether it has ended yet. */
  readonly done: RelayEnd | undefined;
}

/** A relay over a new connection to the gateway's socket, with an SDK client on its stdin and stdout. */
async function relayed(scope: TestScope, address: GatewayAddress, restartOnChange: boolean): Promise<Relayed> {
  // The gateway's socket, or on Windows the pipe its record names (decision 272).
  const socket = await connectGateway(address);
  if (!socket) throw new Error('the gateway does not accept');
  const toRelay = new PassThrough();
  const fromRelay = new PassThrough();
  let done: RelayEnd | undefined;
  const ended = relayStdio(socket, toRelay, fromRelay, restartOnChange ? { restartOnChange: { quietMs: QUIET_MS } } : {}).then((how) => (done = how));
  const client = new Client({ name: restartOnChange ? 'restarting' : 'staying', version: '1.0.0' });
  // The SDK's stdio framing over the relay's streams: what a client that spawned the relay reads and writes.
  await client.connect(new StdioServerTransport(fromRelay, toRelay));
  scope.atEnd(() => client.close().catch(() => undefined));
  return {
    client,
    ended,
    get done() {
      return done;
    },
  };
}

const names = async (client: Client): Promise<string[]> => (await client.listTools()).tools.map((t) => t.name);
const textOf = (result: unknown): string => ((result as CallToolResult).content[0] as { text: string }).text;

describe.concurrent('serve --stdio --restart-on-change: the relay ends a session whose lists changed', () => {
  it("ends the session of a client that ignores list_changed once the changes settle; the gateway and its other clients go on", async ({ scope, expect }) => {
    const { gateway, ws, address } = await daemonOver(scope, { a: echo() });
    const restarting = await relayed(scope, address, true);
    const staying = await relayed(scope, address, false);
    expect(await names(restarting.client)).toEqual(['a__echo', 'a__slow']);
    expect(await names(staying.client)).toEqual(['a__echo', 'a__slow']);
    await expect.poll(() => gateway.live.servers.status().length).toBe(1);
    let clientsNow = 0;
    const watching = gateway.clients$.subscribe((list) => (clientsNow = list.length));
    try {
      await expect.poll(() => clientsNow).toBe(2);
      // Nothing changed: the session lasts.
      await sleep(QUIET_MS * 2);
      expect(restarting.done).toBeUndefined();

      const heard = new Promise<void>((resolve) => staying.client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()));
      const editedAt = Date.now();
      ws.atomicWrite(ws.userSettings, { mcpServers: { a: echo(), b: echo('--tools', 'added') } });
      await heard;
      expect(await restarting.ended).toBe('restarted');
      // Not before the changes had been quiet for QUIET_MS.
      expect(Date.now() - editedAt).toBeGreaterThanOrEqual(QUIET_MS);
      await expect.poll(() => clientsNow).toBe(1);

      // The gateway keeps its servers and serves the other client, and the one that reconnects sees the change.
      expect(await names(staying.client)).toContain('b__added');
      expect(textOf(await staying.client.callTool({ name: 'b__added', arguments: {} }))).toBe('added');
      expect(staying.done).toBeUndefined();
      const again = await relayed(scope, address, true);
      expect(await names(again.client)).toEqual(expect.arrayContaining(['a__echo', 'b__added']));
      expect(again.done).toBeUndefined();
    } finally {
      watching.unsubscribe();
    }
  }, deadline(60_000));

  it('never ends the session of a client that lists again by itself', async ({ scope, expect }) => {
    const { ws, address } = await daemonOver(scope, { a: echo() });
    const honouring = await relayed(scope, address, true);
    expect(await names(honouring.client)).toEqual(['a__echo', 'a__slow']);
    const relisted: string[][] = [];
    honouring.client.setNotificationHandler(ToolListChangedNotificationSchema, async () => void relisted.push(await names(honouring.client)));
    ws.atomicWrite(ws.userSettings, { mcpServers: { a: echo(), b: echo() } });
    await expect.poll(() => relisted.some((list) => list.includes('b__echo')), { timeout: deadline(10_000) }).toBe(true);
    await sleep(QUIET_MS * 3);
    expect(honouring.done).toBeUndefined();
    expect(textOf(await honouring.client.callTool({ name: 'b__echo', arguments: { text: 'still on' } }))).toBe('still on');
  }, deadline(60_000));

  it('waits for a call in flight: its answer reaches the client, then the session ends', async ({ scope, expect }) => {
    const { ws, address } = await daemonOver(scope, { a: echo('--slow-tool', '1500') });
    const calling = await relayed(scope, address, true);
    expect(await names(calling.client)).toEqual(['a__echo', 'a__slow']);
    const call = calling.client.callTool({ name: 'a__slow', arguments: {} });
    await sleep(100);
    ws.atomicWrite(ws.userSettings, { mcpServers: { a: echo('--slow-tool', '1500'), b: echo() } });
    // The answer comes first, the end after it.
    expect(await Promise.race([call.then(() => 'answered'), calling.ended])).toBe('answered');
    expect(textOf(await call)).toBe('slow done');
    expect(await calling.ended).toBe('restarted');
  }, deadline(60_000));
});
