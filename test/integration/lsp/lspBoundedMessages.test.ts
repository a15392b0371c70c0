import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { firstValueFrom } from 'rxjs';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolveLspConfig, type LspServerConfig } from '../../../src/model/lsp/lspConfig.js';
import type { ResolvedServerConfig } from '../../../src/model/types.js';
import { LspDocuments } from '../../../src/sinks/lsp/documents.js';
import { createLspConnector, type LspConnection } from '../../../src/sinks/lsp/lspConnector.js';
import { errorOf, fixture, freePort } from '../mcpServers.js';
import { isAlive, waitForExit, waitForNoLeftovers } from '../processes.js';

/**
 * One message from a language server is bounded by its entry's `maxMessageBytes` (decisions
 * 185–186), as one from an MCP server is: a `Content-Length: 100000000` followed by bytes without
 * end — over stdio or a socket — ends that server with "message too large" at once, its process
 * ended, where vscode-jsonrpc's reader used to buffer it all and grow mcp-live until it died.
 */

const MiB = 1024 * 1024;
const HOSTILE = fixture('hostile-lsp-server.mjs');
const PROCESSES = /hostile-lsp-server\.mjs|lsp-server\.mjs/;

let dir: string;
let documents: LspDocuments;
const open: LspConnection[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'mcp-live-lsp-bounded-'));
  documents = new LspDocuments({ base: dir });
});

afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
  expect(await waitForNoLeftovers(PROCESSES)).toEqual([]);
  rmSync(dir, { recursive: true, force: true });
});

afterAll(async () => {
  expect(await waitForNoLeftovers(PROCESSES)).toEqual([]);
});

/** A `.lsp.json` entry running the fixture `script` with `args`, resolved as the pipeline resolves it. */
function nodeEntry(script: string, args: string[], entry: Partial<LspServerConfig> = {}): ResolvedServerConfig {
  const resolution = resolveLspConfig({ command: process.execPath, args: [script, ...args], extensionToLanguage: { '.txt': 'plaintext' }, ...entry }, process.env, dir);
  if (!resolution.ok) throw new Error(resolution.error);
  return resolution.resolved;
}

const hostile = (args: string[], entry: Partial<LspServerConfig> = {}) => nodeEntry(HOSTILE, args, entry);

async function connect(config: ResolvedServerConfig, name = 'lsp:hostile'): Promise<LspConnection> {
  const connection = await firstValueFrom(createLspConnector({ documents })(name, config));
  open.push(connection);
  return connection;
}

const tooLarge = (mib: number) => `message too large (more than ${mib} MiB; raise "maxMessageBytes" in the server's entry)`;

/** What `run` failed with, how long that took and what the process's memory grew by meanwhile. */
async function measured(run: () => Promise<unknown>): Promise<{ message: string; ms: number; grewBy: number }> {
  const before = process.memoryUsage().rss;
  const start = Date.now();
  try {
    await run();
  } catch (error) {
    return { message: (error as Error).message, ms: Date.now() - start, grewBy: process.memoryUsage().rss - before };
  }
  throw new Error('did not fail');
}

describe('a language server sending one message without end', () => {
  it('as its answer to initialize: the connect fails with "message too large" (default 16 MiB) at once; the process is ended', async () => {
    const failed = await measured(() => connect(hostile(['--flood', 'initialize'], { startupTimeout: 10_000 })));
    expect(failed.message).toBe(tooLarge(16));
    expect(failed.ms).toBeLessThan(5_000);
    expect(failed.grewBy).toBeLessThan(100 * MiB);
    // Ended by mcp-live (the fixture outlives its pipes for a minute).
    expect(await waitForNoLeftovers(PROCESSES)).toEqual([]);
  });

  it('once connected: the request fails, lists$ errors with "message too large", the process is ended; another server goes on', async () => {
    const other = await connect(nodeEntry(fixture('lsp-server.mjs'), []), 'lsp:fixture');
    const connection = await connect(hostile([], { maxMessageBytes: 2 * MiB }));
    const pid = connection.pid!;
    const died = errorOf(connection.lists$);
    const failed = await measured(() => connection.lsp.request('fixture/flood', {}));
    expect(failed.message).toBe(`server "lsp:hostile" is not connected: ${tooLarge(2)}`);
    expect(failed.ms).toBeLessThan(5_000);
    expect(failed.grewBy).toBeLessThan(100 * MiB);
    expect((await died).message).toBe(tooLarge(2));
    // Ended by mcp-live, not by a close (the fixture outlives its pipes).
    expect(await waitForExit(pid)).toBe(true);

    expect(isAlive(other.pid!)).toBe(true);
    expect(await other.lsp.request('fixture/askConfiguration', { section: 'missing' })).toBeNull();
  });

  it('over a socket, the same', async () => {
    const port = await freePort();
    const connection = await connect(hostile(['--port', String(port)], { transport: 'socket', socket: port }));
    const pid = connection.pid!;
    const died = errorOf(connection.lists$);
    await expect(connection.lsp.request('fixture/flood', {})).rejects.toThrow(tooLarge(16));
    expect((await died).message).toBe(tooLarge(16));
    expect(await waitForExit(pid)).toBe(true);
  });

  it('a header block without end fails it too, once past 8 KiB', async () => {
    const failed = await measured(() => connect(hostile(['--flood', 'initialize', '--header'], { startupTimeout: 10_000 })));
    expect(failed.message).toBe('message header too long (more than 8 KiB before its blank line)');
    expect(failed.ms).toBeLessThan(5_000);
  });
});

describe('a large but finite message', () => {
  it('over the entry\'s cap fails; under the default cap it is read', async () => {
    const over = await connect(hostile(['--bytes', String(3 * MiB)], { maxMessageBytes: 2 * MiB }));
    await expect(over.lsp.request('fixture/flood', {})).rejects.toThrow(tooLarge(2));
    const read = await connect(hostile(['--bytes', String(3 * MiB)]), 'lsp:large');
    expect(await read.lsp.request<string>('fixture/flood', {})).toHaveLength(3 * MiB);
  });
});
