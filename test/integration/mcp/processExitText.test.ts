import { afterEach, describe, expect, it } from 'vitest';
import { connectMcp } from '../../../src/sinks/mcp/connector.js';
import { StdioProcessTransport } from '../../../src/sinks/mcp/stdioTransport.js';
import { childEnvironment, describeProcessExit } from '../../../src/process/serverProcess.js';
import { StderrRing } from '../../../src/process/stderrRing.js';
import { closeTracked, connectOnce, errorOf, fixture, nodeServer, track } from '../mcpServers.js';
import { sleep } from '../processes.js';
import { deadline } from '../../deadlines.js';
import { noLeftoversAfterAll } from '../workspace.js';

/** Why a stdio server went away, as the detail view and the event log show it (decision 77). */

afterEach(closeTracked);
noLeftoversAfterAll();

describe('a stdio server killed by a signal', () => {
  it('says "killed by SIGKILL" and shows the last stderr line apart, not as the cause', async () => {
    const connection = track(await connectOnce(connectMcp('oom', nodeServer(fixture('echo-server.mjs'), ['--stderr-lines', '2']))));
    // The stderr lines are written at startup; wait until the ring has the last one.
    const giveUpAt = Date.now() + deadline(15_000);
    while (connection.stderrTail().at(-1) !== 'stderr line 2' && Date.now() < giveUpAt) await sleep(25);
    const died = errorOf(connection.lists$);
    process.kill(connection.pid!, 'SIGKILL');
    // It used to read "process was killed by SIGKILL: stderr line 2", as if the line explained the kill.
    expect((await died).message).toBe('process was killed by SIGKILL (last stderr: stderr line 2)');
    await expect(connection.callTool('echo', { text: 'x' })).rejects.toThrow(
      'server "oom" is not connected: process was killed by SIGKILL (last stderr: stderr line 2)',
    );
  });
});

describe('a stdio server that exits while a message is being sent to it', () => {
  // Closes its stdin (so a write to it fails with EPIPE), says so, and dies a moment later.
  const EXITING = [
    "require('node:fs').closeSync(0);",
    "process.stderr.write('stdin closed\\n');",
    "setTimeout(() => { process.stderr.write('fatal: cannot start\\n'); process.exit(1); }, 300);",
  ].join(' ');

  it('fails the write only once its exit is known, so the error says why it died, not "write EPIPE"', async () => {
    const stderr = new StderrRing();
    const transport = new StdioProcessTransport(
      { command: process.execPath, args: ['-e', EXITING], env: childEnvironment({}) },
      stderr,
      { stdinGraceMs: 500, killGraceMs: 500 },
    );
    let closed = false;
    transport.onclose = () => (closed = true);
    try {
      await transport.start();
      const giveUpAt = Date.now() + deadline(15_000);
      while (!stderr.lines().includes('stdin closed') && Date.now() < giveUpAt) await sleep(10);
      const failed = await transport.send({ jsonrpc: '2.0', id: 1, method: 'ping' }).then(
        () => undefined,
        (error: NodeJS.ErrnoException) => error,
      );
      expect(failed?.code).toBe('EPIPE');
      // When the write fails, the close has been reported: the connection's error is the exit's.
      expect(closed).toBe(true);
      expect(describeProcessExit(transport.exit, stderr.lastLine())).toBe('process exited with code 1: fatal: cannot start');
    } finally {
      await transport.close();
    }
  });
});
