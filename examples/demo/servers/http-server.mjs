#!/usr/bin/env node
// Demo MCP server over Streamable HTTP on a loopback port (stateless: a fresh server per request).
// `node http-server.mjs [PORT]` runs it on its own; `mcp-live --demo` starts it in-process on a
// free port and exposes the port as $MCP_LIVE_DEMO_HTTP_PORT, which the demo settings expand.
import { createServer } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

function demoServer() {
  const server = new McpServer({ name: 'mcp-live-demo-forecast', version: '1.0.0' });
  server.registerTool('forecast', { description: 'A made-up weather forecast', inputSchema: { city: z.string() } }, async ({ city }) => ({
    content: [{ type: 'text', text: `${city}: ${['sunny', 'cloudy', 'light rain'][city.length % 3]}, ${10 + (city.length % 15)} °C` }],
  }));
  return server;
}

/** Starts the demo HTTP server on 127.0.0.1; resolves with its port and a close function. */
export async function startDemoHttpServer(port = 0) {
  const http = createServer(async (req, res) => {
    if (req.url !== '/mcp') {
      res.writeHead(404).end();
      return;
    }
    const server = demoServer();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res);
  });
  await new Promise((resolve) => http.listen(port, '127.0.0.1', resolve));
  return {
    port: http.address().port,
    close: () => new Promise((resolve) => {
      http.closeAllConnections();
      http.close(() => resolve());
    }),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { port } = await startDemoHttpServer(Number(process.argv[2] ?? 0));
  process.stdout.write(`demo forecast server on http://127.0.0.1:${port}/mcp\n`);
}
