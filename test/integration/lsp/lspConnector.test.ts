import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { filter, firstValueFrom } from 'rxjs';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Hover, Location } from 'vscode-languageserver-protocol';
import { resolveLspConfig, type LspServerConfig } from '../../../src/model/lsp/lspConfig.js';
import type { LspView, ResolvedServerConfig } from '../../../src/model/types.js';
import { LspDocuments, type FileDiagnostics } from '../../../src/sinks/lsp/documents.js';
import { createLspConnector, type LspConnection } from '../../../src/sinks/lsp/lspConnector.js';
import { errorOf, fixture, freePort } from '../mcpServers.js';
import { isAlive, sleep, waitForExit, waitForNoLeftovers } from '../processes.js';

/**
 * The language server connector against real processes: the fixture server
 * (test/fixtures/lsp-server.mjs) for the lifecycle, settings, documents and failures, and the
 * real typescript-language-server and pyright for hover and definition.
 */

const LSP_FIXTURE = fixture('lsp-server.mjs');
const BIN = join(fixture('..'), '..', 'node_modules', '.bin');
/** What the tests start: the fixture, and the real servers with the tsserver they run. */
const LSP_PROCESSES = /lsp-server\.mjs|typescript-language-server|tsserver|pyright/;

let dir: string;
let documents: LspDocuments;
const open: LspConnection[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'mcp-live-lsp-'));
  documents = new LspDocuments({ base: dir });
});

afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
  expect(await waitForNoLeftovers(LSP_PROCESSES)).toEqual([]);
  rmSync(dir, { recursive: true, force: true });
});

afterAll(async () => {
  expect(await waitForNoLeftovers(LSP_PROCESSES)).toEqual([]);
});

/** A `.lsp.json` entry running the fixture with `args`, resolved as the pipeline resolves it. */
function fixtureConfig(args: string[], entry: Partial<LspServerConfig> = {}): ResolvedServerConfig {
  return resolved({ command: process.execPath, args: [LSP_FIXTURE, ...args], extensionToLanguage: { '.txt': 'plaintext' }, ...entry });
}

function resolved(entry: LspServerConfig): ResolvedServerConfig {
  const resolution = resolveLspConfig(entry, process.env, dir);
  if (!resolution.ok) throw new Error(resolution.error);
  return resolution.resolved;
}

function connector() {
  return createLspConnector({ documents });
}

async function connect(config: ResolvedServerConfig, name = 'lsp:fixture'): Promise<LspConnection> {
  const connection = await firstValueFrom(connector()(name, config));
  open.push(connection);
  return connection;
}

function logFile(): string {
  return join(dir, 'lsp.log');
}

interface LogEntry {
  pid: number;
  method: string;
  [field: string]: unknown;
}

function readLog(file = logFile()): LogEntry[] {
  try {
    return readFileSync(file, 'utf8')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as LogEntry);
  } catch {
    return [];
  }
}

/** Waits until the log has an entry `matches` accepts (the server handles notifications in its own time). */
async function logged(matches: (entry: LogEntry) => boolean, ms = 10_000): Promise<LogEntry> {
  const deadline = Date.now() + ms;
  for (;;) {
    const found = readLog().find(matches);
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`not logged; the log: ${JSON.stringify(readLog())}`);
    await sleep(20);
  }
}

function methods(): string[] {
  return readLog().map((entry) => entry.method);
}

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

function uri(name: string): string {
  return pathToFileURL(join(dir, name)).href;
}

function view(patch: Partial<LspView>, base: ResolvedServerConfig): { lsp: LspView } {
  return { lsp: { ...base.lsp!.view, ...patch } };
}

function hoverText(hover: Hover | null): string {
  const contents = hover?.contents;
  return typeof contents === 'object' && contents !== null && 'value' in contents ? contents.value : JSON.stringify(contents);
}

function diagnosticsWhere(predicate: (all: readonly FileDiagnostics[]) => boolean): Promise<readonly FileDiagnostics[]> {
  return firstValueFrom(documents.diagnostics$.pipe(filter(predicate)));
}

