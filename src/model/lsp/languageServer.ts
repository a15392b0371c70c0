import type { Connection, RequestOptions } from '../connection.js';
import type { ServerCapabilities } from 'vscode-languageserver-protocol';

/**
 * A connection to a language server: a {@link Connection} as the reconcile core sees
 * every server (pid, stderr, death through `lists$`, `close`, `reconfigure` for settings), plus
 * what the host's language requests need. Its lists are always empty: the agent's `lsp__*` tools
 * are offered once for all language servers (src/model/lsp/lspTools.ts), not per server.
 */
export interface LanguageServerConnection extends Connection {
  readonly lsp: LanguageServerSession;
}

export interface LanguageServerSession {
  /** The capabilities the server answered `initialize` with. */
  readonly capabilities: ServerCapabilities;
  /** The language id this server gives `path` (by its current `extensionToLanguage`), or undefined. */
  languageOf(path: string): string | undefined;
  /** One typed-or-not LSP request; rejects when the connection ends or `signal` aborts ($/cancelRequest is sent). */
  request<R = unknown>(method: string, params: unknown, options?: RequestOptions): Promise<R>;
}

export function isLanguageServerConnection(connection: Connection): connection is LanguageServerConnection {
  return (connection as Partial<LanguageServerConnection>).lsp !== undefined;
}
