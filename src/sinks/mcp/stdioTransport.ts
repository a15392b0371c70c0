import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/server';
import type { Transport, JSONRPCMessage } from '@modelcontextprotocol/server';
import { DEFAULT_MAX_MESSAGE_BYTES, MessageTooLarge } from '../../model/messageLimit.js';
import { ServerProcess, type GroupRecording, type ProcessExit, type ServerLaunch } from '../../process/serverProcess.js';
import type { StderrRing } from '../../process/stderrRing.js';

/**
 * An MCP client transport over a child process's stdin/stdout, on the SDK's `Transport` seam.
 *
 * Why not the SDK's `StdioClientTransport`: it hides the `ChildProcess`, so the exit code and
 * signal (needed for "process exited with code 1: Error: boom") are lost; its `close()` returns
 * after SIGKILL without waiting for the exit, and it always waits 2 s after closing stdin. This
 * one follows the MCP shutdown order (close stdin → SIGTERM → SIGKILL) with our graces, resolves
 * `close()` only once the process has exited, and pipes stderr into a {@link StderrRing}
 * (never inherited into our terminal). The process's life — its group, its record, the signals
 * — is a {@link ServerProcess}'s, as a language server's is.
 */

export interface StdioShutdownGraces {
  /** After closing stdin, how long a server may take to exit on its own before SIGTERM. */
  stdinGraceMs: number;
  /** After SIGTERM, how long before SIGKILL. */
  killGraceMs: number;
}

/**
 * How long a write the child could not read (EPIPE: it closed stdin, it is exiting) waits for the
 * child's close before it fails: a server that dies while we send says why through its exit
 * ("process exited with code 1: …"), which must be known first, not "write EPIPE" (decision 294).
 */
const WRITE_FAILURE_WAITS_FOR_CLOSE_MS = 1_000;

export class StdioProcessTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private readonly process: ServerProcess;
  private readonly readBuffer: ReadBuffer;
  /** A notification was just handed on: the next messages go after its handler ({@link deliver}). */
  private deferred = false;
  private closing?: Promise<void>;
  /** Resolves once the child's close has been reported (`onclose`). */
  private readonly closed: Promise<void>;

  /**
   * `maxMessageBytes` bounds the unread part of stdout, so one line (one message) at most that
   * long (decision 180): a longer one is reported as {@link MessageTooLarge} through `onerror`,
   * and the server is ended.
   */
  constructor(
    launch: ServerLaunch,
    stderr: StderrRing,
    graces: StdioShutdownGraces,
    recording: GroupRecording = {},
    private readonly maxMessageBytes = DEFAULT_MAX_MESSAGE_BYTES,
  ) {
    this.readBuffer = new ReadBuffer({ maxBufferSize: maxMessageBytes });
    this.process = new ServerProcess(launch, stderr, { exitGraceMs: graces.stdinGraceMs, killGraceMs: graces.killGraceMs }, { recording });
    let reportClosed!: () => void;
    this.closed = new Promise((resolve) => (reportClosed = resolve));
    this.process.onclose = () => {
      reportClosed();
      this.onclose?.();
    };
    this.process.onerror = (error) => this.onerror?.(error);
  }

  /** The child's pid once started. */
  get pid(): number | undefined {
    return this.process.pid;
  }

  /**
   * Always null: the child's stderr goes to the {@link StderrRing}. The SDK knows a stdio transport
   * by a `stderr` and a `pid`: so known, its era probe (decision 380) takes a silent server for a
   * 2025-era one instead of failing, and runs on this one process (never a second).
   */
  get stderr(): null {
    return null;
  }

  /** How the child ended, once it has. */
  get exit(): ProcessExit | undefined {
    return this.process.exit;
  }

  start(): Promise<void> {
    const started = this.process.start();
    const { stdout, stdin } = this.process;
    stdout?.on('data', (chunk: Buffer) => this.onStdout(chunk));
    stdout?.on('error', (error) => this.onerror?.(error));
    // EPIPE once the child is gone: the exit handler reports that; requests fail via send().
    stdin?.on('error', (error) => this.onerror?.(error));
    return started;
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const stdin = this.process.stdin;
      if (!stdin || this.process.exit || !stdin.writable) {
        reject(new Error('Not connected'));
        return;
      }
      stdin.write(serializeMessage(message), (error) => {
        if (!error) return resolve();
        let timer: NodeJS.Timeout | undefined;
        const waited = new Promise<void>((done) => (timer = setTimeout(done, WRITE_FAILURE_WAITS_FOR_CLOSE_MS)));
        void Promise.race([this.closed, waited]).then(() => {
          clearTimeout(timer);
          reject(error);
        });
      });
    });
  }

  /** Ends the child gracefully: close stdin, then SIGTERM, then SIGKILL. Resolves once it has exited. */
  close(): Promise<void> {
    this.closing ??= this.process.stop(() => this.process.stdin?.end()).then(() => this.readBuffer.clear());
    return this.closing;
  }

  /** Like {@link close}, but skips the stdin grace: for an attempt we abandon before it connected. */
  terminate(): Promise<void> {
    void this.process.terminate();
    return this.close();
  }

  private onStdout(chunk: Buffer): void {
    try {
      this.readBuffer.append(chunk);
    } catch {
      // The SDK's "ReadBuffer exceeded maximum size" (its only failure): one line is past the cap.
      // Said as such, not as the exit code the close then brings (decision 180).
      this.onerror?.(new MessageTooLarge(this.maxMessageBytes));
      void this.close();
      return;
    }
    this.deliver();
  }

  /**
   * Hands the buffered messages on, in order. After a notification the rest wait one microtask:
   * the SDK runs a notification's handler a microtask late but a response at once, so a call's
   * last progress notification, read in the same chunk as its answer, would reach the SDK after
   * the answer had removed the call's progress handler, and be dropped (typescript-sdk#2580).
   */
  private deliver(): void {
    if (this.deferred) return;
    for (;;) {
      let message: JSONRPCMessage | null;
      try {
        message = this.readBuffer.readMessage();
      } catch (error) {
        // A line that is not JSON-RPC (a server logging to stdout): skip it, keep reading.
        this.onerror?.(asError(error));
        continue;
      }
      if (message === null) return;
      this.onmessage?.(message);
      if ('method' in message && !('id' in message)) {
        this.deferred = true;
        queueMicrotask(() => {
          this.deferred = false;
          this.deliver();
        });
        return;
      }
    }
  }
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
