import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import type { Socket } from 'node:net';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { makePrivateDirectory } from '../processGroupRegistry.js';
import { isRunning, procfsAvailable } from '../processTable.js';
import { connectGatewaySocket, readGatewayRecord, type GatewayAddress, type GatewayRecord } from './localSocket.js';

/**
 * The process model of `mcp-live serve --stdio` (issue 16): one gateway per profile and
 * workspace, started in the background by the first client and shared by the next ones.
 */

export interface DaemonCommand {
  /** The CLI script (`dist/src/cli/main.js`), run with this Node. */
  script: string;
  /** `serve --daemon …`: the client's options, paths absolute. */
  args: readonly string[];
}

const POLL_MS = 50;

/**
 * A connection to the workspace's gateway: the running one, or a daemon started for it (detached,
 * in its own process group, output to the log). When two clients start at once both may start a
 * daemon; one takes the socket and the other exits (see `claimGatewaySocket`), and both clients
 * attach to the one that took it. Fails with the log's path when nothing accepts within `timeoutMs`.
 */
export async function attachToGateway(address: GatewayAddress, daemon: DaemonCommand, timeoutMs = 15_000): Promise<Socket> {
  const running = await connectGatewaySocket(address.socket);
  if (running) return running;
  await makePrivateDirectory(dirname(address.socket));
  startDaemon(address, daemon);
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    await sleep(POLL_MS);
    const socket = await connectGatewaySocket(address.socket);
    if (socket) return socket;
  }
  throw new Error(`the gateway did not accept connections within ${Math.round(timeoutMs / 1000)} s; see its log ${address.log}`);
}

function startDaemon(address: GatewayAddress, daemon: DaemonCommand): void {
  const log = openSync(address.log, 'a', 0o600);
  try {
    const child = spawn(process.execPath, [daemon.script, ...daemon.args], {
      detached: true,
      stdio: ['ignore', log, log],
      env: process.env,
    });
    // A spawn failure (ENOMEM, EAGAIN) shows as the timeout above, with the log to read.
    child.on('error', () => undefined);
    child.unref();
  } finally {
    closeSync(log);
  }
}

/**
 * Byte relay between a client's stdio and the gateway's socket: the relay has no servers and no
 * session of its own. Ends when the socket closes; stdin's end (the client left) ends the socket.
 */
export function relayStdio(socket: Socket, input: NodeJS.ReadableStream, output: NodeJS.WritableStream): Promise<void> {
  return new Promise((resolve) => {
    socket.on('error', () => socket.destroy());
    // The client closed its end of our stdout: nobody reads the gateway's answers any more.
    output.on('error', () => socket.destroy());
    socket.once('close', () => resolve());
    input.pipe(socket);
    socket.pipe(output, { end: false });
  });
}

/**
 * Ends the gateway recorded at `address` (SIGTERM: it ends its servers and removes the socket)
 * and waits until it has exited. `none` when no gateway runs there.
 */
export async function stopGateway(address: GatewayAddress, timeoutMs = 20_000): Promise<'stopped' | 'none'> {
  const record = await readGatewayRecord(address.record);
  if (!record || !(await isGatewayAlive(record, address))) return 'none';
  try {
    process.kill(record.pid, 'SIGTERM');
  } catch {
    return 'none';
  }
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!processAlive(record)) return 'stopped';
    await sleep(POLL_MS);
  }
  throw new Error(`the gateway (pid ${record.pid}) did not exit within ${Math.round(timeoutMs / 1000)} s of SIGTERM`);
}

/**
 * Whether the recorded process is the gateway: its pid and /proc start time match (Linux), or —
 * where start times are unknown — the socket accepts, so a pid recycled by another program is
 * never signalled.
 */
async function isGatewayAlive(record: GatewayRecord, address: GatewayAddress): Promise<boolean> {
  if (record.startTime !== undefined && procfsAvailable()) return isRunning({ pid: record.pid, startTime: record.startTime });
  const socket = await connectGatewaySocket(address.socket);
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
