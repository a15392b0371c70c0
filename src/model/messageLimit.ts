import { formatBytes } from './formatBytes.js';

/**
 * How large one message from a server may be (decision 179): the default of an entry's
 * `maxMessageBytes`, and the error every transport (stdio, HTTP, a language server's channel)
 * fails a message with once it grows past the entry's limit.
 */

/** The largest message a server may send when its entry sets no `maxMessageBytes`. */
export const DEFAULT_MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

/** One message from a server passed its entry's `maxMessageBytes`. */
export class MessageTooLarge extends Error {
  readonly maxBytes: number;

  constructor(maxBytes: number) {
    super(`message too large (more than ${formatBytes(maxBytes)}; raise "maxMessageBytes" in the server's entry)`);
    this.name = 'MessageTooLarge';
    this.maxBytes = maxBytes;
  }
}
