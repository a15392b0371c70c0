import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import type { McpLiveOptions } from '../createMcpLive.js';

/** The bundled demo: `examples/demo` of the package (dist/src/cli → package root). */
export const DEMO_DIR = fileURLToPath(new URL('../../../examples/demo/', import.meta.url));

/**
 * `--demo`: the demo workspace and a demo home (user settings, approvals), so nothing of the
 * user's own settings is read or written.
 */
export function demoOptions(): McpLiveOptions {
  const home = join(DEMO_DIR, 'home');
  return {
    cwd: join(DEMO_DIR, 'workspace'),
    homeDir: home,
    approvalsFile: join(home, '.qwen', 'mcpApprovals.json'),
  };
}
