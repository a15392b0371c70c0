import type { FetchLike } from '@modelcontextprotocol/server';
import { MessageTooLarge } from '../../model/messageLimit.js';

/**
 * The `fetch` a remote MCP transport is given (decision 179): every response body passes a
 * counter that errors once one message grows past `maxBytes` — a JSON body as a whole, an event
 * stream per event (the bytes since the last blank line), so one endless event is caught while a
 * stream of small events may live for days. The error cancels the body (the socket is let go),
 * fails whatever reads it, and is handed to `onTooLarge` — the SDK words a broken event stream as
 * "SSE stream disconnected" and leaves its request waiting, so the connector learns of it there.
 *
 *   body:    --[8 MiB]--[8 MiB]--[1 B]-->            maxBytes = 16 MiB, application/json
 *   read:    --[8 MiB]--[8 MiB]--#                   # = MessageTooLarge, onTooLarge(#)
 *   events:  --e--e--e--···--e-->                    text/event-stream, each event < 16 MiB: untouched
 */

/** Statuses whose Response may carry no body (the constructor throws for one). */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

export function boundedFetch(maxBytes: number, onTooLarge: (error: MessageTooLarge) => void, base: FetchLike = fetch): FetchLike {
  return async (input, init) => {
    const response = await base(input, init);
    if (response.body === null || NULL_BODY_STATUSES.has(response.status) || response.status < 200) return response;
    const eventStream = response.headers.get('content-type')?.split(';')[0]?.trim().toLowerCase() === 'text/event-stream';
    const counted = response.body.pipeThrough(eventStream ? perEvent(maxBytes, onTooLarge) : whole(maxBytes, onTooLarge));
    const bounded = new Response(counted, { status: response.status, statusText: response.statusText, headers: response.headers });
    // What the SDK reads of a response besides its body (a redirect's target is worded from it).
    Object.defineProperties(bounded, { url: { value: response.url }, redirected: { value: response.redirected } });
    return bounded;
  };
}

/** Counts a whole body. */
function whole(maxBytes: number, onTooLarge: (error: MessageTooLarge) => void): TransformStream<Uint8Array, Uint8Array> {
  let bytes = 0;
  return new TransformStream({
    transform(chunk, controller) {
      bytes += chunk.byteLength;
      if (bytes <= maxBytes) return controller.enqueue(chunk);
      fail(controller, maxBytes, onTooLarge);
    },
  });
}

/**
 * Counts the bytes of the event being read; an event ends at a blank line (two line ends in a
 * row: `\n`, `\r` or `\r\n` each, as the SSE spec has it), which starts the count again.
 */
function perEvent(maxBytes: number, onTooLarge: (error: MessageTooLarge) => void): TransformStream<Uint8Array, Uint8Array> {
  let bytes = 0;
  let atLineStart = true;
  let afterCr = false;
  return new TransformStream({
    transform(chunk, controller) {
      for (const byte of chunk) {
        if (byte === 0x0a && afterCr) {
          // The \n of a \r\n: the line ended at the \r.
          afterCr = false;
          bytes++;
          continue;
        }
        afterCr = byte === 0x0d;
        if (byte === 0x0a || byte === 0x0d) {
          if (atLineStart) bytes = 0;
          else bytes++;
          atLineStart = true;
          continue;
        }
        atLineStart = false;
        if (++bytes > maxBytes) return fail(controller, maxBytes, onTooLarge);
      }
      controller.enqueue(chunk);
    },
  });
}

function fail(controller: TransformStreamDefaultController<Uint8Array>, maxBytes: number, onTooLarge: (error: MessageTooLarge) => void): void {
  const error = new MessageTooLarge(maxBytes);
  onTooLarge(error);
  controller.error(error);
}
