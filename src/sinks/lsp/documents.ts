import equal from 'fast-deep-equal';
import { BehaviorSubject, Subject, type Observable } from 'rxjs';
import type { Diagnostic } from 'vscode-languageserver-protocol';
import { readDocumentText } from '../../files/readRegularFile.js';
import type { PathKeys } from '../../model/pathKeys.js';
import { systemPathKeys } from '../../platform/systemPathKeys.js';

/**
 * The documents the host has open, and the diagnostics language servers published for them
 * (decision 153). One store per session, outliving every language server connection: a server that
 * starts (or restarts) is sent `didOpen` for each open document it takes, then follows
 * {@link LspDocuments.changes$}.
 *
 *   open(a) change(a) close(a)      changes$:      --o--c--x--
 *   setDiagnostics / dropDiagnostics  diagnostics$: D--D-----D--   (the whole cache, on change)
 */

export interface OpenDocument {
  /** Absolute. */
  readonly path: string;
  /** `file://` URI of {@link path}. */
  readonly uri: string;
  readonly text: string;
  /** 1 when opened, +1 with each change. */
  readonly version: number;
}

export interface DocumentChange {
  type: 'open' | 'change' | 'close';
  document: OpenDocument;
}

/** One document's diagnostics from one language server. */
export interface FileDiagnostics {
  /** The language server's key (`lsp:NAME`). */
  server: string;
  uri: string;
  /** Absolute; the URI itself when it is not a `file:` URI. */
  path: string;
  diagnostics: readonly Diagnostic[];
}

export interface LspDocumentsOptions {
  /** What relative paths are relative to (default: the current directory). */
  base?: string;
  /**
   * How paths and `file:` URIs become keys (default: this machine's). Where the file system
   * ignores case (macOS, Windows: decision 283) a document's path and the path of a server's
   * `file:` URI are in the file's real case, so `file:///c%3A/Proj/a.ts` from a server is the
   * document opened as `C:\proj\a.ts`; on Linux they are as written.
   */
  pathKeys?: PathKeys;
}

/** Diagnostics of one (server, uri), by the connection that published them, latest last. */
interface Published {
  owner: object;
  entry: FileDiagnostics;
}

export class LspDocuments {
  /** Opens, changes and closes, in order. */
  readonly changes$: Observable<DocumentChange>;
  /** Every cached diagnostic, now and after each change of the cache. */
  readonly diagnostics$: Observable<readonly FileDiagnostics[]>;

  private readonly documents = new Map<string, OpenDocument>();
  private readonly changeSubject = new Subject<DocumentChange>();
  /**
   * By server and uri. During a make-before-break swap two connections of one server publish
   * side by side: the latest publisher's list is the one shown, and dropping one connection's
   * lists leaves the other's.
   */
  private readonly published = new Map<string, Published[]>();
  private readonly diagnosticsSubject = new BehaviorSubject<readonly FileDiagnostics[]>([]);
  private readonly reportedSubject = new Subject<string>();
  /**
   * The path of each report a server made, an empty one included (which changes no cache when
   * there was nothing): lets a caller that just opened a file wait for the server's first word on it.
   */
  readonly reported$: Observable<string> = this.reportedSubject.asObservable();
  private readonly base: string;
  private readonly keys: PathKeys;

  constructor(options: LspDocumentsOptions = {}) {
    this.base = options.base ?? process.cwd();
    this.keys = options.pathKeys ?? systemPathKeys;
    this.changes$ = this.changeSubject.asObservable();
    this.diagnostics$ = this.diagnosticsSubject.asObservable();
  }

