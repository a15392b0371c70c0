import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpError, type ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import { join } from 'node:path';
import { it as base, type ExpectStatic } from 'vitest';
import { createMcpLive } from '../../../src/live/createMcpLive.js';
import { createGateway, type Gateway, type GatewayOptions } from '../../../src/hosts/gateway/gateway.js';
import { Workspace } from '../../e2e/cliSession.js';
import { deadline } from '../../deadlines.js';

/**
 * Gateways for the gateway's integration tests: a real McpLive over a real workspace's settings
 * files, SDK clients over in-memory transports. `it` hands each test its own `gatewayOver`,
 * `clientOf` and `direct`; what they opened is closed when that test finishes, so tests of a
 * file may run side by side (`describe.concurrent`).
 */

export type GatewayOver = (
  servers: Record<string, unknown>,
  options?: GatewayOptions & { project?: Record<string, unknown> },
) => Promise<{ gateway: Gateway; ws: Workspace }>;
export type ClientOf = (gateway: Gateway, capabilities?: ClientCapabilities, name?: string) => Promise<Client>;
/** A client straight to a backend, to compare with what the gateway shows. */
export type Direct = (entry: { command: string; args: string[] }) => Promise<Client>;

/** What one test opened, closed in reverse: clients first, then gateways and sessions, then workspaces. */
class Opened {
  readonly workspaces: Workspace[] = [];
  readonly gateways: Gateway[] = [];
  readonly clients: Client[] = [];

  gatewayOver: GatewayOver = async (servers, options = {}) => {
    const ws = new Workspace();
    this.workspaces.push(ws);
    ws.write(ws.userSettings, { mcpServers: servers });
    if (options.project) ws.write(ws.mcpJson, { mcpServers: options.project });
    const gateway = createGateway(
      (hooks) => createMcpLive({ homeDir: ws.home, cwd: ws.cwd, runtimeDir: join(ws.root, 'run'), debounceMs: 50, ...hooks }),
      options,
    );
    this.gateways.push(gateway);
    await gateway.live.start();
    return { gateway, ws };
  };

  clientOf: ClientOf = async (gateway, capabilities = {}, name = 'test-client') => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name, version: '1.2.3' }, { capabilities });
    await gateway.connect(serverSide, 'stdio');
    await client.connect(clientSide);
    this.clients.push(client);
    return client;
  };

  direct: Direct = async ({ command, args }) => {
    const client = new Client({ name: 'direct', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command, args, stderr: 'ignore' }));
    this.clients.push(client);
    return client;
  };

  async close(): Promise<void> {
    await Promise.all(this.clients.splice(0).map((c) => c.close()));
    await Promise.all(
      this.gateways.splice(0).map(async (g) => {
        await g.close();
        await g.live.dispose();
      }),
    );
    for (const ws of this.workspaces.splice(0)) ws.cleanup();
  }
}

export const it = base.extend<{ opened: Opened; gatewayOver: GatewayOver; clientOf: ClientOf; direct: Direct }>({
  // eslint-disable-next-line no-empty-pattern -- vitest reads a fixture's dependencies from this pattern
  opened: async ({}, use) => {
    const opened = new Opened();
    try {
      await use(opened);
    } finally {
      await opened.close();
    }
  },
  gatewayOver: async ({ opened }, use) => use(opened.gatewayOver),
  clientOf: async ({ opened }, use) => use(opened.clientOf),
  direct: async ({ opened }, use) => use(opened.direct),
});

/** The McpError a request fails with; fails if it succeeds or fails otherwise. */
export async function errorOf(request: Promise<unknown>): Promise<McpError> {
  try {
    await request;
  } catch (error) {
    if (error instanceof McpError) return error;
    throw error;
  }
  throw new Error('expected the request to fail');
}

/**
 * A call of the backend gw's `slow` tool, started by `start` with an abort signal, aborted once the
 * backend says it started: the call fails with the abort's reason, and the backend says the
 * call was cancelled. `expect` is the test's own (the tests run side by side).
 */
export async function expectAbortReachesBackend(expect: ExpectStatic, gateway: Gateway, start: (signal: AbortSignal) => Promise<unknown>): Promise<void> {
  const controller = new AbortController();
  const call = start(controller.signal);
  await expect.poll(() => gateway.live.servers.stderrTail('gw'), { timeout: deadline(5_000) }).toContain('slow started');
  controller.abort(new Error('the user stopped it'));
  await expect(call).rejects.toThrow('the user stopped it');
  await expect.poll(() => gateway.live.servers.stderrTail('gw'), { timeout: deadline(5_000) }).toContain('slow cancelled');
}
