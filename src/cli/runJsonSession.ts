import type { McpLive } from '../live/types.js';
import type { ResultEvent } from '../model/report/events.js';
import { ndjsonWriter } from '../sinks/ndjsonWriter.js';
import { formatBytes } from '../model/formatBytes.js';
import { BoundedLineSplitter, type LinePiece } from '../platform/boundedLineSplitter.js';
import { CANCELLED_ON_QUIT, LISTINGS, SERVER_REQUESTS, peekCommand, runJsonCommand, waitOf } from './jsonCommands.js';

/**
 * The longest command line read (decision 184): a longer one is answered `line too long` and
 * skipped unbuffered. The largest command (a `call` with its arguments) is far below it.
 */
export const MAX_COMMAND_LINE_BYTES = 1024 * 1024;

/** The answer of a command the session stopped before it ended (or began). */
const CANCELLED_QUITTING = 'cancelled: quitting';

type Result = Omit<ResultEvent, 'ts'>;

/** A command line read and not answered yet. */
interface OpenCommand {
  id?: string | number;
  cmd: unknown;
  /** It began (commands wait for the first pass before that). */
  running: boolean;
  answered: boolean;
  /** Cancels a request in flight (`call`, `get-prompt`, `read-resource`): the server is told, and it stops waiting. */
  abort: AbortController;
  /** Settles once the command has ended. */
  done: Promise<void>;
}

/**
 * `mcp-live --json`: events as NDJSON on stdout, commands as JSON lines on stdin. EOF on stdin
 * does not stop the session (a supervisor may close it); SIGINT, SIGTERM and `{"cmd":"quit"}`
 * do, after every server process has ended.
 *
 * Commands never lie and never stall (decisions 64 and 325): a command that arrives at start waits
 * as far as its answer depends on it (see `gate`) — before the first pass has planned, `status`
 * would list nothing and a `call` would be told its server is not configured — and no further,
 * so a hung server or a long first download holds back no status, no approval and no call to the
 * others. Commands run concurrently, so a long `call`
 * holds back neither `status` nor `quit`; each answer is written when it is ready, with its
 * `id`. `quit` answers every call in flight and every command still waiting with
 * `cancelled: quitting` (a call is also cancelled at its server), lets the other commands in
 * flight end, then stops.
 */
export async function runJsonSession(
  live: McpLive,
  io: { stdin: NodeJS.ReadableStream; stdout: NodeJS.WritableStream },
): Promise<number> {
  const write = ndjsonWriter(io.stdout);
  const output = live.events$.subscribe((event) => write(event));
  let stop!: () => void;
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  const open = new Set<OpenCommand>();
  let quitting = false;

  const answer = (command: { answered: boolean }, result: Result, verbatimData = false): void => {
    if (command.answered) return;
    command.answered = true;
    write({ ...result, ts: Date.now() }, { verbatimData });
  };

  /** Cancels what has not begun and every call in flight; resolves when the other commands in flight have ended. */
  const cancelOpen = (): Promise<void> => {
    quitting = true;
    const finishing: Promise<void>[] = [];
    for (const command of open) {
      if (command.running && !CANCELLED_ON_QUIT.has(command.cmd)) {
        finishing.push(command.done);
        continue;
      }
      answer(command, failure(command.id, CANCELLED_QUITTING));
      command.abort.abort(new Error(CANCELLED_QUITTING));
    }
    return Promise.all(finishing).then(() => undefined);
  };

  const onSignal = () => {
    void cancelOpen();
    stop();
  };
  // `on`, not `once`: signal-exit (used by write-file-atomic) re-raises a signal that has no
  // listener left, which would kill us before every server process is ended.
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  const started = live.start();
  const firstPass = started.then(() => undefined);
  // Handled here and by each command that waits for it; a failed start fails `runJsonSession` below.
  firstPass.catch(() => undefined);
  /**
   * What a command waits for: `get-prompt` and `read-resource` for the first pass to end (before,
   * a prompt or resource would be routed among the servers connected so far); `call` for nothing
   * here (the library waits while its tool is not listed); `status` and `tools` for the first pass
   * to have planned — every server known, one still connecting as `connecting` (decision 325) — or
   * with `"wait": "ready"` for it to end; the others — decisions, reloads, answers to forms — for
   * the plan too, which a hung connect does not hold back. A bad `wait` is answered at once.
   */
  const gate = (cmd: unknown, wait: unknown): Promise<void> => {
    if (cmd === 'call') return Promise.resolve();
    if (SERVER_REQUESTS.has(cmd)) return firstPass;
    if (LISTINGS.has(cmd)) {
      try {
        return waitOf({ wait }) === 'ready' ? firstPass : live.planned();
      } catch {
        return Promise.resolve(); // runJsonCommand answers it
      }
    }
    return live.planned();
  };

  const run = (line: string): void => {
    const { cmd, id, wait } = peekCommand(line);
    if (quitting) return answer({ answered: false }, failure(id, CANCELLED_QUITTING));
    if (cmd === 'quit') {
      // Not after the first pass: a hung first connect must not keep the session from stopping.
      void cancelOpen().then(async () => {
        const outcome = await runJsonCommand(line, live);
        answer({ answered: false }, outcome.result);
        stop();
      });
      return;
    }
    const command: OpenCommand = { id, cmd, running: false, answered: false, abort: new AbortController(), done: firstPass };
    open.add(command);
    command.done = gate(cmd, wait)
      .then(() => {
        if (command.answered) return undefined;
        command.running = true;
        return runJsonCommand(line, live, {
          signal: command.abort.signal,
          onProgress: (progress) => {
            if (!command.answered) write({ type: 'progress', ...(id === undefined ? {} : { id }), ...progress, ts: Date.now() });
          },
        });
      })
      .then(
        (outcome) => {
          if (outcome) answer(command, outcome.result, outcome.verbatimData === true);
        },
        (error: unknown) => answer(command, failure(id, `mcp-live did not start: ${error instanceof Error ? error.message : String(error)}`)),
      )
      .finally(() => open.delete(command));
  };

  const lines = new BoundedLineSplitter(MAX_COMMAND_LINE_BYTES);
  const onPiece = (piece: LinePiece): void => {
    // Like a malformed line (docs/contract.md, "Commands on stdin"): an answer without an id, and the session goes on.
    if ('tooLong' in piece) answer({ answered: false }, failure(undefined, lineTooLong(piece.tooLong)));
    else if (piece.line.trim() !== '') run(piece.line);
  };
  const onData = (chunk: Buffer | string): void => lines.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk).forEach(onPiece);
  const onEnd = (): void => lines.end().forEach(onPiece);
  io.stdin.on('data', onData);
  io.stdin.once('end', onEnd);

  await Promise.race([started, stopped]);
  await stopped;
  io.stdin.off('data', onData);
  io.stdin.off('end', onEnd);
  io.stdin.pause();
  process.removeListener('SIGINT', onSignal);
  process.removeListener('SIGTERM', onSignal);
  await live.dispose();
  output.unsubscribe();
  return 0;
}

function lineTooLong(bytes: number): string {
  return `line too long (${formatBytes(bytes)}, at most ${formatBytes(MAX_COMMAND_LINE_BYTES)}): skipped`;
}

function failure(id: string | number | undefined, error: string): Result {
  return { type: 'result', ok: false, ...(id === undefined ? {} : { id }), error };
}
