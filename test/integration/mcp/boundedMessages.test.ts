import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import type { ResolvedServerConfig } from '../../../src/model/types.js';
import { connectMcp } from '../../../src/sinks/mcp/connector.js';
import { closeTracked, connectOnce, fixture, nodeServer, remoteServer, track } from '../mcpServers.js';
import { waitForNoLeftovers } from '../processes.js';
import { noLeftoversAfterAll } from '../workspace.js';

/**
 * One message from a server is bounded by its entry's `maxMessageBytes` (decisions 179–181): an
 * endless JSON body, an endless SSE event or an endless stdio line fails that server's connect
 * with "message too large", in about the time the cap takes to arrive, at a memory cost near the
 * cap — where it used to grow mcp-live until it died (21 s for an HTTP server; in `serve`, every
 * client's servers with it). A long stream of small events is not one large message.
 */

const MiB = 1024 * 1024;
const HOSTILE_HTTP = fixture('hostile-http-server.mjs');
const HOSTILE_STDIO = fixture('hostile-stdio-server.mjs');

interface HostileServer {
  url: string;
  stop(): Promise<void>;
}

const started: HostileServer[] = [];

async function hostileHttp(...args: string[]): Promise<HostileServer> {
  const child = spawn(process.execPath, [HOSTILE_HTTP, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  };
  const port = await new Promise<number>((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', (line) => resolve(Number(/^listening (\d+)$/.exec(line)?.[1])));
    child.once('exit', () => reject(new Error('the hostile server exited before listening')));
  });
  const server = { url: `http://127.0.0.1:${port}/mcp`, stop };
  started.push(server);
  return server;
}

afterEach(async () => {
  await closeTracked();
  await Promise.all(started.splice(0).map((s) => s.stop()));
});

noLeftoversAfterAll();

/** Connects; resolves with the error it fails with, how long that took and what the heap grew by. */
async function failure(config: ResolvedServerConfig): Promise<{ message: string; ms: number; grewBy: number }> {
  const before = process.memoryUsage().rss;
  const start = Date.now();
  try {
    track(await connectOnce(connectMcp('hostile', config)));
  } catch (error) {
    return { message: (error as Error).message, ms: Date.now() - start, grewBy: process.memoryUsage().rss - before };
  }
  throw new Error('connected');
}

const tooLarge = (mib: number) => `message too large (more than ${mib} MiB; raise "maxMessageBytes" in the server's entry)`;

describe.each([
  ['json', 'an endless JSON body'],
  ['sse', 'an endless SSE event'],
] as const)('Streamable HTTP, tools/list answered with %s', (mode, what) => {
  it(`${what} fails the connect with "message too large" within seconds, memory near the cap`, async () => {
    const server = await hostileHttp('--mode', mode);
    const failed = await failure(remoteServer('http', server.url, { maxMessageBytes: 2 * MiB }));
    expect(failed.message).toBe(tooLarge(2));
    expect(failed.ms).toBeLessThan(5_000);
    // Loose: the cap plus what the garbage collector has not taken back yet.
    expect(failed.grewBy).toBeLessThan(150 * MiB);
  });

  it('a finite answer over the cap fails; the same answer under the default cap (16 MiB) is read', async () => {
    const server = await hostileHttp('--mode', mode, '--bytes', String(3 * MiB));
    expect((await failure(remoteServer('http', server.url, { maxMessageBytes: 2 * MiB }))).message).toBe(tooLarge(2));
    const connection = track(await connectOnce(connectMcp('large', remoteServer('http', server.url))));
    expect(connection.lists.tools.map((t) => t.name)).toEqual(['big']);
    expect(connection.lists.tools[0]!.description).toHaveLength(3 * MiB);
  });
});

describe('Streamable HTTP: an event stream is bounded per event, not as a whole', () => {
  it('4 MiB of small events, then the answer, under a 1 MiB cap: connects and lists', async () => {
    const server = await hostileHttp('--mode', 'sse-events', '--bytes', String(4 * MiB));
    const connection = track(await connectOnce(connectMcp('chatty', remoteServer('http', server.url, { maxMessageBytes: MiB }))));
    expect(connection.lists.tools.map((t) => t.name)).toEqual(['echo']);
  });
});

describe('stdio: one line is bounded', () => {
  it('an endless line fails the connect with "message too large", not "process exited with code 0"; the process is ended', async () => {
    const failed = await failure(nodeServer(HOSTILE_STDIO, [], { maxMessageBytes: 2 * MiB }));
    expect(failed.message).toBe(tooLarge(2));
    expect(failed.ms).toBeLessThan(5_000);
    expect(await waitForNoLeftovers()).toEqual([]);
  });

  it('a finite line over the cap fails; the same line under the default cap is read', async () => {
    expect((await failure(nodeServer(HOSTILE_STDIO, ['--bytes', String(3 * MiB)], { maxMessageBytes: 2 * MiB }))).message).toBe(tooLarge(2));
    const connection = track(await connectOnce(connectMcp('large', nodeServer(HOSTILE_STDIO, ['--bytes', String(3 * MiB)]))));
    expect(connection.lists.tools[0]!.description).toHaveLength(3 * MiB);
  });
});