  /**
   * Opens `path` with `text`, or with the file's content when `text` is absent. Opening an open
   * document again is a change when the text differs (and nothing otherwise). The file is read
   * bounded (decision 178): a FIFO, a device or a file over `MAX_DOCUMENT_BYTES` (16 MiB) rejects
   * with a `RefusedFileError` naming what it is.
   */
  async open(path: string, text?: string): Promise<OpenDocument> {
    const absolute = this.absolute(path);
    const content = text ?? (await readDocumentText(absolute));
    const open = this.documents.get(absolute);
    if (open) return open.text === content ? open : this.change(absolute, content);
    const document: OpenDocument = { path: absolute, uri: this.keys.fileUri(absolute), text: content, version: 1 };
    this.documents.set(absolute, document);
    this.changeSubject.next({ type: 'open', document });
    return document;
  }

  /** Replaces an open document's text (its version goes up by one); throws when it is not open. */
  change(path: string, text: string): OpenDocument {
    const absolute = this.absolute(path);
    const open = this.documents.get(absolute);
    if (!open) throw new Error(`document "${absolute}" is not open`);
    const document: OpenDocument = { ...open, text, version: open.version + 1 };
    this.documents.set(absolute, document);
    this.changeSubject.next({ type: 'change', document });
    return document;
  }

  /** Closes a document; returns whether it was open. Its diagnostics stay until the servers clear them. */
  close(path: string): boolean {
    const absolute = this.absolute(path);
    const document = this.documents.get(absolute);
    if (!document) return false;
    this.documents.delete(absolute);
    this.changeSubject.next({ type: 'close', document });
    return true;
  }

  get(path: string): OpenDocument | undefined {
    return this.documents.get(this.absolute(path));
  }

  /** The open documents, in the order they were opened. */
  list(): readonly OpenDocument[] {
    return [...this.documents.values()];
  }

  /** A server's `textDocument/publishDiagnostics`, from the connection `owner`; an empty list clears. */
  setDiagnostics(owner: object, server: string, uri: string, diagnostics: readonly Diagnostic[]): void {
    const key = `${server}\0${uri}`;
    const others = (this.published.get(key) ?? []).filter((p) => p.owner !== owner);
    const entry: FileDiagnostics = { server, uri, path: this.keys.pathOfFileUri(uri) ?? uri, diagnostics: [...diagnostics] };
    this.setPublished(key, [...others, { owner, entry }]);
    this.emitIfChanged();
    this.reportedSubject.next(entry.path);
  }

  /** Forgets everything `owner` published: its connection has closed. */
  dropDiagnostics(owner: object): void {
    for (const [key, list] of [...this.published]) {
      this.setPublished(
        key,
        list.filter((p) => p.owner !== owner),
      );
    }
    this.emitIfChanged();
  }

  /** The cached diagnostics (of `path` only, when given), by uri then server. */
  diagnostics(path?: string): readonly FileDiagnostics[] {
    if (path === undefined) return this.diagnosticsSubject.getValue();
    const absolute = this.absolute(path);
    return this.diagnosticsSubject.getValue().filter((d) => d.path === absolute);
  }

  private setPublished(key: string, list: Published[]): void {
    // A lone empty list says nothing a missing one does not; beside another connection's, it is
    // the latest word and stays.
    const idle = list.length === 0 || (list.length === 1 && list[0]!.entry.diagnostics.length === 0);
    if (idle) this.published.delete(key);
    else this.published.set(key, list);
  }

  private emitIfChanged(): void {
    // An empty list is a server saying "nothing here": shown as no entry at all.
    const current = [...this.published.values()]
      .map((list) => list.at(-1)!.entry)
      .filter((entry) => entry.diagnostics.length > 0)
      .sort((a, b) => compare(a.uri, b.uri) || compare(a.server, b.server));
    if (!equal(current, this.diagnosticsSubject.getValue())) this.diagnosticsSubject.next(current);
  }

  /** The key of `path` (relative to the base) that documents and diagnostics are found by. */
  keyOf(path: string): string {
    return this.absolute(path);
  }

  private absolute(path: string): string {
    return this.keys.key(this.keys.path.resolve(this.base, path));
  }
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
