import { createHash } from 'node:crypto';
import { chmod, lstat, unlink } from 'node:fs/promises';
import { connect, createServer, type Socket } from 'node:net';
import { dirname, join } from 'node:path';
import { lock } from 'proper-lockfile';
import { readRegularFile } from '../../streams/readRegularFile.js';
import { errorCode, parseJsonObject } from '../ownedJsonFile.js';
import { makePrivateDirectory } from '../processGroupRegistry.js';
import { ownIdentity } from '../processTable.js';
import { writeOwnedFile } from '../writeOwnedFile.js';

/**
 * Where the gateway of one profile and workspace is reached on this machine (issue 16): a unix
 * socket in the profile's runtime directory (0700), mode 0600, so only the user can attach. The
 * name carries the profile and a hash of the user settings file and the workspace: a gateway
 * serves one workspace, and a client of another workspace starts its own.
 *
 *   <runtimeDir>/gateway-<profile>-<hash>.sock   the socket (MCP over newline-delimited JSON)
 *   <runtimeDir>/gateway-<profile>-<hash>.json   who holds it: { pid, startTime, cwd, config }
 *   <runtimeDir>/gateway-<profile>-<hash>.lock   held while a gateway checks for a running one and takes the socket
 *   <runtimeDir>/gateway-<profile>-<hash>.log    a daemon's output: its NDJSON events and errors
 */
export interface GatewayAddress {
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
}

/** A socket taken by this process. */
export interface GatewaySocket {
  readonly path: string;
  /** Stops accepting, drops the connections, removes the socket and the record. */
  close(): Promise<void>;
}

/** sun_path holds 108 bytes on Linux, 104 on macOS (with the terminating NUL). */
const MAX_SOCKET_PATH = 103;

const LOCK_OPTIONS = {
  realpath: false,
  stale: 10_000,
  retries: { retries: 100, factor: 1.2, minTimeout: 10, maxTimeout: 200, randomize: true },
} as const;

export function gatewayAddress(runtimeDir: string, profile: string, key: { userSettings: string; cwd: string }): GatewayAddress {
  const hash = createHash('sha256').update(`${key.userSettings}\0${key.cwd}`).digest('hex').slice(0, 16);
  const base = join(runtimeDir, `gateway-${profile}-${hash}`);
  const address = { socket: `${base}.sock`, record: `${base}.json`, lock: `${base}.lock`, log: `${base}.log` };
  if (Buffer.byteLength(address.socket) > MAX_SOCKET_PATH) {
    throw new Error(
      `the gateway's socket path is too long for the system (${address.socket}); ` +
        'set XDG_RUNTIME_DIR to a short directory of yours, or use a shorter home directory',
    );
  }
  return address;
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
    const { pid, startTime, cwd, config } = parsed.root;
    if (typeof pid !== 'number' || typeof cwd !== 'string' || typeof config !== 'string') return undefined;
    return { pid, ...(typeof startTime === 'number' ? { startTime } : {}), cwd, config };
  } catch {
    return undefined;
  }
}

/**
 * Takes the socket unless a gateway accepts on it already (then `running` says which). Under the
 * lock, so of two gateways starting at once exactly one takes it: the other finds it accepting.
 * A socket file nothing accepts on is a dead gateway's and is replaced.
 */
export async function claimGatewaySocket(
  address: GatewayAddress,
  identity: { cwd: string; config: string },
  onConnection: (socket: Socket) => void,
): Promise<{ ok: true; socket: GatewaySocket } | { ok: false; running?: GatewayRecord }> {
  await makePrivateDirectory(dirname(address.socket));
  return withLock(address, async () => {
    const existing = await connectGatewaySocket(address.socket);
    if (existing) {
      existing.destroy();
      return { ok: false, running: await readGatewayRecord(address.record) };
    }
    await removeStaleSocket(address.socket);
    const me = ownIdentity();
    const record: GatewayRecord = { pid: process.pid, ...(me ? { startTime: me.startTime } : {}), ...identity };
    await writeOwnedFile(address.record, `${JSON.stringify(record)}\n`, { mode: 0o600, durable: false });
    const connections = new Set<Socket>();
    const server = createServer((socket) => {
      connections.add(socket);
      socket.once('close', () => connections.delete(socket));
      onConnection(socket);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(address.socket, () => {
        server.removeListener('error', reject);
        resolve();
      });
    });
    await chmod(address.socket, 0o600);
    const close = (): Promise<void> =>
      // Under the lock: a gateway starting meanwhile must not take the path between our close and unlink.
      withLock(address, async () => {
        for (const socket of connections) socket.destroy();
        await new Promise<void>((resolve) => server.close(() => resolve()));
        await unlink(address.socket).catch(() => undefined);
        if ((await readGatewayRecord(address.record))?.pid === process.pid) await unlink(address.record).catch(() => undefined);
      });
    return { ok: true, socket: { path: address.socket, close } };
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
