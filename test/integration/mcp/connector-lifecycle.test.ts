import { lastValueFrom, toArray } from 'rxjs';
import { afterAll, describe, expect } from 'vitest';
import { connectMcp, createMcpConnector } from '../../../src/sinks/mcp/connector.js';
import { connectOnce, errorOf, fixture, nodeServer, removeScratch, scratch, startedPids, textOf } from '../mcpServers.js';
import { posixOnly } from '../../platforms.js';
import { isAlive, sleep } from '../processes.js';
import { it, noLeftoversAfterAll } from '../workspace.js';
import { deadline } from '../../deadlines.js';

/** stdio, a live connection: calls, death, close, stderr, secrets. */

afterAll(removeScratch);
noLeftoversAfterAll();

describe.concurrent('connectMcp over stdio: a live connection', () => {
  it('rejects a call on a closed connection at once', async () => {
    const connection = await connectOnce(connectMcp('closed', nodeServer(fixture('echo-server.mjs'))));
    await connection.close();
    const started = Date.now();
    await expect(connection.callTool('echo', { text: 'x' })).rejects.toThrow('server "closed" is not connected');
    // At once, not after the request timeout (10 s); a loaded machine may stall for a moment.
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('rejects a call in flight promptly when the process is killed', async ({ scope }) => {
    const config = nodeServer(fixture('echo-server.mjs'), ['--slow-tool', '60000'], { timeout: 20_000 });
    const connection = scope.closes(await connectOnce(connectMcp('killed', config)));
    const call = connection.callTool('slow', {});
    const died = errorOf(connection.lists$);
    await sleep(100);
    const started = Date.now();
    process.kill(connection.pid!, 'SIGKILL');
    await expect(call).rejects.toThrow('server "killed" is not connected: process was killed by SIGKILL');
    // Promptly: not after the request timeout (20 s) nor the tool's answer (60 s).
    expect(Date.now() - started).toBeLessThan(5_000);
    expect((await died).message).toBe('process was killed by SIGKILL');
  });

  it('turns a request timeout into "timed out after N ms" and stays connected', async ({ scope }) => {
    // The connect has its own deadline: the request timeout can be short without failing a slow start.
    const config = nodeServer(fixture('echo-server.mjs'), ['--slow-tool', '30000'], { timeout: 1_500, connectTimeout: 10_000 });
    const connection = scope.closes(await connectOnce(connectMcp('slow-tool', config)));
    await expect(connection.callTool('slow', {})).rejects.toThrow('timed out after 1500 ms (raise "timeout" in the server\'s entry)');
    expect(textOf(await connection.callTool('echo', { text: 'still here' }))).toBe('still here');
  });

  it('keeps the last 200 of 500 stderr lines', async ({ scope }) => {
    const connection = scope.closes(
      await connectOnce(connectMcp('chatty', nodeServer(fixture('echo-server.mjs'), ['--stderr-lines', '500']))),
    );
    const giveUpAt = Date.now() + deadline(15_000);
    while (connection.stderrTail().at(-1) !== 'stderr line 500' && Date.now() < giveUpAt) await sleep(25);
    const tail = connection.stderrTail();
    expect(tail).toHaveLength(200);
    expect(tail[0]).toBe('stderr line 301');
    expect(tail.at(-1)).toBe('stderr line 500');
  });

  it('close() is idempotent, completes lists$ once, and escalates to SIGKILL for a stubborn server', async () => {
    // The kill grace gives the server time to say it ignores SIGTERM even on a loaded machine.
    const connect = createMcpConnector({ stdinGraceMs: 100, killGraceMs: 1_500 });
    const connection = await connectOnce(connect('stubborn', nodeServer(fixture('echo-server.mjs'), ['--stubborn'])));
    const pid = connection.pid!;
    const events = lastValueFrom(connection.lists$.pipe(toArray()));
    const started = Date.now();
    const [first, second] = [connection.close(), connection.close()];
    await Promise.all([first, second]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_600);
    expect(isAlive(pid)).toBe(false);
    expect(connection.stderrTail()).toContain('ignoring SIGTERM');
    await expect(events).resolves.toEqual([]);
    await connection.close();
  });

  posixOnly('sh, process groups').it('ends what a wrapper started: the whole process group goes', async () => {
    const log = scratch('wrapped.log');
    // sh forks node (a list is not exec'd) and outlives SIGTERM's effect on it only by a moment;
    // the stubborn grandchild ignores stdin EOF and SIGTERM.
    const config = {
      ...nodeServer('x'),
      command: 'sh',
      args: ['-c', `"${process.execPath}" "${fixture('echo-server.mjs')}" --stubborn --start-log "${log}"; exit $?`],
    };
    const connect = createMcpConnector({ stdinGraceMs: 100, killGraceMs: 300 });
    const connection = await connectOnce(connect('wrapped', config));
    const [grandchild] = await startedPids(log);
    expect(grandchild).not.toBe(connection.pid);
    expect(textOf(await connection.callTool('echo', { text: 'through sh' }))).toBe('through sh');
    await connection.close();
    expect(isAlive(connection.pid!)).toBe(false);
    expect(isAlive(grandchild!)).toBe(false);
  });

  it('never shows secret env values in errors or in the stderr tail', async ({ scope }) => {
    const secret = 'sk-live-supersecret-123';
    const config = nodeServer(fixture('crash-server.mjs'), ['--after', '200', '--echo-env', 'MCP_LIVE_SECRET'], {
      env: { MCP_LIVE_SECRET: secret },
    });
    const connection = scope.closes(await connectOnce(connectMcp('leaky', config)));
    const error = await errorOf(connection.lists$);
    expect(error.message).toBe('process exited with code 1: Error: boom ***');
    expect(connection.stderrTail().join('\n')).not.toContain(secret);
    const early = await errorOf(connectMcp('leaky-early', { ...config, args: [fixture('crash-server.mjs'), '--echo-env', 'MCP_LIVE_SECRET'] }));
    expect(early.message).not.toContain(secret);
    expect(early.message).toContain('***');
  });
});
