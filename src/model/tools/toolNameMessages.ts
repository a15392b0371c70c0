import { qualifiedFromServerScoped } from './toolNames.js';

/**
 * The words about server parts of qualified tool names (decision 57): the warning when names
 * collide, and why a call by a name that no longer, or not only, names one tool is refused — or
 * names it the way the other side names it (decision 322).
 */

/** `"a"`, `"a" and "b"`, `"a", "b" and "c"`. */
function quotedList(names: readonly string[]): string {
  const quoted = names.map((name) => JSON.stringify(name));
  return quoted.length <= 1 ? quoted.join('') : `${quoted.slice(0, -1).join(', ')} and ${quoted.at(-1)}`;
}

function toolsOf(name: string, part: string | undefined): string {
  return part === undefined ? `"${name}" gets no tools (no unique name left)` : `"${name}" → mcp__${part}__…`;
}

/** The `log` warning for servers that wanted the same server part: names them and their new names. */
export function collisionWarning(group: readonly string[], parts: ReadonlyMap<string, string>): string {
  return (
    `MCP servers ${quotedList(group)} collide as tool-name prefixes, so each gets a suffix of its own: ` +
    group.map((name) => toolsOf(name, parts.get(name))).join(', ')
  );
}

/** A call whose name several servers list (should not happen: parts are unique) is never routed by guess. */
export function ambiguousToolMessage(toolName: string, servers: readonly string[]): string {
  return `Tool "${toolName}" is not available: it names a tool of more than one MCP server (${quotedList(servers)}); refusing to guess.`;
}

/**
 * A name from before a rename: its server part is what these servers sanitise to, but they now
 * have suffixed parts because their names collide (or would run into another server's names).
 */
export function renamedToolMessage(toolName: string, renamed: readonly (readonly [name: string, part: string])[]): string {
  const names = renamed.map(([name]) => name);
  const now = renamed.map(([, part]) => `mcp__${part}__…`).join(' and ');
  return (
    `Tool "${toolName}" is not available: the tools of MCP server${names.length > 1 ? 's' : ''} ${quotedList(names)} ` +
    `are now named ${now} (names that collide once sanitised get a suffix) – call it by its current name.`
  );
}

/**
 * The library's name of a listed tool that `called` names in the gateway's naming (decision 322):
 * `clock__now` (`serve --names server`) is `mcp__clock__now`; `now` (`--names original`) is the
 * tool of that own name when exactly one server lists one. Undefined when `called` is a qualified
 * name itself, or names no listed tool that way.
 */
export function libraryNameOf(called: string, tools: readonly { name: string; tool: string }[]): string | undefined {
  if (called.startsWith('mcp__')) return undefined;
  const qualified = qualifiedFromServerScoped(called);
  if (tools.some((t) => t.name === qualified)) return qualified;
  const own = tools.filter((t) => t.tool === called);
  return own.length === 1 ? own[0]!.name : undefined;
}

/**
 * A call by the gateway's name of a tool in a session, which names it `mcp__<server>__<tool>`
 * (decision 322): the name to use instead.
 */
export function gatewayNamingMessage(called: string, libraryName: string): string {
  return `Tool "${called}" is not available under that name: it is how the gateway (mcp-live serve) names a tool; here it is named "${libraryName}" – call it by that name.`;
}

/**
 * A call through the gateway by another naming of a tool the gateway lists (decision 322) —
 * `mcp__clock__now` where it lists `clock__now`: the name to use instead, and the flag that sets
 * the naming.
 */
export function exposedNamingMessage(called: string, exposed: string, names: string): string {
  return `Tool "${called}" is not available under that name: this gateway (--names ${names}) lists it as "${exposed}" – call it by that name.`;
}
