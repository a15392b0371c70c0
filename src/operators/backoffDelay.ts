/**
 * backoffDelay — how long supervision waits before restart number `attempt`.
 *
 * ```
 * attempt:  1      2      3      4      5       6        7 ...
 * base:     1 s    2 s    4 s    8 s    16 s    30 s     30 s      (1000*2^(attempt-1), capped)
 * delay:    base * [0.8, 1.2) jitter, never above 30 s
 * ```
 *
 * docs/contract.md, "Supervision": exponential backoff with jitter, 1 s, 2 s, 4 s … capped at 30 s.
 * The jitter spreads the restarts of servers that died together (e.g. after a sleep) so they don't
 * all respawn in the same instant.
 */

const BASE_MS = 1_000;
const CAP_MS = 30_000;
const JITTER_MIN = 0.8;
const JITTER_SPAN = 0.4;

/**
 * The delay in whole ms before restart number `attempt` (1-based): `1000·2^(attempt-1)` capped at
 * 30000, times a jitter factor `0.8 + 0.4·random()` in [0.8, 1.2), capped at 30000 again.
 * Pure: the randomness comes in as `random` (fixed in tests; `() => 0.5` gives factor 1.0).
 *
 * @param attempt the number of the consecutive failure being retried, from 1 (fractions are
 *   floored, values below 1 count as 1)
 * @param random a source of numbers in [0, 1), like `Math.random`
 */
export function backoffDelay(attempt: number, random: () => number = Math.random): number {
  const exponent = Math.max(Math.floor(attempt), 1) - 1;
  const base = Math.min(BASE_MS * 2 ** exponent, CAP_MS); // a whole multiple of 5
  const jittered = Math.floor(base * (JITTER_MIN + JITTER_SPAN * random()));
  // floor keeps 0.8·base (a whole number) reachable; for random() just below 1 the factor
  // rounds to exactly 1.2, so the exclusive upper bound is enforced explicitly.
  const belowUpper = (base / 5) * 6 - 1;
  return Math.min(jittered, belowUpper, CAP_MS);
}
