import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { unlink } from 'node:fs/promises';
import type { Socket } from 'node:net';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { clientSent, gatewaySent, NEW_RELAY_WATCH, restartIn } from '../../model/gateway/relayRestart.js';
import { BoundedLineSplitter } from '../../platform/boundedLineSplitter.js';
import { signalTree, type KillTreeDeps } from '../../platform/killTree.js';
import { rotateLog } from '../../platform/logRotation.js';
import { makePrivateDirectory } from '../../process/processGroupRegistry.js';
import { isRunning, procfsAvailable } from '../../process/processTable.js';
import { connectGateway, readGatewayRecord, type GatewayAddress, type GatewayRecord } from './localSocket.js';

/**
 * The process model of `mcp-live serve --stdio` (decision 127): one gateway per profile and
 * workspace, started in the background by the first client and shared by the next ones.
 */

export interface DaemonCommand {
  /** The CLI script (`dist/src/cli/main.js`), run with this Node. */
  script: string;
  /** `serve --daemon …`: the client's options, paths absolute. */
  args: readonly string[];
}

const POLL_MS = 50;
/** win32: after `taskkill /T` of a gateway, how long before `taskkill /T /F` (decision 273). */
const WINDOWS_STOP_GRACE_MS = 2_000;

/**
 * A connection to the workspace's gateway: the running one, or a daemon started for it (detached,
 * in its own process group, output to the log). When two clients start at once both may start a
 * daemon; one takes the socket and the other exits (see `claimGatewaySocket`), and both clients
 * attach to the one that took it. Fails with the log's path when nothing accepts within `timeoutMs`.
 */
export async function attachToGateway(
  address: GatewayAddress,
  daemon: DaemonCommand,
  timeoutMs = 15_000,
  platform: NodeJS.Platform = process.platform,
): Promise<Socket> {
  const running = await connectGateway(address, platform);
  if (running) return running;
  await makePrivateDirectory(dirname(address.record));
  startDaemon(address, daemon);
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    await sleep(POLL_MS);
    const socket = await connectGateway(address, platform);
    if (socket) return socket;
  }
  throw new Error(`the gateway did not accept connections within ${Math.round(timeoutMs / 1000)} s; see its log ${address.log}`);
}

function startDaemon(address: GatewayAddress, daemon: DaemonCommand): void {
  // At 1 MiB the log becomes <log>.1 and a new one begins (decision 284).
  rotateLog(address.log);
  const log = openSync(address.log, 'a', 0o600);
  try {
    const child = spawn(process.execPath, [daemon.script, ...daemon.args], {
      detached: true,
      stdio: ['ignore', log, log],
      env: process.env,
      // win32: detached means a console of its own; no window for it.
      windowsHide: true,
    });
    // A spawn failure (ENOMEM, EAGAIN) shows as the timeout above, with the log to read.
    child.on('error', () => undefined);
    child.unref();
  } finally {
    closeSync(log);
  }
}

/** How a relay ended: its socket closed (the client or the gateway went), or it ended the session for `--restart-on-change`. */
export type RelayEnd = 'closed' | 'restarted';

export interface RelayOptions {
  /**
   * `--restart-on-change` (decisions 226, 227): end the session once a list the client read has
   * changed and stayed unchanged for `quietMs`, with none of its requests unanswered.
   */
  restartOnChange?: { quietMs: number };
}

/** Decision 227: one settings edit starting a few servers is one restart, not one per server. */
export const RESTART_QUIET_MS = 1_000;

/** The longest line the watch reads (a longer one still passes, unread): 16 MiB. */
const MAX_WATCHED_LINE_BYTES = 16 * 1024 * 1024;

/**
 * Byte relay between a client's stdio and the gateway's socket: the relay has no servers and no
 * session of its own. Ends when the socket closes; stdin's end (the client left) ends the socket.
 * With `restartOnChange` it also reads the messages it passes (they pass unchanged) and ends
 * the session itself when {@link restartIn} says so: the socket ends (the gateway and its other
 * clients go on) and the caller exits, so the client sees its server go away.
 */
export function relayStdio(socket: Socket, input: NodeJS.ReadableStream, output: NodeJS.WritableStream, options: RelayOptions = {}): Promise<RelayEnd> {
  return new Promise((resolve) => {
    let end: RelayEnd = 'closed';
    socket.on('error', () => socket.destroy());
    // The client closed its end of our stdout: nobody reads the gateway's answers any more.
    output.on('error', () => socket.destroy());
    socket.once('close', () => resolve(end));
    input.pipe(socket);
    socket.pipe(output, { end: false });
    // After the pipes: a message is passed on before it is read here, so what ends the session
    // (the answer the restart waited for) has gone out.
    if (options.restartOnChange !== undefined) {
      watchLists(socket, input, options.restartOnChange.quietMs, () => {
        end = 'restarted';
        input.unpipe(socket);
        socket.destroy();
      });
    }
  });
}

