import type { McpLive } from '../createMcpLive.js';
import { reasonText } from '../model/messages.js';
import { createTextMasker, maskingReplacer, type Environment } from '../model/secrets.js';
import type { ServerStatus } from '../model/status.js';

/**
 * `mcp-live status`: connect once, print every server's state, end every process.
 * Exit code 1 when any server is in `error` or `needs_auth` (it cannot be used until the user
 * authorizes it: `mcp-live auth NAME`), or when a user or system settings file does not
 * parse (every server is then blocked, and the error is printed).
 */
export async function runStatus(
  live: McpLive,
  json: boolean,
  out: NodeJS.WritableStream,
  env: Environment = process.env,
): Promise<number> {
  // Everything printed passes the session-wide secret net (issue 11): errors quote what servers said.
  const mask = createTextMasker(env);
  // Broken files are reported before the first pass: collect them from the start, and the
  // warnings (an --allowed-mcp-server-names entry that matches no server, a reaped leftover…).
  const problems: string[] = [];
  const warnings: string[] = [];
  const notices = live.events$.subscribe((e) => {
    if (e.type === 'settings-error') problems.push(e.error);
    else if (e.type === 'log' && e.level === 'warn') warnings.push(e.message);
  });
  try {
    await live.start();
    const servers = live.statusReport();
    // Fail closed (issue 11): a user or system settings file that never parsed blocks everything.
    const blockedBy = live.settingsError();
    if (json) {
      const report = { ...(blockedBy === undefined ? {} : { settingsError: blockedBy }), settingsErrors: problems, warnings, servers: servers.map(statusJson) };
      out.write(`${JSON.stringify(report, maskingReplacer(mask), 2)}\n`);
    } else {
      if (blockedBy !== undefined) out.write(mask(`✖ ${blockedBy}\n`));
      for (const problem of [...problems, ...warnings]) out.write(mask(`! ${problem}\n`));
      out.write(mask(formatStatusTable(servers)));
      out.write(mask(formatWarnings(servers)));
    }
    return blockedBy !== undefined || servers.some((s) => s.state === 'error' || s.state === 'needs_auth') ? 1 : 0;
  } finally {
    notices.unsubscribe();
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
    ...(s.detail ? { detail: s.detail } : {}),
    ...(s.error ? { error: s.error } : {}),
    ...(s.warnings ? { warnings: s.warnings } : {}),
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
    s.reason ? reasonText(s.reason, s.notAllowedBy, s.detail) : (s.error ?? ''),
  ]);
  return formatTable(['SERVER', 'SCOPE', 'STATE', 'LISTS', 'WHY'], rows);
}

/** `! NAME: warning`, one line each, for the servers that have warnings ("GITHUB_PAT is not set"). */
export function formatWarnings(servers: readonly { name: string; warnings?: readonly string[] }[]): string {
  return servers.flatMap((s) => (s.warnings ?? []).map((w) => `! ${s.name}: ${w}\n`)).join('');
}

/** Left-aligned columns separated by two spaces. */
export function formatTable(header: string[], rows: string[][]): string {
  const all = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...all.map((r) => (r[i] ?? '').length)));
  return all.map((r) => r.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd()).join('\n') + '\n';
}
