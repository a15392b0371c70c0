import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { filter, firstValueFrom } from 'rxjs';
import { afterAll, describe, expect, it as base } from 'vitest';
import type { Hover, Location } from 'vscode-languageserver-protocol';
import { resolveLspConfig, type LspServerConfig } from '../../../src/model/lsp/lspConfig.js';
import type { LspView, ResolvedServerConfig } from '../../../src/model/types.js';
import { LspDocuments, type FileDiagnostics } from '../../../src/sinks/lsp/documents.js';
import { createLspConnector, type LspConnection } from '../../../src/sinks/lsp/lspConnector.js';
import { errorOf, fixture, freePort } from '../mcpServers.js';
import { descendants, isAlive, sleep, waitForExit, waitForNoLeftovers } from '../processes.js';
import { deadline } from '../../deadlines.js';

/**
 * The language server connector against real processes: the fixture server
 * (test/fixtures/lsp-server.mjs) for the lifecycle, settings, documents and failures, and the
 * real typescript-language-server and pyright for hover and definition.
 *
 * The tests run side by side (they wait on processes, not on the CPU): each has its own
 * directory, documents and connections (the `w` fixture), and ends every process it started.
 */

const LSP_FIXTURE = fixture('lsp-server.mjs');
const BIN = join(fixture('..'), '..', 'node_modules', '.bin');
/** What the tests start: the fixture, and the real servers with the tsserver they run. */
const LSP_PROCESSES = /lsp-server\.mjs|typescript-language-server|tsserver|pyright/;

afterAll(async () => {
  expect(await waitForNoLeftovers(LSP_PROCESSES)).toEqual([]);
});

interface LogEntry {
  pid: number;
  method: string;
  [field: string]: unknown;
}

/** One test's world: a directory, the host's documents, and the connections it opened. */
class World {
  readonly dir = mkdtempSync(join(tmpdir(), 'mcp-live-lsp-'));
  readonly documents = new LspDocuments({ base: this.dir });
  readonly open: LspConnection[] = [];

  /** A `.lsp.json` entry running the fixture with `args`, resolved as the pipeline resolves it. */
  fixtureConfig(args: string[], entry: Partial<LspServerConfig> = {}): ResolvedServerConfig {
    return this.resolved({ command: process.execPath, args: [LSP_FIXTURE, ...args], extensionToLanguage: { '.txt': 'plaintext' }, ...entry });
  }

  resolved(entry: LspServerConfig): ResolvedServerConfig {
    const resolution = resolveLspConfig(entry, process.env, this.dir);
    if (!resolution.ok) throw new Error(resolution.error);
    return resolution.resolved;
  }

  connector() {
    return createLspConnector({ documents: this.documents });
  }

  async connect(config: ResolvedServerConfig, name = 'lsp:fixture'): Promise<LspConnection> {
    const connection = await firstValueFrom(this.connector()(name, config));
    this.open.push(connection);
    return connection;
  }

  logFile(): string {
    return join(this.dir, 'lsp.log');
  }

  readLog(): LogEntry[] {
    try {
      return readFileSync(this.logFile(), 'utf8')
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as LogEntry);
    } catch {
      return [];
    }
  }

  /** Waits until the log has an entry `matches` accepts (the server handles notifications in its own time). */
  async logged(matches: (entry: LogEntry) => boolean, ms = 10_000): Promise<LogEntry> {
    const giveUpAt = Date.now() + deadline(ms);
    for (;;) {
      const found = this.readLog().find(matches);
      if (found) return found;
      if (Date.now() > giveUpAt) throw new Error(`not logged; the log: ${JSON.stringify(this.readLog())}`);
      await sleep(20);
    }
  }

  methods(): string[] {
    return this.readLog().map((entry) => entry.method);
  }

  file(name: string, text: string): string {
    const path = join(this.dir, name);
    writeFileSync(path, text);
    return path;
  }

  uri(name: string): string {
    return pathToFileURL(join(this.dir, name)).href;
  }

  diagnosticsWhere(predicate: (all: readonly FileDiagnostics[]) => boolean): Promise<readonly FileDiagnostics[]> {
    return firstValueFrom(this.documents.diagnostics$.pipe(filter(predicate)));
  }

  /** Closes `connection`; returns the pids of its process and their children still running after. */
  async closeAll(connection: LspConnection): Promise<number[]> {
    const pids = connection.pid === undefined ? [] : [connection.pid, ...descendants(connection.pid).map((p) => p.pid)];
    expect(pids.length).toBeGreaterThan(0);
    await connection.close();
    const left: number[] = [];
    for (const pid of pids) if (!(await waitForExit(pid))) left.push(pid);
    return left;
  }

  /**
   * Closes what the test left open; then every process it started — the connections' and their
   * children (tsserver), and every pid in its log — must be gone.
   */
  async end(): Promise<void> {
    const started = new Set<number>(this.readLog().map((entry) => entry.pid));
    for (const { pid } of this.open) {
      if (pid === undefined) continue;
      started.add(pid);
      for (const child of descendants(pid)) started.add(child.pid);
    }
    await Promise.all(this.open.splice(0).map((c) => c.close()));
    for (const pid of this.readLog().map((entry) => entry.pid)) started.add(pid);
    const left: number[] = [];
    for (const pid of started) if (!(await waitForExit(pid))) left.push(pid);
    rmSync(this.dir, { recursive: true, force: true });
    expect(left).toEqual([]);
  }
}

