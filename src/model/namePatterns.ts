/**
 * Server-name patterns of `mcp.allowed`, `mcp.excluded` and `--allowed-mcp-server-names`
 * (SPEC §4): exact names, plus `*` (any run of characters, also none) and `?` (exactly one
 * character). Nothing else is special — not braces, brackets, `!`, dots or slashes — because
 * server names are free-form keys, not paths. That is why this is a tiny compiler of its own
 * rather than picomatch, whose path semantics (`*` stops at `/`, `{a,b}`, extglobs) would have
 * to be switched off one by one. Matching is case-sensitive, like the names themselves.
 */

/**
 * RegExp syntax characters (plus `/`): exactly the set that may be escaped in a `u` RegExp.
 * `*` and `?` never get here.
 */
const REGEXP_SYNTAX = /[\\^$.|+()[\]{}/]/g;

function compile(pattern: string): RegExp {
  let source = '';
  for (const char of pattern) {
    if (char === '*') source += '[\\s\\S]*';
    else if (char === '?') source += '[\\s\\S]';
    else source += char.replace(REGEXP_SYNTAX, '\\$&');
  }
  // `u`: `?` is one code point, so an emoji is one character like any other.
  return new RegExp(`^${source}$`, 'u');
}

/** Whether a glob-free pattern list entry names exactly one server. */
export function isLiteralPattern(pattern: string): boolean {
  return !pattern.includes('*') && !pattern.includes('?');
}

/**
 * A pattern list compiled once, for matching many names: the literal names in a set, the globs
 * as RegExps. A pass over N servers then costs O(N) lookups, not N × (patterns compiled).
 * An empty list matches nothing.
 */
export function nameMatcher(patterns: readonly string[]): (name: string) => boolean {
  const literals = new Set<string>();
  const globs: RegExp[] = [];
  for (const pattern of patterns) {
    if (isLiteralPattern(pattern)) literals.add(pattern);
    else globs.push(compile(pattern));
  }
  return (name) => literals.has(name) || globs.some((glob) => glob.test(name));
}

/** Whether `name` matches any of `patterns` (an empty list matches nothing). */
export function matchesName(name: string, patterns: readonly string[]): boolean {
  return nameMatcher(patterns)(name);
}
