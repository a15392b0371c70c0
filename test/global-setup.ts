import { spawnSync } from 'node:child_process';

/**
 * Builds the package once before the suite so end-to-end tests can spawn the real CLI
 * (dist/) exactly as a user would run it. Type errors are reported by `npm run typecheck`;
 * here only a missing build output would be fatal, so tsc's exit status is not.
 * MCP_LIVE_SKIP_BUILD=1 skips it when only pure unit tests are run.
 */
export default function setup(): void {
  if (process.env.MCP_LIVE_SKIP_BUILD === '1') return;
  const r = spawnSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
  if (r.error) throw r.error;
}
