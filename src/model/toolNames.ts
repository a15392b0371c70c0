import type { ViewFields } from './types.js';
import { sha256Hex } from './sha256Hex.js';

/** The longest tool name model APIs accept. */
export const MAX_TOOL_NAME_LENGTH = 64;

const QUALIFIED_PREFIX = 'mcp__';
const SEPARATOR = '__';
/** `_` + 8 hex characters. */
const HASH_SUFFIX_LENGTH = 9;

/**
 * The name a tool is exposed under (SPEC §6): `mcp__<server>__<tool>`, every character outside
 * `[A-Za-z0-9_-]` replaced by `_` (one `_` per code point), at most 64 characters. A longer name
 * is cut to 55 characters and gets `_` + the first 8 hex digits of SHA-256 of the **unsanitised**
 * `server\0tool`, so two long names that share their first 55 characters stay distinct.
 * (Short names that differ only in replaced characters, `a.b` vs `a_b`, collide here;
 * {@link qualifyTools} makes them unique within a server.)
 */
export function qualifiedToolName(server: string, tool: string): string {
  const sanitised = `${QUALIFIED_PREFIX}${server}${SEPARATOR}${tool}`.replace(/[^A-Za-z0-9_-]/gu, '_');
  if (sanitised.length <= MAX_TOOL_NAME_LENGTH) return sanitised;
  const hash = sha256Hex(`${server}\0${tool}`).slice(0, HASH_SUFFIX_LENGTH - 1);
  return `${sanitised.slice(0, MAX_TOOL_NAME_LENGTH - HASH_SUFFIX_LENGTH)}_${hash}`;
}

/**
 * Best-effort inverse of {@link qualifiedToolName}: splits after `mcp__` on the first `__`.
 * A server name that itself contains `__`, or any name that was sanitised or shortened, does not
 * come back as written — look the qualified name up in the registry first and use this only
 * for messages about tools that are not there.
 */
export function parseQualifiedToolName(q: string): { server: string; tool: string } | undefined {
  if (!q.startsWith(QUALIFIED_PREFIX)) return undefined;
  const rest = q.slice(QUALIFIED_PREFIX.length);
  const split = rest.indexOf(SEPARATOR);
  if (split <= 0 || split + SEPARATOR.length >= rest.length) return undefined;
  return { server: rest.slice(0, split), tool: rest.slice(split + SEPARATOR.length) };
}

/**
 * The tools a server shows after its view fields: `includeTools`, when set, keeps only the listed
 * names (`[]` keeps none); `excludeTools` removes names and wins over include. Exact names, no globs.
 */
export function filterTools<T extends { readonly name: string }>(tools: readonly T[], view: ViewFields): T[] {
  const include = view.includeTools === undefined ? undefined : new Set(view.includeTools);
  const exclude = new Set(view.excludeTools ?? []);
  return tools.filter((tool) => (include === undefined || include.has(tool.name)) && !exclude.has(tool.name));
}

/**
 * Qualified names for every tool of one server, unique within it: a name already taken (short
 * names that differ only in replaced characters, `a.b` and `a_b`) gets the hash suffix of
 * {@link qualifiedToolName}'s long form, so every tool stays callable under a stable name.
 */
export function qualifyTools(server: string, tools: readonly string[]): string[] {
  const taken = new Set<string>();
  return tools.map((tool) => {
    let name = qualifiedToolName(server, tool);
    if (taken.has(name)) {
      const hash = sha256Hex(`${server}\0${tool}`).slice(0, HASH_SUFFIX_LENGTH - 1);
      name = `${name.slice(0, MAX_TOOL_NAME_LENGTH - HASH_SUFFIX_LENGTH)}_${hash}`;
    }
    taken.add(name);
    return name;
  });
}
