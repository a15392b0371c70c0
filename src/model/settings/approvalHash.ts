import type { ApprovalDecisions, ApprovalState } from '../types.js';
import { canonicalJson } from '../canonicalJson.js';
import { sha256Hex } from '../sha256Hex.js';

/**
 * Top-level keys that do not change what would run: a decision must survive editing the
 * description, and our own provenance tags (scope, source file) must not leak into the hash,
 * or moving an entry between `.mcp.json` and the workspace settings would ask again.
 */
const IGNORED_KEYS: ReadonlySet<string> = new Set(['scope', 'description', 'source', 'file']);

/**
 * The approval hash of a gated server (docs/contract.md, "Approvals"): SHA-256 (full hex) of the
 * canonical JSON of the entry **as written** — before `$VAR` expansion, so a secret in the
 * environment never becomes part of a stored hash — with keys sorted recursively, arrays in order,
 * and the top-level keys `scope`, `description`, `source` and `file` left out. Any value hashes,
 * valid or not.
 */
export function approvalHash(rawEntry: unknown): string {
  return sha256Hex(canonicalJson(withoutIgnoredKeys(rawEntry)));
}

function withoutIgnoredKeys(rawEntry: unknown): unknown {
  if (rawEntry === null || typeof rawEntry !== 'object' || Array.isArray(rawEntry)) return rawEntry;
  // Null prototype: a `__proto__` key is copied as data, never as the prototype.
  const kept: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const [key, value] of Object.entries(rawEntry)) {
    if (!IGNORED_KEYS.has(key)) kept[key] = value;
  }
  return kept;
}

/**
 * The state of a gated server for its current approval hash: no record, a record for another
 * hash (the config changed since), or a malformed record → `pending`; else the stored status.
 */
export function approvalState(name: string, hash: string, decisions: ApprovalDecisions): ApprovalState {
  // `Object.hasOwn`, not `decisions[name]`: a server called `__proto__` or `toString` must not
  // find Object.prototype members.
  if (!Object.hasOwn(decisions, name)) return 'pending';
  const record: unknown = decisions[name];
  if (record === null || typeof record !== 'object') return 'pending';
  const { hash: storedHash, status } = record as { hash?: unknown; status?: unknown };
  if (storedHash !== hash) return 'pending';
  return status === 'approved' || status === 'rejected' ? status : 'pending';
}

/**
 * Whether a gated server was approved for other content than `hash` (decision 331): a stored
 * approval of another hash, or a session approval of one. Its entry then waits because it changed.
 */
export function approvedForAnotherHash(name: string, hash: string, decisions: ApprovalDecisions, session: Readonly<Record<string, string>>): boolean {
  if (Object.hasOwn(session, name) && session[name] !== hash) return true;
  if (!Object.hasOwn(decisions, name)) return false;
  const record: unknown = decisions[name];
  if (record === null || typeof record !== 'object') return false;
  const { hash: storedHash, status } = record as { hash?: unknown; status?: unknown };
  return status === 'approved' && typeof storedHash === 'string' && storedHash !== hash;
}
