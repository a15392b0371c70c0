import { availableParallelism, loadavg } from 'node:os';

/**
 * The suite's one knob for hang guards (decision 316): every deadline a test or a kit sets — the
 * vitest test and hook timeouts, the kits' condition waits, a CLI run's timeout, a test server's
 * connect timeout — is `deadline(ms)`, the figure measured on an idle machine times the factor
 * `MCP_LIVE_TEST_SLOWDOWN`. Unset, the factor is chosen from the machine when the suite starts:
 * 2, or 1 + the load average per core when that is higher, at most 10. vitest.config.ts computes
 * it once and hands it to every worker through the environment, so the whole run uses one value.
 * A deadline only guards against a hang: waits end on their condition, never on the time.
 */
export function slowdownFrom(env: string | undefined, load: number, cores: number): number {
  const given = Number(env);
  if (env !== undefined && env !== '' && Number.isFinite(given) && given > 0) return given;
  return Math.min(10, Math.max(2, Math.ceil(1 + load / cores)));
}

export const SLOWDOWN = slowdownFrom(process.env.MCP_LIVE_TEST_SLOWDOWN, loadavg()[0] ?? 0, availableParallelism());

/** `ms` (the deadline that does on an idle machine) scaled by the suite's slowdown factor. */
export function deadline(ms: number): number {
  return Math.round(ms * SLOWDOWN);
}
