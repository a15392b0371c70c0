import equal from 'fast-deep-equal';
import { Subject, type Observable } from 'rxjs';
import {
  CancellationTokenSource,
  ConfigurationRequest,
  DidChangeConfigurationNotification,
  ExitNotification,
  InitializedNotification,
  InitializeRequest,
  LogMessageNotification,
  MessageType,
  PublishDiagnosticsNotification,
  RegistrationRequest,
  ResponseError,
  ShowMessageNotification,
  ShowMessageRequest,
  ShutdownRequest,
  StreamMessageReader,
  StreamMessageWriter,
  UnregistrationRequest,
  WorkDoneProgressCreateRequest,
  WorkspaceFoldersRequest,
  createProtocolConnection,
  type ProtocolConnection,
  type ServerCapabilities,
} from 'vscode-languageserver-protocol/node';
import type { AttemptEnded, RequestOptions, ServerIdentity } from '../../model/connection.js';
import type { LanguageServerConnection, LanguageServerSession } from '../../model/lsp/languageServer.js';
import { DEFAULT_LSP_STARTUP_TIMEOUT_MS, LSP_REQUEST_TIMEOUT_MS, languageOf } from '../../model/lsp/lspConfig.js';
import { initializeParams, workspaceFolders } from '../../model/lsp/lspInitialize.js';
import { capabilitySummary, settingsSection } from '../../model/lsp/lspServerFacts.js';
import { createServerMasker } from '../../model/settings/secrets.js';
import type { LspView, ResolvedLsp, ResolvedServerConfig, ServerLists, ViewFields } from '../../model/types.js';
import { connectionAttempt, type ConnectionAttempt } from '../mcp/connectionAttempt.js';
import { DEFAULT_KILL_GRACE_MS, timedOut } from '../mcp/connector.js';
import { activeProcessGroupRegistry, type ProcessGroupRegistry } from '../../process/processGroupRegistry.js';
import { StderrRing } from '../../process/stderrRing.js';
import { DocumentSync } from './documentSync.js';
import type { LspDocuments } from './documents.js';
import { LspChannel } from './lspChannel.js';

/**
 * The {@link Connector} of language servers: one LSP client per subscription, spoken
 * with vscode-languageserver-protocol's typed messages over the server's stdio or a socket.
 *
 *   connectLsp(key, config):   --(spawn, initialize, initialized, didChangeConfiguration)--C|
 *                              --(spawn fails | initialize fails)--#
 *                              --(startupTimeout passes)--#        # = "timed out after N ms (raise "startupTimeout" …)"
 *   connection.lists$:         ------------|        close(): shutdown → exit → 2 s → SIGTERM → SIGKILL
 *                              ------#              the server died ("process exited with code 1: …")
 *
 * As with MCP servers, whatever an attempt started is ended before its error is delivered, and
 * an unsubscribe before the emission ends it. The connection has no MCP lists: `lists$` only
 * reports the server's death. It keeps the server in step with the host's open documents
 * ({@link DocumentSync}) and puts what the server publishes into the store's diagnostics.
 */

export interface LspConnectorDeps {
  /** The host's open documents and the diagnostics cache, shared by every language server. */
  documents: LspDocuments;
  /** Where servers' process groups are recorded (default: the registry the session opened, if any). */
  processGroups?: ProcessGroupRegistry;
  /** `clientInfo.name` in `initialize` (default `mcp-live`). */
  clientName?: string;
  /** After SIGTERM, how long before SIGKILL (default 2000). */
  killGraceMs?: number;
}

/** The connection this connector hands out: its `close()` is a Promise. */
export interface LspConnection extends LanguageServerConnection {
  close(): Promise<void>;
}

/** Like a {@link Connector}, without server requests to answer: `ended` as there. */
export type LspConnector = (name: string, config: ResolvedServerConfig, ended?: AttemptEnded) => Observable<LspConnection>;

