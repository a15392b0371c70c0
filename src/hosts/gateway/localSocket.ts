import { createHash } from 'node:crypto';
import { chmod, lstat, unlink } from 'node:fs/promises';
import { connect, createServer, type Socket } from 'node:net';
import { dirname, join } from 'node:path';
import { lock } from 'proper-lockfile';
import { readRegularFile } from '../../files/readRegularFile.js';
import { errorCode, parseJsonObject } from '../../sinks/stores/ownedJsonFile.js';
import { isListeningPipeOf, listeningPipe, localEndpoint, usesNamedPipes } from '../../platform/localAddress.js';
import { makePrivateDirectory } from '../../process/processGroupRegistry.js';
import { ownIdentity } from '../../process/processTable.js';
import { writeOwnedFile } from '../../files/writeOwnedFile.js';

/**
 * Where the gateway of one profile and workspace is reached on this machine (decision 125): a unix
 * socket in the profile's runtime directory (0700), mode 0600, so only the user can attach. The
 * name carries the profile and a hash of the user settings file and the workspace: a gateway
 * serves one workspace, and a client of another workspace starts its own.
 *
 *   <runtimeDir>/gateway-<profile>-<hash>.sock   the socket (MCP over newline-delimited JSON)
 *   <runtimeDir>/gateway-<profile>-<hash>.json   who holds it: { pid, startTime, cwd, config }
 *   <runtimeDir>/gateway-<profile>-<hash>.lock   held while a gateway checks for a running one and takes the socket
 *   <runtimeDir>/gateway-<profile>-<hash>.log    a daemon's output: its NDJSON events and errors
 *
 * On win32 (decision 272) the socket is a named pipe, `\\.\pipe\mcp-live-<profile>-<hash>`
 * plus the random suffix of the gateway that listens, which its record names (`pipe`); the
 * record, lock and log stay in the runtime directory. See platform/localAddress.ts.
 */
export interface GatewayAddress {
  /** POSIX: the socket file. win32: the pipe name shared by this workspace's gateways (a prefix). */
  socket: string;
  record: string;
  lock: string;
  log: string;
}

/** What the record file says about the gateway holding the socket. */
export interface GatewayRecord {
  pid: number;
  /** /proc start time, so `serve --stop` never signals a process that got the pid later (Linux). */
  startTime?: number;
  cwd: string;
  /** Digest of the options that shape the live set beyond the workspace (see `serveConfigDigest`). */
  config: string;
  /** win32: the pipe this gateway listens on (`GatewayAddress.socket` and its random suffix). */
  pipe?: string;
}

/** A socket taken by this process. */
export interface GatewaySocket {
  readonly path: string;
  /** Stops accepting, drops the connections, removes the socket and the record. */
  close(): Promise<void>;
}

const LOCK_OPTIONS = {
  realpath: false,
  stale: 10_000,
  retries: { retries: 100, factor: 1.2, minTimeout: 10, maxTimeout: 200, randomize: true },
} as const;

export function gatewayAddress(
  runtimeDir: string,
  profile: string,
  key: { userSettings: string; cwd: string },
  platform: NodeJS.Platform = process.platform,
): GatewayAddress {
  const hash = createHash('sha256').update(`${key.userSettings}\0${key.cwd}`).digest('hex').slice(0, 16);
  const base = join(runtimeDir, `gateway-${profile}-${hash}`);
  return { socket: localEndpoint(base, profile, platform), record: `${base}.json`, lock: `${base}.lock`, log: `${base}.log` };
}

/**
 * A connection to the gateway at `address`, or undefined when none accepts there. On win32 only
 * to the pipe the record of a live gateway names (decision 272): a pipe of that name created by
 * someone else is never spoken to.
 */
export async function connectGateway(address: GatewayAddress, platform: NodeJS.Platform = process.platform): Promise<Socket | undefined> {
  if (!usesNamedPipes(platform)) return connectGatewaySocket(address.socket);
  const record = await readGatewayRecord(address.record);
  if (record?.pipe === undefined || !isListeningPipeOf(address.socket, record.pipe) || !pidAlive(record.pid)) return undefined;
  return connectGatewaySocket(record.pipe);
}

