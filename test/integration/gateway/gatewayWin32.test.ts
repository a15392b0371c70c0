import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createMcpLive } from '../../../src/live/createMcpLive.js';
import { createGateway, type Gateway } from '../../../src/hosts/gateway/gateway.js';
import { attachToGateway, relayStdio, stopGateway } from '../../../src/hosts/gateway/gatewayDaemon.js';
import {
  claimGatewaySocket,
  connectGateway,
  gatewayAddress,
  readGatewayRecord,
  type GatewayAddress,
  type GatewaySocket,
} from '../../../src/hosts/gateway/localSocket.js';
import { SocketServerTransport } from '../../../src/hosts/gateway/socketTransport.js';
import type { ExecFileFunction } from '../../../src/platform/killTree.js';
import { isListeningPipeOf, localEndpoint } from '../../../src/platform/localAddress.js';
import { Workspace } from '../../e2e/cliSession.js';
import { fixture } from '../mcpServers.js';
import { isAlive, waitForExit, waitForNoLeftovers } from '../processes.js';

/**
 * Decisions 272 and 273: the gateway on win32, simulated. The names are checked as
 * Windows gets them; the claim, the relay's attach and `serve --stop` run their win32 branch
 * with the pipe's shared name pointed into a temporary directory (Linux listens on any path,
 * not on `\\.\pipe\`), so what differs — a fresh pipe per gateway named by its record, no file
 * inspected, narrowed or removed, the tree ended by taskkill — runs for real.
 */

const dirs: string[] = [];
const sockets: GatewaySocket[] = [];
const servers: Server[] = [];
const children: ChildProcess[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) await socket.close();
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
  for (const child of children.splice(0)) if (child.pid !== undefined && isAlive(child.pid)) child.kill('SIGKILL');
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-live-pipe-'));
  dirs.push(dir);
  return dir;
}

/** A win32 address whose shared pipe name is a path here; its runtime directory made. */
function simulatedAddress(dir = tempDir()): GatewayAddress {
  mkdirSync(join(dir, 'run'), { recursive: true, mode: 0o700 });
  const address = gatewayAddress(join(dir, 'run'), 'qwen', { userSettings: join(dir, 'settings.json'), cwd: dir }, 'win32');
  return { ...address, socket: join(dir, 'pipe') };
}

const identity = { cwd: '/work', config: 'digest' };

async function claim(address: GatewayAddress, onConnection: (socket: Socket) => void = (s) => s.end()): Promise<GatewaySocket> {
  const claimed = await claimGatewaySocket(address, identity, onConnection, 'win32');
  if (!claimed.ok) throw new Error('taken');
  sockets.push(claimed.socket);
  return claimed.socket;
}

describe('the gateway address on win32', () => {
  const key = { userSettings: 'C:\\Users\\ann\\.qwen\\settings.json', cwd: 'C:\\work\\proj' };

  it('is a named pipe \\\\.\\pipe\\mcp-live-<profile>-<hash>; record, lock and log stay in the runtime directory', () => {
    const runtimeDir = join(tempDir(), 'run');
    const address = gatewayAddress(runtimeDir, 'qwen', key, 'win32');
    expect(address.socket).toMatch(/^\\\\\.\\pipe\\mcp-live-qwen-[0-9a-f]{16}$/);
    for (const file of [address.record, address.lock, address.log]) expect(file.startsWith(join(runtimeDir, 'gateway-qwen-'))).toBe(true);
    expect(gatewayAddress(runtimeDir, 'qwen', key, 'win32')).toEqual(address);
  });

  it('differs per user (runtime directory), profile and workspace, since pipes share one namespace per machine', () => {
    const a = gatewayAddress('C:\\Users\\ann\\.qwen\\run', 'qwen', key, 'win32').socket;
    expect(gatewayAddress('C:\\Users\\bob\\.qwen\\run', 'qwen', key, 'win32').socket).not.toBe(a);
    expect(gatewayAddress('C:\\Users\\ann\\.qwen\\run', 'gemini', key, 'win32').socket).not.toBe(a);
    expect(gatewayAddress('C:\\Users\\ann\\.qwen\\run', 'qwen', { ...key, cwd: 'C:\\work\\other' }, 'win32').socket).not.toBe(a);
  });

  it('has no socket path length limit (POSIX still refuses one over sun_path)', () => {
    const long = join(tempDir(), 'x'.repeat(150));
    expect(() => gatewayAddress(long, 'qwen', key, 'linux')).toThrow(/too long/);
    expect(gatewayAddress(long, 'qwen', key, 'win32').socket).toMatch(/^\\\\\.\\pipe\\/);
    expect(localEndpoint('/run/gateway-qwen-abc', 'qwen', 'darwin')).toBe('/run/gateway-qwen-abc.sock');
  });

  it('a listening pipe is the shared name and 32 hex digits, nothing else', () => {
    const shared = '\\\\.\\pipe\\mcp-live-qwen-0123456789abcdef';
    expect(isListeningPipeOf(shared, `${shared}-${'a'.repeat(32)}`)).toBe(true);
    expect(isListeningPipeOf(shared, shared)).toBe(false);
    expect(isListeningPipeOf(shared, `${shared}-${'a'.repeat(31)}`)).toBe(false);
    expect(isListeningPipeOf(shared, `${shared}-${'a'.repeat(32)}\\..\\other`)).toBe(false);
    expect(isListeningPipeOf(shared, `\\\\.\\pipe\\evil-${'a'.repeat(32)}`)).toBe(false);
  });
});

