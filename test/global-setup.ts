import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';

/**
 * Builds the package once before the suite so end-to-end tests can spawn the real CLI
 * (dist/) exactly as a user would run it. Type errors fail `npm test` before the suite starts
 * (`npm run check`: typecheck and lint); here tsc still emits despite them, so that one test
 * file can be run while another file does not compile yet, and its exit status is not fatal.
 * The build is incremental (`dist/.tsbuildinfo`, decision 293): after `npm ci`, which built dist/
 * already, it only checks. `npm run build` starts from an empty dist/.
 * MCP_LIVE_SKIP_BUILD=1 skips it when only pure unit tests are run. Like `npm run build`, it ends
 * with scripts/postbuild.mjs, which makes the package's bins executable (decision 319).
 *
 * tsc is the project's own, run with this Node from its JS entry: no `npx` (a `.cmd` on
 * Windows, which Node does not spawn without a shell) and no PATH lookup (decision 274).
 */
export default function setup(): void {
  if (process.env.MCP_LIVE_SKIP_BUILD === '1') return;
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const r = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
  if (r.error) throw r.error;
  const post = spawnSync(process.execPath, ['scripts/postbuild.mjs'], { stdio: 'inherit' });
  if (post.error) throw post.error;
  if (post.status !== 0) throw new Error(`scripts/postbuild.mjs exited with ${String(post.status)}`);
}
