import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { filter, firstValueFrom } from 'rxjs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runJsonSession } from '../../src/cli/runJsonSession.js';
import { createMcpLive, type McpLive, type ServerStatus } from '../../src/index.js';
import { echoEntry, fixture } from './mcpServers.js';
import { noLeftoversAfterAll } from './workspace.js';

/**
 * `{"cmd":"tools"}` of `--json` (decision 251) over a real session: what the agent is offered —
 * eager and lazy servers' tools, not a pending server's nor a rug-pulled server's withheld ones —
 * with the schemas on request, every server text terminal-safe on the line.
 */

let dir: string;
let live: McpLive | undefined;
let stdin: PassThrough | undefined;
let session: Promise<number> | undefined;
afterEach(async () => {
  stdin?.write('{"cmd":"quit"}\n');
  await session;
  stdin?.end();
  await live?.dispose();
  live = stdin = session = undefined;
  rmSync(dir, { recursive: true, force: true });
});
noLeftoversAfterAll();

interface Listed {
  name: string;
  server: string;
  tool: string;
  description?: string;
  inputSchema?: { properties?: Record<string, unknown> };
  outputSchema?: unknown;
}

function start(userServers: Record<string, unknown>, projectServers?: Record<string, unknown>) {
  dir = mkdtempSync(join(tmpdir(), 'mcp-live-json-tools-'));
  const home = join(dir, 'home');
  const cwd = join(dir, 'project');
  mkdirSync(join(home, '.qwen'), { recursive: true });
  mkdirSync(cwd);
  writeFileSync(join(home, '.qwen', 'settings.json'), JSON.stringify({ mcpServers: userServers }));
  if (projectServers) writeFileSync(join(cwd, '.mcp.json'), JSON.stringify({ mcpServers: projectServers }));
  live = createMcpLive({ homeDir: home, cwd, runtimeDir: join(dir, 'run'), debounceMs: 50 });
  stdin = new PassThrough();
  const stdout = new PassThrough();
  const lines: string[] = [];
  let buffered = '';
  stdout.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    const parts = buffered.split('\n');
    buffered = parts.pop()!;
    lines.push(...parts);
  });
  session = runJsonSession(live, { stdin, stdout });
  let next = 0;
  /** Sends `cmd` with a fresh id; resolves with its result's raw line. */
  const send = async (cmd: Record<string, unknown>): Promise<string> => {
    const id = `c${++next}`;
    stdin!.write(`${JSON.stringify({ ...cmd, id })}\n`);
    let line: string | undefined;
    await vi.waitFor(
      () => {
        line = lines.find((l) => (JSON.parse(l) as { type: string; id?: string }).type === 'result' && l.includes(`"id":"${id}"`));
        expect(line).toBeDefined();
      },
      { timeout: 15_000 },
    );
    return line!;
  };
  const tools = async (extra: Record<string, unknown> = {}): Promise<Listed[]> => {
    const result = JSON.parse(await send({ cmd: 'tools', ...extra })) as { ok: boolean; data: { tools: Listed[] } };
    expect(result.ok).toBe(true);
    return result.data.tools;
  };
  return { live: live, send, tools };
}

function until(l: McpLive, name: string, ok: (s: ServerStatus) => boolean): Promise<ServerStatus> {
  return firstValueFrom(l.servers.list$.pipe(filter((all) => all.some((s) => s.name === name && ok(s))))).then((all) => all.find((s) => s.name === name)!);
}

describe('{"cmd":"tools"}', () => {
  it('lists the qualified names, servers and descriptions of what the agent is offered, a lazy server’s included and a pending one’s not; schemas on request', async () => {
    const s = start({ echo: echoEntry(), sleepy: { ...echoEntry('--tools', 'alpha'), lazy: true } }, { gated: echoEntry('--tools', 'secret') });
    // Asked at once with "wait": "ready": the answer waits for the first pass to end (decision 325).
    const first = await s.tools({ wait: 'ready' });
    expect(first.filter((t) => t.server === 'echo')).toEqual([
      { name: 'mcp__echo__echo', server: 'echo', tool: 'echo', description: 'Returns its text' },
      { name: 'mcp__echo__slow', server: 'echo', tool: 'slow', description: 'Answers after --slow-tool ms (a cancel ends it early, noted on stderr)' },
    ]);
    // The lazy server is learned once, then idle with no process: its tools stay offered.
    await until(s.live, 'sleepy', (st) => st.state === 'idle' && st.tools.length > 0);
    const listed = await s.tools();
    expect(listed.map((t) => t.name).sort()).toEqual(
      ['mcp__echo__echo', 'mcp__echo__slow', 'mcp__sleepy__alpha', 'mcp__sleepy__echo', 'mcp__sleepy__slow'].sort(),
    );
    expect(listed.some((t) => t.server === 'gated')).toBe(false);
    expect(s.live.servers.status().find((st) => st.name === 'gated')).toMatchObject({ reason: 'pending_approval' });
    expect(listed.every((t) => t.inputSchema === undefined)).toBe(true);

    const withSchemas = await s.tools({ schemas: true });
    const echo = withSchemas.find((t) => t.name === 'mcp__echo__echo')!;
    expect(echo.inputSchema?.properties).toEqual({ text: { type: 'string' } });
    expect(withSchemas.map((t) => t.name)).toEqual(listed.map((t) => t.name));

    expect(JSON.parse(await s.send({ cmd: 'tools', schemas: 'yes' }))).toMatchObject({ ok: false, error: '"schemas" must be true or false' });
  });

  it('leaves out the tools withheld after a rug pull, and writes a hostile description terminal-safe', async () => {
    const s = start(
      { hostile: { command: process.execPath, args: [fixture('hostile-text-server.mjs')] } },
      { notes: { command: process.execPath, args: [fixture('rug-pull-server.mjs'), '--pulled-if', join(tmpdir(), 'never-there')] } },
    );
    expect(JSON.parse(await s.send({ cmd: 'approve', server: 'notes', persist: false }))).toMatchObject({ ok: true });
    await until(s.live, 'notes', (st) => st.state === 'connected');
    expect((await s.tools()).filter((t) => t.server === 'notes').map((t) => t.tool)).toEqual(['read_notes', 'rug_pull']);

    await s.send({ cmd: 'call', tool: 'mcp__notes__rug_pull', args: {} });
    await until(s.live, 'notes', (st) => st.withheld !== undefined);
    expect((await s.tools()).filter((t) => t.server === 'notes').map((t) => t.tool)).toEqual(['rug_pull']);

    // The hostile server connects on its own time: its tool is listed once it has (not before).
    await until(s.live, 'hostile', (st) => st.state === 'connected');
    const line = await s.send({ cmd: 'tools' });
    // Nothing of the server's escapes reaches the line raw: ESC, BEL, the 8-bit CSI, the RTL override.
    for (const raw of ['\u001b', '\u0007', '\u009b', '\u202e']) expect(line).not.toContain(raw);
    const ask = (JSON.parse(line) as { data: { tools: Listed[] } }).data.tools.find((t) => t.name === 'mcp__hostile__ask')!;
    // JSON escapes on the line (decision 168), the server's text intact for the program reading it.
    expect(line).toContain('hostile description \\u001b[1A');
    expect(ask.description).toContain('hostile description \u001b[1A');
  });
});
