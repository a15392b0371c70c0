import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { filter, firstValueFrom, from, lastValueFrom, map, timeout } from 'rxjs';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createMcpLive, type McpLive } from '../../../src/createMcpLive.js';
import type { Connection } from '../../../src/model/connection.js';
import type { ServerStatus } from '../../../src/model/status.js';
import type { ResolvedServerConfig } from '../../../src/model/types.js';
import { createMcpConnector, type McpConnection } from '../../../src/sinks/mcp/connector.js';
import { lazyConnector } from '../../../src/sinks/mcp/lazyConnector.js';
import { connectOnce, fixture, remoteServer, textOf } from '../mcpServers.js';
import { sleep, waitForNoLeftovers } from '../processes.js';

/**
 * Health checks (decision 241) against a real Streamable HTTP server process
 * (test/fixtures/http-server.mjs, which counts the POSTs it gets): a ping per `intervalMs`
 * while connected, none with `healthCheck: false`, none after close, none while a lazy server is
 * idle; a server that stops answering (SIGSTOP: the socket accepts, nothing answers) is failed
 * after `timeoutMs` and reconnected with the backoff once it answers again.
 */

let server: { child: ChildProcess; url: string } | undefined;
let live: McpLive | undefined;
let dir: string | undefined;
const open: Connection[] = [];

afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => lastValueFrom(from(c.close()), { defaultValue: undefined })));
  await live?.dispose();
  live = undefined;
  if (server) {
    const { child } = server;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGCONT');
    child.kill('SIGKILL');
    await exited;
  }
  server = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});
afterAll(async () => {
  expect(await waitForNoLeftovers()).toEqual([]);
});

async function startHttpServer(): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [fixture('http-server.mjs')], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const m = /listening (\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', () => reject(new Error(`http-server exited: ${out}`)));
  });
  server = { child, url: `http://127.0.0.1:${port}/mcp` };
  return server;
}

const connect = async (config: ResolvedServerConfig): Promise<McpConnection> => {
  const c = await connectOnce(createMcpConnector()('web', config));
  open.push(c);
  return c;
};

/** The POSTs the server has had, read through `probe` (its own call counts one). */
const posts = async (probe: Connection): Promise<number> => Number(textOf(await probe.callTool('requests', {})));

/** How many POSTs others sent during `ms`: the probe's own two calls taken out. */
async function postsDuring(probe: Connection, ms: number): Promise<number> {
  const before = await posts(probe);
  await sleep(ms);
  return (await posts(probe)) - before - 1;
}

describe('health check pings', () => {
  it('one ping per interval while connected; none with healthCheck: false; none once closed', async () => {
    const { url } = await startHttpServer();
    const probe = await connect(remoteServer('http', url, { healthCheck: false }));
    expect(await postsDuring(probe, 1_500)).toBe(0);

    const checked = await connect(remoteServer('http', url, { healthCheck: { intervalMs: 1_000, timeoutMs: 500 } }));
    const pinged = await postsDuring(probe, 2_600);
    expect(pinged).toBeGreaterThanOrEqual(2);
    expect(pinged).toBeLessThanOrEqual(3);

    await checked.close();
    expect(await postsDuring(probe, 1_500)).toBe(0);
  }, 20_000);

  it('a lazy server that is idle is not pinged', async () => {
    const { url } = await startHttpServer();
    const probe = await connect(remoteServer('http', url, { healthCheck: false }));
    const onDemand = lazyConnector(createMcpConnector(), { surfaces: { get: () => undefined } });
    // No record: it connects once to learn its lists, then stops until a request comes.
    const lazy = await firstValueFrom(onDemand('lazy', remoteServer('http', url, { lifecycle: { lazy: true }, healthCheck: { intervalMs: 1_000, timeoutMs: 500 } })));
    open.push(lazy);
    await firstValueFrom(lazy.activity$!.pipe(filter((a) => !a.running), timeout(5_000)));
    expect(await postsDuring(probe, 2_500)).toBe(0);
  }, 20_000);
});

describe('a server that stops answering', () => {
  it('is failed after timeoutMs without an answer, and reconnected with the backoff once it answers again', async () => {
    const { child, url } = await startHttpServer();
    dir = mkdtempSync(join(tmpdir(), 'mcp-live-health-'));
    mkdirSync(join(dir, 'home', '.qwen'), { recursive: true });
    mkdirSync(join(dir, 'work'));
    writeFileSync(
      join(dir, 'home', '.qwen', 'settings.json'),
      JSON.stringify({ mcpServers: { web: { httpUrl: url, healthCheck: { intervalMs: 1_000, timeoutMs: 500 }, connectTimeout: 1_500 } } }),
    );
    live = createMcpLive({ homeDir: join(dir, 'home'), cwd: join(dir, 'work'), runtimeDir: join(dir, 'run'), debounceMs: 20 });
    await live.start();
    await until(live, 'web', (s) => s.state === 'connected');

    // Silently dead: the kernel still accepts the connection, nothing answers.
    child.kill('SIGSTOP');
    const stoppedAt = Date.now();
    const failed = await until(live, 'web', (s) => s.state === 'error');
    expect(failed.error).toBe('connection lost: no answer to ping within 500 ms (healthCheck)');
    expect(Date.now() - stoppedAt).toBeLessThan(3_000);

    child.kill('SIGCONT');
    const back = await until(live, 'web', (s) => s.state === 'connected', 20_000);
    expect(back.history.some((h) => h.state === 'error')).toBe(true);
    expect(textOf(await live.callTool('mcp__web__echo', { text: 'alive' }))).toBe('alive');
  }, 40_000);
});

function until(l: McpLive, name: string, test: (s: ServerStatus) => boolean, ms = 15_000): Promise<ServerStatus> {
  return firstValueFrom(
    l.servers$.pipe(
      map((all) => all.find((s) => s.name === name)),
      filter((s): s is ServerStatus => s !== undefined && test(s)),
      timeout(ms),
    ),
  );
}
