/**
 * The words about server parts of qualified tool names (decision 57): the warning when names
 * collide, and why a call by a name that no longer, or not only, names one tool is refused.
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
