import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { connectMcp } from '../../../src/sinks/mcp/connector.js';
import { closeTracked, connectOnce, errorOf, fixture, nodeServer, track } from '../mcpServers.js';
import { sleep, waitForNoLeftovers } from '../processes.js';

/** Why a stdio server went away, as the detail view and the event log show it (decision 77). */

afterEach(closeTracked);
afterAll(async () => {
  expect(await waitForNoLeftovers()).toEqual([]);
});

describe('a stdio server killed by a signal', () => {
  it('says "killed by SIGKILL" and shows the last stderr line apart, not as the cause', async () => {
    const connection = track(await connectOnce(connectMcp('oom', nodeServer(fixture('echo-server.mjs'), ['--stderr-lines', '2']))));
    // The stderr lines are written at startup; wait until the ring has the last one.
    const deadline = Date.now() + 15_000;
    while (connection.stderrTail().at(-1) !== 'stderr line 2' && Date.now() < deadline) await sleep(25);
    const died = errorOf(connection.lists$);
    process.kill(connection.pid!, 'SIGKILL');
    // It used to read "process was killed by SIGKILL: stderr line 2", as if the line explained the kill.
    expect((await died).message).toBe('process was killed by SIGKILL (last stderr: stderr line 2)');
    await expect(connection.callTool('echo', { text: 'x' })).rejects.toThrow(
      'server "oom" is not connected: process was killed by SIGKILL (last stderr: stderr line 2)',
    );
  });
});
