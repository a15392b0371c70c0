/**
 * The last lines a server wrote to stderr (docs/contract.md, "Server entries": the last 200 lines
 * per server).
 *
 * Chunks arrive as the pipe delivers them, so a line may be split across chunks: the unfinished
 * tail is held back and shown as the last line until its newline arrives. A `redact` function
 * runs on every line on the way in, so secrets never sit in the buffer at all.
 */
export const STDERR_RING_LINES = 200;

/** Longest line kept; a server that writes megabytes without a newline must not grow us. */
const MAX_LINE_CHARS = 8 * 1024;
/**
 * How much of a line is looked at before it is cut to {@link MAX_LINE_CHARS}: masking runs on
 * this much, so a secret across the cut is masked whole instead of leaving a visible prefix.
 */
const MAX_SCANNED_CHARS = 2 * MAX_LINE_CHARS;

/** The `Node.js v20.20.2` line Node prints after an uncaught exception's stack. */
const NODE_VERSION_TRAILER = /^Node\.js v\d+\.\d+\.\d+$/;
/** A line that names an error (`Error: …`, `TypeError [ERR_X]: …`, `error: …`). */
const ERROR_LINE = /^(\w*Error\b|error\b|fatal\b|panic\b)/i;
/** How far back from the end an error line is looked for. */
const CRASH_REPORT_LINES = 20;

export class StderrRing {
  private readonly slots: string[] = [];
  /** Index of the oldest line once the ring is full. */
  private start = 0;
  private partial = '';

  constructor(
    private readonly capacity: number = STDERR_RING_LINES,
    private readonly redact: (line: string) => string = (line) => line,
  ) {
    if (!Number.isInteger(capacity) || capacity < 1) {
      throw new RangeError(`capacity must be a positive integer, got ${capacity}`);
    }
  }

  /** Appends a decoded chunk of stderr output. */
  write(chunk: string): void {
    const pieces = (this.partial + chunk).split('\n');
    this.partial = clip(pieces.pop() ?? '', MAX_SCANNED_CHARS);
    for (const piece of pieces) this.pushLine(piece.replace(/\r$/, ''));
  }

  /** Flushes an unfinished last line (the stream ended without a newline). */
  end(): void {
    if (this.partial !== '') this.pushLine(this.partial);
    this.partial = '';
  }

  /** The kept lines, oldest first, including an unfinished last line. */
  lines(): readonly string[] {
    const ordered = [...this.slots.slice(this.start), ...this.slots.slice(0, this.start)];
    if (this.partial === '') return ordered;
    const tail = [...ordered, clip(this.redact(this.partial))];
    return tail.length > this.capacity ? tail.slice(tail.length - this.capacity) : tail;
  }

  /** The last non-blank line, for error messages ("process exited with code 1: Error: boom"). */
  lastLine(): string | undefined {
    const recent = this.lines()
      .map((line) => line.trim())
      // Node ends a crash report with its version line, which says nothing about the crash.
      .filter((line) => line !== '' && !NODE_VERSION_TRAILER.test(line))
      .slice(-CRASH_REPORT_LINES);
    // In a crash report, the error line says more than the stack frames after it.
    const error = recent.findLast((line) => ERROR_LINE.test(line));
    return error ?? recent.at(-1);
  }

  private pushLine(line: string): void {
    // Mask, then cut: cutting first could halve a secret, and half a secret is not recognised.
    const kept = clip(this.redact(clip(line, MAX_SCANNED_CHARS)));
    if (this.slots.length < this.capacity) {
      this.slots.push(kept);
      return;
    }
    this.slots[this.start] = kept;
    this.start = (this.start + 1) % this.capacity;
  }
}

function clip(line: string, max = MAX_LINE_CHARS): string {
  return line.length > max ? `${line.slice(0, max)}…` : line;
}
