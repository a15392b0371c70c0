import type { DesiredState, Gating } from './types.js';
import { canonicalJson } from './canonicalJson.js';
import { setsEqual } from './setsEqual.js';

/**
 * Deep equality of two server maps for the reconcile gate (SPEC §8): key order irrelevant at
 * every depth, array order significant, `undefined ≡ {}` at the top level, prototypes ignored
 * (the assembled map has a null prototype). Compared through {@link canonicalJson}, so equal
 * means "would serialise to the same JSON": a member whose value is `undefined` counts as absent.
 */
export function mcpServersEqual(a?: Readonly<Record<string, unknown>>, b?: Readonly<Record<string, unknown>>): boolean {
  if (a === b) return true;
  return canonicalJson(a ?? {}) === canonicalJson(b ?? {});
}

/**
 * Equality of the admission lists (SPEC §8, docs/decisions.md #1): every list compared as a set;
 * `undefined ≡ []` for excluded, pending and rejected; for allowed, absent (allow all) ≠ `[]`
 * (deny all). An absent gating object is `{}`.
 */
export function mcpGatingEqual(a?: Gating, b?: Gating): boolean {
  const left = a ?? {};
  const right = b ?? {};
  if (left.allowed === undefined || right.allowed === undefined) {
    if (left.allowed !== right.allowed) return false;
  } else if (!setsEqual(left.allowed, right.allowed)) {
    return false;
  }
  return (
    setsEqual(left.excluded ?? [], right.excluded ?? []) &&
    setsEqual(left.pending ?? [], right.pending ?? []) &&
    setsEqual(left.rejected ?? [], right.rejected ?? []) &&
    setsEqual(left.sessionDisabled ?? [], right.sessionDisabled ?? []) &&
    setsEqual(left.sessionEnabled ?? [], right.sessionEnabled ?? [])
  );
}

/**
 * The reconcile gate's equality: servers, gating, folder trust (docs/decisions.md #2) and the
 * fail-closed settings error (a file that starts parsing must admit servers).
 */
export function desiredStateEqual(a: DesiredState, b: DesiredState): boolean {
  return a.trusted === b.trusted && a.settingsError === b.settingsError && mcpServersEqual(a.servers, b.servers) && mcpGatingEqual(a.gating, b.gating);
}
