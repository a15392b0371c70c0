import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { SERVER_EVERYTHING } from '../integration/mcpServers.js';
import { waitForNoLeftovers } from '../integration/processes.js';
import { linuxOnly } from '../platforms.js';
import { Workspace, type CliSession } from '../e2e/cliSession.js';
import { expectNoSecrets, expectScannerWorks, fixturePath, groupMembers, report, sdkFixture, secretEnv, startCli, tiny, waitUntil } from './kit.js';

/**
 * Ending the CLI: SIGINT, SIGTERM, and SIGKILL of the CLI itself. Servers run in their own
 * process groups (so a wrapper's children go with them), which also means no terminal signal
 * reaches them: after a SIGKILL of the CLI, a stdio server notices that its stdin ended, and on
 * Linux the kernel sends it SIGTERM (src/platform/parentDeathSignal.ts).
 */

let ws: Workspace | undefined;
let cli: CliSession | undefined;
/** Process groups to clean up whatever a test left (a SIGKILL test leaves what it documents). */
const groups = new Set<number>();

beforeAll(() => expectScannerWorks());
afterEach(async () => {
  if (cli && cli.proc.exitCode === null && cli.proc.signalCode === null) await cli.stop();
  cli = undefined;
  for (const pgid of groups) {
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {
      // Gone already.
    }
  }
  groups.clear();
  ws?.cleanup();
  ws = undefined;
});
afterAll(async () => {
  expect(await waitForNoLeftovers()).toEqual([]);
});

/** Every kind of stdio server a session may hold, well-behaved or not. */
function servers(): Record<string, unknown> {
  return {
    tiny: tiny('tiny'),
    sdk: sdkFixture('echo-server.mjs', ['--echo-env', 'API_KEY']),
    everything: { command: process.execPath, args: [SERVER_EVERYTHING, 'stdio'], env: secretEnv() },
    // A wrapper whose server is its child, not itself (no exec).
    wrapped: { command: '/bin/sh', args: ['-c', `${process.execPath} ${fixturePath('tiny-server.mjs')} --log-name wrapped; true`], env: secretEnv() },
    // Ignores stdin EOF and SIGTERM: only SIGKILL ends it.
    stubborn: sdkFixture('echo-server.mjs', ['--stubborn']),
  };
}

/** Starts a session with every kind of server (plus one still connecting) and returns the process groups. */
async function startAll(w: Workspace): Promise<{ c: CliSession; pgids: Map<string, number> }> {
  // The wrapper is `sh -c …`, which a folder the user has not trusted holds (decision 301).
  w.trust();
  // The hanging one writes its pid to the start log: it never connects, so no event carries it.
  w.write(w.userSettings, {
    mcpServers: { ...servers(), hanging: sdkFixture('hang-server.mjs', ['--start-log', w.startLog], { timeout: 60_000 }) },
  });
  const c = (cli = startCli(w));
  for (const name of Object.keys(servers())) await c.waitForState(name, 'connected');
  await c.waitForState('hanging', 'connecting');
  await waitUntil('the hanging server spawned', () => w.starts().length === 1);
  const pgids = new Map<string, number>();
  for (const [name, e] of c.servers()) if (typeof e.pid === 'number') pgids.set(name, e.pid);
  pgids.set('hanging', Number(w.starts()[0]));
  for (const pgid of pgids.values()) groups.add(pgid);
  expect(pgids.size).toBe(6);
  expect(groupMembers(pgids.get('wrapped')!).length).toBe(2);
  return { c, pgids };
}

linuxOnly('/bin/sh, process groups, setpriv --pdeathsig').describe('shutdown', () => {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    it(`${signal}: exit 0, and no server process of any kind survives (a connecting one included)`, async () => {
      ws = new Workspace();
      const { c, pgids } = await startAll(ws);
      const before = Date.now();
      c.proc.kill(signal);
      const code = await new Promise<number | null>((resolve) => c.proc.once('exit', resolve));
      const ms = Date.now() - before;
      expect(code).toBe(0);
      for (const [name, pgid] of pgids) expect(groupMembers(pgid), `${name} (group ${pgid})`).toEqual([]);
      expect(await waitForNoLeftovers(undefined, 1_000)).toEqual([]);
      expectNoSecrets('events', c.events);
      expectNoSecrets('stderr', c.stderr);
      // The stubborn server costs the stdin grace (500 ms) and the SIGTERM grace (2 s).
      expect(ms).toBeLessThan(10_000);
      report(`shutdown on ${signal}`, { msToExit: ms, servers: pgids.size });
    });
  }

  it('SIGKILL of the CLI: every server ends, on stdin EOF or on the SIGTERM the kernel sends when its parent dies', async () => {
    ws = new Workspace();
    const { c, pgids } = await startAll(ws);
    const before = Date.now();
    c.proc.kill('SIGKILL');
    await new Promise((resolve) => c.proc.once('exit', resolve));
    // The hanging one ignores stdin (it never even answered initialize): the SIGTERM ends it. The
    // stubborn one ignores stdin EOF and handles SIGTERM by writing to stderr — a pipe whose reader
    // died with the CLI, so the write fails with EPIPE and that ends it.
    await waitUntil('every server to exit', () => [...pgids.values()].every((pgid) => groupMembers(pgid).length === 0), 10_000);
    const ms = Date.now() - before;
    report('SIGKILL of the CLI', { msUntilAllGone: ms, servers: pgids.size });
    expect([...pgids].filter(([, pgid]) => groupMembers(pgid).length > 0)).toEqual([]);
  });
});
