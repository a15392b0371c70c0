import { basename, extname, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { debounceTime, filter, firstValueFrom, fromEvent, map, merge, of, take, takeUntil, timeout, type Observable } from 'rxjs';
import type {
  Definition,
  DefinitionLink,
  DocumentSymbol,
  Hover,
  Location,
  ServerCapabilities,
  SymbolInformation,
  WorkspaceSymbol,
} from 'vscode-languageserver-protocol';
import type { RequestOptions } from '../../model/connection.js';
import type { LanguageServerConnection } from '../../model/lsp/languageServer.js';
import { lspName } from '../../model/serverKeys.js';
import { lspUnavailableText, type UnavailableLanguageServer } from '../../model/lsp/lspMessages.js';
import { columnToCharacter, positionEncodingOf, splitLines, type PositionEncoding } from '../../model/lsp/lspPositions.js';
import {
  displayPath,
  formatDiagnostics,
  formatDocumentSymbols,
  formatHover,
  formatLocations,
  formatWorkspaceSymbols,
  locationsOf,
  urisOfSymbols,
  type FileDiagnostics,
  type TextContext,
} from '../../model/lsp/lspResultText.js';
import { checkLspToolArgs, lspOperationOf, providerOf, type FilePosition, type LspOperation, type LspToolCall } from '../../model/lsp/lspTools.js';
import { RefusedFileError, readDocumentText } from '../../files/readRegularFile.js';

/**
 * Runs the agent's `lsp__*` tools (src/model/lsp/lspTools.ts) against the connected language
 * servers: routes the file to its server, opens it there if the host has not, turns the agent's
 * position into the server's, and the answer into text. A problem the agent can fix (a file no
 * server takes, a line past the end, a server error) is an `isError` result it reads; only an
 * aborted call rejects, like an MCP tool call.
 */

/** The language server a file goes to, by its name (`NAME` or the `lsp:NAME` key). */
export interface RoutedServer {
  server: string;
  connection: LanguageServerConnection;
}

/** The documents the host has open (what the runner needs of the document store). */
export interface LspToolDocuments {
  /** Opens `path` with `text`, so that the servers taking it get `didOpen`. May return a promise. */
  open(path: string, text: string): unknown;
  get(path: string): { readonly uri: string; readonly text: string } | undefined;
  /**
   * The key the store finds `path` by, and reports diagnostics under (its real case where the
   * file system ignores case, decision 283); the resolved path where absent.
   */
  keyOf?(path: string): string;
}

export interface LspToolDeps {
  /** Relative paths in arguments and answers are relative to it. */
  workspace: string;
  route(path: string): RoutedServer | undefined;
  /** A connected language server by its name. */
  server(name: string): LanguageServerConnection | undefined;
  /** The names of the connected language servers. */
  servers(): readonly string[];
  /** The language ids the configured language servers take, for the error about a file none takes. */
  languages(): readonly string[];
  /**
   * The configured language servers that take `path` but are not connected (pending approval,
   * disabled, excluded, failed …), for the error that says why and how to fix it (decision 252).
   */
  unavailableFor?(path: string): readonly UnavailableLanguageServer[];
  documents: LspToolDocuments;
  /** The cached diagnostics of `path` (absolute), or of every document. */
  diagnostics(path?: string): readonly FileDiagnostics[];
  /** Brings the cache of `path` up to date by pulling from the servers that offer it (`textDocument/diagnostic`). */
  pullDiagnostics?(path: string): Promise<void>;
  /**
   * The absolute path of each document a server reports diagnostics for, an empty report
   * included (a clean file's only sign that it was checked): lets a call that just opened a file
   * wait for its diagnostics. Without it, such a call answers from the cache at once.
   */
  diagnosticsReported$?: Observable<string>;
}

/** An MCP `CallToolResult` of one text block. */
export interface LspToolResult {
  content: [{ type: 'text'; text: string }];
  isError?: true;
}

/**
 * How long a diagnostics call waits at most for the diagnostics of a file it had to open: a
 * server reports them once it has loaded the project, seconds after the open on a busy machine.
 */
const FIRST_DIAGNOSTICS_WAIT_MS = 10_000;
/**
 * Diagnostics of a file often come in parts (syntax first, then types): the call answers once
 * they have been quiet this long.
 */
const DIAGNOSTICS_QUIET_MS = 400;

/** A problem the agent is told about as the call's result. */
class ToolFailure extends Error {}

/**
 * Runs `tool` (`lsp__hover` …) with the agent's `args`. Resolves with the answer as text, or an
 * `isError` result; rejects only with `options.signal`'s reason when it aborts.
 */
export async function runLspTool(tool: string, args: unknown, deps: LspToolDeps, options: RequestOptions = {}): Promise<LspToolResult> {
  const operation = lspOperationOf(tool);
  if (operation === undefined) return errorResult(`unknown language server tool ${JSON.stringify(tool)}`);
  const checked = checkLspToolArgs(operation, args);
  if (!checked.ok) return errorResult(checked.error);
  if (options.signal?.aborted) throw options.signal.reason;
  try {
    return { content: [{ type: 'text', text: await answer(checked.call, deps, options.signal) }] };
  } catch (error) {
    if (options.signal?.aborted) throw options.signal.reason;
    if (error instanceof ToolFailure) return errorResult(error.message);
    throw error;
  }
}

function errorResult(text: string): LspToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

function answer(call: LspToolCall, deps: LspToolDeps, signal: AbortSignal | undefined): Promise<string> {
  switch (call.operation) {
    case 'definition':
    case 'references':
    case 'hover':
      return atPosition(call, deps, signal);
    case 'document_symbols':
      return documentSymbols(call.file, deps, signal);
    case 'workspace_symbols':
      return workspaceSymbols(call.query, call.server, deps, signal);
    case 'diagnostics':
      return diagnostics(call.file, deps, signal);
  }
}

/** A file routed to its server and open there. */
interface Target {
  path: string;
  uri: string;
  /** The path as answers show it. */
  shown: string;
  lines: readonly string[];
  name: string;
  connection: LanguageServerConnection;
  encoding: PositionEncoding;
  /** Whether this call opened it (its server has only just been told). */
  opened: boolean;
}

async function openTarget(file: string, operation: LspOperation, deps: LspToolDeps): Promise<Target> {
  const path = resolve(deps.workspace, file);
  const shown = displayPath(pathToFileURL(path).href, deps.workspace);
  const routed = deps.route(path);
  if (routed === undefined) throw new ToolFailure(noServerText(path, deps));
  const name = lspName(routed.server);
  const provider = providerOf(operation);
  if (provider !== undefined && !routed.connection.lsp.capabilities[provider]) {
    throw new ToolFailure(`the language server "${name}" that takes ${shown} does not offer ${operation.replace('_', ' ')}`);
  }
  let document = deps.documents.get(path);
  const opened = document === undefined;
  if (document === undefined) {
    const text = await readText(path, shown);
    await deps.documents.open(path, text);
    document = deps.documents.get(path) ?? { uri: pathToFileURL(path).href, text };
  }
  const { capabilities } = routed.connection.lsp;
  return { path, uri: document.uri, shown, lines: splitLines(document.text), name, connection: routed.connection, encoding: positionEncodingOf(capabilities), opened };
}

/**
 * Why no connected server takes `path`: the configured ones that would, each with why it cannot
 * and the fix (decision 252); or, when none is configured for it, the languages some are.
 */
function noServerText(path: string, deps: Pick<LspToolDeps, 'languages' | 'unavailableFor'>): string {
  const ext = extname(path);
  const files = ext === '' ? `files without an extension like ${basename(path)}` : `${ext} files`;
  const unavailable = deps.unavailableFor?.(path) ?? [];
  if (unavailable.length > 0) return unavailable.map((server) => lspUnavailableText(files, server)).join('\n');
  const languages = deps.languages();
  const configured = languages.length === 0 ? 'no language server is configured' : `language servers are configured for ${[...languages].sort().join(', ')}`;
  return `no language server handles ${files} (${configured})`;
}

async function readText(path: string, shown: string): Promise<string> {
  try {
    return await readDocumentText(path);
  } catch (error) {
    // "it is a FIFO (named pipe), not a regular file", "it links to /dev/zero, which is …", "file too large (…)".
    if (error instanceof RefusedFileError) throw new ToolFailure(`cannot read ${shown}: ${error.code === 'ENOTREG' ? 'it ' : ''}${error.reason}`);
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : (error as Error).message;
    throw new ToolFailure(`cannot read ${shown}: ${why}`);
  }
}

function contextOf(deps: LspToolDeps, encoding: PositionEncoding, texts: ReadonlyMap<string, readonly string[]>): TextContext {
  return { workspace: deps.workspace, encoding, lines: (uri) => texts.get(uri) };
}

async function request<R>(target: Pick<Target, 'name' | 'connection'>, method: string, params: unknown, signal: AbortSignal | undefined): Promise<R> {
  try {
    return await target.connection.lsp.request<R>(method, params, signal === undefined ? {} : { signal });
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    throw new ToolFailure(`the language server "${target.name}" failed to answer ${method}: ${(error as Error).message}`);
  }
}

async function atPosition(call: FilePosition & { operation: 'definition' | 'references' | 'hover'; includeDeclaration?: boolean }, deps: LspToolDeps, signal: AbortSignal | undefined): Promise<string> {
  const target = await openTarget(call.file, call.operation, deps);
  const lineText = target.lines[call.line - 1];
  if (lineText === undefined) throw new ToolFailure(`line ${call.line} is past the end of ${target.shown} (${target.lines.length} lines)`);
  const character = columnToCharacter(lineText, call.column, target.encoding);
  if (character === undefined) {
    throw new ToolFailure(`column ${call.column} is past the end of line ${call.line} of ${target.shown} (${[...lineText].length} characters)`);
  }
  const at = `${target.shown}:${call.line}:${call.column}`;
  const params = { textDocument: { uri: target.uri }, position: { line: call.line - 1, character } };
  if (call.operation === 'hover') {
    return formatHover(await request<Hover | null>(target, 'textDocument/hover', params, signal), `No hover information at ${at}.`);
  }
  const result =
    call.operation === 'definition'
      ? await request<Definition | DefinitionLink[] | null>(target, 'textDocument/definition', params, signal)
      : await request<Location[] | null>(target, 'textDocument/references', { ...params, context: { includeDeclaration: call.includeDeclaration ?? true } }, signal);
  const locations = locationsOf(result);
  const context = contextOf(deps, target.encoding, await linesOf(locations.map((l) => l.uri), deps));
  if (call.operation === 'definition') return formatLocations(result, context, `No definition found at ${at}.`);
  if (locations.length === 0) return `No references found at ${at}.`;
  return `${locations.length} reference${locations.length === 1 ? '' : 's'}:\n${formatLocations(result, context, '')}`;
}

async function documentSymbols(file: string, deps: LspToolDeps, signal: AbortSignal | undefined): Promise<string> {
  const target = await openTarget(file, 'document_symbols', deps);
  const result = await request<DocumentSymbol[] | SymbolInformation[] | null>(target, 'textDocument/documentSymbol', { textDocument: { uri: target.uri } }, signal);
  const context = contextOf(deps, target.encoding, new Map([[target.uri, target.lines]]));
  return formatDocumentSymbols(result, target.uri, context, `No symbols in ${target.shown}.`);
}

async function workspaceSymbols(query: string, server: string | undefined, deps: LspToolDeps, signal: AbortSignal | undefined): Promise<string> {
  const asked = askedServers(server, deps);
  const answers = await Promise.allSettled(
    asked.map(async (target) => ({ target, result: await request<SymbolInformation[] | WorkspaceSymbol[] | null>(target, 'workspace/symbol', { query }, signal) })),
  );
  if (signal?.aborted) throw signal.reason;
  const failures = answers.flatMap((a) => (a.status === 'rejected' ? [(a.reason as Error).message] : []));
  if (failures.length === answers.length) throw new ToolFailure(failures.join('\n'));
  const texts: string[] = [];
  for (const a of answers) {
    if (a.status !== 'fulfilled' || !a.value.result?.length) continue;
    const { target, result } = a.value;
    const encoding = positionEncodingOf(target.connection.lsp.capabilities);
    texts.push(formatWorkspaceSymbols(result, contextOf(deps, encoding, await linesOf(urisOfSymbols(result), deps)), ''));
  }
  return [...(texts.length === 0 ? [`No symbols match ${JSON.stringify(query)}.`] : texts), ...failures].join('\n');
}

/** The servers a workspace symbols call asks: the one named, else every connected one that can answer. */
function askedServers(server: string | undefined, deps: LspToolDeps): { name: string; connection: LanguageServerConnection }[] {
  const offers = (c: LanguageServerConnection): boolean => Boolean(c.lsp.capabilities.workspaceSymbolProvider);
  if (server !== undefined) {
    const name = lspName(server);
    const connection = deps.server(name);
    if (connection === undefined) throw new ToolFailure(`no language server named "${name}" is connected (connected: ${deps.servers().join(', ') || 'none'})`);
    if (!offers(connection)) throw new ToolFailure(`the language server "${name}" does not offer workspace symbols`);
    return [{ name, connection }];
  }
  const asked = deps.servers().flatMap((name) => {
    const connection = deps.server(name);
    return connection !== undefined && offers(connection) ? [{ name, connection }] : [];
  });
  if (asked.length === 0) throw new ToolFailure('no connected language server offers workspace symbols');
  return asked;
}

async function diagnostics(file: string | undefined, deps: LspToolDeps, signal: AbortSignal | undefined): Promise<string> {
  const encodingOf = (key: string): PositionEncoding => {
    const capabilities: ServerCapabilities = deps.server(lspName(key))?.lsp.capabilities ?? {};
    return positionEncodingOf(capabilities);
  };
  if (file === undefined) {
    const files = deps.diagnostics();
    const texts = await linesOf(files.map((f) => f.uri), deps);
    return formatDiagnostics(files, (f) => contextOf(deps, encodingOf(f.server), texts), 'No diagnostics reported.');
  }
  // Watching starts before the open: a server may report on a file as soon as it is told of it.
  const stopWatching = new AbortController();
  const reported = resolve(deps.workspace, file);
  const report = deps.diagnosticsReported$ && settledReport(deps.documents.keyOf?.(reported) ?? reported, deps.diagnosticsReported$, stopWatching.signal, signal);
  try {
    const target = await openTarget(file, 'diagnostics', deps);
    if (deps.pullDiagnostics !== undefined) await pullOrFail((path) => deps.pullDiagnostics!(path), target, signal);
    if (target.opened && report !== undefined) await report;
    if (signal?.aborted) throw signal.reason;
    const files = deps.diagnostics(target.path);
    const texts = new Map([[target.uri, target.lines], ...(await linesOf(files.map((f) => f.uri), deps))]);
    return formatDiagnostics(files, (f) => contextOf(deps, encodingOf(f.server), texts), `No diagnostics for ${target.shown}.`);
  } finally {
    stopWatching.abort();
  }
}

async function pullOrFail(pull: (path: string) => Promise<void>, target: Target, signal: AbortSignal | undefined): Promise<void> {
  try {
    await pull(target.path);
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    throw new ToolFailure(`pulling the diagnostics of ${target.shown} failed: ${(error as Error).message}`);
  }
}

/**
 * Resolves once a server has reported on `path` (pushed or pulled) and its reports have been
 * quiet for {@link DIAGNOSTICS_QUIET_MS}; at the latest after {@link FIRST_DIAGNOSTICS_WAIT_MS},
 * or when a signal aborts. Never rejects: it may be left unawaited.
 */
function settledReport(path: string, reported$: Observable<string>, ...signals: (AbortSignal | undefined)[]): Promise<void> {
  const stop$ = merge(...signals.flatMap((signal) => (signal === undefined ? [] : [fromEvent(signal, 'abort')])));
  return firstValueFrom(
    reported$.pipe(
      filter((reported) => reported === path),
      debounceTime(DIAGNOSTICS_QUIET_MS),
      take(1),
      map(() => undefined),
      timeout({ first: FIRST_DIAGNOSTICS_WAIT_MS, with: () => of(undefined) }),
      takeUntil(stop$),
    ),
    { defaultValue: undefined },
  ).catch(() => undefined);
}

/**
 * The lines of the documents at `uris`, for the columns and source lines of an answer: the
 * host's open text where it has one, else the file on disk; a document that cannot be read is
 * left out (its columns stay the server's).
 */
async function linesOf(uris: readonly string[], deps: LspToolDeps): Promise<Map<string, readonly string[]>> {
  const unique = [...new Set(uris)].filter((uri) => uri.startsWith('file:'));
  const entries = await Promise.all(
    unique.map(async (uri) => {
      const path = fileURLToPath(uri);
      const text = deps.documents.get(path)?.text ?? (await readDocumentText(path).catch(() => undefined));
      return text === undefined ? [] : [[uri, splitLines(text)] as const];
    }),
  );
  return new Map(entries.flat());
}