describe('claiming and reaching the gateway on win32', () => {
  it('listens on a fresh pipe its record names, and a second gateway finds it running', async () => {
    const address = simulatedAddress();
    const socket = await claim(address);
    const record = await readGatewayRecord(address.record);
    expect(record).toMatchObject({ pid: process.pid, ...identity, pipe: socket.path });
    expect(isListeningPipeOf(address.socket, socket.path)).toBe(true);
    const reached = await connectGateway(address, 'win32');
    expect(reached).toBeDefined();
    reached!.destroy();
    const second = await claimGatewaySocket(address, identity, () => undefined, 'win32');
    expect(second).toMatchObject({ ok: false, running: { pid: process.pid } });
  });

  it('two gateways in a row get different pipes: a name seen while one ran is no use later', async () => {
    const address = simulatedAddress();
    const first = await claim(address);
    const firstPath = first.path;
    await sockets.pop()!.close();
    expect(existsSync(address.record)).toBe(false);
    const second = await claim(address);
    expect(second.path).not.toBe(firstPath);
  });

  it('inspects, narrows and removes no file at the shared name (a pipe has none)', async () => {
    const address = simulatedAddress();
    // On POSIX this would be "in the way of the gateway's socket".
    writeFileSync(address.socket, 'not a socket');
    const socket = await claim(address);
    await sockets.pop()!.close();
    expect(readFileSync(address.socket, 'utf8')).toBe('not a socket');
    expect(existsSync(socket.path)).toBe(false);
  });

  it('never speaks to a pipe its record does not name: the shared name squatted, a record of a dead gateway, a foreign pipe', async () => {
    const dir = tempDir();
    const address = simulatedAddress(dir);
    const squatter = createServer((s) => s.on('error', () => undefined).end('{"jsonrpc":"2.0","method":"gotcha"}\n'));
    servers.push(squatter);
    await new Promise<void>((resolve) => squatter.listen(address.socket, resolve));
    // No record: nothing is connected to, though something accepts at the shared name.
    expect(await connectGateway(address, 'win32')).toBeUndefined();
    const pipe = `${address.socket}-${'0'.repeat(32)}`;
    const impostor = createServer((s) => s.on('error', () => undefined).end());
    servers.push(impostor);
    await new Promise<void>((resolve) => impostor.listen(pipe, resolve));
    const dead = spawn(process.execPath, ['-e', '']);
    await new Promise((resolve) => dead.once('exit', resolve));
    writeFileSync(address.record, JSON.stringify({ pid: dead.pid, cwd: '/', config: 'x', pipe }));
    expect(await connectGateway(address, 'win32')).toBeUndefined();
    writeFileSync(address.record, JSON.stringify({ pid: process.pid, cwd: '/', config: 'x', pipe: address.socket }));
    expect(await connectGateway(address, 'win32')).toBeUndefined();
    // The same record, as POSIX reads it: the socket path itself.
    const posix = await connectGateway(address, 'linux');
    expect(posix).toBeDefined();
    posix!.destroy();
  });
});

