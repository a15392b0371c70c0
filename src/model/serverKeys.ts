import { hasUnsafeCharacters, terminalSafe } from './terminalText.js';
import type { ServerKind } from './types.js';

/**
 * Language servers live in the same desired state, pipeline and approvals as MCP
 * servers, under a key of their own: `lsp:NAME`. The prefix is the kind (decision 145): an
 * MCP server and a language server of one name never share a key, a status or an approval.
 */
export const LSP_PREFIX = 'lsp:';

/** The kind of a server by its key in the desired state. */
export function serverKind(key: string): ServerKind {
  return key.startsWith(LSP_PREFIX) ? 'lsp' : 'mcp';
}

/** `lsp:NAME` → `NAME` (a key of another kind is returned as it is). */
export function lspName(key: string): string {
  return key.startsWith(LSP_PREFIX) ? key.slice(LSP_PREFIX.length) : key;
}

/** `NAME` → `lsp:NAME`. */
export function lspKey(name: string): string {
  return `${LSP_PREFIX}${name}`;
}

/**
 * Why `name` cannot name an MCP server that `mcp add` (or a host's `session.add`) is asked
 * to add, or undefined when it can (decision 193). Refused are the names the session would not
 * serve as asked: one that begins with `lsp:` is a language server's key, so the assembly leaves
 * the entry out (decision 145); one with whitespace or a control, escape or
 * invisible character could not be typed in `/mcp NAME` or read back as written. Anything else,
 * `__proto__` and `toString` included, is an ordinary key (assembly uses null-prototype records).
 */
export function serverNameProblem(name: string): string | undefined {
  if (name === '') return 'a server needs a name';
  // Quoted and made terminal-safe: the name is what is wrong, so it is shown, never acted on.
  const shown = `"${terminalSafe(name)}"`;
  if (name.startsWith(LSP_PREFIX)) {
    return `${shown} cannot name an MCP server: a name that begins with "${LSP_PREFIX}" is a language server's, and the session would leave the entry out`;
  }
  if (hasUnsafeCharacters(name)) return `${shown} cannot name a server: it contains a control, escape or invisible character`;
  if (/\s/u.test(name)) return `${shown} cannot name a server: it contains whitespace, which /mcp commands cannot name`;
  return undefined;
}
