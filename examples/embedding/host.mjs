#!/usr/bin/env node
// A host that embeds mcp-live and composes in a settings source of its own: servers from the
// environment variable MCP_LIVE_EXTRA (a JSON `mcpServers` map), next to the usual settings files.
//
//   MCP_LIVE_EXTRA='{"demo":{"command":"node","args":["server.mjs"]}}' node examples/embedding/host.mjs [WORKSPACE]
//
// It waits for the first reconcile pass, lists the tools, calls the first `echo` tool it finds,
// and shuts everything down again.
import { of } from 'rxjs';
import { createMcpLive } from 'mcp-live';

const fromEnv = of(JSON.parse(process.env.MCP_LIVE_EXTRA ?? '{}'));

const live = createMcpLive({
  cwd: process.argv[2] ?? process.cwd(),
  extraSources: [{ scope: 'cli', source: 'env:MCP_LIVE_EXTRA', servers$: fromEnv }],
});

live.events$.subscribe((e) => {
  if (e.type === 'server') console.log(`server ${e.name}: ${e.state}${e.error ? ` (${e.error})` : ''}`);
});

await live.start();
const tools = live.statusReport().flatMap((s) => s.tools.map((t) => t.name));
console.log(`tools: ${tools.join(', ')}`);
const echo = tools.find((t) => t.endsWith('__echo'));
if (echo) console.log(`call ${echo}: ${JSON.stringify(await live.callTool(echo, { text: 'hello from the host' }))}`);
await live.dispose();