describe('serve --stdio and serve --stop on win32', () => {
  const workspaces: Workspace[] = [];
  const gateways: Gateway[] = [];
  afterEach(async () => {
    for (const socket of sockets.splice(0)) await socket.close();
    for (const gateway of gateways.splice(0)) {
      await gateway.close();
      await gateway.live.dispose();
    }
    for (const ws of workspaces.splice(0)) ws.cleanup();
  });
  afterAll(async () => {
    expect(await waitForNoLeftovers()).toEqual([]);
  });

  it('a relay attaches to the running gateway through the pipe its record names, and a client calls a tool', async () => {
    const ws = new Workspace();
    workspaces.push(ws);
    ws.write(ws.userSettings, { mcpServers: { echo: { command: process.execPath, args: [fixture('echo-server.mjs')] } } });
    const runtimeDir = join(ws.root, 'run');
    const gateway = createGateway((hooks) => createMcpLive({ homeDir: ws.home, cwd: ws.cwd, runtimeDir, debounceMs: 50, ...hooks }));
    gateways.push(gateway);
    const address = simulatedAddress(ws.root);
    await claim(address, (socket) => void gateway.connect(new SocketServerTransport(socket), 'socket').catch(() => socket.destroy()));
    await gateway.live.start();
    // A daemon that would be started is never needed: the gateway runs.
    const socket = await attachToGateway(address, { script: '/nonexistent.js', args: [] }, 5_000, 'win32');
    const toRelay = new PassThrough();
    const fromRelay = new PassThrough();
    const relayed = relayStdio(socket, toRelay, fromRelay);
    const client = new Client({ name: 'win32-test', version: '1' });
    // The SDK's stdio framing over the relay's streams, as a client that spawned `serve --stdio` has it.
    await client.connect(new StdioServerTransport(fromRelay, toRelay));
    const tools = await client.listTools();
    expect(tools.tools.map((t) => t.name)).toContain('echo__echo');
    const result = (await client.callTool({ name: 'echo__echo', arguments: { text: 'hi' } })) as CallToolResult;
    expect(JSON.stringify(result.content)).toContain('hi');
    await client.close();
    toRelay.end();
    expect(await relayed).toBe('closed');
  });

  it('serve --stop ends the gateway tree: taskkill /T, then /T /F after the grace, and removes its record', async () => {
    const address = simulatedAddress();
    // The gateway: a process of its own that ignores what taskkill without /F can do.
    const gatewayProcess = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    children.push(gatewayProcess);
    const pipe = `${address.socket}-${'f'.repeat(32)}`;
    const listener = createServer((s) => s.on('error', () => undefined).end());
    servers.push(listener);
    await new Promise<void>((resolve) => listener.listen(pipe, resolve));
    writeFileSync(address.record, JSON.stringify({ pid: gatewayProcess.pid, cwd: '/', config: 'x', pipe }));
    const calls: (readonly string[])[] = [];
    const execFile: ExecFileFunction = (file, args, _options, callback) => {
      expect(file).toBe('C:\\Windows\\System32\\taskkill.exe');
      calls.push(args);
      if (args.includes('/F')) process.kill(gatewayProcess.pid!, 'SIGKILL');
      setImmediate(() => callback(args.includes('/F') ? null : new Error('can only be terminated forcefully')));
    };
    const outcome = await stopGateway(address, 10_000, { platform: 'win32', execFile, env: { SystemRoot: 'C:\\Windows' } });
    expect(outcome).toBe('stopped');
    expect(calls).toEqual([
      ['/PID', String(gatewayProcess.pid), '/T'],
      ['/PID', String(gatewayProcess.pid), '/T', '/F'],
    ]);
    expect(await waitForExit(gatewayProcess.pid!)).toBe(true);
    expect(existsSync(address.record)).toBe(false);
  });

  it('serve --stop finds no gateway when the record names a pipe nothing accepts on', async () => {
    const address = simulatedAddress();
    writeFileSync(address.record, JSON.stringify({ pid: process.pid, cwd: '/', config: 'x', pipe: `${address.socket}-${'e'.repeat(32)}` }));
    const execFile: ExecFileFunction = () => {
      throw new Error('no taskkill expected');
    };
    expect(await stopGateway(address, 1_000, { platform: 'win32', execFile })).toBe('none');
  });
});
