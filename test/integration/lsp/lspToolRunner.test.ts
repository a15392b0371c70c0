import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { extname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { NEVER, Subject } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Diagnostic, InitializeResult } from 'vscode-languageserver-protocol';
import {
  CancellationTokenSource,
  ConfigurationRequest,
  createProtocolConnection,
  DidOpenTextDocumentNotification,
  ExitNotification,
  InitializedNotification,
  InitializeRequest,
  PublishDiagnosticsNotification,
  RegistrationRequest,
  ShutdownRequest,
  StreamMessageReader,
  StreamMessageWriter,
  type ProtocolConnection,
} from 'vscode-languageserver-protocol/node';
import type { LanguageServerConnection } from '../../../src/model/lsp/languageServer.js';
import type { FileDiagnostics } from '../../../src/model/lsp/lspResultText.js';
import { runLspTool, type LspToolDeps, type LspToolResult } from '../../../src/sinks/lsp/lspToolRunner.js';
import { GREET_REFERENCES, GREET_TS as GREET, MAIN_TS as MAIN } from '../../fixtures/lspSampleProject.js';
import { waitForExit, waitForNoLeftovers } from '../processes.js';

/**
 * The agent's `lsp__*` tools against the real typescript-language-server (and the tsserver it
 * starts) on a small project with non-ASCII text before the symbols asked about: the answers are
 * exact, positions count characters both ways, the runner opens what the host has not.
 */

const SERVER_BIN = resolve('node_modules/.bin/typescript-language-server');
const SERVERS = /typescript-language-server|tsserver/;

const BROKEN = `/** Grüße 😀 */

const n: number = 'Grüße 😀';
`;

let workspace: string;
let child: ChildProcess;
let rpc: ProtocolConnection;
let deps: LspToolDeps;
const open = new Map<string, { uri: string; text: string }>();
const published = new Map<string, readonly Diagnostic[]>();

/** The minimal LanguageServerConnection the runner needs, over the raw protocol connection. */
function languageServerConnection(capabilities: InitializeResult['capabilities'], pid: number): LanguageServerConnection {
  return {
    pid,
    lists: { tools: [], prompts: [], resources: [] },
    lists$: NEVER,
    callTool: () => Promise.reject(new Error('a language server has no MCP tools')),
    stderrTail: () => [],
    close: () => Promise.resolve(),
    lsp: {
      capabilities,
      languageOf: (path) => (extname(path) === '.ts' ? 'typescript' : undefined),
      request: <R,>(method: string, params: unknown, options: { signal?: AbortSignal } = {}): Promise<R> => {
        if (options.signal?.aborted) return Promise.reject(options.signal.reason as Error);
        const source = new CancellationTokenSource();
        options.signal?.addEventListener('abort', () => source.cancel(), { once: true });
        return rpc.sendRequest<R>(method, params, source.token);
      },
    },
  };
}

