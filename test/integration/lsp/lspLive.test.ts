import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { filter, firstValueFrom } from 'rxjs';
import type { Hover, Location } from 'vscode-languageserver-protocol';
import { describe, expect, vi } from 'vitest';
import { createMcpLive, type McpLive, type ReconcileEvent, type ServerStatus } from '../../../src/index.js';
import { fixture, textOf } from '../mcpServers.js';
import { isAlive, waitForExit } from '../processes.js';
import { it, noLeftoversAfterAll, type TestScope } from '../workspace.js';

/**
 * Language servers through the whole library: real settings files watched by real
 * chokidar, the shared reconcile core, the LSP connector, and real language server processes —
 * the fixture (test/fixtures/lsp-server.mjs) and typescript-language-server.
 */

const BIN = resolve('node_modules/.bin');
const LSP_PROCESSES = /lsp-server\.mjs|typescript-language-server|tsserver|pyright/;

noLeftoversAfterAll(LSP_PROCESSES);

interface World {
  dir: string;
  home: string;
  cwd: string;
  settings: string;
  log: string;
  write(file: string, value: unknown): void;
  logged(method: string): { pid: number; method: string; settings?: unknown }[];
}

function world(scope: TestScope): World {
  const { dir, homeDir: home, cwd, userSettings: settings, write } = scope.workspace('mcp-live-lsp-');
  const log = join(dir, 'lsp.log');
  return {
    dir,
    home,
    cwd,
    settings,
    log,
    write,
    logged: (method) =>
      existsSync(log)
        ? readFileSync(log, 'utf8')
            .split('\n')
            .filter(Boolean)
            .map((line) => JSON.parse(line) as { pid: number; method: string })
            .filter((entry) => entry.method === method)
        : [],
  };
}

const fixtureLs = (w: World, ...extra: string[]) => ({
  command: process.execPath,
  args: [fixture('lsp-server.mjs'), '--log', w.log, ...extra],
  extensionToLanguage: { '.txt': 'plaintext' },
});
const typescriptLs = { command: join(BIN, 'typescript-language-server'), args: ['--stdio'], extensionToLanguage: { '.ts': 'typescript' } };

async function started(scope: TestScope, w: World): Promise<McpLive> {
  const live = scope.track(createMcpLive({ homeDir: w.home, cwd: w.cwd, debounceMs: 50 }));
  await live.start();
  return live;
}

function nextPass(l: McpLive): Promise<ReconcileEvent> {
  return firstValueFrom(l.events$.pipe(filter((e): e is ReconcileEvent => e.type === 'reconcile')));
}

function status(l: McpLive, name: string): ServerStatus | undefined {
  return l.servers.status().find((s) => s.name === name);
}

const hoverText = (hover: Hover | null): string => {
  const contents = hover?.contents;
  if (contents === undefined) return '';
  if (typeof contents === 'string') return contents;
  if ('kind' in contents) return contents.value;
  return (Array.isArray(contents) ? contents : [contents]).map((c) => (typeof c === 'string' ? c : c.value)).join('\n');
};

