import type { DesiredState, Gating, LaunchHold } from '../types.js';
import { canonicalJson } from '../canonicalJson.js';
import { changedBetween } from './recordLineage.js';
import { setsEqual } from '../setsEqual.js';

/**
 * Deep equality of two server maps for the reconcile gate (docs/contract.md, "Passes"): key order
 * irrelevant at every depth, array order significant, `undefined ≡ {}` at the top level, prototypes
 * ignored (the assembled map has a null prototype). Compared through {@link canonicalJson}, so
 * equal means "would serialise to the same JSON": a member whose value is `undefined` counts as
 * absent.
 */
export function mcpServersEqual(a?: Readonly<Record<string, unknown>>, b?: Readonly<Record<string, unknown>>): boolean {
  // One made from the other (the incremental desired state): only the members it changed can differ.
  const changed = a !== undefined && b !== undefined && a !== b ? (changedBetween(a, b) ?? changedBetween(b, a)) : undefined;
  if (changed !== undefined) return [...changed].every((key) => membersEqual(memberOf(a!, key), memberOf(b!, key)));
  return canonicallyEqual(a ?? {}, b ?? {});
}

function memberOf(record: Readonly<Record<string, unknown>>, key: string): unknown {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

/**
 * `canonicalJson(a) === canonicalJson(b)`, without serialising what is the same object on both
 * sides: objects are compared member by member (a member that serialises to nothing — undefined,
 * a function — counts as absent), anything else by its canonical JSON. An edit of one server
 * among 10,000 then serialises that one server, not all of them twice (decision 102).
 */
function canonicallyEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (!isRecord(a) || !isRecord(b)) return canonicalJson(a) === canonicalJson(b);
  for (const key of Object.keys(a)) {
    const other = Object.hasOwn(b, key) ? b[key] : undefined;
    if (!membersEqual(a[key], other)) return false;
  }
  return Object.keys(b).every((key) => Object.hasOwn(a, key) || !serialises(b[key]));
}

function membersEqual(a: unknown, b: unknown): boolean {
  if (!serialises(a) || !serialises(b)) return serialises(a) === serialises(b);
  return canonicallyEqual(a, b);
}

/** Whether a member with this value is written at all (see {@link canonicalJson}). */
function serialises(value: unknown): boolean {
  return value !== undefined && typeof value !== 'function' && typeof value !== 'symbol';
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * Equality of the admission lists (docs/contract.md, "Passes"; decision 1): every list compared as a set;
 * `undefined ≡ []` for excluded, pending and rejected; for allowed, absent (allow all) ≠ `[]`
 * (deny all). An absent gating object is `{}`.
 */
export function mcpGatingEqual(a?: Gating, b?: Gating): boolean {
  const left = a ?? {};
  const right = b ?? {};
  return (
    allowListsEqual(left.allowed, right.allowed) &&
    allowListsEqual(left.lspAllowed, right.lspAllowed) &&
    setsEqual(left.excluded ?? [], right.excluded ?? []) &&
    setsEqual(left.lspExcluded ?? [], right.lspExcluded ?? []) &&
    setsEqual(left.pending ?? [], right.pending ?? []) &&
    setsEqual(left.rejected ?? [], right.rejected ?? []) &&
    setsEqual(left.sessionDisabled ?? [], right.sessionDisabled ?? []) &&
    setsEqual(left.sessionEnabled ?? [], right.sessionEnabled ?? []) &&
    (left.pinTools ?? 'report') === (right.pinTools ?? 'report') &&
    launchHoldsEqual(left.launch, right.launch)
  );
}

/**
 * Two launch holds (decision 301): both absent (trusted), or the same folder, platform and
 * launcher files (sorted lists, compared in order) — a file that appears or goes, or a yes given,
 * re-judges every server.
 */
export function launchHoldsEqual(a: LaunchHold | undefined, b: LaunchHold | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return (
    a.workspace === b.workspace &&
    a.ignoresCase === b.ignoresCase &&
    a.windows === b.windows &&
    a.files.length === b.files.length &&
    a.files.every((file, i) => file === b.files[i])
  );
}

/** Two allow lists: absent (allow all) ≠ `[]` (deny all); otherwise as sets. */
function allowListsEqual(a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return setsEqual(a, b);
}

/**
 * The reconcile gate's equality: servers, gating, folder trust (decision 2) and the
 * fail-closed settings error (a file that starts parsing must admit servers).
 */
export function desiredStateEqual(a: DesiredState, b: DesiredState): boolean {
  return a.trusted === b.trusted && a.settingsError === b.settingsError && mcpServersEqual(a.servers, b.servers) && mcpGatingEqual(a.gating, b.gating);
}