beforeAll(async () => {
  workspace = realpathSync(mkdtempSync(join(tmpdir(), 'lsp-tools-')));
  mkdirSync(join(workspace, 'src'));
  writeFileSync(join(workspace, 'tsconfig.json'), JSON.stringify({ compilerOptions: { strict: true, module: 'NodeNext', target: 'ES2022' }, include: ['src'] }));
  writeFileSync(join(workspace, 'src/greet.ts'), GREET);
  writeFileSync(join(workspace, 'src/main.ts'), MAIN);
  writeFileSync(join(workspace, 'src/broken.ts'), BROKEN);
  writeFileSync(join(workspace, 'src/clean.ts'), 'export const ok: number = 1;\n');
  writeFileSync(join(workspace, 'src/pushed.ts'), "export const s: string = 42;\n");
  writeFileSync(join(workspace, 'script.rb'), 'puts 1\n');

  child = spawn(SERVER_BIN, ['--stdio'], { cwd: workspace, stdio: ['pipe', 'pipe', 'ignore'] });
  rpc = createProtocolConnection(new StreamMessageReader(child.stdout!), new StreamMessageWriter(child.stdin!));
  const reported = new Subject<string>();
  rpc.onNotification(PublishDiagnosticsNotification.type, (params) => {
    published.set(params.uri, params.diagnostics);
    reported.next(fileURLToPath(params.uri));
  });
  rpc.onRequest(ConfigurationRequest.type, (params) => params.items.map(() => null));
  rpc.onRequest(RegistrationRequest.type, () => undefined);
  rpc.listen();
  const uri = pathToFileURL(workspace).href;
  const init = await rpc.sendRequest(InitializeRequest.type, {
    processId: process.pid,
    clientInfo: { name: 'mcp-live-test' },
    rootUri: uri,
    workspaceFolders: [{ uri, name: 'project' }],
    capabilities: {
      textDocument: {
        synchronization: { didSave: false },
        hover: { contentFormat: ['markdown', 'plaintext'] },
        definition: { linkSupport: true },
        references: {},
        documentSymbol: { hierarchicalDocumentSymbolSupport: true },
        publishDiagnostics: {},
      },
      workspace: { symbol: {}, configuration: true, workspaceFolders: true },
    },
  });
  await rpc.sendNotification(InitializedNotification.type, {});
  const connection = languageServerConnection(init.capabilities, child.pid!);

  deps = {
    workspace,
    route: (path) => (connection.lsp.languageOf(path) === undefined ? undefined : { server: 'lsp:typescript', connection }),
    server: (name) => (name === 'typescript' ? connection : undefined),
    servers: () => ['typescript'],
    languages: () => ['typescript'],
    documents: {
      open(path, text) {
        const document = { uri: pathToFileURL(path).href, text };
        open.set(path, document);
        return rpc.sendNotification(DidOpenTextDocumentNotification.type, { textDocument: { uri: document.uri, languageId: 'typescript', version: 1, text } });
      },
      get: (path) => open.get(path),
    },
    // Like the document store: an empty report leaves no entry.
    diagnostics: (path) =>
      [...published]
        .filter(([uri, diagnostics]) => diagnostics.length > 0 && (path === undefined || fileURLToPath(uri) === path))
        .map(([uri, diagnostics]): FileDiagnostics => ({ server: 'lsp:typescript', uri, path: fileURLToPath(uri), diagnostics })),
    diagnosticsReported$: reported.asObservable(),
  };
});

afterAll(async () => {
  if (rpc !== undefined) {
    await rpc.sendRequest(ShutdownRequest.type).catch(() => undefined);
    await rpc.sendNotification(ExitNotification.type);
  }
  if (child?.pid !== undefined) {
    const exited = await waitForExit(child.pid, 5_000);
    if (!exited) child.kill('SIGKILL');
    expect(exited).toBe(true);
  }
  rpc?.dispose();
  expect(await waitForNoLeftovers(SERVERS, 5_000)).toEqual([]);
  rmSync(workspace, { recursive: true, force: true });
});

async function call(tool: string, args: Record<string, unknown>): Promise<LspToolResult> {
  return runLspTool(tool, args, deps);
}

function text(result: LspToolResult): string {
  expect(result.isError).toBeUndefined();
  return result.content[0].text;
}

