import type { ViewFields } from '../types.js';
import { sha256Hex } from '../sha256Hex.js';

/** The longest tool name model APIs accept. */
export const MAX_TOOL_NAME_LENGTH = 64;
/**
 * The longest server part of a qualified name. `mcp__` + 40 + `__` is 47 characters, so a long
 * tool name is always cut after the separator and every qualified name keeps its whole server part.
 */
export const MAX_SERVER_PART_LENGTH = 40;

const QUALIFIED_PREFIX = 'mcp__';
const SEPARATOR = '__';
/** `_` + 8 hex characters. */
const HASH_SUFFIX_LENGTH = 9;
/** Hex digits of a server part's suffix, one length per level: longer only when a shorter one is taken. */
const PART_SUFFIX_HEX = [4, 8, 16] as const;

function sanitise(text: string): string {
  return text.replace(/[^A-Za-z0-9_-]/gu, '_');
}

/**
 * Whether a sanitised server name can be its own part. Parts must be *separable*: no qualified
 * name of one server may equal one of another, whatever the tool names. If `mcp__P__t` equalled
 * `mcp__Q__u` for different parts, the shorter, P, would be a prefix of Q and Q would continue
 * with `_` then `_` (Q contains `__`) or end right after that `_` (Q ends with `_`) — so distinct
 * non-empty parts without `__` and not ending with `_` are separable by construction.
 */
function isPlainPart(sanitised: string): boolean {
  return (
    sanitised !== '' &&
    sanitised.length <= MAX_SERVER_PART_LENGTH &&
    !sanitised.includes(SEPARATOR) &&
    !sanitised.endsWith('_')
  );
}

/**
 * A suffixed part: the sanitised name with `_` runs collapsed (no `__`), cut to fit, then `_` and
 * the first `hexDigits` of the hash of the **original** name. Ends with hex, so it is separable.
 */
function suffixedPart(sanitised: string, hash: string, hexDigits: number): string {
  const hex = hash.slice(0, hexDigits);
  const stem = sanitised
    .replace(/_+/g, '_')
    .slice(0, MAX_SERVER_PART_LENGTH - 1 - hex.length)
    .replace(/_+$/, '');
  return stem === '' ? hex : `${stem}_${hex}`;
}

/** The server parts of a set of names, and which names competed for one. */
export interface ServerParts {
  /**
   * Server name → the server part of its qualified tool names. A name missing here could not be
   * given a unique part (equal 64-bit hash prefixes): its tools are withheld, never shared.
   */
  parts: Map<string, string>;
  /** Groups of names (each sorted; sorted) that wanted the same part: what a warning names. */
  collisions: string[][];
}

/**
 * The server part of every name (see {@link serverNameParts}), with the collisions met.
 * `hash` is SHA-256 hex of the original name; a seam for tests only.
 *
 * Level 0 is the sanitised name itself, for a name that is a plain part ({@link isPlainPart});
 * every other name starts at level 1. Then, until no two names want the same part, every name
 * of a shared part moves one level up (a longer hash suffix) — all of them, so none keeps a part
 * another one could also claim; past the last level a name gets no part. Every step treats all names alike, so the result is a
 * function of the set: the order of `names` never matters.
 */
export function resolveServerParts(names: Iterable<string>, hash: (name: string) => string = sha256Hex): ServerParts {
  const unique = [...new Set(names)].sort();
  const sanitised = new Map(unique.map((name) => [name, sanitise(name)]));
  const hashes = new Map<string, string>();
  const hashOf = (name: string): string => {
    let h = hashes.get(name);
    if (h === undefined) hashes.set(name, (h = hash(name)));
    return h;
  };
  const level = new Map(unique.map((name) => [name, isPlainPart(sanitised.get(name)!) ? 0 : 1]));
  const partAt = (name: string): string => {
    const l = level.get(name)!;
    const s = sanitised.get(name)!;
    return l === 0 ? s : suffixedPart(s, hashOf(name), PART_SUFFIX_HEX[l - 1]!);
  };

  const collisions = new Map<string, string[]>();
  const collide = (group: string[]): void => {
    collisions.set(group.join('\0'), group);
  };
  // Also names that never wanted one part (`a__b`, `a..b`: both suffixed from the start) but read alike.
  for (const group of groupBy(unique, (name) => sanitised.get(name)!)) if (group.length > 1) collide(group);

  const active = new Set(unique);
  for (;;) {
    const shared = groupBy(active, partAt).filter((group) => group.length > 1);
    if (shared.length === 0) break;
    for (const group of shared) {
      collide(group);
      for (const name of group) {
        const next = level.get(name)! + 1;
        if (next > PART_SUFFIX_HEX.length) active.delete(name);
        else level.set(name, next);
      }
    }
  }

  const parts = new Map<string, string>();
  for (const name of active) parts.set(name, partAt(name));
  return { parts, collisions: [...collisions.values()].sort(compareGroups) };
}

