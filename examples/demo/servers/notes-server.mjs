#!/usr/bin/env node
// Demo MCP server (stdio): a scratch pad. Tools `add_note`, `list_notes`; prompt `summarize_notes`.
// It speaks both protocol eras (2025 with a handshake, 2026-07-28 without).
import { McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';

const notes = [];
serveStdio(() => {
  const server = new McpServer({ name: 'mcp-live-demo-notes', version: '1.0.0' });
  server.registerTool('add_note', { description: 'Adds a note to the scratch pad', inputSchema: z.object({ text: z.string() }) }, async ({ text }) => {
    notes.push(text);
    return { content: [{ type: 'text', text: `noted (${notes.length} notes)` }] };
  });
  server.registerTool('list_notes', { description: 'Lists every note' }, async () => ({
    content: [{ type: 'text', text: notes.length ? notes.map((n, i) => `${i + 1}. ${n}`).join('\n') : '(no notes yet)' }],
  }));
  server.registerPrompt('summarize_notes', { description: 'Asks for a summary of the notes' }, () => ({
    messages: [{ role: 'user', content: { type: 'text', text: `Summarize:\n${notes.join('\n')}` } }],
  }));
  return server;
});
process.stderr.write('notes server ready\n');
