#!/usr/bin/env node
// Demo MCP server (stdio): tells the time. `--zone NAME` sets the time zone (default UTC), so
// editing its args in settings is a real fingerprint change: watch only this server restart.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const i = process.argv.indexOf('--zone');
const zone = i === -1 ? 'UTC' : process.argv[i + 1];
const server = new McpServer({ name: 'mcp-live-demo-clock', version: '1.0.0' });
server.registerTool('now', { description: `The current time in ${zone}` }, async () => ({
  content: [{ type: 'text', text: new Date().toLocaleString('en-GB', { timeZone: zone, timeZoneName: 'short' }) }],
}));
server.registerTool('echo', { description: 'Returns its text', inputSchema: { text: z.string().optional() } }, async ({ text }) => ({
  content: [{ type: 'text', text: text ?? '' }],
}));
process.stderr.write(`clock server ready (${zone})\n`);
await server.connect(new StdioServerTransport());
