/**
 * `mcp-live serve` as the server suite of `npm run conformance` meets it (scripts/conformance.mjs):
 * a gateway on a fresh profile and workspace whose user settings list the conformance fixture
 * (test/fixtures/conformance-server.mjs) and `@modelcontextprotocol/server-everything`, both over
 * stdio, tools under the names their servers give them (`--names original`, as the scenarios
 * call them). Only the CLI's public interface is used: `serve --json` for the URL and the servers'
 * states, `serve --print-token` for the token, SIGTERM to end it.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..');
const CLI = join(repo, 'dist', 'src', 'cli', 'main.js');
export const FIXTURE = join(repo, 'test', 'fixtures', 'conformance-server.mjs');
const SERVER_EVERYTHING = join(repo, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');

/** The backends, by the names the settings give them. */
export const BACKENDS = {
  conformance: { command: process.execPath, args: [FIXTURE] },
  everything: { command: process.execPath, args: [SERVER_EVERYTHING, 'stdio'] },
};
/** Until the URL is known and every backend is connected. */
const READY_MS = 30_000;
/** How long the gateway may take to end its servers after SIGTERM before it is killed. */
const STOP_GRACE_MS = 15_000;

/**
 * Starts the gateway in `workDir` and resolves once it listens and every backend is connected:
 * `{ url, token, pids, events, stop }`. `events` keeps its NDJSON lines and stderr (the run's log;
 * no token is ever in them). Rejects, with the gateway ended, when it is not ready in time.
 */
export async function startGateway(workDir) {
  const home = join(workDir, 'home');
  const workspace = join(workDir, 'workspace');
  mkdirSync(join(home, '.qwen'), { recursive: true });
  mkdirSync(workspace, { recursive: true });
  writeFileSync(join(home, '.qwen', 'settings.json'), `${JSON.stringify({ mcpServers: BACKENDS }, null, 2)}\n`);
  // The profile's runtime directory (socket, process-group records) under the temp home too.
  const env = { ...process.env, HOME: home, XDG_RUNTIME_DIR: '' };
  const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--names', 'original', '--json', '--cwd', workspace], {
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const log = [];
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  createInterface({ input: child.stderr }).on('line', (line) => log.push(`[stderr] ${line}`));
  const pids = new Map();
  let url;
  const ready = new Promise((resolve, reject) => {
    const check = () => {
      if (url !== undefined && Object.keys(BACKENDS).every((name) => pids.has(name))) resolve();
    };
    createInterface({ input: child.stdout }).on('line', (line) => {
      log.push(line);
      const event = parseJson(line);
      if (event?.type === 'gateway-listening') url = event.url;
      if (event?.type === 'server' && event.name in BACKENDS) {
        if (event.state === 'connected' && event.pid !== undefined) pids.set(event.name, event.pid);
        if (event.state === 'error') reject(new Error(`backend ${event.name} ended in error: ${event.error ?? ''}`));
      }
      check();
    });
    void exited.then(({ code, signal }) => reject(new Error(`mcp-live serve exited (code ${code}, signal ${signal}) before it was ready`)));
    setTimeout(() => reject(new Error(`mcp-live serve was not ready within ${READY_MS / 1000} s (url ${url ?? 'unknown'}, connected: ${[...pids.keys()].join(', ') || 'none'})`)), READY_MS).unref();
  });

  /** SIGTERM, then SIGKILL after the grace; then every backend process must be gone. Resolves with what went wrong, if anything. */
  const stop = async () => {
    const problems = [];
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const kill = setTimeout(() => {
        problems.push(`mcp-live serve did not end within ${STOP_GRACE_MS / 1000} s of SIGTERM: killed`);
        child.kill('SIGKILL');
      }, STOP_GRACE_MS);
      await exited;
      clearTimeout(kill);
    }
    for (const [name, pid] of pids) {
      if (!alive(pid)) continue;
      problems.push(`backend ${name} (pid ${pid}) outlived the gateway: killed`);
      process.kill(pid, 'SIGKILL');
    }
    return problems;
  };

  try {
    await ready;
  } catch (error) {
    await stop();
    error.log = log;
    throw error;
  }
  // Asked only now: the gateway has made the token by the time it listens.
  const printed = spawnSync(process.execPath, [CLI, 'serve', '--print-token', '--cwd', workspace], { env, encoding: 'utf8' });
  const token = printed.stdout.trim();
  if (printed.status !== 0 || token === '') {
    await stop();
    throw Object.assign(new Error(`mcp-live serve --print-token failed: ${printed.stderr.trim()}`), { log });
  }
  return { url, token, pids: Object.fromEntries(pids), log, stop };
}

function parseJson(line) {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}
