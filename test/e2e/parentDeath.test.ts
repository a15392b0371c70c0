import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { withParentDeathSignal } from '../../src/platform/parentDeathSignal.js';
import { isAlive, waitForExit, waitForNoLeftovers } from '../integration/processes.js';
import { linuxOnly } from '../platforms.js';
import { CliSession, Workspace } from './cliSession.js';

/**
 * A session that is SIGKILLed cannot end its servers. A server that exits on stdin EOF goes by
 * itself; one that ignores EOF would live on, reparented to init — unless the kernel signals it
 * when its parent dies (src/platform/parentDeathSignal.ts, Linux with util-linux's setpriv).
 */

let ws: Workspace | undefined;
/** Server pids of this test: reparented to init once the CLI is killed, so no longer our descendants. */
const serverPids: number[] = [];

afterEach(() => {
  for (const pid of serverPids.splice(0)) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  ws?.cleanup();
  ws = undefined;
});
afterAll(async () => {
  expect(await waitForNoLeftovers()).toEqual([]);
});

describe('servers do not outlive a SIGKILLed session', () => {
  linuxOnly('setpriv --pdeathsig').it('a server that ignores stdin EOF gets SIGTERM from the kernel when the CLI is killed', async () => {
    // The machines this runs on are Linux with util-linux (Debian's `setpriv`); without it this fails loudly.
    const launch = withParentDeathSignal({ command: process.execPath, args: [] }, process.env, undefined);
    expect(launch.command, 'Linux with a util-linux setpriv that knows --pdeathsig').toMatch(/\/setpriv$/);
    ws = new Workspace();
    ws.write(ws.userSettings, { mcpServers: { deaf: ws.server('deaf', ['--ignore-eof']), plain: ws.server('plain') } });
    const cli = CliSession.start(ws);
    const deaf = await cli.waitForState('deaf', 'connected');
    const plain = await cli.waitForState('plain', 'connected');
    const pids = [deaf.pid as number, plain.pid as number];
    serverPids.push(...pids);
    // The pid the session reports is the server itself (setpriv execs it), with its own command line.
    expect(ws.starts().sort()).toEqual(['deaf', 'plain']);

    await cli.stop('SIGKILL');
    for (const pid of pids) expect(await waitForExit(pid, 5_000)).toBe(true);
  });

  it('a missing command still fails as spawn ENOENT, and an existing one still starts, wrapped or not', async () => {
    ws = new Workspace();
    ws.write(ws.userSettings, { mcpServers: { missing: { command: 'no-such-mcp-server-command' }, ok: ws.server('ok') } });
    const cli = CliSession.start(ws);
    const missing = await cli.waitForState('missing', 'error');
    expect(missing.error).toContain('spawn no-such-mcp-server-command ENOENT');
    const ok = await cli.waitForState('ok', 'connected');
    serverPids.push(ok.pid as number);
    expect(await cli.stop()).toBe(0);
  });
});
