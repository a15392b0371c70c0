import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { McpLiveOptions } from '../createMcpLive.js';

/** The bundled demo: `examples/demo` of the package (dist/src/cli → package root). */
export const DEMO_DIR = fileURLToPath(new URL('../../../examples/demo/', import.meta.url));

/** `MCP_LIVE_DEMO_ROOT` runs the demo from a copy (so it can be edited without touching the package). */
function demoRoot(): string {
  return process.env.MCP_LIVE_DEMO_ROOT ?? DEMO_DIR;
}

interface DemoHttpServer {
  port: number;
  close(): Promise<void>;
}

/**
 * `--demo`: the demo workspace and a demo home (user settings, approvals), so nothing of the
 * user's own settings is read or written. Starts the demo Streamable HTTP server on a free
 * loopback port; its port and the demo directory reach the demo settings as `$VAR`s.
 */
export async function startDemo(): Promise<{ options: McpLiveOptions; stop: () => Promise<void> }> {
  const root = demoRoot();
  const { startDemoHttpServer } = (await import(pathToFileURL(join(DEMO_DIR, 'servers/http-server.mjs')).href)) as {
    startDemoHttpServer: () => Promise<DemoHttpServer>;
  };
  const http = await startDemoHttpServer();
  const home = join(root, 'home');
  return {
    options: {
      cwd: join(root, 'workspace'),
      homeDir: home,
      approvalsFile: join(home, '.qwen', 'mcpApprovals.json'),
      env: { ...process.env, MCP_LIVE_DEMO_DIR: root.replace(/\/$/, ''), MCP_LIVE_DEMO_HTTP_PORT: String(http.port) },
    },
    stop: () => http.close(),
  };
}
