import { Transform } from 'node:stream';
import { MessageTooLarge } from '../../model/messageLimit.js';

/**
 * The bytes from a language server on their way to vscode-jsonrpc's reader, which buffers any
 * `Content-Length` it is told (decision 185). The guard reads the base protocol's headers as the
 * reader does and fails a message whose `Content-Length` passes `maxBytes` — at its header,
 * before any of its body is buffered — and a header block longer than
 * {@link LSP_MAX_HEADER_BYTES}. Everything else passes through as it came: bodies are counted,
 * never copied or kept.
 *
 *   in:   --[CL: 40\r\n\r\n{…40 B…}]--[CL: 100000000\r\n\r\n]--xxxxxxxx-->     maxBytes = 16 MiB
 *   out:  --[CL: 40\r\n\r\n{…40 B…}]--#                                     # = MessageTooLarge, onTooLarge(#)
 *   in:   --[x × 8 KiB, no blank line]--x-->
 *   out:  --#                                                               # = "message header too long …"
 */

/** The longest header block (the blank line included) a message may have: real ones are ~40 bytes. */
export const LSP_MAX_HEADER_BYTES = 8 * 1024;

const CR = 0x0d;
const LF = 0x0a;

export function lspMessageGuard(maxBytes: number, onTooLarge: (error: Error) => void = () => undefined): Transform {
  /** Body bytes still to pass; 0 while a header block is read. */
  let bodyLeft = 0;
  /** The header block so far, and its length in bytes (kept only up to the bound). */
  let header = '';
  let headerBytes = 0;
  /** How far into `\r\n\r\n` the header is, as the reader's state machine counts it (4: ended). */
  let blankLine = 0;

  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      let at = 0;
      /** Where the header being read began in this chunk (0: in an earlier one, already passed). */
      let headerStart = 0;
      while (at < chunk.length) {
        if (bodyLeft > 0) {
          const take = Math.min(bodyLeft, chunk.length - at);
          bodyLeft -= take;
          at += take;
          continue;
        }
        if (headerBytes === 0) headerStart = at;
        const from = at;
        while (at < chunk.length && blankLine !== 4) blankLine = nextState(blankLine, chunk[at++]!);
        headerBytes += at - from;
        if (headerBytes > LSP_MAX_HEADER_BYTES) return fail(this, chunk.subarray(0, headerStart), headerTooLong());
        // The reader decodes headers as ASCII (high bits dropped): so do we, to read what it reads.
        header += chunk.toString('ascii', from, at);
        if (blankLine !== 4) break;
        const length = contentLength(header);
        header = '';
        headerBytes = 0;
        blankLine = 0;
        if (length > maxBytes) return fail(this, chunk.subarray(0, headerStart), new MessageTooLarge(maxBytes));
        bodyLeft = length;
      }
      callback(null, chunk);

      function fail(stream: Transform, before: Buffer, error: Error): void {
        if (before.length > 0) stream.push(before);
        onTooLarge(error);
        callback(error);
      }
    },
  });
}

/** Not a message too large: `maxMessageBytes` does not move this bound (no real header nears it). */
function headerTooLong(): Error {
  return new Error(`message header too long (more than ${LSP_MAX_HEADER_BYTES / 1024} KiB before its blank line)`);
}

/** The reader's `\r\n\r\n` state machine (vscode-jsonrpc's MessageBuffer.tryReadHeaders), byte by byte. */
function nextState(state: number, byte: number): number {
  if (byte === CR) return state === 0 ? 1 : state === 2 ? 3 : 0;
  if (byte === LF) return state === 1 ? 2 : state === 3 ? 4 : 0;
  return 0;
}

/**
 * The body length the reader takes from a header block: the last `Content-Length` (keys compared
 * lower-cased, untrimmed), as `parseInt` reads it. After a block the reader rejects (a line
 * without `:`, no or a non-numeric length) it reads another header block, and so do we: 0.
 */
function contentLength(block: string): number {
  let value: string | undefined;
  // The block ends in two empty lines (its `\r\n\r\n`).
  for (const line of block.split('\r\n').slice(0, -2)) {
    const colon = line.indexOf(':');
    if (colon === -1) return 0;
    if (line.slice(0, colon).toLowerCase() === 'content-length') value = line.slice(colon + 1).trim();
  }
  // No radix, as the reader has it ("0x10" is 16).
  const length = value === undefined ? NaN : parseInt(value);
  return Number.isNaN(length) || length < 0 ? 0 : length;
}
