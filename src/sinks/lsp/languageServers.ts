import { distinctUntilChanged, map, type Observable, type Subscription } from 'rxjs';
import type { DocumentDiagnosticReport } from 'vscode-languageserver-protocol';
import type { Connection, RequestOptions } from '../../model/connection.js';
import { isLanguageServerConnection, type LanguageServerConnection } from '../../model/lsp/languageServer.js';
import { languageOf, languagesOf } from '../../model/lsp/lspConfig.js';
import { lspKey, lspName } from '../../model/serverKeys.js';
import { lspToolsFor } from '../../model/lsp/lspTools.js';
import { reasonText } from '../../model/report/messages.js';
import type { QualifiedTool, ServerStatus } from '../../model/report/status.js';
import type { LspView } from '../../model/types.js';
import type { FileDiagnostics, LspDocuments, OpenDocument } from './documents.js';
import { runLspTool, type LspToolResult, type RoutedServer } from './lspToolRunner.js';

/** What the language servers of a session need of the reconcile core and the document store. */
export interface LanguageServersDeps {
  /** Relative paths are relative to it. */
  workspace: string;
  documents: LspDocuments;
  servers$: Observable<readonly ServerStatus[]>;
  list(): readonly ServerStatus[];
  /** The connection of a connected server (any kind). */
  connection(name: string): Connection | undefined;
  /** Runs a request on a server's current connection, counted as in flight there (a replaced one closes when they end). */
  withConnection<T>(name: string, request: (connection: Connection) => Promise<T>): Promise<T> | undefined;
  /** The view (routing, settings) the last pass wants for a language server. */
  view(name: string): LspView | undefined;
}

/** Where a language request goes: the server a file's extension routes to, or a server by name (`NAME` or `lsp:NAME`). */
export interface LspTarget {
  file?: string;
  server?: string;
}

/**
 * The host's and the agent's side of the language servers: their statuses, the
 * diagnostics they published, requests routed by file extension, the document store, and the
 * `lsp__*` tools, offered while a connected server can answer them. The servers themselves are
 * reconciled by the shared core; this only reads what it has connected.
 */
export class LanguageServers {
  /** The language servers' statuses (the `lsp:NAME` part of `servers$`). */
  readonly servers$: Observable<readonly ServerStatus[]>;
  /** The agent's `lsp__*` tools for the servers connected now. */
  readonly tools$: Observable<readonly QualifiedTool[]>;
  readonly diagnostics$: Observable<readonly FileDiagnostics[]>;

  constructor(private readonly deps: LanguageServersDeps) {
    this.servers$ = deps.servers$.pipe(
      map((all) => all.filter(isLanguageServerStatus)),
      distinctUntilChanged((a, b) => a.length === b.length && a.every((s, i) => s === b[i])),
    );
    this.tools$ = this.servers$.pipe(
      map(() => lspToolsFor(this.connected().map(({ connection }) => connection.lsp.capabilities))),
      distinctUntilChanged((a, b) => a.length === b.length && a.every((t, i) => t === b[i])),
    );
    this.diagnostics$ = deps.documents.diagnostics$;
  }

  /** The connected language servers, in name order. */
  private connected(): RoutedServer[] {
    return this.deps
      .list()
      .filter((s) => isLanguageServerStatus(s) && s.state === 'connected')
      .flatMap((s) => {
        const connection = this.deps.connection(s.name);
        return connection !== undefined && isLanguageServerConnection(connection) ? [{ server: s.name, connection: this.counted(s.name, connection) }] : [];
      });
  }

  /**
   * The connected server `path` goes to: the first (by name) whose `extensionToLanguage` takes
   * its extension. One file, one server: several servers for one language are a conflict the
   * user resolves by excluding one (decision 154).
   */
  route(path: string): RoutedServer | undefined {
    return this.connected().find(({ server }) => {
      const view = this.deps.view(server);
      return view !== undefined && languageOf(view, path) !== undefined;
    });
  }

  /** A connected language server by its name or key. */
  server(name: string): LanguageServerConnection | undefined {
    const key = lspKey(lspName(name));
    return this.connected().find(({ server }) => server === key)?.connection;
  }

  /**
   * One LSP request (`textDocument/hover` …) to the server `target` names or a file routes to;
   * a file not open yet is opened first (read from disk), so the server knows it. Rejects with
   * why no server can answer: none takes the file, or the one that would is not connected (and why).
   */
  async request<R = unknown>(method: string, params: unknown, target: LspTarget, options: RequestOptions = {}): Promise<R> {
    options.signal?.throwIfAborted();
    let routed: LanguageServerConnection | undefined;
    if (target.server !== undefined) {
      routed = this.server(target.server);
      if (routed === undefined) throw new Error(this.unavailable(lspKey(lspName(target.server))));
    } else if (target.file !== undefined) {
      routed = this.route(target.file)?.connection;
      if (routed === undefined) throw new Error(this.noServerFor(target.file));
      if (this.deps.documents.get(target.file) === undefined) await this.deps.documents.open(target.file);
    } else {
      throw new Error('lsp.request needs a file or a server');
    }
    return routed.lsp.request<R>(method, params, options);
  }

