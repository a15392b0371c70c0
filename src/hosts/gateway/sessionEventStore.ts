/**
 * The event store of one Streamable HTTP session of the gateway (decision 363): what the SDK's
 * transport keeps of the SSE events it sends, so that a client whose stream broke (or was
 * closed for polling) resumes it with `Last-Event-ID` and misses nothing.
 *
 * In memory and bounded: at most `maxEvents` events and `maxBytes` bytes of messages, the oldest
 * dropped first. A client that never resumes, or sends calls whose answers are large, costs the
 * gateway no more than that per session, and `clear()` frees it when the session ends. A resume
 * never skips an event: it replays every event of the stream after the one named, or — when
 * that one is no longer held — is refused, as the transport refuses an unknown id. A message too
 * large to hold at all drops the history of its stream, so no resume can reach past it.
 *
 * Structural, with no import from the SDK: it is the SDK's `EventStore` (`storeEvent`,
 * `getStreamIdForEventId`, `replayEventsAfter`) for any message type.
 */

export interface SessionEventStoreLimits {
  /** Events held at most, across the session's streams. */
  readonly maxEvents: number;
  /** Bytes of messages (their JSON, UTF-8) held at most, across the session's streams. */
  readonly maxBytes: number;
}

/** The gateway's limits: a few hundred events, 1 MiB. */
export const SESSION_EVENT_STORE_LIMITS: SessionEventStoreLimits = { maxEvents: 500, maxBytes: 1024 * 1024 };

interface HeldEvent<M> {
  readonly streamId: string;
  readonly seq: number;
  readonly message: M;
  readonly bytes: number;
}

export class SessionEventStore<M> {
  /** In the order stored: the oldest first, so dropping from the front drops the oldest. */
  readonly #events = new Map<string, HeldEvent<M>>();
  #bytes = 0;
  #seq = 0;

  constructor(private readonly limits: SessionEventStoreLimits = SESSION_EVENT_STORE_LIMITS) {}

  /** Events and bytes held now. */
  get size(): { events: number; bytes: number } {
    return { events: this.#events.size, bytes: this.#bytes };
  }

  storeEvent(streamId: string, message: M): Promise<string> {
    const seq = ++this.#seq;
    const eventId = String(seq);
    const bytes = Buffer.byteLength(JSON.stringify(message) ?? '', 'utf8');
    if (bytes > this.limits.maxBytes) {
      this.#dropStream(streamId);
      return Promise.resolve(eventId);
    }
    this.#events.set(eventId, { streamId, seq, message, bytes });
    this.#bytes += bytes;
    for (const [id, held] of this.#events) {
      if (this.#events.size <= this.limits.maxEvents && this.#bytes <= this.limits.maxBytes) break;
      this.#drop(id, held);
    }
    return Promise.resolve(eventId);
  }

  getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    return Promise.resolve(this.#events.get(eventId)?.streamId);
  }

  /**
   * Sends every event of `lastEventId`'s stream stored after it, oldest first, and resolves with
   * that stream's id. The priming event (a message with no `jsonrpc`: the anchor a client resumes
   * from) is not sent again. An id not held rejects: the transport answers the resume with an error.
   */
  async replayEventsAfter(lastEventId: string, { send }: { send: (eventId: string, message: M) => Promise<void> }): Promise<string> {
    const last = this.#events.get(lastEventId);
    if (last === undefined) throw new Error(`event ${JSON.stringify(lastEventId)} is not held: the stream cannot be resumed`);
    const after = [...this.#events].filter(([, held]) => held.streamId === last.streamId && held.seq > last.seq);
    for (const [eventId, held] of after) {
      if (isMessage(held.message)) await send(eventId, held.message);
    }
    return last.streamId;
  }

  /** Drops everything: the session has ended. */
  clear(): void {
    this.#events.clear();
    this.#bytes = 0;
  }

  #dropStream(streamId: string): void {
    for (const [id, held] of this.#events) if (held.streamId === streamId) this.#drop(id, held);
  }

  #drop(eventId: string, held: HeldEvent<M>): void {
    this.#events.delete(eventId);
    this.#bytes -= held.bytes;
  }
}

/** A JSON-RPC message, not the transport's empty priming placeholder. */
function isMessage(message: unknown): boolean {
  return typeof message === 'object' && message !== null && 'jsonrpc' in message;
}
