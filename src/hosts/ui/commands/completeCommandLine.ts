import { lspName, serverKind } from '../../../model/serverKeys.js';
import { COMMANDS } from './commands.js';

/** What Tab can complete to. */
export interface CompletionContext {
  /** Server keys: an MCP server's name, a language server's `lsp:NAME`. */
  servers: readonly string[];
  /** Qualified tool names (`mcp__server__tool`). */
  tools: readonly string[];
}

export interface Completion {
  /** The line after Tab. */
  value: string;
  /** Every match, shown when there is more than one (empty when there is none or just one). */
  candidates: readonly string[];
}

/**
 * Tab at the end of `value`: the command name while the first word is typed, then a server name
 * — an MCP server's (`/mcp`, `/tools`), a language server's own (`/lsp`), any server's key
 * (`/reconnect`, `/approve`, `/reject`) — or a qualified tool name (`/call`).
 * One match completes fully (with a space when more may follow); several complete to their
 * longest common prefix and are listed; none leaves the line as it is.
 */
export function completeCommandLine(value: string, ctx: CompletionContext): Completion {
  const space = value.indexOf(' ');
  if (space < 0) {
    const matches = COMMANDS.filter((c) => c.name.startsWith(value === '' ? '/' : value));
    return complete('', value, matches.map((c) => c.name), (name) => {
      const spec = COMMANDS.find((c) => c.name === name);
      return spec !== undefined && spec.arg !== 'none';
    });
  }
  const name = value.slice(0, space);
  const rest = value.slice(space + 1).trimStart();
  const head = `${name} `;
  if (/\s/.test(rest)) return { value, candidates: [] }; // past the argument: nothing to complete
  const spec = COMMANDS.find((c) => c.name === name);
  switch (spec?.arg) {
    case 'server':
      return complete(head, rest, ctx.servers, () => false);
    case 'mcpServer':
      return complete(head, rest, ctx.servers.filter((key) => serverKind(key) === 'mcp'), () => false);
    case 'lspServer':
      return complete(head, rest, ctx.servers.filter((key) => serverKind(key) === 'lsp').map(lspName), () => false);
    case 'tool':
      // The JSON arguments follow the tool name.
      return complete(head, rest, ctx.tools, () => true);
    default:
      return { value, candidates: [] };
  }
}

function complete(
  head: string,
  partial: string,
  names: readonly string[],
  moreFollows: (name: string) => boolean,
): Completion {
  const matches = [...new Set(names.filter((n) => n.startsWith(partial)))].sort();
  const [only] = matches;
  if (matches.length === 0 || only === undefined) return { value: head + partial, candidates: [] };
  if (matches.length === 1) return { value: head + only + (moreFollows(only) ? ' ' : ''), candidates: [] };
  return { value: head + commonPrefix(matches), candidates: matches };
}

function commonPrefix(words: readonly string[]): string {
  let prefix = words[0] ?? '';
  for (const w of words) while (!w.startsWith(prefix)) prefix = prefix.slice(0, -1);
  return prefix;
}
