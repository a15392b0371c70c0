import type { McpLive } from '../live/types.js';
import { lspName, serverKind } from '../model/serverKeys.js';
import { idleText, plural, reasonTextForShell } from '../model/report/messages.js';
import { createTextMasker, maskingReplacer, type Environment } from '../model/settings/secrets.js';
import type { ServerStatus } from '../model/report/status.js';
import { terminalSafe } from '../model/terminalText.js';
import { terminalWriter, writeJson } from './terminalWriter.js';

/**
 * `mcp-live status`: connect once, print every server's state, end every process.
 * Exit code 1 when any server is in `error` or `needs_auth` (it cannot be used until the user
 * authorizes it: `mcp-live auth NAME`), or when a user or system settings file does not
 * parse (every server is then blocked, and the error is printed). An `idle` server (decision
 * 196) is healthy: listed, callable, no process until it is used.
 */
export async function runStatus(
  live: McpLive,
  json: boolean,
  out: NodeJS.WritableStream,
  env: Environment = process.env,
): Promise<number> {
  // Everything printed passes the session-wide secret net (decision 55): errors quote what servers said.
  const mask = createTextMasker(env);
  // Broken files are reported before the first pass: collect them from the start, and the
  // warnings (an --allowed-mcp-server-names entry that matches no server, a reaped leftover…).
  const problems: string[] = [];
  const warnings: string[] = [];
  const notices = live.events$.subscribe((e) => {
    if (e.type === 'settings-error') problems.push(e.error);
    else if (e.type === 'log' && e.level === 'warn') warnings.push(e.message);
  });
  // SIGINT/SIGTERM end the command as its end does, every server closed (decision 175); `on`,
  // not `once`: signal-exit would re-raise a signal that has no listener left.
  let interrupt!: (code: number) => void;
  const interrupted = new Promise<number>((resolve) => (interrupt = resolve));
  const onSignal = (signal: NodeJS.Signals): void => interrupt(signal === 'SIGINT' ? 130 : 143);
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const signalled = await Promise.race([live.start().then(() => undefined), interrupted]);
    if (signalled !== undefined) return signalled;
    const servers = live.servers.status();
    // Fail closed (decision 51): a user or system settings file that never parsed blocks everything.
    const blockedBy = live.settingsError();
    if (json) {
      const report = { ...(blockedBy === undefined ? {} : { settingsError: blockedBy }), settingsErrors: problems, warnings, servers: servers.map(statusJson) };
      writeJson(out, report, maskingReplacer(mask), 2);
    } else {
      // Terminal-safe (decision 164): errors and server names are a file's or a server's text.
      const write = terminalWriter(out);
      if (blockedBy !== undefined) write(mask(`✖ ${blockedBy}\n`));
      for (const problem of [...problems, ...warnings]) write(mask(`! ${problem}\n`));
      // Masked before they are escaped: an escape must never split a secret the net would find.
      write(formatStatusTable(servers, mask));
      write(formatWarnings(servers, mask));
    }
    return blockedBy !== undefined || servers.some((s) => s.state === 'error' || s.state === 'needs_auth') ? 1 : 0;
  } finally {
    notices.unsubscribe();
    await live.dispose();
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
  }
}

function statusJson(s: ServerStatus) {
  return {
    name: s.name,
    kind: serverKind(s.name),
    scope: s.scope,
    source: s.source,
    state: s.state,
    ...(s.reason ? { reason: s.reason } : {}),
    ...(s.detail ? { detail: s.detail } : {}),
    ...(s.error ? { error: s.error } : {}),
    ...(s.protocolVersion ? { protocolVersion: s.protocolVersion, era: s.era } : {}),
    ...(s.idle ? { idle: s.idle } : {}),
    ...(s.idleTimeoutMs !== undefined ? { idleTimeoutMs: s.idleTimeoutMs } : {}),
    ...(s.withheld ? { withheld: s.withheld } : {}),
    ...(s.warnings ? { warnings: s.warnings } : {}),
    ...(s.languages ? { languages: s.languages } : {}),
    ...(s.capabilities ? { capabilities: s.capabilities } : {}),
    tools: s.tools.map((t) => t.name),
    prompts: s.prompts.map((p) => p.name),
  };
}

