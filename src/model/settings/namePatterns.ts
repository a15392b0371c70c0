/**
 * Server-name patterns of `mcp.allowed`, `mcp.excluded` and `--allowed-mcp-server-names`
 * (docs/contract.md, "Admission"; decision 5): exact names, plus `*` (any run of characters, also
 * none) and `?` (exactly one character). Nothing else is special — not braces, brackets, `!`, dots
 * or slashes — because server names are free-form keys, not paths. That is why this is a tiny
 * compiler of its own rather than picomatch, whose path semantics (`*` stops at `/`, `{a,b}`,
 * extglobs) would have to be switched off one by one. Matching is case-sensitive, like the names
 * themselves, unless {@link NameMatchOptions.ignoreCase} asks otherwise (`mcp.excluded`: a list
 * that can only deny).
 */

/** How a pattern list matches. */
export interface NameMatchOptions {
  /**
   * Compare case-insensitively: `BLOCKED-*` matches `blocked-server`. Only for lists where
   * matching more can only deny more (`mcp.excluded`); an allow list stays exact, so a case
   * mismatch there denies.
   */
  ignoreCase?: boolean;
}

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
 * One code point's case-folded form, always one code point: lower case of its upper case
 * (`ſ`→`S`→`s`, Kelvin sign → `k`), falling back to plain lower case, or itself where a mapping
 * would yield several code points (`ß`→`SS`, `İ`→`i̇`). Folding code point by code point keeps
 * `?` at exactly one character, and whole-string mappings (a final `ς`) out of the way, so a name
 * that matches a pattern exactly still matches it folded: ignoring case only ever matches more.
 */
function foldCodePoint(char: string): string {
  const single = (s: string): string | undefined => ([...s].length === 1 ? s : undefined);
  const upper = single(char.toUpperCase());
  return (upper === undefined ? undefined : single(upper.toLowerCase())) ?? single(char.toLowerCase()) ?? char;
}

function foldCase(text: string): string {
  let folded = '';
  for (const char of text) folded += foldCodePoint(char);
  return folded;
}

/**
 * A pattern list compiled once, for matching many names: the literal names in a set, the globs
 * as RegExps. A pass over N servers then costs O(N) lookups, not N × (patterns compiled).
 * An empty list matches nothing. With `ignoreCase`, patterns and names are folded alike
 * before the same exact matching, so literals and globs agree on what "same case" means.
 */
export function nameMatcher(patterns: readonly string[], options: NameMatchOptions = {}): (name: string) => boolean {
  const fold = options.ignoreCase === true ? foldCase : (text: string) => text;
  const literals = new Set<string>();
  const globs: RegExp[] = [];
  for (const pattern of patterns) {
    if (isLiteralPattern(pattern)) literals.add(fold(pattern));
    else globs.push(compile(fold(pattern)));
  }
  return (name) => {
    const folded = fold(name);
    return literals.has(folded) || globs.some((glob) => glob.test(folded));
  };
}

/** Whether `name` matches any of `patterns` (an empty list matches nothing). */
export function matchesName(name: string, patterns: readonly string[], options: NameMatchOptions = {}): boolean {
  return nameMatcher(patterns, options)(name);
}
