/**
 * Splits a byte stream into `\n`-ended lines (a trailing `\r` dropped), none longer than
 * `maxLineBytes` (decision 184). A longer line is not buffered: once it passes the cap its bytes
 * are dropped as they arrive, up to its newline, where it is reported once with its size — so
 * memory stays within the cap whatever a peer writes, and the lines after it are read as usual.
 *
 *   push("ab\ncd")  → [line "ab"]          (cd waits for its newline)
 *   push("e\n")     → [line "cde"]
 *   push(cap+1 × "x") → []                 (dropped, not kept)
 *   push("x\nf\n")  → [tooLong cap+2, line "f"]
 *
 * Lines are decoded as UTF-8 whole: `\n` never occurs inside a multi-byte character.
 */

export type LinePiece = { line: string } | { tooLong: number };

export class BoundedLineSplitter {
  private pending: Uint8Array[] = [];
  private pendingBytes = 0;
  /** The bytes of the line being read, those dropped included. */
  private lineBytes = 0;

  constructor(readonly maxLineBytes: number) {}

  /** The lines (and over-long lines) that `chunk` ends. */
  push(chunk: Uint8Array): LinePiece[] {
    const pieces: LinePiece[] = [];
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf(0x0a, start);
      const end = newline === -1 ? chunk.length : newline;
      this.take(chunk.subarray(start, end));
      if (newline === -1) return pieces;
      pieces.push(this.endLine());
      start = newline + 1;
    }
  }

  /** At the end of the stream: the last line when it had no newline. */
  end(): LinePiece[] {
    return this.lineBytes === 0 ? [] : [this.endLine()];
  }

  private take(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    this.lineBytes += bytes.length;
    if (this.lineBytes > this.maxLineBytes) {
      // Past the cap: what was kept goes too, and the rest of the line is only counted.
      this.pending = [];
      this.pendingBytes = 0;
      return;
    }
    this.pending.push(bytes);
    this.pendingBytes += bytes.length;
  }

  private endLine(): LinePiece {
    const bytes = this.lineBytes;
    const kept = Buffer.concat(this.pending, this.pendingBytes);
    this.pending = [];
    this.pendingBytes = 0;
    this.lineBytes = 0;
    if (bytes > this.maxLineBytes) return { tooLong: bytes };
    const text = kept.toString('utf8');
    return { line: text.endsWith('\r') ? text.slice(0, -1) : text };
  }
}