/** `items` grouped by `key`, each group in the order of `items`. */
function groupBy(items: Iterable<string>, key: (item: string) => string): string[][] {
  const groups = new Map<string, string[]>();
  for (const item of items) {
    const k = key(item);
    const group = groups.get(k);
    if (group === undefined) groups.set(k, [item]);
    else group.push(item);
  }
  return [...groups.values()];
}

function compareGroups(a: readonly string[], b: readonly string[]): number {
  const x = a.join('\0');
  const y = b.join('\0');
  return x < y ? -1 : x > y ? 1 : 0;
}

/**
 * The server part of each qualified tool name, unique across every name given (decision 57):
 * `my_srv` and `my.srv` both sanitise to `my_srv`, so both get a short suffix from the hash of
 * their own name (`my_srv_3f2a`); so does a name whose sanitised form contains `__`, ends with
 * `_` or is longer than {@link MAX_SERVER_PART_LENGTH} (it could otherwise run into another
 * server's names). With these parts, {@link qualifyTools} gives every (server, tool) pair its own
 * name. Independent of the order of `names`.
 */
export function serverNameParts(names: Iterable<string>): Map<string, string> {
  return resolveServerParts(names).parts;
}

/** The part of a server that is the only one: its sanitised name, or suffixed when unsafe alone. */
function lonePart(server: string): string {
  return serverNameParts([server]).get(server)!;
}

/**
 * The name a tool is exposed under (docs/contract.md, "Tool names"): `mcp__<part>__<tool>`, every
 * character of the tool outside `[A-Za-z0-9_-]` replaced by `_` (one `_` per code point), at most
 * 64 characters. `part` comes from {@link serverNameParts} over every configured server; without
 * it, the part the server would have alone. A longer name is cut to 55 characters (always after the
 * server part) and gets `_` + the first 8 hex digits of SHA-256 of the **unsanitised**
 * `server\0tool`, so two long names that share their first 55 characters stay distinct. (Tools that
 * differ only in replaced characters, `a.b` vs `a_b`, collide here; {@link qualifyTools} separates
 * them.)
 */
export function qualifiedToolName(server: string, tool: string, part: string = lonePart(server)): string {
  return boundedToolName(`${QUALIFIED_PREFIX}${part}${SEPARATOR}${tool}`, `${server}\0${tool}`);
}

/** What every exposed tool name matches: the names model APIs accept. */
export const TOOL_NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * `text` as a name model APIs accept (the rule of {@link qualifiedToolName}): every character
 * outside `[A-Za-z0-9_-]` replaced by `_` (one per code point); longer than 64, cut to 55 and
 * `_` + the first 8 hex digits of SHA-256 of `hashOf`, so two long names that share their first
 * 55 characters stay distinct. Deterministic: the same text and `hashOf` give the same name.
 */
export function boundedToolName(text: string, hashOf: string): string {
  const sanitised = sanitise(text);
  if (sanitised.length <= MAX_TOOL_NAME_LENGTH) return sanitised;
  return withSuffix(sanitised, sha256Hex(hashOf).slice(0, HASH_SUFFIX_LENGTH - 1));
}

/**
 * A qualified name without its `mcp__`: `<part>__<tool>`, what the gateway exposes by default
 * (decision 222) — the library's cut, hash and collision suffixes kept, so at most 59
 * characters, and as unique as the qualified names. Undefined for a name without the prefix.
 */
