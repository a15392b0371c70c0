import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { filter, firstValueFrom, type Observable } from 'rxjs';
import type { AssembleInput } from '../../src/model/settings/assemble.js';
import type { McpLiveEvent } from '../../src/model/report/events.js';
import type { Reconciler } from '../../src/live/reconciler.js';
import type { ResolvedServerConfig } from '../../src/model/types.js';
import type { McpConnection } from '../../src/sinks/mcp/connector.js';
import { sleep } from './processes.js';
import type { TestScope } from './workspace.js';
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

/**
 * A loopback port free now, for a test that must name it before a process listens on it (a
 * fixture started by mcp-live itself, a port two processes contend for). Chosen below the
 * system's ephemeral range (decision 318): an outgoing connection of any process on the machine
 * takes its port from that range, so it cannot take this one between the check and the use, as
 * it could a port the system handed out for `listen(0)`. A test that starts the listener itself
 * listens on 0 and reads the port instead.
 */
export async function freePort(): Promise<number> {
  const low = ephemeralLow();
  const from = Math.max(1024, low - 12_000);
  for (let attempt = 0; ; attempt++) {
    const port = from + Math.floor(Math.random() * (low - from));
    if (await canListen(port)) return port;
    if (attempt === 200) throw new Error(`no free port in ${from}–${low - 1}`);
  }
}

/** The lowest port of the ephemeral range: Linux's setting, or IANA's 49152 elsewhere. */
function ephemeralLow(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    if (Number.isInteger(low) && low > 2048) return low;
  } catch {
    // Not Linux.
  }
  return 49_152;
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

export interface RemoteServerProcess {
  port: number;
  child: ChildProcess;
  /** Ends the server (SIGKILL: it is a test server) and waits for its exit. */
  stop(): Promise<void>;
}

/**
 * Starts server-everything in `sse` or `streamableHttp` mode on a loopback port (default: a free
 * one) and waits for its own report that it listens (its stderr line), not for a connection that
 * could reach another listener. A port taken in between ("already in use") is retried on another
 * free port; a fixed port is not (decision 318).
 */
export async function startServerEverything(mode: 'sse' | 'streamableHttp', fixedPort?: number): Promise<RemoteServerProcess> {
  for (let attempt = 1; ; attempt++) {
    const started = await startServerEverythingOn(mode, fixedPort ?? (await freePort()));
    if (started !== 'in use') return started;
    if (fixedPort !== undefined || attempt === 5) throw new Error(`server-everything ${mode}: port ${fixedPort ?? 'after 5 tries'} in use`);
  }
}

async function startServerEverythingOn(mode: 'sse' | 'streamableHttp', port: number): Promise<RemoteServerProcess | 'in use'> {
  const child = spawn(process.execPath, [SERVER_EVERYTHING, mode], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  };
  const listening = new Promise<boolean>((resolve) => {
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (new RegExp(`(listening|running) on port ${port}\\b`).test(stderr)) resolve(true);
    });
    void exited.then(() => resolve(false));
  });
  const timer = setTimeout(() => void stop(), deadline(10_000));
  const up = await listening;
  clearTimeout(timer);
  if (up) return { port, child, stop };
  await stop();
  if (/already in use|EADDRINUSE/.test(stderr)) return 'in use';
  throw new Error(`server-everything ${mode} did not listen on ${port}: ${stderr}`);
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

/**
 * An HTTP fixture server (`node SCRIPT ARGS…`) that prints "listening PORT" once it listens: its
 * MCP endpoint's URL. It is ended (woken first, if stopped) when the test finishes.
 */
export async function startListeningFixture(scope: TestScope, script: string, ...args: string[]): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [script, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  scope.atEnd(async () => {
    child.kill('SIGCONT');
    child.kill('SIGKILL');
    await exited;
  });
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const m = /listening (\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', () => reject(new Error(`${script} exited: ${out}`)));
  });
  return { child, url: `http://127.0.0.1:${port}/mcp` };
}

