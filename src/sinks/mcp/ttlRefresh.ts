import type { ListKind } from './serverLists.js';
import { MAX_TIMER_MS } from './timerLimit.js';

/** Node's timers fire at once past this many ms. */
/** A list's `ttlMs` is honoured, but never refreshed more often than this. */
export const MIN_TTL_REFRESH_MS = 1_000;

/**
 * The refresh a list's `ttlMs` asks for (decision 381): when it runs out, the list is asked for
 * again — unless the server tells its changes (`told`: a listen stream, a `listChanged`
 * capability). Never more often than the ttl (nor than {@link MIN_TTL_REFRESH_MS}); a list
 * without a ttl is never polled. Each answer's ttl schedules the next.
 *
 *   list (ttl 60 s) ----------60 s---------- refresh (ttl 60 s) ---- …
 *   list (no ttl)   (nothing)
 */
export class TtlRefresh {
  private readonly timers = new Map<ListKind, NodeJS.Timeout>();
  private stopped = false;

  constructor(
    private readonly refresh: (kind: ListKind) => void,
    private readonly told: (kind: ListKind) => boolean,
  ) {}

  /** `kind` was listed now, fresh for `ttlMs` (undefined: no hint). */
  listed(kind: ListKind, ttlMs: number | undefined): void {
    clearTimeout(this.timers.get(kind));
    this.timers.delete(kind);
    if (ttlMs === undefined || this.stopped) return;
    const timer = setTimeout(() => {
      this.timers.delete(kind);
      if (!this.told(kind)) this.refresh(kind);
    }, Math.min(Math.max(ttlMs, MIN_TTL_REFRESH_MS), MAX_TIMER_MS));
    timer.unref();
    this.timers.set(kind, timer);
  }

  stop(): void {
    this.stopped = true;
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }
}
