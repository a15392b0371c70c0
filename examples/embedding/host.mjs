#!/usr/bin/env node
// A host that embeds mcp-live and composes in a settings source of its own: servers from the
// environment variable MCP_LIVE_EXTRA (a JSON `mcpServers` map), next to the usual settings files.
//
//   node node_modules/mcp-live/examples/embedding/host.mjs [WORKSPACE]
//   MCP_LIVE_EXTRA='{"mine":{"command":"node","args":["server.mjs"]}}' node …/host.mjs [WORKSPACE]
//
// Without MCP_LIVE_EXTRA it runs the demo's clock server, which ships with the package.
// It waits for the first reconcile pass, lists the tools, calls the first `echo` tool it finds,
// and shuts everything down again.
import { fileURLToPath } from 'node:url';
import { of } from 'rxjs';
import { createMcpLive } from 'mcp-live';

const clock = { command: process.execPath, args: [fileURLToPath(new URL('../demo/servers/clock-server.mjs', import.meta.url))] };
const fromEnv = of(process.env.MCP_LIVE_EXTRA ? JSON.parse(process.env.MCP_LIVE_EXTRA) : { demo: clock });

const live = createMcpLive({
  cwd: process.argv[2] ?? process.cwd(),
  extraSources: [{ scope: 'cli', source: 'env:MCP_LIVE_EXTRA', servers$: fromEnv }],
});

live.events$.subscribe((e) => {
  if (e.type === 'server') console.log(`server ${e.name}: ${e.state}${e.error ? ` (${e.error})` : ''}`);
});

await live.start();
const tools = live.servers.status().flatMap((s) => s.tools.map((t) => t.name));
console.log(`tools: ${tools.join(', ')}`);
const echo = tools.find((t) => t.endsWith('__echo'));
if (echo) console.log(`call ${echo}: ${JSON.stringify(await live.tools.call(echo, { text: 'hello from the host' }))}`);
await live.dispose();
