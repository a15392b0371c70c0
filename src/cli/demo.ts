import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { McpLiveOptions } from '../live/types.js';
import { defaultRuntimeDir } from '../process/processGroupRegistry.js';
import { packageRoot } from './ownPackage.js';

/** The bundled demo: `examples/demo` of the package. */
function demoDir(): string {
  return join(packageRoot(), 'examples', 'demo');
}

interface DemoHttpServer {
  port: number;
  close(): Promise<void>;
}

/**
 * `--demo`: the demo workspace and a demo home (user settings), so nothing of the user's own
 * settings is read or written. The settings are used in place, for the README's tour edits them
 * while the demo runs; every other file a run writes (approvals, the demo's trust of its own
 * workspace, the surface record and the pins of approved tools, OAuth tokens, the runtime records
 * of stdio servers) goes to a temp directory that `stop` removes (decision 328): every run asks
 * for approval again, and nothing a run wrote ends up in the package or a clone's work tree. Starts the demo Streamable HTTP server on a
 * free loopback port; its port and the demo directory reach the demo settings as `$VAR`s.
 */
export async function startDemo(
  // `MCP_LIVE_DEMO_ROOT` runs the demo from a copy (so it can be edited without touching the package).
  root: string = process.env.MCP_LIVE_DEMO_ROOT ?? demoDir(),
): Promise<{ options: McpLiveOptions; stop: () => Promise<void> }> {
  // From the package, not from `root`: a copy elsewhere has no node_modules to resolve its imports.
  const { startDemoHttpServer } = (await import(pathToFileURL(join(demoDir(), 'servers/http-server.mjs')).href)) as {
    startDemoHttpServer: () => Promise<DemoHttpServer>;
  };
  const http = await startDemoHttpServer();
  const state = await mkdtemp(join(tmpdir(), 'mcp-live-demo-'));
  const workspace = join(root, 'workspace');
  // The demo workspace sits in a clone, whose root has package.json and node_modules: launcher
  // files that would hold the demo's own servers until a yes (decision 305). The demo is ours,
  // so its workspace is trusted — in the run's own state, never in the clone or the user's files.
  const trustedFoldersFile = join(state, 'trustedFolders.json');
  await writeFile(trustedFoldersFile, JSON.stringify({ [workspace]: 'TRUST_FOLDER' }), { mode: 0o600 });
  return {
    options: {
      cwd: workspace,
      homeDir: join(root, 'home'),
      approvalsFile: join(state, 'mcpApprovals.json'),
      trustedFoldersFile,
      // Every file of a session's own: left to their defaults they sit beside the demo home's settings.
      surfacesFile: join(state, 'mcp-surfaces.json'),
      pinsFile: join(state, 'mcp-pins.json'),
      oauthTokensFile: join(state, 'mcp-oauth-tokens.json'),
      // $XDG_RUNTIME_DIR/mcp-live where there is one (shared with every session, so a killed
      // demo's leftovers are ended by the next run), else inside the temp directory.
      runtimeDir: defaultRuntimeDir('qwen', state),
      env: { ...process.env, MCP_LIVE_DEMO_DIR: root.replace(/\/$/, ''), MCP_LIVE_DEMO_HTTP_PORT: String(http.port) },
    },
    stop: async () => {
      await http.close();
      await rm(state, { recursive: true, force: true });
    },
  };
}
