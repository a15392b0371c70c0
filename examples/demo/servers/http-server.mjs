#!/usr/bin/env node
// Demo MCP server over Streamable HTTP on a loopback port (stateless: a fresh server per request),
// in both protocol eras (2025 and 2026-07-28).
// `node http-server.mjs [PORT]` runs it on its own; `mcp-live --demo` starts it in-process on a
// free port and exposes the port as $MCP_LIVE_DEMO_HTTP_PORT, which the demo settings expand.
import { createServer } from 'node:http';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';

function demoServer() {
  const server = new McpServer({ name: 'mcp-live-demo-forecast', version: '1.0.0' });
  server.registerTool('forecast', { description: 'A made-up weather forecast', inputSchema: z.object({ city: z.string() }) }, async ({ city }) => ({
    content: [{ type: 'text', text: `${city}: ${['sunny', 'cloudy', 'light rain'][city.length % 3]}, ${10 + (city.length % 15)} °C` }],
  }));
  return server;
}

/** Starts the demo HTTP server on 127.0.0.1; resolves with its port and a close function. */
export async function startDemoHttpServer(port = 0) {
  const handler = createMcpHandler(demoServer);
  const serve = toNodeHandler(handler);
  const http = createServer((req, res) => {
    if (req.url !== '/mcp') {
      res.writeHead(404).end();
      return;
    }
    void serve(req, res);
  });
  await new Promise((resolve) => http.listen(port, '127.0.0.1', resolve));
  return {
    port: http.address().port,
    close: () => new Promise((resolve) => {
      void handler.close();
      http.closeAllConnections();
      http.close(() => resolve());
    }),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { port } = await startDemoHttpServer(Number(process.argv[2] ?? 0));
  process.stdout.write(`demo forecast server on http://127.0.0.1:${port}/mcp\n`);
}
