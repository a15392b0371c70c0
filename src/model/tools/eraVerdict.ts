import type { EraVerdict } from '../connection.js';
import { getOwn, isPlainObject } from '../ownProperties.js';


/**
 * How long a verdict is used before the era is probed again (decision 380). A legacy verdict past
 * it would succeed silently forever against a server that was upgraded (it still answers
 * `initialize`); a modern one carries the server's capabilities, which may grow.
 */
export const LEGACY_VERDICT_HORIZON_MS = 7 * 24 * 60 * 60 * 1000;
export const MODERN_VERDICT_HORIZON_MS = 24 * 60 * 60 * 1000;

/** The verdict a connect may use now instead of probing, or undefined when it is missing or past its horizon. */
export function freshVerdict(verdict: EraVerdict | undefined, now: number): EraVerdict | undefined {
  if (verdict === undefined) return undefined;
  const horizon = verdict.kind === 'legacy' ? LEGACY_VERDICT_HORIZON_MS : MODERN_VERDICT_HORIZON_MS;
  const age = now - verdict.decidedAt;
  // A date in the future (a clock set back) is not trusted either.
  return age >= 0 && age < horizon ? verdict : undefined;
}

/** The verdict stored in a record, or undefined when anything about it is not well-formed. */
export function eraVerdictOf(value: unknown): EraVerdict | undefined {
  if (!isPlainObject(value)) return undefined;
  const kind = getOwn(value, 'kind');
  const decidedAt = getOwn(value, 'decidedAt');
  if (typeof decidedAt !== 'number' || !Number.isFinite(decidedAt)) return undefined;
  if (kind === 'legacy') return { kind, decidedAt };
  const discover = getOwn(value, 'discover');
  if (kind !== 'modern' || !isPlainObject(discover) || !Array.isArray(getOwn(discover, 'supportedVersions'))) return undefined;
  return { kind, discover, decidedAt };
}

/** Two verdicts are the same decision: same kind, same date (a verdict used again is not written again). */
export function sameVerdict(a: EraVerdict | undefined, b: EraVerdict | undefined): boolean {
  return a?.kind === b?.kind && a?.decidedAt === b?.decidedAt;
}

/** The protocol era of a negotiated revision: 2026-07-28 and later are `modern`. */
export function eraOfVersion(version: string): 'modern' | 'legacy' {
  return version >= '2026-07-28' ? 'modern' : 'legacy';
}
