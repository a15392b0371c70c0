import { connect, type Socket } from 'node:net';
import { pipeline, type Readable, type Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import type { LspSocket, ResolvedLsp, ResolvedServerConfig } from '../../model/types.js';
import { DEFAULT_MAX_MESSAGE_BYTES } from '../../model/messageLimit.js';
import type { ProcessGroupRegistry } from '../../process/processGroupRegistry.js';
import { ServerProcess, childEnvironment, describeProcessExit } from '../../process/serverProcess.js';
import type { StderrRing } from '../../process/stderrRing.js';
import { lspMessageGuard } from './lspMessageGuard.js';

/**
 * The byte stream to one language server, and the process behind it:
 *
 *   stdio                  spawn command → its stdout/stdin
 *   socket with command    spawn command (stdout ignored, stderr kept) → connect, retried until it listens
 *   socket without one     connect to a server already running
 *
 * A {@link ServerProcess} runs the command exactly as it runs an MCP stdio server (group,
 * registry, parent-death signal, stderr ring, SIGTERM → SIGKILL). `onclose` reports a death we
 * did not ask for, in words — and a message past the entry's `maxMessageBytes`, which ends the
 * server like one (decision 185).
 */

export interface LspChannelOptions {
  registry?: ProcessGroupRegistry;
  /** After SIGTERM, how long before SIGKILL. */
  killGraceMs: number;
}

/** After `exit`, how long a language server may take to go (bash-language-server needs almost 1 s). */
export const LSP_EXIT_GRACE_MS = 2_000;
/** Between two connect attempts to a socket server that is not listening yet. */
const CONNECT_RETRY_MS = 100;
/** A socket that closed: how long the process behind it may take to exit, so its exit is the cause we name. */
const EXIT_AFTER_SOCKET_CLOSE_MS = 500;
/** Connect failures that mean "not listening yet". */
const NOT_YET_LISTENING = new Set(['ECONNREFUSED', 'ENOENT', 'ECONNRESET']);

export class LspChannel {
  /** The server went away on its own: why, in words (the stderr line is masked by the ring). */
  onclose?: (reason: string) => void;
  private readonly process?: ServerProcess;
  /** Where a socket server listens (absent: stdio). */
  private readonly target?: LspSocket;
  private readonly maxMessageBytes: number;
  private socket?: Socket;
  /** Why the last connect attempt failed, for a timeout's message. */
  private lastConnectError?: string;
  private closed = false;

  constructor(
    name: string,
    config: ResolvedServerConfig & { lsp: ResolvedLsp },
    private readonly stderr: StderrRing,
    options: LspChannelOptions,
  ) {
    if (config.command !== undefined) {
      this.process = new ServerProcess(
        { command: config.command, args: config.args, env: childEnvironment(config.env), cwd: config.cwd ?? config.lsp.workspaceFolder },
        stderr,
        { exitGraceMs: LSP_EXIT_GRACE_MS, killGraceMs: options.killGraceMs },
        { recording: { registry: options.registry, name }, stdio: config.lsp.transport === 'stdio' ? 'pipe' : 'ignore' },
      );
      this.process.onclose = () => this.reportClose(describeProcessExit(this.process!.exit, this.stderr.lastLine()));
    } else if (config.lsp.transport === 'stdio') {
      throw new Error('no command to start');
    }
    this.target = config.lsp.socket;
    this.maxMessageBytes = config.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  }

  get pid(): number | undefined {
    return this.process?.pid;
  }

  /** Starts the process and/or connects; `signal` gives up (the caller's deadline, an unsubscribe). */
  async open(signal: AbortSignal): Promise<{ input: Readable; output: Writable }> {
    await this.process?.start();
    if (this.target === undefined) {
      const { stdout, stdin } = this.process!;
      return { input: this.bounded(stdout!), output: stdin! };
    }
    const socket = await this.connect(this.target, signal);
    this.socket = socket;
    socket.once('close', () => void this.onSocketClosed());
    return { input: this.bounded(socket), output: socket };
  }

  /**
   * The server's bytes through {@link lspMessageGuard} (decision 185): vscode-jsonrpc's reader
   * buffers whatever `Content-Length` it is told. A message past the cap ends the server, in the
   * words an MCP server's gets; the pipeline lets go of the stream it came on.
   */
  private bounded(input: Readable): Readable {
    const guard = lspMessageGuard(this.maxMessageBytes, (error) => {
      this.reportClose(error.message);
      void this.terminate();
    });
    // Errors reach the reader (the guard's) or are the close reported elsewhere (the stream's).
    pipeline(input, guard, () => undefined);
    return guard;
  }

  /** The last connect failure, while a socket server is waited for. */
  get connectFailure(): string | undefined {
    return this.lastConnectError;
  }

  /**
   * Ends the server: `askToExit` (LSP `shutdown` + `exit`), the exit grace, then the signals,
   * and the socket. Resolves once the process is gone. Idempotent.
   */
  async stop(askToExit: () => Promise<void>): Promise<void> {
    this.closed = true;
    if (this.process) await this.process.stop(askToExit);
    else if (this.socket && !this.socket.destroyed) await askToExit();
    this.socket?.destroy();
  }

  /** Ends at once (an attempt given up): no asking, no grace. */
  async terminate(): Promise<void> {
    this.closed = true;
    this.socket?.destroy();
    await this.process?.terminate();
  }

  private async connect(target: LspSocket, signal: AbortSignal): Promise<Socket> {
    for (;;) {
      signal.throwIfAborted();
      try {
        return await connectOnce(target, signal);
      } catch (error) {
        if (signal.aborted) throw signal.reason;
        const code = (error as NodeJS.ErrnoException).code;
        if (code === undefined || !NOT_YET_LISTENING.has(code)) throw error;
        this.lastConnectError = (error as Error).message;
      }
      await sleep(CONNECT_RETRY_MS, undefined, { signal });
    }
  }

  private async onSocketClosed(): Promise<void> {
    if (this.closed) return;
    if (this.process) {
      // A crash closes the socket first; its exit, a moment later, says why.
      const timer = sleep(EXIT_AFTER_SOCKET_CLOSE_MS).then(() => undefined);
      const exit = await Promise.race([this.process.exited, timer]);
      if (exit) return; // The process's own close reports it.
    }
    this.reportClose('connection closed');
    void this.terminate();
  }

  private reportClose(reason: string): void {
    if (this.closed) return;
    this.closed = true;
    this.onclose?.(reason);
  }
}

function connectOnce(target: LspSocket, signal: AbortSignal): Promise<Socket> {
  return new Promise<Socket>((resolve, reject) => {
    const socket = 'path' in target ? connect({ path: target.path }) : connect({ port: target.port, host: target.host });
    const abort = (): void => {
      socket.destroy();
      reject(new Error('connection attempt abandoned'));
    };
    signal.addEventListener('abort', abort, { once: true });
    socket.once('connect', () => {
      signal.removeEventListener('abort', abort);
      socket.removeAllListeners('error');
      // A reset shows as the close that follows; an error without a listener would throw.
      socket.on('error', () => undefined);
      resolve(socket);
    });
    socket.once('error', (error) => {
      signal.removeEventListener('abort', abort);
      socket.destroy();
      reject(error);
    });
  });
}