const NO_LISTS: ServerLists = { tools: [], prompts: [], resources: [], resourceTemplates: [] };

/** `window/logMessage` and `window/showMessage` types, as the stderr tail shows them. */
const MESSAGE_WORDS: Record<MessageType, string> = {
  [MessageType.Error]: 'error',
  [MessageType.Warning]: 'warning',
  [MessageType.Info]: 'info',
  [MessageType.Log]: 'log',
  [MessageType.Debug]: 'debug',
};

export function createLspConnector(deps: LspConnectorDeps): LspConnector {
  const connector: LspConnector = (name, config, ended) => connectionAttempt(() => new LspSession(name, config, deps), ended);
  return connector;
}

type SessionState = 'connecting' | 'open' | 'closing' | 'closed' | 'dead';

class LspSession implements LspConnection, ConnectionAttempt<LspConnection> {
  /** The entry's `startupTimeout`. */
  readonly deadlineMs: number;
  readonly lists = NO_LISTS;
  readonly lists$: Observable<never>;
  /** Set once the server answered `initialize`, before the connection is handed out. */
  lsp!: LanguageServerSession;
  server?: ServerIdentity;

  private state: SessionState = 'connecting';
  private view: LspView;
  private connection?: ProtocolConnection;
  private sync?: DocumentSync;
  /** Why the server went away on its own (masked). */
  private deathReason?: string;
  /** Rejects when the server dies or we close: what every wait on the server races with. */
  private readonly gone: Promise<never>;
  private markGone!: (why: Error) => void;
  private readonly endSubject = new Subject<never>();
  private readonly giveUp = new AbortController();
  private readonly redact: (text: string) => string;
  private readonly stderr: StderrRing;
  private readonly channel: LspChannel;
  private readonly lspConfig: ResolvedLsp;
  private readonly requestTimeoutMs: number;
  private closing?: Promise<void>;

  constructor(
    private readonly name: string,
    config: ResolvedServerConfig,
    private readonly deps: LspConnectorDeps,
  ) {
    if (config.lsp === undefined) throw new Error(`"${name}" is not a language server`);
    this.lspConfig = config.lsp;
    this.view = config.lsp.view;
    this.deadlineMs = positive(config.connectTimeout) ?? DEFAULT_LSP_STARTUP_TIMEOUT_MS;
    this.requestTimeoutMs = positive(config.timeout) ?? LSP_REQUEST_TIMEOUT_MS;
    // The child inherits process.env, so its secrets are this server's too (as for MCP servers).
    this.redact = createServerMasker({ resolved: config, env: process.env });
    this.stderr = new StderrRing(undefined, this.redact);
    this.channel = new LspChannel(name, { ...config, lsp: config.lsp }, this.stderr, {
      registry: deps.processGroups ?? activeProcessGroupRegistry(),
      killGraceMs: deps.killGraceMs ?? DEFAULT_KILL_GRACE_MS,
    });
    this.channel.onclose = (reason) => this.die(reason);
    this.gone = new Promise<never>((_, reject) => (this.markGone = reject));
    this.gone.catch(() => undefined);
    this.lists$ = this.endSubject.asObservable();
  }

  get pid(): number | undefined {
    return this.channel.pid;
  }

