import { firstValueFrom, lastValueFrom, toArray } from 'rxjs';
import { describe, expect } from 'vitest';
import { connectMcp } from '../../../src/sinks/mcp/connector.js';
import { SERVER_EVERYTHING, connectOnce, errorOf, fixture, nodeServer, startedPids, textOf } from '../mcpServers.js';
import { isAlive, waitForExit } from '../processes.js';
import { it, noLeftoversAfterAll } from '../workspace.js';

/** stdio, connecting: real processes, the SDK client, our transport. */

noLeftoversAfterAll();

describe.concurrent('connectMcp over stdio: connecting', () => {
  it('connects server-everything, lists, calls echo, and the child is gone after close', async ({ scope }) => {
    const config = nodeServer(SERVER_EVERYTHING, ['stdio'], { env: { MCP_LIVE_OVERLAY: 'overlay-value' } });
    const connection = scope.closes(await connectOnce(connectMcp('everything', config)));

    expect(connection.pid).toBeTypeOf('number');
    expect(isAlive(connection.pid!)).toBe(true);
    const tools = connection.lists.tools.map((t) => t.name);
    expect(tools).toContain('echo');
    expect(tools).toContain('get-env');
    expect(connection.lists.prompts.length).toBeGreaterThan(0);
    expect(connection.lists.resources.length).toBeGreaterThan(0);
    expect(connection.lists.tools.find((t) => t.name === 'echo')?.inputSchema).toMatchObject({ type: 'object' });

    expect(textOf(await connection.callTool('echo', { message: 'hi' }))).toBe('Echo: hi');
    // The child sees the process environment overlaid with the config's env.
    const env = JSON.parse(textOf(await connection.callTool('get-env', {}))) as Record<string, string>;
    expect(env.MCP_LIVE_OVERLAY).toBe('overlay-value');
    expect(env.PATH).toBe(process.env.PATH);

    const completed = lastValueFrom(connection.lists$.pipe(toArray()));
    await connection.close();
    expect(() => process.kill(connection.pid!, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }) as Error);
    await expect(completed).resolves.toEqual([]);
  });

  it('maps the lists of a fixture server', async ({ scope }) => {
    const connection = scope.closes(await connectOnce(connectMcp('echo', nodeServer(fixture('echo-server.mjs'), ['--tools', 'a,b'])))); 
    expect(connection.lists.tools.map((t) => t.name)).toEqual(['echo', 'slow', 'a', 'b']);
    expect(connection.lists.tools[0]).toMatchObject({ name: 'echo', description: 'Returns its text' });
    // The server's arguments (and titles, annotations, `_meta` where given) are kept, for the gateway (decision 111).
    expect(connection.lists.prompts).toEqual([{ name: 'greet', description: 'Says hello', arguments: [{ name: 'who', required: true }] }]);
    expect(connection.lists.resources).toEqual([{ uri: 'fixture://readme', name: 'readme', description: 'A fixed text' }]);
    expect(textOf(await connection.callTool('echo', { text: 'ping' }))).toBe('ping');
  });

  it('counts a list the server answers with an error as empty', async ({ scope }) => {
    const config = nodeServer(fixture('echo-server.mjs'), ['--failing-list', 'prompts']);
    const connection = scope.closes(await connectOnce(connectMcp('broken-prompts', config)));
    expect(connection.lists.prompts).toEqual([]);
    expect(connection.lists.tools.map((t) => t.name)).toContain('echo');
  });

  it('errors lists$ with the exit code and the last stderr line when the server dies', async ({ scope }) => {
    const connection = scope.closes(await connectOnce(connectMcp('crash', nodeServer(fixture('crash-server.mjs'), ['--after', '300']))));
    const error = await errorOf(connection.lists$);
    expect(error.message).toBe('process exited with code 1: Error: boom');
    await expect(connection.callTool('echo', { text: 'x' })).rejects.toThrow(
      'server "crash" is not connected: process exited with code 1: Error: boom',
    );
  });

  it('reports a server that dies before initialize with its exit code and last stderr line', async () => {
    const error = await errorOf(connectMcp('crash-early', nodeServer(fixture('crash-server.mjs'))));
    expect(error.message).toBe('process exited with code 1: Error: boom');
  });

  it('times out a hanging initialize and kills the half-started child before reporting', async ({ scope }) => {
    const log = scope.path('hang.log');
    // The timeout includes the child's start: long enough for it to write its start log on a
    // loaded machine (node alone can take half a second there), so there is a pid to check.
    const timeout = 3_000;
    const config = nodeServer(fixture('hang-server.mjs'), ['--start-log', log], { timeout });
    const started = Date.now();
    const error = await errorOf(connectMcp('hang', config));
    // No connectTimeout: the shorter timeout bounds the connect, and the error names the field to raise.
    expect(error.message).toBe(`timed out after ${timeout} ms (raise "connectTimeout" in the server's entry)`);
    // Then the stdin grace and SIGTERM: not the kill grace, nor anything near another timeout.
    expect(Date.now() - started).toBeLessThan(timeout + 2_000);
    const [pid] = await startedPids(log);
    expect(pid).toBeTypeOf('number');
    expect(isAlive(pid!)).toBe(false);
  });

  it('names the command that does not exist', async () => {
    const error = await errorOf(connectMcp('missing', { ...nodeServer('x'), command: 'nonexistent-cmd-mcp-live', args: [] }));
    expect(error.message).toBe('failed to start "nonexistent-cmd-mcp-live": spawn nonexistent-cmd-mcp-live ENOENT');
  });

  it('names a working directory that does not exist instead of blaming the command', async ({ scope }) => {
    const error = await errorOf(connectMcp('bad-cwd', nodeServer(fixture('echo-server.mjs'), [], { cwd: scope.path('nope') })));
    expect(error.message).toBe(`failed to start "${process.execPath}": working directory "${scope.path('nope')}" does not exist`);
  });

  it('waits for a slow start within the timeout', async ({ scope }) => {
    const config = nodeServer(fixture('slow-start-server.mjs'), ['--delay', '700'], { timeout: 5_000 });
    const connection = scope.closes(await connectOnce(connectMcp('slow', config)));
    expect(connection.lists.tools.map((t) => t.name)).toEqual(['echo']);
  });

  it('kills the child when the attempt is unsubscribed before it connected', async ({ scope }) => {
    const log = scope.path('unsubscribe.log');
    const config = nodeServer(fixture('slow-start-server.mjs'), ['--delay', '5000', '--start-log', log]);
    const subscription = connectMcp('abandoned', config).subscribe({
      next: (c) => void c.close(),
      error: () => undefined,
    });
    const [pid] = await startedPids(log);
    expect(isAlive(pid!)).toBe(true);
    subscription.unsubscribe();
    // Left alone it would live on: it starts serving after 5 s, and then until stdin ends.
    expect(await waitForExit(pid!, 3_000)).toBe(true);
  });

  it('re-lists tools after tools/list_changed, on the same process', async ({ scope }) => {
    const connection = scope.closes(await connectOnce(connectMcp('changing', nodeServer(fixture('list-changed-server.mjs')))));
    const pid = connection.pid;
    expect(connection.lists.tools.map((t) => t.name)).toEqual(['add_tool']);
    const update = firstValueFrom(connection.lists$);
    await connection.callTool('add_tool', { name: 'fresh' });
    expect((await update).tools?.map((t) => t.name)).toEqual(['add_tool', 'fresh']);
    expect(connection.pid).toBe(pid);
    expect(isAlive(pid!)).toBe(true);
  });
});