/**
 * One line a server: name, scope, state, the MCP revision it speaks while connected, counts (a language server's languages and capability
 * count), and why it is not connected. An idle server (decision 196) has its counts, its tools
 * being listed, and why it has no process; a server whose changed tools are withheld (decision
 * 197) says how many. Language servers come in a section of their own after the MCP servers, by
 * their own names, as in the interactive list.
 */
export function formatStatusTable(servers: readonly ServerStatus[], mask: (text: string) => string = same): string {
  const { mcp, lsp } = byKind(servers);
  const why = (s: ServerStatus) =>
    s.reason ? reasonTextForShell(s.name, s.reason, s.notAllowedBy, s.detail, serverKind(s.name)) : s.state === 'idle' ? idleText(s) : (s.error ?? '');
  const withheld = (s: ServerStatus) => (s.withheld !== undefined && s.withheld.length > 0 ? `, ${s.withheld.length} withheld` : '');
  const mcpRows = mcp.map((s) => [
    s.name,
    s.scope,
    s.state,
    s.protocolVersion ?? '',
    s.state === 'connected' || s.state === 'idle' ? `${plural(s.tools.length, 'tool')}, ${plural(s.prompts.length, 'prompt')}${withheld(s)}` : '',
    [why(s), withheld(s) === '' ? '' : 'withheld tools changed since approval (review them in an interactive session)'].filter((w) => w !== '').join('; '),
  ]);
  const lspRows = lsp.map((s) => [
    lspName(s.name),
    s.scope,
    s.state,
    (s.languages ?? []).join(', '),
    s.state === 'connected' ? String(s.capabilities?.length ?? 0) : '',
    why(s),
  ]);
  return (
    (mcp.length === 0 ? 'No MCP servers configured.\n' : formatTable(['SERVER', 'SCOPE', 'STATE', 'PROTOCOL', 'LISTS', 'WHY'], mcpRows, mask)) +
    languageSection(['SERVER', 'SCOPE', 'STATE', 'LANGUAGES', 'CAPABILITIES', 'WHY'], lspRows, mask)
  );
}

/** Servers split by the kind of their key, each part in the order given. */
export function byKind<T extends { name: string }>(servers: readonly T[]): { mcp: T[]; lsp: T[] } {
  return { mcp: servers.filter((s) => serverKind(s.name) === 'mcp'), lsp: servers.filter((s) => serverKind(s.name) === 'lsp') };
}

/**
 * The language servers' table under its title, after a blank line; nothing when there are none.
 * Rows name them by their own names, so the title says how a command names them.
 */
export function languageSection(header: string[], rows: string[][], mask: (text: string) => string = same): string {
  return rows.length === 0 ? '' : `\nLanguage servers (lsp:NAME in commands):\n${formatTable(header, rows, mask)}`;
}

/** `! NAME: warning`, one line each, for the servers that have warnings ("GITHUB_PAT is not set"). */
export function formatWarnings(servers: readonly { name: string; warnings?: readonly string[] }[], mask: (text: string) => string = same): string {
  return servers.flatMap((s) => (s.warnings ?? []).map((w) => `! ${terminalSafe(mask(s.name))}: ${terminalSafe(mask(w))}\n`)).join('');
}

/**
 * Left-aligned columns separated by two spaces. A cell is one line of a name, a path, an error:
 * it is rendered terminal-safe with its `\n` shown (decision 164), so no cell can move the
 * cursor, erase a line or start a row of its own — and the columns are measured on what shows.
 * `mask` (the secret net) runs on each cell first: an escape must never split a secret.
 */
export function formatTable(header: string[], rows: string[][], mask: (text: string) => string = same): string {
  return alignColumns([header, ...rows.map((row) => row.map((cell) => terminalSafe(mask(cell))))]);
}

/** Rows of cells already masked and terminal-safe, each column padded to its widest cell, two spaces apart. */
export function alignColumns(rows: readonly (readonly string[])[]): string {
  if (rows.length === 0) return '';
  // A fold, not Math.max(...cells): a spread of 100,000 arguments overflows the stack.
  const columns = rows.reduce((n, r) => Math.max(n, r.length), 0);
  const widths = Array.from({ length: columns }, (_, i) => rows.reduce((width, r) => Math.max(width, (r[i] ?? '').length), 0));
  return rows.map((r) => r.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd()).join('\n') + '\n';
}

function same(text: string): string {
  return text;
}