  /** Starts the server and initializes it; resolves once `initialized` (and the settings) went out. */
  async open(): Promise<LspConnection> {
    const { input, output } = await this.untilGone(this.channel.open(this.giveUp.signal));
    const connection = createProtocolConnection(new StreamMessageReader(input), new StreamMessageWriter(output));
    this.connection = connection;
    this.answerServer(connection);
    connection.listen();
    const result = await this.untilGone(
      connection.sendRequest(
        InitializeRequest.type,
        initializeParams({
          workspaceFolder: this.lspConfig.workspaceFolder,
          initializationOptions: this.lspConfig.initializationOptions,
          clientName: this.deps.clientName ?? 'mcp-live',
          processId: process.pid,
        }),
      ),
    );
    this.lsp = {
      capabilities: result.capabilities,
      languageOf: (path) => languageOf(this.view, path),
      request: (method, params, options) => this.request(method, params, options),
    };
    this.server = identityOf(result);
    await this.untilGone(connection.sendNotification(InitializedNotification.type, {}));
    if (this.view.settings !== undefined) {
      await this.untilGone(connection.sendNotification(DidChangeConfigurationNotification.type, { settings: this.view.settings }));
    }
    if (this.state !== 'connecting') throw new Error(this.deathReason ?? 'connection closed');
    this.state = 'open';
    this.sync = new DocumentSync(this.deps.documents, connection, result.capabilities, (path) => languageOf(this.view, path));
    this.sync.start();
    return this;
  }

  /** The error a failed attempt reports: why the server died if it did, else what went wrong, masked. */
  explain(error: unknown): Error {
    if (this.deathReason) return new Error(this.deathReason);
    if (error instanceof ResponseError) return new Error(this.redact(`initialize failed: ${error.message}`));
    return new Error(this.redact(asError(error).message));
  }

  /** The startup deadline passed: the field to raise, and why a socket server could not be reached. */
  timedOut(): Error {
    const failure = this.channel.connectFailure;
    return new Error(`${timedOut(this.deadlineMs, 'startupTimeout')}${failure ? `; last connect attempt: ${failure}` : ''}`);
  }

  callTool(): Promise<unknown> {
    return Promise.reject(new Error(`"${this.name}" is a language server: a language server has no MCP tools`));
  }

  stderrTail(): readonly string[] {
    return this.stderr.lines();
  }

  /** New settings go out once (`didChangeConfiguration`); new routing opens and closes documents. */
  reconfigure({ lsp }: ViewFields): void {
    if (lsp === undefined) return;
    const previous = this.view;
    this.view = lsp;
    if (this.state !== 'open') return;
    if (!equal(previous.settings, lsp.settings)) {
      // A connection that went away meanwhile fails the send: its death is reported elsewhere.
      void this.connection!.sendNotification(DidChangeConfigurationNotification.type, { settings: lsp.settings ?? null }).catch(() => undefined);
    }
    if (!equal(previous.extensionToLanguage, lsp.extensionToLanguage)) this.sync?.reroute();
  }

  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  /** Ends an attempt that never handed out a connection: no shutdown, no grace. */
  abort(): Promise<void> {
    this.giveUp.abort(new Error('connection attempt abandoned'));
    void this.channel.terminate();
    return this.close();
  }

  private async shutdown(): Promise<void> {
    const wasOpen = this.state === 'open';
    if (this.state !== 'dead') this.state = 'closing';
    this.sync?.stop();
    await this.channel.stop(() => (wasOpen ? this.askToExit() : Promise.resolve()));
    this.release(new Error(`server "${this.name}" was closed`));
    if (this.state === 'closing') {
      this.state = 'closed';
      this.endSubject.complete();
    }
  }

  /** `shutdown`, bounded by the entry's `shutdownTimeout`, then `exit` (whatever the answer). */
  private async askToExit(): Promise<void> {
    const connection = this.connection!;
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<void>((resolve) => (timer = setTimeout(resolve, this.view.shutdownTimeout)));
    await Promise.race([connection.sendRequest(ShutdownRequest.type).catch(() => undefined), bound, this.gone.catch(() => undefined)]);
    clearTimeout(timer);
    await connection.sendNotification(ExitNotification.type).catch(() => undefined);
  }

  private die(reason: string): void {
    if (this.state === 'dead' || this.state === 'closing' || this.state === 'closed') return;
    this.state = 'dead';
    this.deathReason = reason;
    this.sync?.stop();
    this.release(new Error(reason));
    this.endSubject.error(new Error(reason));
  }

