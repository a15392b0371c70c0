import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMcp, createMcpConnector } from '../../../src/sinks/mcp/connector.js';
import {
  connectOnce,
  errorOf,
  freePort,
  remoteServer,
  startServerEverything,
  textOf,
  type RemoteServerProcess,
} from '../mcpServers.js';
import { waitForNoLeftovers } from '../processes.js';

/** SSE and Streamable HTTP against server-everything on loopback ports. */

const servers: Record<'sse' | 'http', RemoteServerProcess | undefined> = { sse: undefined, http: undefined };
const urlOf = (kind: 'sse' | 'http', port: number): string =>
  kind === 'sse' ? `http://127.0.0.1:${port}/sse` : `http://127.0.0.1:${port}/mcp`;

beforeAll(async () => {
  [servers.sse, servers.http] = await Promise.all([startServerEverything('sse'), startServerEverything('streamableHttp')]);
});

afterAll(async () => {
  await Promise.all([servers.sse?.stop(), servers.http?.stop()]);
  expect(await waitForNoLeftovers()).toEqual([]);
});

/** The SDK's Streamable HTTP retry of a dropped stream, shortened so a dead server is noticed fast. */
const quickHttp = createMcpConnector({
  httpReconnection: { initialReconnectionDelay: 50, maxReconnectionDelay: 100, reconnectionDelayGrowFactor: 1, maxRetries: 2 },
});

describe.concurrent.each(['sse', 'http'] as const)('connectMcp over %s', (kind) => {
  it('connects server-everything, lists, calls echo, closes', async () => {
    const connection = await connectOnce(connectMcp(`everything-${kind}`, remoteServer(kind, urlOf(kind, servers[kind]!.port))));
    try {
      expect(connection.pid).toBeUndefined();
      expect(connection.lists.tools.map((t) => t.name)).toContain('echo');
      expect(connection.lists.prompts.length).toBeGreaterThan(0);
      expect(textOf(await connection.callTool('echo', { message: `over ${kind}` }))).toBe(`Echo: over ${kind}`);
    } finally {
      await connection.close();
    }
    await expect(connection.callTool('echo', { message: 'x' })).rejects.toThrow(`server "everything-${kind}" is not connected`);
  });

  it('errors lists$ when the server goes away', async () => {
    const own = await startServerEverything(kind === 'sse' ? 'sse' : 'streamableHttp');
    try {
      const connection = await connectOnce(quickHttp(`gone-${kind}`, remoteServer(kind, urlOf(kind, own.port))));
      const died = errorOf(connection.lists$);
      await own.stop();
      const started = Date.now();
      expect((await died).message).toMatch(
        kind === 'sse' ? /^connection lost: SSE error: / : /^connection lost: Maximum reconnection attempts \(2\) exceeded/,
      );
      expect(Date.now() - started).toBeLessThan(3_000);
      await expect(connection.callTool('echo', { message: 'x' })).rejects.toThrow(`server "gone-${kind}" is not connected: connection lost`);
      await connection.close();
    } finally {
      await own.stop();
    }
  });

  it('fails a call in flight at once when the server goes away', async () => {
    const own = await startServerEverything(kind === 'sse' ? 'sse' : 'streamableHttp');
    try {
      // Slow retries: the call itself must notice, not the stream's reconnection giving up.
      const connection = await connectOnce(connectMcp(`doomed-${kind}`, remoteServer(kind, urlOf(kind, own.port))));
      const died = errorOf(connection.lists$);
      const call = connection.callTool('trigger-long-running-operation', { duration: 30, steps: 3 }).then(
        () => 'resolved',
        (e: Error) => e.message,
      );
      await own.stop();
      const started = Date.now();
      expect(await call).toMatch(new RegExp(`^server "doomed-${kind}" is not connected: connection lost`));
      expect(Date.now() - started).toBeLessThan(1_000);
      expect((await died).message).toMatch(/^connection lost: /);
      await connection.close();
    } finally {
      await own.stop();
    }
  });
});

describe.concurrent('remote connect failures', () => {
  let echoing: Server;
  let port: number;
  beforeAll(async () => {
    // A server that answers every request with an error page quoting the request's headers.
    echoing = createServer((req, res) => {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(`bad request, you sent ${JSON.stringify(req.headers)}`);
    });
    port = await listenOnAnyPort(echoing);
  });
  afterAll(() => new Promise<void>((resolve) => echoing.close(() => resolve())));

  it('never shows header values in the error, even when the server quotes them', async () => {
    const headers = { Authorization: 'Bearer sk-header-secret-456', 'X-Api-Key': 'key-secret-789' };
    const error = await errorOf(connectMcp('leaky-http', remoteServer('http', `http://127.0.0.1:${port}/mcp`, { headers })));
    expect(error.message).toContain('Error POSTing to endpoint');
    expect(error.message).toContain('***');
    expect(error.message).not.toContain('sk-header-secret-456');
    expect(error.message).not.toContain('key-secret-789');
  });

  it.each(['sse', 'http'] as const)('over %s, names the host and the cause when nothing listens', async (kind) => {
    const closedPort = await freePort();
    const error = await errorOf(connectMcp('nobody', remoteServer(kind, `http://127.0.0.1:${closedPort}/mcp`)));
    // Streamable HTTP used to say only "fetch failed (ECONNREFUSED)": no host, no address.
    expect(error.message).toBe(
      `${kind === 'sse' ? 'SSE error: TypeError: ' : ''}fetch failed: connect ECONNREFUSED 127.0.0.1:${closedPort}`,
    );
  });

  it.each(['sse', 'http'] as const)('over %s, names the host when the cause does not (port 9 is refused by fetch itself)', async (kind) => {
    // fetch blocks "bad ports" before connecting: nothing leaves the machine.
    const error = await errorOf(connectMcp('discard', remoteServer(kind, 'http://127.0.0.1:9/mcp')));
    expect(error.message).toBe(`${kind === 'sse' ? 'SSE error: TypeError: ' : ''}fetch failed: bad port (127.0.0.1:9)`);
  });

  it('times out a remote server that never answers', async () => {
    const silent = createServer(() => undefined);
    const silentPort = await listenOnAnyPort(silent);
    try {
      const error = await errorOf(connectMcp('silent', remoteServer('http', `http://127.0.0.1:${silentPort}/mcp`, { timeout: 500 })));
      expect(error.message).toBe('timed out after 500 ms (raise "connectTimeout" in the server\'s entry)');
    } finally {
      silent.closeAllConnections();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });
});

/** Listens on a port the system picks (decision 318) and returns it. */
function listenOnAnyPort(server: Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
}
