import { filter, firstValueFrom, from, lastValueFrom, timeout } from 'rxjs';
import { describe, expect } from 'vitest';
import { createMcpLive } from '../../../src/live/createMcpLive.js';
import type { Connection } from '../../../src/model/connection.js';
import type { ResolvedServerConfig } from '../../../src/model/types.js';
import { createMcpConnector, type McpConnection } from '../../../src/sinks/mcp/connector.js';
import { lazyConnector } from '../../../src/sinks/mcp/lazyConnector.js';
import { connectOnce, fixture, remoteServer, startListeningFixture, textOf } from '../mcpServers.js';
import { sleep } from '../processes.js';
import { it, noLeftoversAfterAll, until, type TestScope } from '../workspace.js';
import { deadline } from '../../deadlines.js';

/**
 * Health checks (decision 241) against a real Streamable HTTP server process
 * (test/fixtures/http-server.mjs, which counts the POSTs it gets): a ping per `intervalMs`
 * while connected, none with `healthCheck: false`, none after close, none while a lazy server is
 * idle; a server that stops answering (SIGSTOP: the socket accepts, nothing answers) is failed
 * after `timeoutMs` and reconnected with the backoff once it answers again.
 */

noLeftoversAfterAll();

/** Starts the fixture server; it is ended (woken first, if stopped) when the test finishes. */
const startHttpServer = (scope: TestScope) => startListeningFixture(scope, fixture('http-server.mjs'));

function closedAtEnd<T extends Connection>(scope: TestScope, connection: T): T {
  scope.atEnd(() => lastValueFrom(from(connection.close()), { defaultValue: undefined }));
  return connection;
}

const connect = async (scope: TestScope, config: ResolvedServerConfig): Promise<McpConnection> =>
  closedAtEnd(scope, await connectOnce(createMcpConnector()('web', config)));

/** The POSTs the server has had, read through `probe` (its own call counts one). */
const posts = async (probe: Connection): Promise<number> => Number(textOf(await probe.callTool('requests', {})));

/** How many POSTs others sent during `ms`: the probe's own two calls taken out. */
async function postsDuring(probe: Connection, ms: number): Promise<number> {
  const before = await posts(probe);
  await sleep(ms);
  return (await posts(probe)) - before - 1;
}

describe.concurrent('health check pings', () => {
  it('one ping per interval while connected; none with healthCheck: false; none once closed', async ({ scope }) => {
    const { url } = await startHttpServer(scope);
    const probe = await connect(scope, remoteServer('http', url, { healthCheck: false }));
    expect(await postsDuring(probe, 1_500)).toBe(0);

    const checked = await connect(scope, remoteServer('http', url, { healthCheck: { intervalMs: 1_000, timeoutMs: 500 } }));
    const pinged = await postsDuring(probe, 2_600);
    expect(pinged).toBeGreaterThanOrEqual(2);
    expect(pinged).toBeLessThanOrEqual(3);

    await checked.close();
    expect(await postsDuring(probe, 1_500)).toBe(0);
  }, deadline(20_000));

  it('a lazy server that is idle is not pinged', async ({ scope }) => {
    const { url } = await startHttpServer(scope);
    const probe = await connect(scope, remoteServer('http', url, { healthCheck: false }));
    const onDemand = lazyConnector(createMcpConnector(), { surfaces: { get: () => undefined } });
    // No record: it connects once to learn its lists, then stops until a request comes.
    const lazy = await firstValueFrom(onDemand('lazy', remoteServer('http', url, { lifecycle: { lazy: true }, healthCheck: { intervalMs: 1_000, timeoutMs: 500 } })));
    closedAtEnd(scope, lazy);
    await firstValueFrom(lazy.activity$!.pipe(filter((a) => !a.running), timeout(deadline(5_000))));
    expect(await postsDuring(probe, 2_500)).toBe(0);
  }, deadline(20_000));
});

describe.concurrent('a server that stops answering', () => {
  it('is failed after timeoutMs without an answer, and reconnected with the backoff once it answers again', async ({ scope }) => {
    const { child, url } = await startHttpServer(scope);
    const ws = scope.workspace('mcp-live-health-');
    // The deadlines a busy machine stretches scale with the suite's (decision 316): a ping a loaded
    // machine answers late is not the silence this test makes, and a connect that takes long is not
    // a failed one.
    const pingTimeoutMs = deadline(500);
    const healthCheck = { intervalMs: 1_000, timeoutMs: pingTimeoutMs };
    ws.write(ws.userSettings, { mcpServers: { web: { httpUrl: url, healthCheck, connectTimeout: deadline(1_500) } } });
    const live = scope.track(createMcpLive({ homeDir: ws.homeDir, cwd: ws.cwd, runtimeDir: ws.runtimeDir, debounceMs: 20 }));
    await live.start();
    await until(live, 'web', (s) => s.state === 'connected');

    // Silently dead: the kernel still accepts the connection, nothing answers.
    child.kill('SIGSTOP');
    const stoppedAt = Date.now();
    const failed = await until(live, 'web', (s) => s.state === 'error');
    expect(failed.error).toBe(`connection lost: no answer to ping within ${pingTimeoutMs} ms (healthCheck)`);
    // Within a ping's interval and its timeout, and a margin.
    expect(Date.now() - stoppedAt).toBeLessThan(1_000 + pingTimeoutMs + 1_500);

    child.kill('SIGCONT');
    const back = await until(live, 'web', (s) => s.state === 'connected', 20_000);
    expect(back.history.some((h) => h.state === 'error')).toBe(true);
    expect(textOf(await live.tools.call('mcp__web__echo', { text: 'alive' }))).toBe('alive');
  }, deadline(40_000));
});