export function serverScopedToolName(qualified: string): string | undefined {
  return qualified.startsWith(QUALIFIED_PREFIX) ? qualified.slice(QUALIFIED_PREFIX.length) : undefined;
}

/** `<part>__<tool>` back to the qualified name it was cut from (see {@link serverScopedToolName}). */
export function qualifiedFromServerScoped(name: string): string {
  return `${QUALIFIED_PREFIX}${name}`;
}

/** `name` cut to leave room for `_` + `suffix` (at most 16 characters: the server part stays whole). */
function withSuffix(name: string, suffix: string): string {
  return `${name.slice(0, MAX_TOOL_NAME_LENGTH - 1 - suffix.length)}_${suffix}`;
}

/**
 * Inverse of the split of {@link qualifiedToolName}: after `mcp__`, the server part ends at the
 * first `__` (a part never contains `__`). The part is not the server name as written — look the
 * qualified name up in the registry first and use this only for messages about tools that are not there.
 */
export function parseQualifiedToolName(q: string): { server: string; tool: string } | undefined {
  if (!q.startsWith(QUALIFIED_PREFIX)) return undefined;
  const rest = q.slice(QUALIFIED_PREFIX.length);
  const split = rest.indexOf(SEPARATOR);
  if (split <= 0 || split + SEPARATOR.length >= rest.length) return undefined;
  return { server: rest.slice(0, split), tool: rest.slice(split + SEPARATOR.length) };
}

/** Whether `part` is what a name sanitises to: how a pre-suffix (stale) qualified name pointed at it. */
export function sanitisesTo(name: string, part: string): boolean {
  return sanitise(name) === part;
}

/**
 * The tool names a list of `includeTools` / `excludeTools` entries names. An entry names a tool
 * by its exact name, or as `name(...)` (`"three()"`, `"four(args)"`): the peers' rule (Gemini CLI
 * and Qwen Code `isEnabled`: `entry === name || entry.startsWith(name + "(")`), so every prefix
 * of an entry that a `(` follows is a name too. No globs.
 */
function namedTools(entries: readonly string[]): Set<string> {
  const names = new Set<string>();
  for (const entry of entries) {
    names.add(entry);
    for (let i = entry.indexOf('('); i !== -1; i = entry.indexOf('(', i + 1)) names.add(entry.slice(0, i));
  }
  return names;
}

/**
 * The tools a server shows after its view fields: `includeTools`, when set, keeps only the tools
 * it names (`[]` keeps none); `excludeTools` removes the tools it names and wins over include.
 * Both lists name tools alike ({@link namedTools}): the peers accept `name(...)` in
 * `includeTools` only, but an exclusion written that way means the same tool, and excluding what
 * the user named is the safe reading.
 */
export function filterTools<T extends { readonly name: string }>(tools: readonly T[], view: ViewFields): T[] {
  const include = view.includeTools === undefined ? undefined : namedTools(view.includeTools);
  const exclude = namedTools(view.excludeTools ?? []);
  return tools.filter((tool) => (include === undefined || include.has(tool.name)) && !exclude.has(tool.name));
}

/**
 * Qualified names for every tool of one server, unique within it: a name already taken (tools
 * that differ only in replaced characters, `a.b` and `a_b`, or a server listing a name twice)
 * gets the hash suffix of {@link qualifiedToolName}'s long form, then a counter after it should
 * that be taken too — so every tool stays callable under a stable name. With parts from
 * {@link serverNameParts}, names are unique across servers as well.
 */
export function qualifyTools(server: string, tools: readonly string[], part: string = lonePart(server)): string[] {
  const taken = new Set<string>();
  return tools.map((tool) => {
    const base = qualifiedToolName(server, tool, part);
    const hash = sha256Hex(`${server}\0${tool}`).slice(0, HASH_SUFFIX_LENGTH - 1);
    let name = base;
    for (let n = 1; taken.has(name); n++) name = withSuffix(base, n === 1 ? hash : `${hash}${n}`);
    taken.add(name);
    return name;
  });
}
