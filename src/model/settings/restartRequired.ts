/**
 * The small settings schema of docs/contract.md, "Watching", shaped like Qwen Code's settings
 * schema: each known key says whether a change to it needs a restart. Lookup is by longest prefix,
 * so a leaf entry wins over its parent (`mcp.allowed` is hot although `mcp` is not), an unknown
 * leaf inherits from its nearest known parent (`mcp.foo` → `mcp` → restart), and keys the schema
 * does not know at all are hot.
 */
export interface SettingDefinition {
  requiresRestart: boolean;
  description: string;
}

export const SETTINGS_SCHEMA: Readonly<Record<string, SettingDefinition>> = {
  mcpServers: {
    requiresRestart: false,
    description: 'MCP servers by name; reconciled live, per server.',
  },
  mcp: {
    requiresRestart: true,
    description: 'MCP runtime options; unless listed below, read at start only.',
  },
  'mcp.serverCommand': {
    requiresRestart: true,
    description: 'Command that starts a single MCP server for the session; read at start only.',
  },
  'mcp.allowed': {
    requiresRestart: false,
    description: 'Server names (globs) allowed to connect; applied live.',
  },
  'mcp.excluded': {
    requiresRestart: false,
    description: 'Server names (globs) never connected; applied live.',
  },
};

/** Whether a change of the leaf key `keyPath` (dot-joined) needs a restart. */
export function requiresRestart(keyPath: string): boolean {
  const parts = keyPath.split('.');
  for (let length = parts.length; length > 0; length--) {
    const prefix = parts.slice(0, length).join('.');
    if (Object.hasOwn(SETTINGS_SCHEMA, prefix)) return SETTINGS_SCHEMA[prefix]!.requiresRestart;
  }
  return false;
}

/**
 * Sorts a change by its changed leaf keys. `hot` is false only when there is at least one key
 * and every key needs a restart: then the change must not reconcile and `restartKeys` goes into
 * a `restart-required` event. When `hot` is true, `restartKeys` still lists the keys that need a
 * restart (a caller may mention them), and the change reconciles.
 */
export function classifyChange(changedKeys: readonly string[]): { hot: boolean; restartKeys: string[] } {
  const restartKeys = changedKeys.filter(requiresRestart);
  const hot = changedKeys.length === 0 || restartKeys.length < changedKeys.length;
  return { hot, restartKeys };
}
