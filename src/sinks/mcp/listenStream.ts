import type { Client, McpSubscription } from '@modelcontextprotocol/client';
import type { ListKind } from './serverLists.js';

/**
 * The change notifications of a modern (2026-07-28) connection (decision 381): one
 * `subscriptions/listen` stream asking for every list change the server advertises and the
 * resources subscribed to. Its notifications reach the client's notification handlers, the same
 * a 2025-era server's unsolicited ones reach, so nothing downstream tells the eras apart.
 *
 *   open()            --ack--(notifications …)--x        x = the stream dropped ('remote'/'graceful')
 *   reopen after      500 ms, 1 s, 2 s, 4 s, 8 s         then: lost(error), the connection is lost
 *   a reopened stream refreshes every list it covers (what changed while none was open)
 *
 * A stream that stayed open for {@link STEADY_MS} starts the count of reopens afresh.
 */
export interface ListenStreamDeps {
  /** A stream was reopened: these lists may have changed meanwhile. */
  refresh: (kinds: readonly ListKind[]) => void;
  /** No stream could be reopened: the connection counts as lost. */
  lost: (error: Error) => void;
  /** The request timeout of the ack. */
  timeoutMs: number;
}

/** Waits before each reopen of a dropped stream; past the last, the connection is lost. */
export const REOPEN_DELAYS_MS: readonly number[] = [500, 1_000, 2_000, 4_000, 8_000];
/** How long a stream must stay open for its next drop to start the count of reopens afresh. */
const STEADY_MS = 30_000;

export class ListenStream {
  private current?: McpSubscription;
  private uris = new Set<string>();
  private reopens = 0;
  private openedAt = 0;
  private timer?: NodeJS.Timeout;
  private stopped = false;
  /** Opens one at a time: a subscription change while a stream opens waits for it. */
  private opening: Promise<void> = Promise.resolve();

  constructor(
    private readonly client: Client,
    private readonly deps: ListenStreamDeps,
  ) {}

  /** The lists the open stream tells the changes of: those need no ttl refresh. */
  get covered(): ReadonlySet<ListKind> {
    const honored = this.current?.honoredFilter ?? {};
    const kinds = new Set<ListKind>();
    if (honored.toolsListChanged) kinds.add('tools');
    if (honored.promptsListChanged) kinds.add('prompts');
    if (honored.resourcesListChanged) {
      kinds.add('resources');
      kinds.add('resourceTemplates');
    }
    return kinds;
  }

  /** Opens the stream; one the server refuses is tried again like one that dropped. Never rejects. */
  open(): Promise<void> {
    return this.replace().catch((error: unknown) => this.reopenLater(error instanceof Error ? error.message : String(error)));
  }

  /**
   * The resources whose updates are wanted (`resources/subscribe` of the 2025 era): the stream is
   * reopened with them before the old one closes, so no update is missed in between.
   */
  async subscribe(uri: string, wanted: boolean): Promise<void> {
    if (this.uris.has(uri) === wanted) return;
    if (wanted) this.uris.add(uri);
    else this.uris.delete(uri);
    await this.replace();
  }

  close(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    void this.current?.close();
    this.current = undefined;
  }

  private filter() {
    const caps = this.client.getServerCapabilities() ?? {};
    const uris = caps.resources?.subscribe === true ? [...this.uris].sort() : [];
    return {
      ...(caps.tools?.listChanged === true ? { toolsListChanged: true } : {}),
      ...(caps.prompts?.listChanged === true ? { promptsListChanged: true } : {}),
      ...(caps.resources?.listChanged === true ? { resourcesListChanged: true } : {}),
      ...(uris.length > 0 ? { resourceSubscriptions: uris } : {}),
    };
  }

  private replace(): Promise<void> {
    const run = this.opening.catch(() => undefined).then(async () => {
      if (this.stopped) return;
      const filter = this.filter();
      const old = this.current;
      if (Object.keys(filter).length === 0) {
        this.current = undefined;
        await old?.close();
        return;
      }
      const next = await this.client.listen(filter, { timeout: this.deps.timeoutMs });
      if (this.stopped) return void next.close();
      this.current = next;
      this.openedAt = Date.now();
      void next.closed.then((reason) => this.closed(next, reason));
      await old?.close();
    });
    this.opening = run;
    return run;
  }

  private closed(sub: McpSubscription, reason: 'local' | 'graceful' | 'remote'): void {
    // A stream we replaced or closed ourselves, or one of a connection that is ending.
    if (reason === 'local' || sub !== this.current || this.stopped) return;
    this.current = undefined;
    // The server ending the stream on purpose is treated like a drop: a connection whose requests
    // still work would otherwise hear of no change again.
    if (Date.now() - this.openedAt >= STEADY_MS) this.reopens = 0;
    this.reopenLater(reason);
  }

  private reopenLater(reason: string): void {
    if (this.stopped) return;
    const delay = REOPEN_DELAYS_MS[this.reopens];
    if (delay === undefined) return this.deps.lost(new Error(`the subscriptions/listen stream ended (${reason}) and could not be reopened`));
    this.reopens += 1;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.replace().then(
        () => this.deps.refresh([...this.covered]),
        (error: unknown) => this.reopenLater(error instanceof Error ? error.message : String(error)),
      );
    }, delay);
    this.timer.unref();
  }
}