  /** Opens a document (the servers that take it get `didOpen`), then pulls its diagnostics where a server offers that. */
  async openDocument(path: string, text?: string): Promise<OpenDocument> {
    const document = await this.deps.documents.open(path, text);
    this.pullInBackground(path);
    return document;
  }

  changeDocument(path: string, text: string): OpenDocument {
    const document = this.deps.documents.change(path, text);
    this.pullInBackground(path);
    return document;
  }

  /**
   * Pulls the diagnostics of every open document from each language server that connects (a new
   * or restarted process offering pull diagnostics has been sent the documents, but reports
   * nothing until asked). Returns the subscription; the session ends it.
   */
  pullOnConnect(): Subscription {
    const seen = new Map<string, number | undefined>();
    return this.servers$.subscribe((servers) => {
      for (const s of servers) {
        if (s.state !== 'connected' || seen.get(s.name) === s.pid) continue;
        seen.set(s.name, s.pid);
        for (const document of this.deps.documents.list()) this.pullInBackground(document.path, s.name);
      }
    });
  }

  closeDocument(path: string): boolean {
    return this.deps.documents.close(path);
  }

  /** Runs an `lsp__*` tool (see src/model/lsp/lspTools.ts); a problem the agent can fix is an `isError` result. */
  callTool(tool: string, args: unknown, options: RequestOptions = {}): Promise<LspToolResult> {
    return runLspTool(
      tool,
      args,
      {
        workspace: this.deps.workspace,
        route: (path) => this.route(path),
        server: (name) => this.server(name),
        servers: () => this.connected().map(({ server }) => lspName(server)),
        languages: () =>
          [...new Set(this.deps.list().filter(isLanguageServerStatus).flatMap((s) => { const view = this.deps.view(s.name); return view === undefined ? [] : languagesOf(view); }))].sort(),
        unavailableFor: (path) => this.unavailableFor(path),
        documents: this.deps.documents,
        diagnostics: (path) => this.deps.documents.diagnostics(path),
        pullDiagnostics: (path) => this.pullDiagnostics(path),
        diagnosticsReported$: this.deps.documents.reported$,
      },
      options,
    );
  }

  /**
   * Pull diagnostics (`textDocument/diagnostic`) of `path` from every connected server that takes
   * it and offers them, into the store beside the pushed ones. A server that fails keeps what it had.
   */
  async pullDiagnostics(path: string, only?: string): Promise<void> {
    const document = this.deps.documents.get(path) ?? (await this.deps.documents.open(path));
    await Promise.all(
      this.connected()
        .filter(({ server }) => only === undefined || server === only)
        .filter(({ server, connection }) => connection.lsp.capabilities.diagnosticProvider !== undefined && this.takes(server, path))
        .map(async ({ server, connection }) => {
          const report = await connection.lsp
            .request<DocumentDiagnosticReport>('textDocument/diagnostic', { textDocument: { uri: document.uri } })
            .catch(() => undefined);
          if (report?.kind === 'full') this.deps.documents.setDiagnostics(this.deps.connection(server) ?? connection, server, document.uri, report.items);
        }),
    );
  }

  /** A pull nobody waits for: a server that cannot answer keeps what it had. */
  private pullInBackground(path: string, only?: string): void {
    this.pullDiagnostics(path, only).catch(() => undefined);
  }

  private takes(server: string, path: string): boolean {
    const view = this.deps.view(server);
    return view !== undefined && languageOf(view, path) !== undefined;
  }

  /** A connection whose requests count as in flight on it (see {@link LanguageServersDeps.withConnection}). */
  private counted(name: string, connection: LanguageServerConnection): LanguageServerConnection {
    const lsp = connection.lsp;
    const request = <R>(method: string, params: unknown, options?: RequestOptions): Promise<R> =>
      this.deps.withConnection(name, (current) => (isLanguageServerConnection(current) ? current : connection).lsp.request<R>(method, params, options)) ??
      lsp.request<R>(method, params, options);
    return Object.assign(Object.create(connection) as LanguageServerConnection, {
      lsp: { capabilities: lsp.capabilities, languageOf: (path: string) => lsp.languageOf(path), request },
    });
  }

  /** The configured language servers that take `path` and are not connected (a removed one is not configured). */
  private unavailableFor(path: string): ServerStatus[] {
    return this.deps.list().filter((s) => isLanguageServerStatus(s) && s.state !== 'connected' && s.reason !== 'removed' && this.takes(s.name, path));
  }

  /** Why no connected server takes `path`: no configured one does, or the one that would is not connected. */
  private noServerFor(path: string): string {
    const configured = this.deps.list().find((s) => isLanguageServerStatus(s) && this.takes(s.name, path));
    if (configured !== undefined) return this.unavailable(configured.name);
    return `no language server takes ${path}`;
  }

  private unavailable(key: string): string {
    const s = this.deps.list().find((status) => status.name === key);
    if (s === undefined) return `language server "${lspName(key)}" is not configured`;
    const why = s.reason !== undefined ? reasonText(s.reason, s.notAllowedBy, s.detail, 'lsp') : (s.error ?? s.state);
    return `language server "${lspName(key)}" is not connected: ${why}`;
  }
}

function isLanguageServerStatus(s: ServerStatus): boolean {
  return s.kind === 'lsp';
}