describe('the fixture language server', () => {
  it('connects: initialize with the options and folder, initialized, the settings; pid, serverInfo, capabilities', async () => {
    const config = fixtureConfig(['--log', logFile()], { initializationOptions: { mode: 'ü' }, settings: { fixture: { level: 1 } } });
    const connection = await connect(config);

    expect(connection.pid).toBeGreaterThan(0);
    expect(isAlive(connection.pid!)).toBe(true);
    expect(connection.server).toEqual({ info: { name: 'fixture-lsp', version: '1.0.0' }, capabilities: ['definition', 'documentSymbol', 'hover'] });
    expect(connection.lsp.capabilities.hoverProvider).toBe(true);
    expect(connection.lists).toEqual({ tools: [], prompts: [], resources: [], resourceTemplates: [] });
    await expect(connection.callTool('anything', {})).rejects.toThrow('a language server has no MCP tools');
    expect(connection.lsp.languageOf(join(dir, 'a.txt'))).toBe('plaintext');
    expect(connection.lsp.languageOf(join(dir, 'a.md'))).toBeUndefined();

    await logged((e) => e.method === 'didChangeConfiguration');
    expect(methods()).toEqual(['initialize', 'initialized', 'didChangeConfiguration']);
    const [initialize, , configuration] = readLog();
    expect(initialize).toMatchObject({ pid: connection.pid, initializationOptions: { mode: 'ü' }, rootUri: pathToFileURL(dir).href, clientInfo: { name: 'mcp-live' } });
    expect(configuration!.settings).toEqual({ fixture: { level: 1 } });
  });

  it('round-trips non-ASCII text both ways: a document with "Grüße 🚀", a hover that answers with it', async () => {
    const connection = await connect(fixtureConfig(['--log', logFile()]));
    const path = file('greeting.txt', 'const Grüße = 1;\n🚀 Grüße und 日本\n');
    await documents.open(path);
    await logged((e) => e.method === 'didOpen');

    // Line 1, after the rocket (two UTF-16 code units) and a space: the word starts at column 3.
    const hover = await connection.lsp.request<Hover>('textDocument/hover', { textDocument: { uri: uri('greeting.txt') }, position: { line: 1, character: 4 } });
    expect(hoverText(hover)).toBe('Grüße → Grüße 🚀 日本');
    const definition = await connection.lsp.request<Location>('textDocument/definition', {
      textDocument: { uri: uri('greeting.txt') },
      position: { line: 1, character: 13 },
    });
    expect(definition).toEqual({ uri: uri('greeting.txt'), range: { start: { line: 1, character: 13 }, end: { line: 1, character: 15 } } });
    const grüße = await connection.lsp.request<Location>('textDocument/definition', { textDocument: { uri: uri('greeting.txt') }, position: { line: 1, character: 5 } });
    expect(grüße.range.start).toEqual({ line: 0, character: 6 });
  });

  it('reconfigure: other settings go out once with didChangeConfiguration, same pid; the same settings not at all', async () => {
    const config = fixtureConfig(['--log', logFile()], { settings: { a: 1 } });
    const connection = await connect(config);
    await logged((e) => e.method === 'didChangeConfiguration');

    connection.reconfigure!(view({ settings: { a: 2, nested: { ü: '🚀' } } }, config));
    await logged((e) => e.method === 'didChangeConfiguration' && (e.settings as { a: number }).a === 2);
    connection.reconfigure!(view({ settings: { nested: { ü: '🚀' }, a: 2 } }, config));
    connection.reconfigure!(view({ settings: { a: 2, nested: { ü: '🚀' } }, shutdownTimeout: 1_000 }, config));
    // A request after the notifications: its answer comes after the server handled them.
    await connection.lsp.request('fixture/askConfiguration', { section: 'a' });

    const changes = readLog().filter((e) => e.method === 'didChangeConfiguration');
    expect(changes.map((e) => e.settings)).toEqual([{ a: 1 }, { a: 2, nested: { ü: '🚀' } }]);
    expect(new Set(readLog().map((e) => e.pid))).toEqual(new Set([connection.pid]));
  });

  it('answers workspace/configuration from the current settings: dotted sections, nested or flat, null when missing', async () => {
    const config = fixtureConfig([], { settings: { fixture: { greeting: 'hallo', deep: { x: 1 } }, 'flat.key': 'flat' } });
    const connection = await connect(config);
    const ask = (section?: string) => connection.lsp.request('fixture/askConfiguration', section === undefined ? {} : { section });

    expect(await ask('fixture.greeting')).toBe('hallo');
    expect(await ask('fixture.deep')).toEqual({ x: 1 });
    expect(await ask('flat.key')).toBe('flat');
    expect(await ask('fixture.missing')).toBeNull();
    expect(await ask()).toEqual({ fixture: { greeting: 'hallo', deep: { x: 1 } }, 'flat.key': 'flat' });

    connection.reconfigure!(view({ settings: { fixture: { greeting: 'grüß dich' } } }, config));
    expect(await ask('fixture.greeting')).toBe('grüß dich');
  });

  it('a crash errors lists$ with the exit and the last stderr line; requests then fail with it', async () => {
    const connection = await connect(fixtureConfig(['--crash-after', '100']));
    const died = await errorOf(connection.lists$);
    expect(died.message).toBe('process exited with code 1: Error: lsp boom');
    await expect(connection.lsp.request('textDocument/hover', {})).rejects.toThrow(
      'server "lsp:fixture" is not connected: process exited with code 1: Error: lsp boom',
    );
  });

  it('a server that never answers initialize times out at startupTimeout, and its process is gone when the error comes', async () => {
    const started = Date.now();
    // Long enough for Node to start the fixture and read `initialize` on a loaded machine.
    const error = await errorOf(connector()('lsp:hang', fixtureConfig(['--log', logFile(), '--hang-initialize'], { startupTimeout: 2_000 })));
    expect(error.message).toBe('timed out after 2000 ms (raise "startupTimeout" in the server\'s entry)');
    expect(Date.now() - started).toBeGreaterThanOrEqual(2_000);
    const [initialize] = readLog();
    expect(initialize?.method).toBe('initialize');
    expect(isAlive(initialize!.pid)).toBe(false);
  });

  it('a command that cannot start fails the connect', async () => {
    const error = await errorOf(connector()('lsp:missing', resolved({ command: join(dir, 'no-such-server'), extensionToLanguage: { '.x': 'x' } })));
    expect(error.message).toMatch(/^failed to start ".*no-such-server": spawn .* ENOENT$/);
  });

  it('close: shutdown, exit, and the process is gone when close() resolves; lists$ completes', async () => {
    const connection = await connect(fixtureConfig(['--log', logFile()]));
    let completed = false;
    connection.lists$.subscribe({ complete: () => (completed = true) });
    const pid = connection.pid!;
    await connection.close();
    expect(isAlive(pid)).toBe(false);
    expect(methods()).toEqual(['initialize', 'initialized', 'shutdown', 'exit']);
    expect(completed).toBe(true);
    await connection.close(); // idempotent
    await expect(connection.lsp.request('textDocument/hover', {})).rejects.toThrow('server "lsp:fixture" is not connected');
  });

  it('a server slow to exit (800 ms) ends on its own within the grace: no SIGTERM', async () => {
    const connection = await connect(fixtureConfig(['--log', logFile(), '--slow-exit', '800']));
    const started = Date.now();
    await connection.close();
    const took = Date.now() - started;
    expect(took).toBeGreaterThanOrEqual(800);
    expect(took).toBeLessThan(2_000);
    expect(methods()).toEqual(['initialize', 'initialized', 'shutdown', 'exit']);
  });

  it('a server that ignores shutdown and exit: shutdownTimeout, the grace, then SIGTERM', async () => {
    const connection = await connect(fixtureConfig(['--log', logFile(), '--ignore-shutdown'], { shutdownTimeout: 300 }));
    const pid = connection.pid!;
    const started = Date.now();
    await connection.close();
    const took = Date.now() - started;
    expect(took).toBeGreaterThanOrEqual(300 + 2_000);
    expect(took).toBeLessThan(300 + 2_000 + 1_500);
    expect(methods()).toEqual(['initialize', 'initialized', 'shutdown', 'exit', 'SIGTERM']);
    expect(isAlive(pid)).toBe(false);
  });

  it('unsubscribing while it connects ends the process: no orphan', async () => {
    const subscription = connector()('lsp:hang', fixtureConfig(['--log', logFile(), '--hang-initialize'])).subscribe({
      next: (c) => open.push(c),
    });
    const { pid } = await logged((e) => e.method === 'initialize');
    subscription.unsubscribe();
    expect(await waitForExit(pid)).toBe(true);
  });

  it('sends the open documents to a new connection, follows opens, changes and closes, and re-routes on reconfigure', async () => {
    const notes = file('notes.txt', 'first\n');
    const readme = file('readme.md', '# title\n');
    await documents.open(notes);
    await documents.open(readme);
    documents.change(notes, 'second\n');
    const config = fixtureConfig(['--log', logFile()]);
    const first = await connect(config);
    // Only what the server takes (`.txt`), at its current version.
    await logged((e) => e.method === 'didOpen');
    expect(readLog().filter((e) => e.method === 'didOpen')).toEqual([{ pid: first.pid, method: 'didOpen', uri: uri('notes.txt'), version: 2, languageId: 'plaintext' }]);

    documents.change(notes, 'third\n');
    await logged((e) => e.method === 'didChange' && e.version === 3);
    first.reconfigure!(view({ extensionToLanguage: { '.txt': 'plaintext', '.md': 'markdown' } }, config));
    await logged((e) => e.method === 'didOpen' && e.uri === uri('readme.md'));
    first.reconfigure!(view({ extensionToLanguage: { '.md': 'markdown' } }, config));
    await logged((e) => e.method === 'didClose' && e.uri === uri('notes.txt'));
    documents.close(readme);
    await logged((e) => e.method === 'didClose' && e.uri === uri('readme.md'));
    await first.close();

    // A restarted server gets the host's open documents again, as they are now.
    const second = await connect(config);
    const reopened = await logged((e) => e.method === 'didOpen' && e.pid === second.pid);
    expect(reopened).toMatchObject({ uri: uri('notes.txt'), version: 3 });
    expect(readLog().filter((e) => e.pid === second.pid && e.method.startsWith('did') && e.method !== 'didChangeConfiguration')).toHaveLength(1);
  });

  it('puts pushed diagnostics into the store; a change clears them; a closed connection drops its own only', async () => {
    const todo = file('todo.txt', 'ok\n// TODO: fix\n');
    await documents.open(todo);
    const config = fixtureConfig([]);
    const old = await connect(config);

    const [first] = await diagnosticsWhere((all) => all.length === 1);
    expect(first).toMatchObject({ server: 'lsp:fixture', uri: uri('todo.txt'), path: todo });
    expect(first!.diagnostics).toEqual([
      { range: { start: { line: 1, character: 3 }, end: { line: 1, character: 7 } }, severity: 2, source: 'fixture', message: 'TODO on line 2' },
    ]);
    documents.change(todo, 'done\n');
    await diagnosticsWhere((all) => all.length === 0);
    documents.change(todo, 'TODO again\n');
    await diagnosticsWhere((all) => all.length === 1);

    // make-before-break: the new connection of the same server publishes too; closing the old keeps it.
    const replacement = await connect(config);
    // The server publishes on didOpen, before it answers a request sent after it.
    await replacement.lsp.request('textDocument/hover', { textDocument: { uri: uri('todo.txt') }, position: { line: 0, character: 0 } });
    await old.close();
    expect(documents.diagnostics(todo).map((d) => d.diagnostics[0]?.message)).toEqual(['TODO on line 1']);
    await replacement.close();
    expect(documents.diagnostics()).toEqual([]);
  });

  it('over a socket: starts the command, connects when it listens, answers, closes', async () => {
    const port = await freePort();
    const connection = await connect(fixtureConfig(['--log', logFile(), '--port', String(port)], { transport: 'socket', socket: port }));
    expect(connection.pid).toBeGreaterThan(0);
    await documents.open(file('sock.txt', 'hello Grüße\n'));
    await logged((e) => e.method === 'didOpen');
    const hover = await connection.lsp.request<Hover>('textDocument/hover', { textDocument: { uri: uri('sock.txt') }, position: { line: 0, character: 8 } });
    expect(hoverText(hover)).toBe('Grüße → Grüße 🚀 日本');
    const pid = connection.pid!;
    await connection.close();
    expect(isAlive(pid)).toBe(false);
    expect(methods()).toEqual(['initialize', 'initialized', 'didOpen', 'shutdown', 'exit']);
  });

  it('a socket nobody listens on: retried until startupTimeout, which names the last failure', async () => {
    const port = await freePort();
    const error = await errorOf(connector()('lsp:nobody', resolved({ transport: 'socket', socket: port, extensionToLanguage: { '.x': 'x' }, startupTimeout: 500 })));
    expect(error.message).toBe(
      `timed out after 500 ms (raise "startupTimeout" in the server's entry); last connect attempt: connect ECONNREFUSED 127.0.0.1:${port}`,
    );
  });
});