describe.concurrent('language servers in the live pipeline (real processes, real files)', () => {
  it('edit one server’s args: only its pid changes, the other keeps answering hover and definition; settings only: same pid, one didChangeConfiguration; removed: its process is gone', async ({ scope }) => {
    const w = world(scope);
    writeFileSync(join(w.cwd, 'tsconfig.json'), JSON.stringify({ compilerOptions: { lib: ['es2022'], types: [] }, files: ['greet.ts'] }));
    // A tsconfig.json can change what a TypeScript runner loads: the user trusts this folder (decision 301).
    writeFileSync(join(w.home, '.qwen', 'trustedFolders.json'), JSON.stringify({ [w.cwd]: 'TRUST_FOLDER' }));
    const source = 'export function greet(name: string): string {\n  return name;\n}\n\nexport const message = greet("Grüße 🚀");\n';
    writeFileSync(join(w.cwd, 'greet.ts'), source);
    w.write(w.settings, { lspServers: { fx: fixtureLs(w), ts: typescriptLs } });
    const l = await started(scope, w);
    expect(status(l, 'lsp:fx')).toMatchObject({ kind: 'lsp', state: 'connected', languages: ['plaintext'] });
    expect(status(l, 'lsp:ts')).toMatchObject({ kind: 'lsp', state: 'connected', languages: ['typescript'] });
    expect(status(l, 'lsp:ts')!.capabilities).toEqual(expect.arrayContaining(['definition', 'hover', 'references']));
    const fxPid = status(l, 'lsp:fx')!.pid!;
    const tsPid = status(l, 'lsp:ts')!.pid!;

    // Args edited: only fx restarts.
    let pass = nextPass(l);
    w.write(w.settings, { lspServers: { fx: fixtureLs(w, '--stderr', 'second'), ts: typescriptLs } });
    expect(await pass).toMatchObject({ reconnected: ['lsp:fx'], unchanged: 1 });
    expect(status(l, 'lsp:fx')!.pid).not.toBe(fxPid);
    expect(await waitForExit(fxPid)).toBe(true);
    expect(status(l, 'lsp:ts')!.pid).toBe(tsPid);
    const file = join(w.cwd, 'greet.ts');
    const at = { textDocument: { uri: pathToFileURL(file).href }, position: { line: 4, character: 24 } };
    expect(hoverText(await l.lsp.request<Hover>('textDocument/hover', at, { file }))).toContain('function greet(name: string): string');
    expect(await l.lsp.request<Location[]>('textDocument/definition', at, { file })).toEqual([
      { uri: pathToFileURL(file).href, range: { start: { line: 0, character: 16 }, end: { line: 0, character: 21 } } },
    ]);

    // Settings only: applied in place.
    const fxNow = status(l, 'lsp:fx')!.pid!;
    pass = nextPass(l);
    w.write(w.settings, { lspServers: { fx: { ...fixtureLs(w, '--stderr', 'second'), settings: { fixture: { level: 2 } } }, ts: typescriptLs } });
    expect(await pass).toMatchObject({ updated: ['lsp:fx'], reconnected: [], unchanged: 1 });
    expect(status(l, 'lsp:fx')!.pid).toBe(fxNow);
    await vi.waitFor(() => expect(w.logged('didChangeConfiguration').filter((e) => e.pid === fxNow).map((e) => e.settings)).toEqual([{ fixture: { level: 2 } }]));

    // Removed.
    pass = nextPass(l);
    w.write(w.settings, { lspServers: { fx: { ...fixtureLs(w, '--stderr', 'second'), settings: { fixture: { level: 2 } } } } });
    expect(await pass).toMatchObject({ removed: ['lsp:ts'] });
    expect(status(l, 'lsp:ts')).toMatchObject({ state: 'disconnected', reason: 'removed' });
    expect(await waitForExit(tsPid, 5_000)).toBe(true);
    expect(isAlive(fxNow)).toBe(true);
  });

  it('a .lsp.json entry from the repository never runs before it is approved; the approval is the language server’s own', async ({ scope }) => {
    const w = world(scope);
    const sentinel = join(w.dir, 'sentinel');
    const entry = fixtureLs(w, '--sentinel', sentinel);
    w.write(join(w.cwd, '.lsp.json'), { fx: entry });
    // An MCP server of the same name, approved: approves nothing of the language server.
    w.write(join(w.cwd, '.mcp.json'), { mcpServers: { fx: { command: process.execPath, args: [fixture('echo-server.mjs')] } } });
    const l = await started(scope, w);
    await l.approvals.approve('fx');
    await firstValueFrom(l.servers.list$.pipe(filter((all) => all.some((s) => s.name === 'fx' && s.state === 'connected'))));
    expect(status(l, 'lsp:fx')).toMatchObject({ state: 'blocked', reason: 'pending_approval' });
    expect(l.approvals.pending().map((p) => p.name)).toEqual(['lsp:fx']);
    expect(l.approvals.pending()[0]!.review.map((line) => line.label)).toContain('extensionToLanguage');
    await new Promise((r) => setTimeout(r, 300));
    expect(existsSync(sentinel)).toBe(false);

    await l.approvals.approve('lsp:fx');
    const connected = await firstValueFrom(l.servers.list$.pipe(filter((all) => all.some((s) => s.name === 'lsp:fx' && s.state === 'connected'))));
    expect(connected.find((s) => s.name === 'lsp:fx')!.kind).toBe('lsp');
    expect(existsSync(sentinel)).toBe(true);
  });

  it('non-ASCII text round-trips; a restarted server gets the open documents again; lsp__ tools come and go with the servers', async ({ scope }) => {
    const w = world(scope);
    w.write(w.settings, { lspServers: { fx: fixtureLs(w) } });
    const l = await started(scope, w);
    const file = join(w.cwd, 'notes.txt');
    writeFileSync(file, 'Grüße 🚀 日本\nTODO fix\n');
    await l.lsp.open(file);
    const hover = await l.lsp.request<Hover>('textDocument/hover', { textDocument: { uri: pathToFileURL(file).href }, position: { line: 0, character: 1 } }, { file });
    expect(hoverText(hover)).toContain('Grüße');
    expect(hoverText(hover)).toContain('→ Grüße 🚀 日本');
    const diagnostics = await firstValueFrom(l.lsp.diagnostics$.pipe(filter((all) => all.some((d) => d.path === file && d.diagnostics.length > 0))));
    expect(diagnostics.find((d) => d.path === file)).toMatchObject({ server: 'lsp:fx', diagnostics: [{ range: { start: { line: 1 } } }] });

    const tools = await firstValueFrom(l.tools.list$.pipe(filter((all) => all.some((t) => t.name === 'lsp__hover'))));
    expect(tools.filter((t) => t.name.startsWith('lsp__')).map((t) => t.name)).toEqual(
      expect.arrayContaining(['lsp__definition', 'lsp__hover', 'lsp__document_symbols', 'lsp__diagnostics']),
    );
    const answer = textOf(await l.tools.call('lsp__hover', { file: 'notes.txt', line: 1, column: 2 }));
    expect(answer).toContain('→ Grüße 🚀 日本');

    // A restart (args edited) sends the open document to the new process.
    const oldPid = status(l, 'lsp:fx')!.pid!;
    const pass = nextPass(l);
    w.write(w.settings, { lspServers: { fx: fixtureLs(w, '--stderr', 'again') } });
    await pass;
    const newPid = status(l, 'lsp:fx')!.pid!;
    expect(newPid).not.toBe(oldPid);
    await vi.waitFor(() => expect(w.logged('didOpen').map((e) => e.pid)).toEqual([oldPid, newPid]));

    // Gone: so are its tools.
    w.write(w.settings, {});
    const after = await firstValueFrom(l.tools.list$.pipe(filter((all) => !all.some((t) => t.name.startsWith('lsp__')))));
    expect(after).toEqual([]);
    expect(await waitForExit(newPid)).toBe(true);
  });

  it('a server that offers pull diagnostics is asked: on open, on change, and again when it restarts', async ({ scope }) => {
    const w = world(scope);
    w.write(w.settings, { lspServers: { fx: fixtureLs(w, '--pull-diagnostics') } });
    const l = await started(scope, w);
    expect(status(l, 'lsp:fx')!.capabilities).toContain('diagnostics');
    const file = join(w.cwd, 'todo.txt');
    writeFileSync(file, 'TODO one\nfine\n');
    await l.lsp.open(file);
    const lines = (all: readonly { path: string; diagnostics: readonly { range: { start: { line: number } } }[] }[]) =>
      all.filter((d) => d.path === file).flatMap((d) => d.diagnostics.map((x) => x.range.start.line));
    await firstValueFrom(l.lsp.diagnostics$.pipe(filter((all) => lines(all).join() === '0')));
    l.lsp.change(file, 'fine\nTODO two\n');
    await firstValueFrom(l.lsp.diagnostics$.pipe(filter((all) => lines(all).join() === '1')));
    const oldPid = status(l, 'lsp:fx')!.pid!;
    w.write(w.settings, { lspServers: { fx: fixtureLs(w, '--pull-diagnostics', '--stderr', 'restarted') } });
    await firstValueFrom(l.servers.list$.pipe(filter((all) => all.some((s) => s.name === 'lsp:fx' && s.state === 'connected' && s.pid !== oldPid))));
    // The new process is asked too: its answer replaces what the old one said.
    await vi.waitFor(() => expect(w.logged('textDocument/diagnostic').filter((e) => e.pid !== oldPid)).not.toEqual([]));
    await firstValueFrom(l.lsp.diagnostics$.pipe(filter((all) => lines(all).join() === '1')));
  });

  it('pyright: its pushed diagnostics reach lsp.diagnostics$, on open and on change', async ({ scope }) => {
    const w = world(scope);
    w.write(w.settings, { lspServers: { py: { command: join(BIN, 'pyright-langserver'), args: ['--stdio'], extensionToLanguage: { '.py': 'python' } } } });
    const l = await started(scope, w);
    expect(status(l, 'lsp:py')).toMatchObject({ state: 'connected', languages: ['python'] });
    const file = join(w.cwd, 'calc.py');
    writeFileSync(file, 'def add(a: int, b: int) -> int:\n    return a + b\n\n\nresult: str = add(1, 2)\n');
    await l.lsp.open(file);
    const reported = await firstValueFrom(l.lsp.diagnostics$.pipe(filter((all) => all.some((d) => d.path === file && d.diagnostics.length > 0))));
    const problem = reported.find((d) => d.path === file)!;
    expect(problem.server).toBe('lsp:py');
    expect(problem.diagnostics.map((d) => d.range.start.line)).toContain(4);
    expect(problem.diagnostics.map((d) => (typeof d.message === 'string' ? d.message : d.message.value)).join('\n')).toMatch(/"int" is not assignable to (declared type )?"str"/);

    l.lsp.change(file, 'def add(a: int, b: int) -> int:\n    return a + b\n\n\nresult: int = add(1, 2)\n');
    await firstValueFrom(l.lsp.diagnostics$.pipe(filter((all) => !all.some((d) => d.path === file && d.diagnostics.length > 0))));
  });

  it('a session language server, and one pass for both kinds on reload', async ({ scope }) => {
    const w = world(scope);
    w.write(w.settings, { mcpServers: { echo: { command: process.execPath, args: [fixture('echo-server.mjs')] } } });
    const l = await started(scope, w);
    const pass = nextPass(l);
    l.lsp.addSession('fx', fixtureLs(w));
    expect(await pass).toMatchObject({ trigger: 'session', added: ['lsp:fx'], unchanged: 1 });
    expect(status(l, 'lsp:fx')).toMatchObject({ scope: 'session', state: 'connected' });
    const reload = nextPass(l);
    l.reload();
    expect(await reload).toMatchObject({ trigger: 'reload', unchanged: 2 });
    l.lsp.removeSession('lsp:fx');
    await firstValueFrom(l.servers.list$.pipe(filter((all) => all.some((s) => s.name === 'lsp:fx' && s.reason === 'removed'))));
  });
});
