import { chmodSync, writeFileSync } from 'node:fs';
import { describe, expect } from 'vitest';
import { posixOnly } from '../../platforms.js';
import { connectMcp, timedOut } from '../../../src/sinks/mcp/connector.js';
import { resolveServerConfig } from '../../../src/model/settings/validate.js';
import { connectOnce, errorOf, fixture, nodeServer, textOf } from '../mcpServers.js';
import { it, noLeftoversAfterAll } from '../workspace.js';
import { deadline } from '../../deadlines.js';

/**
 * Decision 24: `timeout` is the request timeout (default 600 000 ms),
 * `connectTimeout` the connect deadline (30 000 ms), and a timeout names the field to raise.
 * Real processes over stdio.
 */

noLeftoversAfterAll();

describe.concurrent('connectMcp: two deadlines', () => {
  it('connectTimeout, not timeout, ends a hung connect — and the error names "connectTimeout"', async () => {
    const config = nodeServer(fixture('hang-server.mjs'), [], { timeout: 60_000, connectTimeout: 2_000 });
    const started = Date.now();
    const error = await errorOf(connectMcp('hung', config));
    expect(error.message).toBe(`timed out after 2000 ms (raise "connectTimeout" in the server's entry)`);
    // Not the request timeout (60 s): the connect deadline plus the shutdown graces at most.
    expect(Date.now() - started).toBeLessThan(2_000 + 6_000);
  }, deadline(20_000));

  it('timeout, not connectTimeout, ends a slow call — and the error names "timeout"; the connection stays', async ({ scope }) => {
    const config = nodeServer(fixture('echo-server.mjs'), ['--slow-tool', '30000'], { timeout: 1_500, connectTimeout: 20_000 });
    const connection = scope.closes(await connectOnce(connectMcp('slow-call', config)));
    await expect(connection.callTool('slow', {})).rejects.toThrow(`timed out after 1500 ms (raise "timeout" in the server's entry)`);
    expect(textOf(await connection.callTool('echo', { text: 'still here' }))).toBe('still here');
  }, deadline(20_000));

  it('the default request timeout (600 000 ms) outlasts the connect deadline: a call longer than connectTimeout completes', async ({ scope }) => {
    const resolution = resolveServerConfig(
      // A connect deadline a loaded machine still starts Node and the SDK within (1.5 s was not).
      { command: process.execPath, args: [fixture('echo-server.mjs'), '--slow-tool', '4500'], connectTimeout: 4_000 },
      {},
    );
    if (!resolution.ok) throw new Error(resolution.error);
    expect(resolution.resolved).toMatchObject({ timeout: 600_000, connectTimeout: 4_000 });
    const connection = scope.closes(await connectOnce(connectMcp('patient', resolution.resolved)));
    const started = Date.now();
    expect(textOf(await connection.callTool('slow', {}))).toBe('slow done');
    expect(Date.now() - started).toBeGreaterThanOrEqual(4_000);
  }, deadline(20_000));

  it('timedOut says which field to raise', () => {
    expect(timedOut(600_000, 'timeout')).toBe(`timed out after 600000 ms (raise "timeout" in the server's entry)`);
    expect(timedOut(30_000, 'connectTimeout')).toBe(`timed out after 30000 ms (raise "connectTimeout" in the server's entry)`);
  });
});

posixOnly('an executable sh script named npx').describe('connectMcp: a package runner that misses the connect deadline', () => {
  it(
    'a server started through npx that misses the connect deadline: the error says a first download may be what is slow, and what to do (decision 323)',
    async ({ scope }) => {
      // A stand-in for npx still downloading: it starts the hung fixture, whatever its arguments.
      const npx = scope.path('npx');
      writeFileSync(npx, `#!/bin/sh\nexec '${process.execPath}' '${fixture('hang-server.mjs')}'\n`);
      chmodSync(npx, 0o755);
      const config = { ...nodeServer(fixture('hang-server.mjs')), command: npx, args: ['-y', '@acme/mcp-server'], connectTimeout: 2_000 };
      const error = await errorOf(connectMcp('first-run', config));
      expect(error.message).toBe(
        `timed out after 2000 ms (raise "connectTimeout" in the server's entry); npx may still have been downloading the package, as on a first start: ` +
          'install the package once beforehand (npm install -g @acme/mcp-server) or run the command once by hand, then it starts from its cache',
      );
    },
    20_000,
  );
});
