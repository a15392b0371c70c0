import { afterAll, expect, it } from 'vitest';
import { textOf } from '../integration/mcpServers.js';
import { linuxOnly } from '../platforms.js';
import { processesMentioning, runCli } from './cliSession.js';
import { gatewayRoots, gatewayWorkspace, stdioClient } from './serveKit.js';

/**
 * `mcp-live serve --stdio --progressive` end to end (decision 219): the built CLI as a client's
 * config launches it, the flag passed on to the background gateway and part of its options.
 */

afterAll(() => {
  expect(gatewayRoots.flatMap((root) => processesMentioning(root))).toEqual([]);
});

linuxOnly('/proc').describe('mcp-live serve --stdio --progressive', () => {
  it('the started gateway lists the three tools and calls through call_tool; a client without the flag is refused by it', async ({ onTestFinished }) => {
    const w = gatewayWorkspace(onTestFinished);
    w.write(w.userSettings, { mcpServers: { a: w.server('a') } });
    const { client } = await stdioClient(w, ['--progressive'], 'serve-progressive-e2e');
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['search_tools', 'call_tool', 'describe_tool']);
    const found = await client.callTool({ name: 'search_tools', arguments: { query: 'return the text' } });
    expect((JSON.parse(textOf(found)) as { tools: { name: string }[] }).tools[0]!.name).toBe('a__echo');
    const called = await client.callTool({ name: 'call_tool', arguments: { name: 'a__echo', arguments: { text: 'through the daemon' } } });
    expect(textOf(called)).toBe('through the daemon');
    expect(processesMentioning(w.root).filter((p) => p.command.includes('serve --daemon')).map((p) => p.command)).toEqual([
      expect.stringContaining('--progressive=always') as string,
    ]);

    // Another mode is another gateway's options: the running one says so rather than serve it.
    const [plain, auto] = await Promise.all([
      runCli(w, ['serve', '--stdio', '--cwd', w.cwd, '--debounce', '100']),
      runCli(w, ['serve', '--stdio', '--cwd', w.cwd, '--debounce', '100', '--progressive', 'auto']),
    ]);
    expect(plain.code).not.toBe(0);
    expect(plain.stderr).toContain('runs with other options than these');
    expect(auto.stderr).toContain('runs with other options than these');
  });
});
