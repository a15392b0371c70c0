import type { Scope, SourceSnapshot } from '../types.js';
import { isLiteralPattern, nameMatcher } from './namePatterns.js';

/** The admission keys after merging every settings file (docs/contract.md, "Precedence"). */
export interface AdmissionSettings {
  /** Absent = allow all; `[]` = deny all. */
  allowed?: string[];
  excluded: string[];
  /** `lsp.allowed` / `lsp.excluded` merged by the same rules, for language servers (decision 147). */
  lspAllowed?: string[];
  lspExcluded: string[];
  folderTrustEnabled: boolean;
}

/** Settings scopes, the only ones whose `mcp` keys count. */
const SETTINGS_SCOPES: ReadonlySet<Scope> = new Set<Scope>(['user', 'workspace', 'system']);

/**
 * Merges `mcp.allowed`, `mcp.excluded` and `security.folderTrust.enabled` (docs/contract.md, "Precedence").
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
  const mcp = new ListsMerge();
  const lsp = new ListsMerge();
  let userTrust: boolean | undefined;
  let systemTrust: boolean | undefined;

  for (const source of sources) {
    if (!SETTINGS_SCOPES.has(source.scope)) continue;
    mcp.add(source.scope, source.mcp);
    lsp.add(source.scope, source.lsp);
    if (source.folderTrustEnabled !== undefined) {
      if (source.scope === 'user') userTrust = source.folderTrustEnabled;
      else if (source.scope === 'system') systemTrust = source.folderTrustEnabled;
    }
  }

  const merged: AdmissionSettings = {
    excluded: mcp.excluded(),
    lspExcluded: lsp.excluded(),
    folderTrustEnabled: systemTrust ?? userTrust ?? false,
  };
  const allowed = mcp.allowed();
  if (allowed !== undefined) merged.allowed = allowed;
  const lspAllowed = lsp.allowed();
  if (lspAllowed !== undefined) merged.lspAllowed = lspAllowed;
  return merged;
}

/** One kind's `allowed` / `excluded` lists over the settings scopes, by the rules of {@link mergeAdmissionSettings}. */
class ListsMerge {
  private readonly excludedNames = new Set<string>();
  private readonly allowedBy = new Map<Scope, string[] | undefined>();

  add(scope: Scope, lists: { allowed?: readonly string[]; excluded?: readonly string[] } | undefined): void {
    for (const name of lists?.excluded ?? []) this.excludedNames.add(name);
    if (lists?.allowed !== undefined) this.allowedBy.set(scope, narrow(this.allowedBy.get(scope), lists.allowed));
  }

  excluded(): string[] {
    return [...this.excludedNames];
  }

  allowed(): string[] | undefined {
    return this.allowedBy.get('system') ?? narrow(this.allowedBy.get('user'), this.allowedBy.get('workspace'));
  }
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