function watchLists(socket: Socket, input: NodeJS.ReadableStream, quietMs: number, restart: () => void): void {
  let watch = NEW_RELAY_WATCH;
  let timer: NodeJS.Timeout | undefined;
  const check = (): void => {
    clearTimeout(timer);
    timer = undefined;
    if (socket.destroyed) return;
    const wait = restartIn(watch, Date.now(), quietMs);
    if (wait === 0) restart();
    else if (wait !== undefined) timer = setTimeout(check, wait);
  };
  const fromClient = new BoundedLineSplitter(MAX_WATCHED_LINE_BYTES);
  const fromGateway = new BoundedLineSplitter(MAX_WATCHED_LINE_BYTES);
  input.on('data', (chunk: Buffer | string) => {
    for (const piece of fromClient.push(bytesOf(chunk))) if ('line' in piece && piece.line !== '') watch = clientSent(watch, parsed(piece.line));
    check();
  });
  socket.on('data', (chunk: Buffer) => {
    for (const piece of fromGateway.push(chunk)) {
      if ('line' in piece && piece.line === '') continue;
      watch = gatewaySent(watch, 'line' in piece ? parsed(piece.line) : undefined, Date.now());
    }
    check();
  });
  socket.once('close', () => clearTimeout(timer));
}

function bytesOf(chunk: Buffer | string): Buffer {
  return typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
}

/** The message on a line, or undefined when it is not JSON. */
function parsed(line: string): unknown {
  try {
    return JSON.parse(line) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * Ends the gateway recorded at `address` (SIGTERM: it ends its servers and removes the socket)
 * and waits until it has exited. `none` when no gateway runs there.
 *
 * On win32 (decision 273) there is no SIGTERM to handle — `process.kill` is TerminateProcess of
 * the gateway alone, and its servers' children would be left — so the gateway's tree ends:
 * `taskkill /T`, then `taskkill /T /F` after a grace, and its record goes with it.
 */
export async function stopGateway(
  address: GatewayAddress,
  timeoutMs = 20_000,
  system: KillTreeDeps = {},
): Promise<'stopped' | 'none'> {
  const platform = system.platform ?? process.platform;
  const record = await readGatewayRecord(address.record);
  if (!record || !(await isGatewayAlive(record, address, platform))) return 'none';
  if (platform === 'win32') return stopWindowsGateway(record, address, timeoutMs, system);
  try {
    process.kill(record.pid, 'SIGTERM');
  } catch {
    return 'none';
  }
  if (await exitWithin(record, timeoutMs)) return 'stopped';
  throw new Error(`the gateway (pid ${record.pid}) did not exit within ${Math.round(timeoutMs / 1000)} s of SIGTERM`);
}

async function stopWindowsGateway(record: GatewayRecord, address: GatewayAddress, timeoutMs: number, system: KillTreeDeps): Promise<'stopped'> {
  const gateway = { pid: record.pid, kill: (signal?: NodeJS.Signals) => process.kill(record.pid, signal) };
  await signalTree(gateway, 'SIGTERM', system);
  if (!(await exitWithin(record, Math.min(WINDOWS_STOP_GRACE_MS, timeoutMs)))) {
    await signalTree(gateway, 'SIGKILL', system);
    if (!(await exitWithin(record, timeoutMs))) {
      throw new Error(`the gateway (pid ${record.pid}) did not exit within ${Math.round(timeoutMs / 1000)} s of taskkill /F`);
    }
  }
  // Killed, it removed nothing; a record naming a dead pid is ignored anyway, but not left behind.
  if ((await readGatewayRecord(address.record))?.pid === record.pid) await unlink(address.record).catch(() => undefined);
  return 'stopped';
}

async function exitWithin(record: GatewayRecord, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (!processAlive(record)) return true;
    await sleep(POLL_MS);
  }
  return !processAlive(record);
}

/**
 * Whether the recorded process is the gateway: its pid and /proc start time match (Linux), or —
 * where start times are unknown — the socket accepts, so a pid recycled by another program is
 * never signalled.
 */
async function isGatewayAlive(record: GatewayRecord, address: GatewayAddress, platform: NodeJS.Platform): Promise<boolean> {
  if (record.startTime !== undefined && procfsAvailable()) return isRunning({ pid: record.pid, startTime: record.startTime });
  const socket = await connectGateway(address, platform);
  socket?.destroy();
  return socket !== undefined && processAlive(record);
}

function processAlive(record: GatewayRecord): boolean {
  if (record.startTime !== undefined && procfsAvailable()) return isRunning({ pid: record.pid, startTime: record.startTime });
  try {
    process.kill(record.pid, 0);
    return true;
  } catch {
    return false;
  }
}
