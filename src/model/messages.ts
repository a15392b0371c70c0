import type { NotAllowedBy, Reason } from './types.js';

/**
 * A blocked server's reason in words, as the server list shows it (SPEC §9). `not_allowed`
 * names the bound that rejected it (see `admit`); without `notAllowedBy` it names the settings.
 */
export function reasonText(reason: Reason, notAllowedBy?: NotAllowedBy, detail?: string): string {
  switch (reason) {
    case 'settings_error':
      return detail ?? 'your settings do not parse – fix them to connect servers';
    case 'pending_approval':
      return 'needs approval';
    case 'rejected':
      return 'rejected – edit its config to be asked again';
    case 'excluded':
      return 'excluded by mcp.excluded';
    case 'not_allowed':
      return notAllowedBy === 'flag' ? 'not in --allowed-mcp-server-names' : 'not in mcp.allowed';
    case 'untrusted_folder':
      return 'untrusted folder';
    case 'disabled':
      return 'disabled in settings';
    case 'removed':
      return 'removed from settings';
  }
}

/**
 * A blocked server's situation as a sentence predicate, and what the user can do about it
 * (SPEC §9 "Tool not found"). A name outside the flag cannot be fixed by any settings file — the
 * flag is fixed for the life of the process — so that case says to restart with the name in the
 * flag instead of pointing at mcp.allowed.
 */
function blockedSentence(
  reason: Reason,
  notAllowedBy: NotAllowedBy | undefined,
  detail: string | undefined,
): { situation: string; fix: string } {
  switch (reason) {
    case 'settings_error':
      return { situation: 'is blocked', fix: detail ?? 'your settings do not parse – fix them to connect servers' };
    case 'removed':
      return { situation: 'was removed from settings', fix: 'add it back to settings' };
    case 'excluded':
      return { situation: 'is excluded by mcp.excluded', fix: 'remove it from mcp.excluded' };
    case 'not_allowed':
      return notAllowedBy === 'flag'
        ? { situation: 'is not in --allowed-mcp-server-names', fix: 'restart with it in --allowed-mcp-server-names' }
        : { situation: 'is not in mcp.allowed', fix: 'add it to mcp.allowed (within --allowed-mcp-server-names)' };
    case 'pending_approval':
      return { situation: 'needs approval', fix: 'approve it with /mcp' };
    case 'rejected':
      return { situation: 'was rejected', fix: 'edit its config to be asked again' };
    case 'untrusted_folder':
      return { situation: 'is blocked because this folder is not trusted', fix: 'trust this folder' };
    case 'disabled':
      return { situation: 'is disabled in settings', fix: 'set disabled: false' };
  }
}

/**
 * Why a tool call found no tool, naming the server and the fix (SPEC §9). `server` is the server
 * the name points at (undefined when it points at none), `status` what is known about that server
 * (undefined when no such server is configured). A blocked server gets its reason and fix, a
 * failed one its error; a server that is up but lacks the tool is said to lack it.
 */
export function toolNotFoundMessage(
  toolName: string,
  server: string | undefined,
  status: { reason?: Reason; notAllowedBy?: NotAllowedBy; detail?: string; error?: string } | undefined,
): string {
  const head = `Tool "${toolName}" is not available`;
  if (server === undefined) return `${head}: it does not name a tool of any configured MCP server.`;
  if (status === undefined) return `${head}: no MCP server "${server}" is configured.`;
  if (status.reason !== undefined) {
    const { situation, fix } = blockedSentence(status.reason, status.notAllowedBy, status.detail);
    return `${head}: MCP server "${server}" ${situation} – ${fix}.`;
  }
  if (status.error !== undefined) return `${head}: MCP server "${server}" failed: ${status.error}`;
  return `${head}: MCP server "${server}" does not offer it (or it is filtered out by includeTools/excludeTools).`;
}
