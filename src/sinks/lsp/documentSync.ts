import type { Subscription } from 'rxjs';
import {
  DidChangeTextDocumentNotification,
  DidCloseTextDocumentNotification,
  DidOpenTextDocumentNotification,
  TextDocumentSyncKind,
  type ProtocolConnection,
  type ServerCapabilities,
} from 'vscode-languageserver-protocol/node';
import type { DocumentChange, LspDocuments, OpenDocument } from './documents.js';

/**
 * Keeps one language server's view of the host's open documents: on start, `didOpen` for every
 * open document the server takes (so a restarted server gets them again), then the store's opens,
 * changes (the whole text: every server accepts a change without a range) and closes. A change
 * of routing (`extensionToLanguage`) opens what the server now takes and closes what it no
 * longer does. A server whose `textDocumentSync` says None is sent nothing.
 */
export class DocumentSync {
  /** uri → the language id the server was given it with. */
  private readonly opened = new Map<string, string>();
  private following?: Subscription;
  private readonly sync: { openClose: boolean; change: boolean };

  constructor(
    private readonly documents: LspDocuments,
    private readonly connection: ProtocolConnection,
    capabilities: ServerCapabilities,
    private readonly languageOf: (path: string) => string | undefined,
  ) {
    this.sync = syncOf(capabilities.textDocumentSync);
  }

  /** Opens what is open now, then follows the store. */
  start(): void {
    // One synchronous step: no change can slip between the list and the subscription.
    for (const document of this.documents.list()) this.route(document);
    this.following = this.documents.changes$.subscribe((change) => this.follow(change));
  }

  /** The routing changed: open and close accordingly. */
  reroute(): void {
    for (const document of this.documents.list()) this.route(document);
  }

  stop(): void {
    this.following?.unsubscribe();
  }

  private follow({ type, document }: DocumentChange): void {
    if (type === 'open') return this.route(document);
    if (!this.opened.has(document.uri)) return;
    if (type === 'close') return this.close(document);
    if (this.sync.change) {
      quietly(
        this.connection.sendNotification(DidChangeTextDocumentNotification.type, {
          textDocument: { uri: document.uri, version: document.version },
          contentChanges: [{ text: document.text }],
        }),
      );
    }
  }

  /** Opens `document` on the server if it takes it, under the right language; closes it if not. */
  private route(document: OpenDocument): void {
    const language = this.languageOf(document.path);
    const current = this.opened.get(document.uri);
    if (current === language) return;
    if (current !== undefined) this.close(document);
    if (language === undefined) return;
    this.opened.set(document.uri, language);
    if (!this.sync.openClose) return;
    quietly(
      this.connection.sendNotification(DidOpenTextDocumentNotification.type, {
        textDocument: { uri: document.uri, languageId: language, version: document.version, text: document.text },
      }),
    );
  }

  private close(document: OpenDocument): void {
    this.opened.delete(document.uri);
    if (this.sync.openClose) quietly(this.connection.sendNotification(DidCloseTextDocumentNotification.type, { textDocument: { uri: document.uri } }));
  }
}

/** A notification to a connection that went away meanwhile fails: its death is reported elsewhere. */
function quietly(sent: Promise<void>): void {
  sent.catch(() => undefined);
}

/**
 * What `textDocumentSync` asks for. A kind alone implies open/close; options say it themselves
 * (and leave change at None when they omit it), as the specification reads.
 */
function syncOf(sync: ServerCapabilities['textDocumentSync']): { openClose: boolean; change: boolean } {
  if (sync === undefined || sync === null) return { openClose: false, change: false };
  if (typeof sync === 'number') return { openClose: sync !== TextDocumentSyncKind.None, change: sync !== TextDocumentSyncKind.None };
  return { openClose: sync.openClose === true, change: (sync.change ?? TextDocumentSyncKind.None) !== TextDocumentSyncKind.None };
}
