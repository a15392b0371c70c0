import { holdsConnection, plan, type Blocked, type LiveEntry, type PlanStep, type WantedServer } from './plan.js';

/**
 * The strategy this project replaces, kept for comparison (`--reconcile full`, the benchmarks):
 * on any change every wanted server is torn down and connected again, as a settings-driven
 * `restartMcpServers()` would. Removed and blocked servers are handled as in {@link plan}.
 * The reconciler runs every disconnect of such a plan before any connect (a full teardown),
 * which is what opens the "0-tools gap".
 */
export function planFullRestart(
  wanted: Readonly<Record<string, WantedServer>>,
  blocked: Readonly<Record<string, Blocked>>,
  live: ReadonlyMap<string, LiveEntry>,
): PlanStep[] {
  return plan(wanted, blocked, live).map((step) => {
    const server = wanted[step.name];
    if (!server || step.change === 'added') return step;
    return {
      name: step.name,
      change: 'reconnected',
      actions: [...(holdsConnection(live.get(step.name)) ? [{ type: 'disconnect' as const }] : []), { type: 'connect' as const, server }],
    };
  });
}
