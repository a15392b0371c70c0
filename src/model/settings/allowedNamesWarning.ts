import { nameMatcher } from './namePatterns.js';

/**
 * The warning for `--allowed-mcp-server-names` entries that match no configured server (a typo
 * such as `gihtub` would otherwise only show as every server being "not in
 * --allowed-mcp-server-names"). Names only; undefined when every entry matches a server or
 * the flag is not given.
 */
export function allowedNamesWarning(patterns: readonly string[] | undefined, configured: readonly string[]): string | undefined {
  const unmatched = [...new Set(patterns ?? [])].filter((pattern) => !configured.some(nameMatcher([pattern])));
  if (unmatched.length === 0) return undefined;
  const list = unmatched.map((pattern) => JSON.stringify(pattern)).join(', ');
  return `--allowed-mcp-server-names: ${list} ${unmatched.length === 1 ? 'matches' : 'match'} no configured server`;
}
