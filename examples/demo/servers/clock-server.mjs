#!/usr/bin/env node
// Demo MCP server (stdio): tells the time. `--zone NAME` sets the time zone (default UTC), so
// editing its args in settings is a real fingerprint change: watch only this server restart.
// It speaks both protocol eras (2025 with a handshake, 2026-07-28 without).
import { McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';

const i = process.argv.indexOf('--zone');
const zone = i === -1 ? 'UTC' : process.argv[i + 1];
serveStdio(() => {
  const server = new McpServer({ name: 'mcp-live-demo-clock', version: '1.0.0' });
  server.registerTool('now', { description: `The current time in ${zone}` }, async () => ({
    content: [{ type: 'text', text: new Date().toLocaleString('en-GB', { timeZone: zone, timeZoneName: 'short' }) }],
  }));
  server.registerTool('echo', { description: 'Returns its text', inputSchema: z.object({ text: z.string().optional() }) }, async ({ text }) => ({
    content: [{ type: 'text', text: text ?? '' }],
  }));
  return server;
});
process.stderr.write(`clock server ready (${zone})\n`);
