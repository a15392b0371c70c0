import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, expect, it } from 'vitest';
import { descendants, MCP_TEST_SERVERS } from '../integration/processes.js';
import { linuxOnly } from '../platforms.js';
import { CliSession, FIXTURES, Workspace, type OnFinished } from './cliSession.js';

/**
 * A session with hostile servers beside a good one (decisions 179–181): an HTTP server answering
 * `tools/list` with an endless JSON body, one with an endless SSE event, a stdio server writing
 * one endless line. Each is `error` "message too large"; the good server keeps working; the CLI's
 * memory stays bounded (it used to grow until the process died, taking every server with it).
 */

const MiB = 1024 * 1024;

afterAll(() => {
  expect(descendants().filter((p) => MCP_TEST_SERVERS.test(p.command))).toEqual([]);
});

/** A hostile HTTP server, killed when the test ends (after its sessions stopped). */
async function hostileHttp(onFinished: OnFinished, mode: string): Promise<string> {
  const child = spawn(process.execPath, [join(FIXTURES, 'hostile-http-server.mjs'), '--mode', mode], { stdio: ['ignore', 'pipe', 'inherit'] });
  onFinished(() => killed(child));
  const line = await new Promise<string>((resolve) => createInterface({ input: child.stdout }).once('line', resolve));
  return `http://127.0.0.1:${/^listening (\d+)$/.exec(line)![1]}/mcp`;
}

function killed(child: ChildProcess): Promise<void> {
  const exited = new Promise<void>((resolve) => (child.exitCode !== null ? resolve() : child.once('exit', () => resolve())));
  child.kill('SIGKILL');
  return exited;
}

/** The CLI's peak resident memory so far (Linux `VmHWM`), in bytes. */
function peakRss(pid: number): number {
  return Number(/^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) * 1024;
}

linuxOnly('/proc memory figures').describe('mcp-live --json with hostile servers', () => {
  it('endless JSON body, endless SSE event, endless stdio line: each server fails alone, the session lives, memory stays bounded', async ({ onTestFinished }) => {
    const [json, sse] = await Promise.all([hostileHttp(onTestFinished, 'json'), hostileHttp(onTestFinished, 'sse')]);
    const ws = new Workspace(onTestFinished);
    ws.write(ws.userSettings, {
      mcpServers: {
        // The default cap, 16 MiB.
        json: { httpUrl: json },
        sse: { httpUrl: sse, maxMessageBytes: 4 * MiB },
        line: { command: process.execPath, args: [join(FIXTURES, 'hostile-stdio-server.mjs')], maxMessageBytes: 4 * MiB },
        good: ws.server('good'),
      },
    });
    const started = Date.now();
    const cli = CliSession.start(ws);
    await cli.waitFor((e) => e.type === 'ready', { timeoutMs: 30_000 });
    const readyMs = Date.now() - started;

    const servers = cli.servers();
    const stateOf = (name: string): [unknown, unknown] => [servers.get(name)?.state, servers.get(name)?.error];
    expect(stateOf('json')).toEqual(['error', 'message too large (more than 16 MiB; raise "maxMessageBytes" in the server\'s entry)']);
    expect(stateOf('sse')).toEqual(['error', 'message too large (more than 4 MiB; raise "maxMessageBytes" in the server\'s entry)']);
    expect(stateOf('line')).toEqual(['error', 'message too large (more than 4 MiB; raise "maxMessageBytes" in the server\'s entry)']);
    expect(stateOf('good')).toEqual(['connected', undefined]);

    cli.send({ cmd: 'call', tool: 'mcp__good__echo', args: { text: 'still here' }, id: 'call' });
    expect(await cli.waitFor((e) => e.type === 'result' && e.id === 'call')).toMatchObject({ ok: true, data: { content: [{ text: 'still here' }] } });
    // Loose: a CLI at rest is ~90 MB; the 16 MiB body is held once while it is counted.
    expect(peakRss(cli.proc.pid!)).toBeLessThan(300 * MiB);
    expect(readyMs).toBeLessThan(15_000);
    expect(await cli.stop()).toBe(0);
  });
});
