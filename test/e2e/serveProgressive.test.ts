import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, afterEach, expect, it } from 'vitest';
import { textOf } from '../integration/mcpServers.js';
import { linuxOnly } from '../platforms.js';
import { CLI, Workspace } from './cliSession.js';

/**
 * `mcp-live serve --stdio --progressive` end to end (decision 219): the built CLI as a client's
 * config launches it, the flag passed on to the background gateway and part of its options.
 */

const roots: string[] = [];
let ws: Workspace | undefined;
const clients: Client[] = [];

/** Live (non-zombie) processes whose command line mentions `text`, as serve.test.ts finds them. */
function processesMentioning(text: string): { pid: number; command: string }[] {
  const found: { pid: number; command: string }[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) continue;
      const command = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ');
      if (command.includes(text)) found.push({ pid: Number(entry), command });
    } catch {
      // It ended while we looked.
    }
  }
  return found;
}

const env = (w: Workspace): Record<string, string> => ({ ...(process.env as Record<string, string>), HOME: w.home });

async function cli(w: Workspace, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [CLI, ...args], { env: env(w), timeout: 30_000 });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

async function stdioClient(w: Workspace, extra: string[]): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'serve', '--stdio', '--cwd', w.cwd, '--debounce', '100', ...extra],
    env: env(w),
    stderr: 'pipe',
  });
  const client = new Client({ name: 'serve-progressive-e2e', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return client;
}

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close().catch(() => undefined)));
  if (ws) {
    await cli(ws, ['serve', '--stop', '--cwd', ws.cwd]);
    for (const p of processesMentioning(ws.root)) process.kill(p.pid, 'SIGKILL');
    ws.cleanup();
    ws = undefined;
  }
});

afterAll(() => {
  expect(roots.flatMap((root) => processesMentioning(root))).toEqual([]);
});

linuxOnly('/proc').describe('mcp-live serve --stdio --progressive', () => {
  it('the started gateway lists the three tools and calls through call_tool; a client without the flag is refused by it', async () => {
    const w = new Workspace();
    roots.push(w.root);
    ws = w;
    w.write(w.userSettings, { mcpServers: { a: w.server('a') } });
    const client = await stdioClient(w, ['--progressive']);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['search_tools', 'call_tool', 'describe_tool']);
    const found = await client.callTool({ name: 'search_tools', arguments: { query: 'return the text' } });
    expect((JSON.parse(textOf(found)) as { tools: { name: string }[] }).tools[0]!.name).toBe('a__echo');
    const called = await client.callTool({ name: 'call_tool', arguments: { name: 'a__echo', arguments: { text: 'through the daemon' } } });
    expect(textOf(called)).toBe('through the daemon');
    expect(processesMentioning(w.root).filter((p) => p.command.includes('serve --daemon')).map((p) => p.command)).toEqual([
      expect.stringContaining('--progressive=always') as string,
    ]);

    // Another mode is another gateway's options: the running one says so rather than serve it.
    const plain = await cli(w, ['serve', '--stdio', '--cwd', w.cwd, '--debounce', '100']);
    expect(plain.code).not.toBe(0);
    expect(plain.stderr).toContain('runs with other options than these');
    const auto = await cli(w, ['serve', '--stdio', '--cwd', w.cwd, '--debounce', '100', '--progressive', 'auto']);
    expect(auto.stderr).toContain('runs with other options than these');
  });
});
