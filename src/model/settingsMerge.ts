import type { Scope, SourceSnapshot } from './types.js';
import { isLiteralPattern, nameMatcher } from './namePatterns.js';

/** The admission keys after merging every settings file (SPEC §2). */
export interface AdmissionSettings {
  /** Absent = allow all; `[]` = deny all. */
  allowed?: string[];
  excluded: string[];
  folderTrustEnabled: boolean;
}

/** Settings scopes, the only ones whose `mcp` keys count. */
const SETTINGS_SCOPES: ReadonlySet<Scope> = new Set<Scope>(['user', 'workspace', 'system']);

/**
 * Merges `mcp.allowed`, `mcp.excluded` and `security.folderTrust.enabled` (SPEC §2, §4).
 * Below system the keys are **tighten-only**, because a workspace file arrives with a cloned
 * repository and must not open what the user closed:
 *
 * - `excluded`: the union of the user, workspace and system lists (a workspace can add, never remove).
 * - `allowed`: the user's list; a workspace list narrows it ({@link intersectAllowed}), or narrows
 *   allow-all when the user has none; a system list, set by an administrator, wins outright.
 * - `folderTrustEnabled`: from user or system settings only (system wins when set) — a workspace
 *   must not be able to switch off the check that guards it. Default `false`.
 *
 * Sources of other scopes are ignored. Several sources of one scope apply in the order given.
 */
export function mergeAdmissionSettings(sources: readonly SourceSnapshot[]): AdmissionSettings {
  const excluded = new Set<string>();
  let userAllowed: string[] | undefined;
  let workspaceAllowed: string[] | undefined;
  let systemAllowed: string[] | undefined;
  let userTrust: boolean | undefined;
  let systemTrust: boolean | undefined;

  for (const source of sources) {
    if (!SETTINGS_SCOPES.has(source.scope)) continue;
    const mcp = source.mcp;
    for (const name of mcp?.excluded ?? []) excluded.add(name);
    const allowed = mcp?.allowed;
    if (allowed !== undefined) {
      if (source.scope === 'user') userAllowed = narrow(userAllowed, allowed);
      else if (source.scope === 'workspace') workspaceAllowed = narrow(workspaceAllowed, allowed);
      else systemAllowed = narrow(systemAllowed, allowed);
    }
    if (source.folderTrustEnabled !== undefined) {
      if (source.scope === 'user') userTrust = source.folderTrustEnabled;
      else if (source.scope === 'system') systemTrust = source.folderTrustEnabled;
    }
  }

  const allowed = systemAllowed ?? narrow(userAllowed, workspaceAllowed);
  const merged: AdmissionSettings = {
    excluded: [...excluded],
    folderTrustEnabled: systemTrust ?? userTrust ?? false,
  };
  if (allowed !== undefined) merged.allowed = allowed;
  return merged;
}

/** `undefined` is allow-all, so it is the identity of narrowing. */
function narrow(bound: readonly string[] | undefined, next: readonly string[] | undefined): string[] | undefined {
  if (bound === undefined) return next === undefined ? undefined : [...new Set(next)];
  if (next === undefined) return [...new Set(bound)];
  return intersectAllowed(bound, next);
}

/**
 * A pattern list that matches no name outside either input (never widens). Kept: a pattern
 * written identically in both lists, and a literal name of one list that the other list matches
 * — so a workspace's `["github"]` inside a user's `["git*"]` keeps `github`, and a user's `["*"]`
 * narrowed by a workspace's `["a", "b"]` gives `["a", "b"]`. Two different globs (`a*` vs `*b`)
 * are dropped: their exact intersection is not always expressible as a list, and dropping errs
 * on the side of denying. Order: the first list's survivors, then the second's, without duplicates.
 */
export function intersectAllowed(first: readonly string[], second: readonly string[]): string[] {
  const kept = new Set<string>();
  const keepFrom = (list: readonly string[], other: readonly string[]): void => {
    const written = new Set(other);
    const matches = nameMatcher(other);
    for (const pattern of list) {
      if (written.has(pattern) || (isLiteralPattern(pattern) && matches(pattern))) kept.add(pattern);
    }
  };
  keepFrom(first, second);
  keepFrom(second, first);
  return [...kept];
}