describe('lsp__* tools against typescript-language-server', () => {
  it('document_symbols: the outline as a tree with kinds and positions, opening the file the host had not', async () => {
    expect(open.has(join(workspace, 'src/greet.ts'))).toBe(false);
    expect(text(await call('lsp__document_symbols', { file: 'src/greet.ts' }))).toBe(
      [
        'function greet 2:17 (lines 2-4)',
        'class Greeter 6:14 (lines 6-13)',
        '  constructor constructor 7:3',
        '  method hello 10:3 (lines 10-12)',
        '  property prefix 7:32',
      ].join('\n'),
    );
    expect(open.get(join(workspace, 'src/greet.ts'))?.text).toBe(GREET);
  });

  it('definition: from a use to the declaration in another file', async () => {
    expect(open.has(join(workspace, 'src/main.ts'))).toBe(false);
    expect(text(await call('lsp__definition', { file: 'src/main.ts', line: 4, column: 13 }))).toBe(
      'src/greet.ts:2:17: export function greet(name: string): string {',
    );
    expect(open.get(join(workspace, 'src/main.ts'))?.text).toBe(MAIN);
  });

  it('definition: columns after 日本 and 🚀 count characters (UTF-16 in between)', async () => {
    // `greet('x')` starts at character 44 of line 3 (UTF-16 unit 44): 🚀 is one character, two units.
    expect(text(await call('lsp__definition', { file: join(workspace, 'src/main.ts'), line: 3, column: 44 }))).toBe(
      'src/greet.ts:2:17: export function greet(name: string): string {',
    );
    expect(text(await call('lsp__definition', { file: 'src/main.ts', line: 3, column: 31 }))).toBe(
      ['src/greet.ts:6:14: export class Greeter {', 'src/greet.ts:7:3: constructor(private readonly prefix: string) {}'].join('\n'),
    );
  });

  it('references: every use, with and without the declaration', async () => {
    expect(text(await call('lsp__references', { file: 'src/greet.ts', line: 2, column: 19 }))).toBe(['5 references:', ...GREET_REFERENCES].join('\n'));
    const withoutDeclaration = text(await call('lsp__references', { file: 'src/greet.ts', line: 2, column: 17, includeDeclaration: false }));
    expect(withoutDeclaration.split('\n')[0]).toBe('4 references:');
    expect(withoutDeclaration).not.toContain('src/greet.ts:2:17');
  });

  it('hover: the signature and the non-ASCII documentation, exactly', async () => {
    expect(text(await call('lsp__hover', { file: 'src/main.ts', line: 4, column: 15 }))).toBe(
      '```typescript\n(alias) greet(name: string): string\nimport greet\n```\nGreets someone — „Grüße“ 🚀.',
    );
    expect(text(await call('lsp__hover', { file: 'src/main.ts', line: 3, column: 8 }))).toBe('```typescript\nconst 日本: "🚀"\n```');
    expect(text(await call('lsp__hover', { file: 'src/main.ts', line: 2, column: 1 }))).toBe('No hover information at src/main.ts:2:1.');
  });

  it('workspace_symbols: matches across the project, by server name too', async () => {
    const all = text(await call('lsp__workspace_symbols', { query: 'Greeter' }));
    expect(all).toBe('class Greeter src/greet.ts:6:1');
    expect(text(await call('lsp__workspace_symbols', { query: 'Greeter', server: 'lsp:typescript' }))).toBe(all);
    const unknown = await call('lsp__workspace_symbols', { query: 'Greeter', server: 'pyright' });
    expect(unknown).toEqual({ isError: true, content: [{ type: 'text', text: 'no language server named "pyright" is connected (connected: typescript)' }] });
  });

  it('diagnostics: a file opened by the call waits for its first diagnostics; without a file, all of them', async () => {
    expect(open.has(join(workspace, 'src/broken.ts'))).toBe(false);
    expect(text(await call('lsp__diagnostics', { file: 'src/broken.ts' }))).toBe(
      [
        "src/broken.ts:3:7 error [typescript 2322] Type 'string' is not assignable to type 'number'.",
        "src/broken.ts:3:7 hint [typescript 6133] 'n' is declared but its value is never read.",
      ].join('\n'),
    );
    const all = text(await call('lsp__diagnostics', {}));
    expect(all).toContain("src/broken.ts:3:7 error [typescript 2322] Type 'string' is not assignable to type 'number'.");
    expect(all).not.toContain('src/main.ts');
  });

  it('diagnostics: a clean file is answered once its server reported on it, not after the longest wait', async () => {
    const started = Date.now();
    expect(text(await call('lsp__diagnostics', { file: 'src/clean.ts' }))).toBe('No diagnostics for src/clean.ts.');
    // The runner waits 10 s at most for a report; the empty one ends the wait.
    expect(Date.now() - started).toBeLessThan(9_000);
  });

  it('tells the agent what it can fix as an isError result', async () => {
    const error = async (tool: string, args: Record<string, unknown>) => {
      const result = await call(tool, args);
      expect(result.isError).toBe(true);
      return result.content[0].text;
    };
    expect(await error('lsp__hover', { file: 'script.rb', line: 1, column: 1 })).toBe(
      'no language server handles .rb files (language servers are configured for typescript)',
    );
    expect(await error('lsp__hover', { file: 'src/missing.ts', line: 1, column: 1 })).toBe('cannot read src/missing.ts: no such file');
    expect(await error('lsp__definition', { file: 'src/main.ts', line: 9, column: 1 })).toBe('line 9 is past the end of src/main.ts (5 lines)');
    expect(await error('lsp__definition', { file: 'src/main.ts', line: 3, column: 60 })).toBe(
      'column 60 is past the end of line 3 of src/main.ts (54 characters)',
    );
    expect(await error('lsp__definition', { file: 'src/main.ts', line: 0, column: 1 })).toBe('lsp__definition: line must be a positive whole number (1-based)');
    expect(await error('lsp__rename', { file: 'src/main.ts' })).toBe('unknown language server tool "lsp__rename"');
  });

  it('says which server lacks an operation, and which files no server takes', async () => {
    const connection = deps.server('typescript')!;
    const hoverless = { ...connection, lsp: { ...connection.lsp, capabilities: { ...connection.lsp.capabilities, hoverProvider: false } } };
    const result = await runLspTool('lsp__hover', { file: 'src/main.ts', line: 1, column: 1 }, { ...deps, route: () => ({ server: 'lsp:typescript', connection: hoverless }) });
    expect(result).toEqual({ isError: true, content: [{ type: 'text', text: 'the language server "typescript" that takes src/main.ts does not offer hover' }] });
    const none = await runLspTool('lsp__diagnostics', { file: 'Makefile' }, { ...deps, languages: () => [] });
    expect(none).toEqual({ isError: true, content: [{ type: 'text', text: 'no language server handles files without an extension like Makefile (no language server is configured)' }] });
  });

  it('diagnostics: pulls where the host can, then answers from the cache', async () => {
    const pulled: string[] = [];
    const result = await runLspTool('lsp__diagnostics', { file: 'src/broken.ts' }, { ...deps, pullDiagnostics: (path) => Promise.resolve(void pulled.push(path)) });
    expect(pulled).toEqual([join(workspace, 'src/broken.ts')]);
    expect(text(result)).toContain("src/broken.ts:3:7 error [typescript 2322]");
    const failing = await runLspTool('lsp__diagnostics', { file: 'src/broken.ts' }, { ...deps, pullDiagnostics: () => Promise.reject(new Error('server gone')) });
    expect(failing).toEqual({ isError: true, content: [{ type: 'text', text: 'pulling the diagnostics of src/broken.ts failed: server gone' }] });
  });

  it('diagnostics: a pull that finds no pulling server still waits for the pushed report of a file it opened', async () => {
    const pullNothing = { ...deps, pullDiagnostics: () => Promise.resolve() };
    expect(text(await runLspTool('lsp__diagnostics', { file: 'src/pushed.ts' }, pullNothing))).toBe(
      "src/pushed.ts:1:14 error [typescript 2322] Type 'number' is not assignable to type 'string'.",
    );
  });

  it('rejects with the reason when the call is aborted', async () => {
    const controller = new AbortController();
    const reason = new Error('stopped by the host');
    controller.abort(reason);
    await expect(runLspTool('lsp__hover', { file: 'src/main.ts', line: 4, column: 13 }, deps, { signal: controller.signal })).rejects.toBe(reason);
  });
});