const it = base.extend<{ w: World }>({
  // eslint-disable-next-line no-empty-pattern -- vitest reads a fixture's dependencies from this pattern
  w: async ({}, use) => {
    const world = new World();
    await use(world);
    await world.end();
  },
});

function view(patch: Partial<LspView>, base: ResolvedServerConfig): { lsp: LspView } {
  return { lsp: { ...base.lsp!.view, ...patch } };
}

function hoverText(hover: Hover | null): string {
  const contents = hover?.contents;
  return typeof contents === 'object' && contents !== null && 'value' in contents ? contents.value : JSON.stringify(contents);
}

// One concurrent suite: tsserver's start, the longest wait here, overlaps the fixture's tests.
describe.concurrent('the LSP connector', () => {
  describe('real language servers', () => {
    it('typescript-language-server: hover and definition', async ({ w }) => {
      const source = 'export function greet(name: string): string {\n  return `hi ${name}`;\n}\n\nexport const message = greet("Grüße 🚀");\n';
      const path = w.file('greet.ts', source);
      // Without the DOM's declarations tsserver loads the project in half the time.
      w.file('tsconfig.json', JSON.stringify({ compilerOptions: { lib: ['es2022'], types: [], strict: true }, files: ['greet.ts'] }));
      await w.documents.open(path);
      const connection = await w.connect(
        w.resolved({ command: join(BIN, 'typescript-language-server'), args: ['--stdio'], extensionToLanguage: { '.ts': 'typescript' } }),
        'lsp:typescript',
      );
      const at = { textDocument: { uri: w.uri('greet.ts') }, position: { line: 4, character: 24 } };
      const hover = await connection.lsp.request<Hover>('textDocument/hover', at);
      expect(hoverText(hover)).toContain('function greet(name: string): string');
      const definition = await connection.lsp.request<Location[]>('textDocument/definition', at);
      expect(definition).toEqual([{ uri: w.uri('greet.ts'), range: { start: { line: 0, character: 16 }, end: { line: 0, character: 21 } } }]);
      expect(await w.closeAll(connection)).toEqual([]);
    });

    it('pyright: hover and definition', async ({ w }) => {
      const path = w.file('calc.py', 'def add(a: int, b: int) -> int:\n    return a + b\n\n\nresult = add(1, 2)\n');
      await w.documents.open(path);
      const connection = await w.connect(
        w.resolved({ command: join(BIN, 'pyright-langserver'), args: ['--stdio'], extensionToLanguage: { '.py': 'python' } }),
        'lsp:pyright',
      );
      const at = { textDocument: { uri: w.uri('calc.py') }, position: { line: 4, character: 10 } };
      const hover = await connection.lsp.request<Hover>('textDocument/hover', at);
      // Pyright breaks a signature over lines.
      expect(hoverText(hover)).toMatch(/def add\(\s*a: int,\s*b: int\s*\) -> int/);
      const definition = await connection.lsp.request<Location[]>('textDocument/definition', at);
      expect(definition).toEqual([{ uri: w.uri('calc.py'), range: { start: { line: 0, character: 4 }, end: { line: 0, character: 7 } } }]);
      expect(await w.closeAll(connection)).toEqual([]);
    });
  });

  describe('the fixture language server', () => {
    it('connects: initialize with the options and folder, initialized, the settings; pid, serverInfo, capabilities', async ({ w }) => {
      const config = w.fixtureConfig(['--log', w.logFile()], { initializationOptions: { mode: 'ü' }, settings: { fixture: { level: 1 } } });
      const connection = await w.connect(config);

      expect(connection.pid).toBeGreaterThan(0);
      expect(isAlive(connection.pid!)).toBe(true);
      expect(connection.server).toEqual({ info: { name: 'fixture-lsp', version: '1.0.0' }, capabilities: ['definition', 'documentSymbol', 'hover'] });
      expect(connection.lsp.capabilities.hoverProvider).toBe(true);
      expect(connection.lists).toEqual({ tools: [], prompts: [], resources: [], resourceTemplates: [] });
      await expect(connection.callTool('anything', {})).rejects.toThrow('a language server has no MCP tools');
      expect(connection.lsp.languageOf(join(w.dir, 'a.txt'))).toBe('plaintext');
      expect(connection.lsp.languageOf(join(w.dir, 'a.md'))).toBeUndefined();

      await w.logged((e) => e.method === 'didChangeConfiguration');
      expect(w.methods()).toEqual(['initialize', 'initialized', 'didChangeConfiguration']);
      const [initialize, , configuration] = w.readLog();
      expect(initialize).toMatchObject({ pid: connection.pid, initializationOptions: { mode: 'ü' }, rootUri: pathToFileURL(w.dir).href, clientInfo: { name: 'mcp-live' } });
      expect(configuration!.settings).toEqual({ fixture: { level: 1 } });
    });

    it('round-trips non-ASCII text both ways: a document with "Grüße 🚀", a hover that answers with it', async ({ w }) => {
      const connection = await w.connect(w.fixtureConfig(['--log', w.logFile()]));
      const path = w.file('greeting.txt', 'const Grüße = 1;\n🚀 Grüße und 日本\n');
      await w.documents.open(path);
      await w.logged((e) => e.method === 'didOpen');

      // Line 1, after the rocket (two UTF-16 code units) and a space: the word starts at column 3.
      const hover = await connection.lsp.request<Hover>('textDocument/hover', { textDocument: { uri: w.uri('greeting.txt') }, position: { line: 1, character: 4 } });
      expect(hoverText(hover)).toBe('Grüße → Grüße 🚀 日本');
      const definition = await connection.lsp.request<Location>('textDocument/definition', {
        textDocument: { uri: w.uri('greeting.txt') },
        position: { line: 1, character: 13 },
      });
      expect(definition).toEqual({ uri: w.uri('greeting.txt'), range: { start: { line: 1, character: 13 }, end: { line: 1, character: 15 } } });
      const grüße = await connection.lsp.request<Location>('textDocument/definition', { textDocument: { uri: w.uri('greeting.txt') }, position: { line: 1, character: 5 } });
      expect(grüße.range.start).toEqual({ line: 0, character: 6 });
    });

    it('reconfigure: other settings go out once with didChangeConfiguration, same pid; the same settings not at all', async ({ w }) => {
      const config = w.fixtureConfig(['--log', w.logFile()], { settings: { a: 1 } });
      const connection = await w.connect(config);
      await w.logged((e) => e.method === 'didChangeConfiguration');

      connection.reconfigure!(view({ settings: { a: 2, nested: { ü: '🚀' } } }, config));
      await w.logged((e) => e.method === 'didChangeConfiguration' && (e.settings as { a: number }).a === 2);
      connection.reconfigure!(view({ settings: { nested: { ü: '🚀' }, a: 2 } }, config));
      connection.reconfigure!(view({ settings: { a: 2, nested: { ü: '🚀' } }, shutdownTimeout: 1_000 }, config));
      // A request after the notifications: its answer comes after the server handled them.
      await connection.lsp.request('fixture/askConfiguration', { section: 'a' });

      const changes = w.readLog().filter((e) => e.method === 'didChangeConfiguration');
      expect(changes.map((e) => e.settings)).toEqual([{ a: 1 }, { a: 2, nested: { ü: '🚀' } }]);
      expect(new Set(w.readLog().map((e) => e.pid))).toEqual(new Set([connection.pid]));
    });

    it('answers workspace/configuration from the current settings: dotted sections, nested or flat, null when missing', async ({ w }) => {
      const config = w.fixtureConfig([], { settings: { fixture: { greeting: 'hallo', deep: { x: 1 } }, 'flat.key': 'flat' } });
      const connection = await w.connect(config);
      const ask = (section?: string) => connection.lsp.request('fixture/askConfiguration', section === undefined ? {} : { section });

      expect(await ask('fixture.greeting')).toBe('hallo');
      expect(await ask('fixture.deep')).toEqual({ x: 1 });
      expect(await ask('flat.key')).toBe('flat');
      expect(await ask('fixture.missing')).toBeNull();
      expect(await ask()).toEqual({ fixture: { greeting: 'hallo', deep: { x: 1 } }, 'flat.key': 'flat' });

      connection.reconfigure!(view({ settings: { fixture: { greeting: 'grüß dich' } } }, config));
      expect(await ask('fixture.greeting')).toBe('grüß dich');
    });

    it('a crash errors lists$ with the exit and the last stderr line; requests then fail with it', async ({ w }) => {
      const connection = await w.connect(w.fixtureConfig(['--crash-after', '100']));
      const died = await errorOf(connection.lists$);
      expect(died.message).toBe('process exited with code 1: Error: lsp boom');
      await expect(connection.lsp.request('textDocument/hover', {})).rejects.toThrow(
        'server "lsp:fixture" is not connected: process exited with code 1: Error: lsp boom',
      );
    });

    it('a server that never answers initialize times out at startupTimeout, and its process is gone when the error comes', async ({ w }) => {
      const started = Date.now();
      // Long enough for Node to start the fixture and read `initialize` on a loaded machine (2 s
      // was not, with the suite's other files beside it).
      const error = await errorOf(w.connector()('lsp:hang', w.fixtureConfig(['--log', w.logFile(), '--hang-initialize'], { startupTimeout: 4_000 })));
      expect(error.message).toBe('timed out after 4000 ms (raise "startupTimeout" in the server\'s entry)');
      expect(Date.now() - started).toBeGreaterThanOrEqual(4_000);
      const [initialize] = w.readLog();
      expect(initialize?.method).toBe('initialize');
      expect(isAlive(initialize!.pid)).toBe(false);
    });

    it('a command that cannot start fails the connect', async ({ w }) => {
      const error = await errorOf(w.connector()('lsp:missing', w.resolved({ command: join(w.dir, 'no-such-server'), extensionToLanguage: { '.x': 'x' } })));
      expect(error.message).toMatch(/^failed to start ".*no-such-server": spawn .* ENOENT$/);
    });

    it('close: shutdown, exit, and the process is gone when close() resolves; lists$ completes', async ({ w }) => {
      const connection = await w.connect(w.fixtureConfig(['--log', w.logFile()]));
      let completed = false;
      connection.lists$.subscribe({ complete: () => (completed = true) });
      const pid = connection.pid!;
      await connection.close();
      expect(isAlive(pid)).toBe(false);
      expect(w.methods()).toEqual(['initialize', 'initialized', 'shutdown', 'exit']);
      expect(completed).toBe(true);
      await connection.close(); // idempotent
      await expect(connection.lsp.request('textDocument/hover', {})).rejects.toThrow('server "lsp:fixture" is not connected');
    });

    it('a server slow to exit (800 ms) ends on its own within the grace: no SIGTERM', async ({ w }) => {
      const connection = await w.connect(w.fixtureConfig(['--log', w.logFile(), '--slow-exit', '800']));
      const started = Date.now();
      await connection.close();
      const took = Date.now() - started;
      expect(took).toBeGreaterThanOrEqual(800);
      expect(took).toBeLessThan(2_000);
      expect(w.methods()).toEqual(['initialize', 'initialized', 'shutdown', 'exit']);
    });

    it('a server that ignores shutdown and exit: shutdownTimeout, the grace, then SIGTERM', async ({ w }) => {
      const connection = await w.connect(w.fixtureConfig(['--log', w.logFile(), '--ignore-shutdown'], { shutdownTimeout: 300 }));
      const pid = connection.pid!;
      const started = Date.now();
      await connection.close();
      const took = Date.now() - started;
      expect(took).toBeGreaterThanOrEqual(300 + 2_000);
      expect(took).toBeLessThan(300 + 2_000 + 1_500);
      expect(w.methods()).toEqual(['initialize', 'initialized', 'shutdown', 'exit', 'SIGTERM']);
      expect(isAlive(pid)).toBe(false);
    });

    it('unsubscribing while it connects ends the process: no orphan', async ({ w }) => {
      const subscription = w.connector()('lsp:hang', w.fixtureConfig(['--log', w.logFile(), '--hang-initialize'])).subscribe({
        next: (c) => w.open.push(c),
      });
      const { pid } = await w.logged((e) => e.method === 'initialize');
      subscription.unsubscribe();
      expect(await waitForExit(pid)).toBe(true);
    });

    it('sends the open documents to a new connection, follows opens, changes and closes, and re-routes on reconfigure', async ({ w }) => {
      const notes = w.file('notes.txt', 'first\n');
      const readme = w.file('readme.md', '# title\n');
      await w.documents.open(notes);
      await w.documents.open(readme);
      w.documents.change(notes, 'second\n');
      const config = w.fixtureConfig(['--log', w.logFile()]);
      const first = await w.connect(config);
      // Only what the server takes (`.txt`), at its current version.
      await w.logged((e) => e.method === 'didOpen');
      expect(w.readLog().filter((e) => e.method === 'didOpen')).toEqual([{ pid: first.pid, method: 'didOpen', uri: w.uri('notes.txt'), version: 2, languageId: 'plaintext' }]);

      w.documents.change(notes, 'third\n');
      await w.logged((e) => e.method === 'didChange' && e.version === 3);
      first.reconfigure!(view({ extensionToLanguage: { '.txt': 'plaintext', '.md': 'markdown' } }, config));
      await w.logged((e) => e.method === 'didOpen' && e.uri === w.uri('readme.md'));
      first.reconfigure!(view({ extensionToLanguage: { '.md': 'markdown' } }, config));
      await w.logged((e) => e.method === 'didClose' && e.uri === w.uri('notes.txt'));
      w.documents.close(readme);
      await w.logged((e) => e.method === 'didClose' && e.uri === w.uri('readme.md'));
      await first.close();

      // A restarted server gets the host's open documents again, as they are now.
      const second = await w.connect(config);
      const reopened = await w.logged((e) => e.method === 'didOpen' && e.pid === second.pid);
      expect(reopened).toMatchObject({ uri: w.uri('notes.txt'), version: 3 });
      expect(w.readLog().filter((e) => e.pid === second.pid && e.method.startsWith('did') && e.method !== 'didChangeConfiguration')).toHaveLength(1);
    });

    it('puts pushed diagnostics into the store; a change clears them; a closed connection drops its own only', async ({ w }) => {
      const todo = w.file('todo.txt', 'ok\n// TODO: fix\n');
      await w.documents.open(todo);
      const config = w.fixtureConfig([]);
      const old = await w.connect(config);

      const [first] = await w.diagnosticsWhere((all) => all.length === 1);
      expect(first).toMatchObject({ server: 'lsp:fixture', uri: w.uri('todo.txt'), path: todo });
      expect(first!.diagnostics).toEqual([
        { range: { start: { line: 1, character: 3 }, end: { line: 1, character: 7 } }, severity: 2, source: 'fixture', message: 'TODO on line 2' },
      ]);
      w.documents.change(todo, 'done\n');
      await w.diagnosticsWhere((all) => all.length === 0);
      w.documents.change(todo, 'TODO again\n');
      await w.diagnosticsWhere((all) => all.length === 1);

      // make-before-break: the new connection of the same server publishes too; closing the old keeps it.
      const replacement = await w.connect(config);
      // The server publishes on didOpen, before it answers a request sent after it.
      await replacement.lsp.request('textDocument/hover', { textDocument: { uri: w.uri('todo.txt') }, position: { line: 0, character: 0 } });
      await old.close();
      expect(w.documents.diagnostics(todo).map((d) => d.diagnostics[0]?.message)).toEqual(['TODO on line 1']);
      await replacement.close();
      expect(w.documents.diagnostics()).toEqual([]);
    });

    it('over a socket: starts the command, connects when it listens, answers, closes', async ({ w }) => {
      const port = await freePort();
      const connection = await w.connect(w.fixtureConfig(['--log', w.logFile(), '--port', String(port)], { transport: 'socket', socket: port }));
      expect(connection.pid).toBeGreaterThan(0);
      await w.documents.open(w.file('sock.txt', 'hello Grüße\n'));
      await w.logged((e) => e.method === 'didOpen');
      const hover = await connection.lsp.request<Hover>('textDocument/hover', { textDocument: { uri: w.uri('sock.txt') }, position: { line: 0, character: 8 } });
      expect(hoverText(hover)).toBe('Grüße → Grüße 🚀 日本');
      const pid = connection.pid!;
      await connection.close();
      expect(isAlive(pid)).toBe(false);
      expect(w.methods()).toEqual(['initialize', 'initialized', 'didOpen', 'shutdown', 'exit']);
    });

    it('a socket nobody listens on: retried until startupTimeout, which names the last failure', async ({ w }) => {
      const port = await freePort();
      const error = await errorOf(w.connector()('lsp:nobody', w.resolved({ transport: 'socket', socket: port, extensionToLanguage: { '.x': 'x' }, startupTimeout: 500 })));
      expect(error.message).toBe(
        `timed out after 500 ms (raise "startupTimeout" in the server's entry); last connect attempt: connect ECONNREFUSED 127.0.0.1:${port}`,
      );
    });
  });
});
