import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { filter, firstValueFrom, type Observable } from 'rxjs';
import type { AssembleInput } from '../../src/model/assemble.js';
import type { McpLiveEvent } from '../../src/model/events.js';
import type { Reconciler } from '../../src/reconciler.js';
import type { ResolvedServerConfig } from '../../src/model/types.js';
import type { McpConnection } from '../../src/sinks/mcp/connector.js';
import { sleep } from './processes.js';
import { deadline } from '../deadlines.js';

/** Config builders and launchers for the MCP servers the integration tests run. */

const root = fileURLToPath(new URL('../..', import.meta.url));

export const SERVER_EVERYTHING = `${root}node_modules/@modelcontextprotocol/server-everything/dist/index.js`;

export function fixture(name: string): string {
  return `${root}test/fixtures/${name}`;
}

/** A settings entry (as written) running the echo fixture with `extra` args. */
export function echoEntry(...extra: string[]): { command: string; args: string[] } {
  return { command: process.execPath, args: [fixture('echo-server.mjs'), ...extra] };
}

/** Waits until the reconciler has reported the pass with this generation; resolves with its event. */
export function reconcilePass(rec: Reconciler, generation: number): Promise<McpLiveEvent> {
  return firstValueFrom(rec.events$.pipe(filter((e) => e.type === 'reconcile' && e.generation === generation)));
}

/** What the sources would deliver for one user settings file with these servers. */
export function userSettingsInput(servers: Record<string, unknown>): AssembleInput {
  return { sources: [{ scope: 'user', file: '/tmp/settings.json', servers }], approvals: {}, sessionApprovals: {}, folderTrusted: true };
}

/** A stdio config running `node <script> ...args`. */
export function nodeServer(script: string, args: string[] = [], extra: Partial<ResolvedServerConfig> = {}): ResolvedServerConfig {
  return { transport: 'stdio', command: process.execPath, args: [script, ...args], env: {}, headers: {}, timeout: deadline(10_000), ...extra };
}

export function remoteServer(
  transport: 'sse' | 'http',
  url: string,
  extra: Partial<ResolvedServerConfig> = {},
): ResolvedServerConfig {
  return { transport, url, args: [], env: {}, headers: {}, timeout: deadline(10_000), ...extra };
}

/** Subscribes and waits for the connection (or the error). */
export function connectOnce(connection$: Observable<McpConnection>): Promise<McpConnection> {
  return firstValueFrom(connection$);
}

/** The error an observable ends with; fails if it emits or completes instead. */
export function errorOf(source: Observable<unknown>): Promise<Error> {
  return new Promise<Error>((resolve, reject) => {
    source.subscribe({
      next: (value) => reject(new Error(`expected an error, got a value: ${String(value)}`)),
      error: (error: unknown) => resolve(error instanceof Error ? error : new Error(String(error))),
      complete: () => reject(new Error('expected an error, got completion')),
    });
  });
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

export interface RemoteServerProcess {
  port: number;
  child: ChildProcess;
  /** Ends the server (SIGKILL: it is a test server) and waits for its exit. */
  stop(): Promise<void>;
}

/** Starts server-everything in `sse` or `streamableHttp` mode on a loopback port (default: a free one) and waits until it listens. */
export async function startServerEverything(mode: 'sse' | 'streamableHttp', fixedPort?: number): Promise<RemoteServerProcess> {
  const port = fixedPort ?? (await freePort());
  const child = spawn(process.execPath, [SERVER_EVERYTHING, mode], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  };
  const giveUpAt = Date.now() + deadline(10_000);
  while (!(await listening(port))) {
    if (child.exitCode !== null || Date.now() > giveUpAt) {
      await stop();
      throw new Error(`server-everything ${mode} did not listen on ${port}: ${stderr}`);
    }
    await sleep(50);
  }
  return { port, child, stop };
}

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Connections a test leaves open: {@link closeTracked} (an `afterEach`) closes them, whatever the test asserted. */
const tracked: McpConnection[] = [];

export function track(connection: McpConnection): McpConnection {
  tracked.push(connection);
  return connection;
}

export async function closeTracked(): Promise<void> {
  const closing: Promise<void>[] = tracked.splice(0).map((c) => c.close());
  await Promise.all(closing);
}

/** A scratch directory per test file, for start logs. */
let scratchDir: string | undefined;

export function scratch(name: string): string {
  scratchDir ??= mkdtempSync(join(tmpdir(), 'mcp-live-connector-'));
  return join(scratchDir, name);
}

export function removeScratch(): void {
  if (scratchDir) rmSync(scratchDir, { recursive: true, force: true });
  scratchDir = undefined;
}

/** Pids written by fixtures started with `--start-log FILE` (waits until there is one). */
export async function startedPids(file: string, ms = 5_000): Promise<number[]> {
  const giveUpAt = Date.now() + deadline(ms);
  for (;;) {
    let text = '';
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      // Not written yet.
    }
    const pids = [...text.matchAll(/^(\d+) started$/gm)].map((m) => Number(m[1]));
    if (pids.length > 0 || Date.now() > giveUpAt) return pids;
    await sleep(25);
  }
}

/** The text parts of a `tools/call` result. */
export function textOf(result: unknown): string {
  const content = (result as { content?: { type: string; text?: string }[] }).content ?? [];
  return content.map((c) => c.text ?? '').join('');
}
