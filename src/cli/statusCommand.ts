import type { McpLive } from '../createMcpLive.js';
import { reasonText } from '../model/messages.js';
import type { ServerStatus } from '../model/status.js';

/**
 * `mcp-live status`: connect once, print every server's state, end every process.
 * Exit code 1 when any server is in `error`.
 */
export async function runStatus(live: McpLive, json: boolean, out: NodeJS.WritableStream): Promise<number> {
  try {
    await live.start();
    const servers = live.statusReport();
    if (json) out.write(`${JSON.stringify({ servers: servers.map(statusJson) }, null, 2)}\n`);
    else out.write(formatStatusTable(servers));
    return servers.some((s) => s.state === 'error') ? 1 : 0;
  } finally {
    await live.dispose();
  }
}

function statusJson(s: ServerStatus) {
  return {
    name: s.name,
    scope: s.scope,
    source: s.source,
    state: s.state,
    ...(s.reason ? { reason: s.reason } : {}),
    ...(s.error ? { error: s.error } : {}),
    tools: s.tools.map((t) => t.name),
    prompts: s.prompts.map((p) => p.name),
  };
}

/** One line a server: name, scope, state, counts, and why it is not connected. */
export function formatStatusTable(servers: readonly ServerStatus[]): string {
  if (servers.length === 0) return 'No MCP servers configured.\n';
  const rows = servers.map((s) => [
    s.name,
    s.scope,
    s.state,
    s.state === 'connected' ? `${s.tools.length} tools, ${s.prompts.length} prompts` : '',
    s.reason ? reasonText(s.reason, s.notAllowedBy) : (s.error ?? ''),
  ]);
  return formatTable(['SERVER', 'SCOPE', 'STATE', 'LISTS', 'WHY'], rows);
}

/** Left-aligned columns separated by two spaces. */
export function formatTable(header: string[], rows: string[][]): string {
  const all = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...all.map((r) => (r[i] ?? '').length)));
  return all.map((r) => r.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd()).join('\n') + '\n';
}