describe('real language servers', () => {
  it('typescript-language-server: hover and definition', async () => {
    const source = 'export function greet(name: string): string {\n  return `hi ${name}`;\n}\n\nexport const message = greet("Grüße 🚀");\n';
    const path = file('greet.ts', source);
    // Without the DOM's declarations tsserver loads the project in half the time.
    file('tsconfig.json', JSON.stringify({ compilerOptions: { lib: ['es2022'], types: [], strict: true }, files: ['greet.ts'] }));
    await documents.open(path);
    const connection = await connect(
      resolved({ command: join(BIN, 'typescript-language-server'), args: ['--stdio'], extensionToLanguage: { '.ts': 'typescript' } }),
      'lsp:typescript',
    );
    const at = { textDocument: { uri: uri('greet.ts') }, position: { line: 4, character: 24 } };
    const hover = await connection.lsp.request<Hover>('textDocument/hover', at);
    expect(hoverText(hover)).toContain('function greet(name: string): string');
    const definition = await connection.lsp.request<Location[]>('textDocument/definition', at);
    expect(definition).toEqual([{ uri: uri('greet.ts'), range: { start: { line: 0, character: 16 }, end: { line: 0, character: 21 } } }]);
    await connection.close();
    expect(await waitForNoLeftovers(LSP_PROCESSES)).toEqual([]);
  });

  it('pyright: hover and definition', async () => {
    const path = file('calc.py', 'def add(a: int, b: int) -> int:\n    return a + b\n\n\nresult = add(1, 2)\n');
    await documents.open(path);
    const connection = await connect(
      resolved({ command: join(BIN, 'pyright-langserver'), args: ['--stdio'], extensionToLanguage: { '.py': 'python' } }),
      'lsp:pyright',
    );
    const at = { textDocument: { uri: uri('calc.py') }, position: { line: 4, character: 10 } };
    const hover = await connection.lsp.request<Hover>('textDocument/hover', at);
    // Pyright breaks a signature over lines.
    expect(hoverText(hover)).toMatch(/def add\(\s*a: int,\s*b: int\s*\) -> int/);
    const definition = await connection.lsp.request<Location[]>('textDocument/definition', at);
    expect(definition).toEqual([{ uri: uri('calc.py'), range: { start: { line: 0, character: 4 }, end: { line: 0, character: 7 } } }]);
    await connection.close();
    expect(await waitForNoLeftovers(LSP_PROCESSES)).toEqual([]);
  });
});