  /** What the connection held: requests in flight fail with `why`, its diagnostics leave the store. */
  private release(why: Error): void {
    this.markGone(why);
    this.connection?.dispose();
    this.deps.documents.dropDiagnostics(this);
  }

  /** The server's requests and notifications; anything else it asks is answered "method not found". */
  private answerServer(connection: ProtocolConnection): void {
    connection.onRequest(ConfigurationRequest.type, ({ items }) => items.map((item) => settingsSection(this.view.settings, item.section)));
    connection.onRequest(WorkspaceFoldersRequest.type, () => workspaceFolders(this.lspConfig.workspaceFolder));
    connection.onRequest(RegistrationRequest.type, () => undefined);
    connection.onRequest(UnregistrationRequest.type, () => undefined);
    connection.onRequest(WorkDoneProgressCreateRequest.type, () => undefined);
    // Nobody is there to pick an action: as if the user dismissed the message.
    connection.onRequest(ShowMessageRequest.type, ({ type, message }) => {
      this.logLine(type, message);
      return null;
    });
    connection.onNotification(LogMessageNotification.type, ({ type, message }) => this.logLine(type, message));
    connection.onNotification(ShowMessageNotification.type, ({ type, message }) => this.logLine(type, message));
    connection.onNotification(PublishDiagnosticsNotification.type, ({ uri, diagnostics }) => {
      if (this.state === 'connecting' || this.state === 'open') this.deps.documents.setDiagnostics(this, this.name, uri, diagnostics);
    });
    // `$/progress`, `telemetry/event` and the like: nothing here uses them.
    connection.onUnhandledNotification(() => undefined);
  }

  /** A server's message goes where its stderr goes (masked by the ring), one line per line. */
  private logLine(type: MessageType, message: string): void {
    const word = MESSAGE_WORDS[type] ?? 'log';
    this.stderr.write(`${message.split('\n').map((line) => `${word}: ${line}`).join('\n')}\n`);
  }

  private async request<R>(method: string, params: unknown, { signal }: RequestOptions = {}): Promise<R> {
    if (this.state !== 'open') throw this.notConnected();
    signal?.throwIfAborted();
    const source = new CancellationTokenSource();
    const ms = this.requestTimeoutMs;
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    // Cancelling the token sends `$/cancelRequest`; the caller does not wait for the server's answer to it.
    const stopped = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        source.cancel();
        reject(new Error(`${method} timed out after ${ms} ms`));
      }, ms);
      onAbort = () => {
        source.cancel();
        // The caller gets the signal's own reason (below).
        reject(new Error('aborted'));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
    });
    const sent =
      params === undefined ? this.connection!.sendRequest<R>(method, source.token) : this.connection!.sendRequest<R>(method, params, source.token);
    try {
      return await Promise.race([sent, stopped, this.gone]);
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      if (this.state !== 'open') throw this.notConnected();
      if (error instanceof ResponseError) throw Object.assign(new Error(this.redact(error.message)), { code: error.code });
      throw error;
    } finally {
      clearTimeout(timer);
      if (onAbort) signal?.removeEventListener('abort', onAbort);
      source.dispose();
      sent.catch(() => undefined);
    }
  }

  private untilGone<T>(promise: Promise<T>): Promise<T> {
    return Promise.race([promise, this.gone]);
  }

  private notConnected(): Error {
    const why = this.deathReason ? `: ${this.deathReason}` : '';
    return new Error(`server "${this.name}" is not connected${why}`);
  }
}

function identityOf(result: { serverInfo?: { name: string; version?: string }; capabilities: ServerCapabilities }): ServerIdentity {
  const identity: ServerIdentity = { capabilities: capabilitySummary(result.capabilities) };
  if (result.serverInfo) identity.info = { name: result.serverInfo.name, version: result.serverInfo.version ?? '' };
  return identity;
}

function positive(ms: number | undefined): number | undefined {
  return ms !== undefined && Number.isFinite(ms) && ms > 0 ? ms : undefined;
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