/** A gateway of ours runs as us: EPERM (another user's process holds the pid now) counts as gone. */
function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A connection to the gateway's socket, or undefined when nothing accepts there. */
export function connectGatewaySocket(path: string): Promise<Socket | undefined> {
  return new Promise((resolve) => {
    const socket = connect(path);
    socket.once('connect', () => {
      socket.removeAllListeners('error');
      resolve(socket);
    });
    socket.once('error', () => {
      socket.destroy();
      resolve(undefined);
    });
  });
}

export async function readGatewayRecord(path: string): Promise<GatewayRecord | undefined> {
  try {
    const parsed = parseJsonObject(new TextDecoder().decode(await readRegularFile(path, { maxBytes: 64 * 1024 })));
    if (!parsed.ok) return undefined;
    const { pid, startTime, cwd, config, pipe } = parsed.root;
    if (typeof pid !== 'number' || typeof cwd !== 'string' || typeof config !== 'string') return undefined;
    return { pid, ...(typeof startTime === 'number' ? { startTime } : {}), cwd, config, ...(typeof pipe === 'string' ? { pipe } : {}) };
  } catch {
    return undefined;
  }
}

/**
 * Takes the socket unless a gateway accepts on it already (then `running` says which). Under the
 * lock, so of two gateways starting at once exactly one takes it: the other finds it accepting.
 * A socket file nothing accepts on is a dead gateway's and is replaced. On win32 the pipe is a
 * fresh one (decision 272), and there is no file to inspect, narrow or remove.
 */
export async function claimGatewaySocket(
  address: GatewayAddress,
  identity: { cwd: string; config: string },
  onConnection: (socket: Socket) => void,
  platform: NodeJS.Platform = process.platform,
): Promise<{ ok: true; socket: GatewaySocket } | { ok: false; running?: GatewayRecord }> {
  const pipes = usesNamedPipes(platform);
  await makePrivateDirectory(dirname(address.record));
  return withLock(address, async () => {
    const existing = await connectGateway(address, platform);
    if (existing) {
      existing.destroy();
      return { ok: false, running: await readGatewayRecord(address.record) };
    }
    if (!pipes) await removeStaleSocket(address.socket);
    const listenOn = pipes ? listeningPipe(address.socket) : address.socket;
    const me = ownIdentity();
    const record: GatewayRecord = { pid: process.pid, ...(me ? { startTime: me.startTime } : {}), ...identity, ...(pipes ? { pipe: listenOn } : {}) };
    await writeOwnedFile(address.record, `${JSON.stringify(record)}\n`, { mode: 0o600, durable: false });
    const connections = new Set<Socket>();
    const server = createServer((socket) => {
      connections.add(socket);
      socket.once('close', () => connections.delete(socket));
      onConnection(socket);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(listenOn, () => {
        server.removeListener('error', reject);
        resolve();
      });
    });
    // A pipe has no mode: it keeps the default security descriptor (platform/localAddress.ts).
    if (!pipes) await chmod(address.socket, 0o600);
    const close = (): Promise<void> =>
      // Under the lock: a gateway starting meanwhile must not take the path between our close and unlink.
      withLock(address, async () => {
        for (const socket of connections) socket.destroy();
        await new Promise<void>((resolve) => server.close(() => resolve()));
        if (!pipes) await unlink(address.socket).catch(() => undefined);
        if ((await readGatewayRecord(address.record))?.pid === process.pid) await unlink(address.record).catch(() => undefined);
      });
    return { ok: true, socket: { path: listenOn, close } };
  });
}

async function withLock<T>(address: GatewayAddress, body: () => Promise<T>): Promise<T> {
  // A compromised lock (its directory removed) must not throw from proper-lockfile's timer and end
  // the gateway: the lock only orders gateways taking the socket, which the socket itself settles.
  const release = await lock(address.socket, { ...LOCK_OPTIONS, lockfilePath: address.lock, onCompromised: () => undefined });
  try {
    return await body();
  } finally {
    await release().catch(() => undefined);
  }
}

/** Removes a socket file nothing accepts on; anything else at that path is not ours to remove. */
async function removeStaleSocket(path: string): Promise<void> {
  try {
    const stats = await lstat(path);
    if (!stats.isSocket()) throw new Error(`${path} is in the way of the gateway's socket and is not a socket; remove it`);
    await unlink(path);
  } catch (error) {
    if (errorCode(error) !== 'ENOENT') throw error;
  }
}
