import equal from 'fast-deep-equal';
import { BehaviorSubject, Observable, Subject, Subscription, type SchedulerLike } from 'rxjs';
import type { LiveEntry } from '../../model/reconcile/plan.js';
import type { HistoryEntry, QualifiedTool, ServerStatus } from '../../model/report/status.js';
import type { Scope } from '../../model/types.js';
import { serverKind } from '../../model/serverKeys.js';
import { distinctFlatList } from '../../operators/distinctFlatList.js';
import { EMPTY_LISTS, LIST_KEYS, STDERR_LINES, type Entries, type Entry } from './liveEntries.js';

/** Dependencies of {@link StatusBoard}. */
export interface StatusBoardDeps {
  scheduler: SchedulerLike;
  /** How many history lines each server keeps. */
  historyLimit: number;
}

/** What of the board is read outside the live servers: the statuses and their streams. */
export type StatusView = Pick<StatusBoard, 'servers$' | 'changes$' | 'tools$' | 'list' | 'status' | 'stderrTail'>;

/**
 * Every server's status, and when it is published. The board keeps the entries (decision 340):
 * it is the only code that adds one, so its sorted name list stays in step with them.
 *
 * Status changes are pushed on `changes$` synchronously, which keeps `server` events ahead of their
 * pass's `reconcile` event; `servers$` publishes them together (decision 171): once per pass
 * ({@link flush}), and changes outside a pass on the scheduler, so a burst costs one list of all N
 * statuses, not one per change.
 */
export class StatusBoard {
  private readonly map = new Map<string, Entry>();
  /** Every known server's entry (the other parts read and change entries, never the map). */
  readonly entries: Entries = this.map;
  /** Every known name: the order of `servers$` once sorted ({@link namesSorted}). */
  private readonly names: string[] = [];
  /** Whether {@link names} is sorted: a new name is appended, and sorted in when the list is next built. */
  private namesSorted = true;
  /** Every status in name order, as {@link list} last built it. */
  private current: readonly ServerStatus[] = [];
  /** A status changed (or a name came) since {@link current} was built. */
  private stale = false;
  /** A status changed since `servers$` last published. */
  private unpublished = false;
  /** A publication of changes is scheduled ({@link publish}), and its action to cancel. */
  private publishScheduled = false;
  private publication?: Subscription;
  /** When `servers$` last published (scheduler time). */
  private publishedAt = -Infinity;
  /** Holds of {@link hold} not released yet: while any is, changes wait for the holder's {@link flush}. */
  private holds = 0;
  private readonly statusSubject = new BehaviorSubject<readonly ServerStatus[]>([]);
  private readonly changesSubject = new Subject<ServerStatus>();
  private readonly scheduler: SchedulerLike;
  private readonly historyLimit: number;

  /** Every known server, sorted by name; replays the latest list. */
  readonly servers$: Observable<readonly ServerStatus[]> = this.statusSubject.asObservable();
  /** One value per status change of one server. */
  readonly changes$: Observable<ServerStatus> = this.changesSubject.asObservable();
  /** Every tool of every connected server, qualified and filtered; only when that list changed. */
  readonly tools$: Observable<readonly QualifiedTool[]> = this.servers$.pipe(distinctFlatList((s) => s.tools));

  constructor(deps: StatusBoardDeps) {
    this.scheduler = deps.scheduler;
    this.historyLimit = deps.historyLimit;
  }

  /** What the planner needs to know of each server. */
  snapshot(names?: ReadonlySet<string>): Map<string, LiveEntry> {
    const live = new Map<string, LiveEntry>();
    const wanted = names === undefined ? this.map : [...names].flatMap((n) => (this.map.has(n) ? [[n, this.map.get(n)!] as const] : []));
    for (const [name, e] of wanted) {
      live.set(name, {
        // A replacement under way counts as the config wanted now: a pass that wants it too keeps it.
        fingerprint: e.forceReconnect ? undefined : (e.replacing?.server ?? e.server)?.fingerprint,
        view: (e.replacing?.server ?? e.server)?.view,
        state: e.status.state,
        reason: e.status.reason,
        detail: e.status.detail,
        ...(e.queued === true ? { queued: true } : {}),
      });
    }
    return live;
  }

  /** The last stderr lines of a server's current or last process (secrets masked). */
  stderrTail(name: string): readonly string[] {
    const e = this.map.get(name);
    if (!e) return [];
    return [...e.pastStderr, ...(e.conn?.stderrTail() ?? [])].slice(-STDERR_LINES);
  }

  status(name: string): ServerStatus | undefined {
    return this.map.get(name)?.status;
  }

  /** Every known server, sorted by name, as of now (also what `servers$` has yet to publish). */
  list(): readonly ServerStatus[] {
    if (!this.stale) return this.current;
    if (!this.namesSorted) {
      this.names.sort();
      this.namesSorted = true;
    }
    this.current = this.names.map((n) => this.map.get(n)!.status);
    this.stale = false;
    return this.current;
  }

  /**
   * Holds back publications of changes until released (a pass applying its blocks over several
   * event-loop tasks, decision 174), so the pass publishes once; the release schedules what waits.
   */
  hold(): Subscription {
    this.holds += 1;
    return new Subscription(() => {
      this.holds -= 1;
      if (this.holds === 0 && this.unpublished) this.schedulePublication();
    });
  }

  /**
   * Publishes on `servers$` what changed since it last did, now: the end of a pass's decisions
   * (its blocks applied) is one publication, whatever the number of servers it changed.
   */
  flush(): void {
    this.publishScheduled = false;
    this.publication?.unsubscribe();
    this.publication = undefined;
    if (!this.unpublished) return;
    this.unpublished = false;
    this.publishedAt = this.scheduler.now();
    this.statusSubject.next(this.list());
  }

  /** The entry of `name`, made (`disconnected`, nothing listed) when it is new. */
  ensure(name: string, scope: Scope, source: string): Entry {
    let e = this.map.get(name);
    if (!e) {
      e = {
        status: { name, ...(serverKind(name) === 'lsp' ? { kind: 'lsp' as const } : {}), scope, source, state: 'disconnected', ...EMPTY_LISTS, history: [] },
        failures: 0,
        pastStderr: [],
      };
      this.map.set(name, e);
      // Appended, sorted once when the list is next built: an insert in place costs O(servers) each.
      if (this.namesSorted && this.names.length > 0 && this.names[this.names.length - 1]! > name) this.namesSorted = false;
      this.names.push(name);
      this.stale = true;
    }
    return e;
  }

  /** `note`: a line for the history that no state change brings, in the same update. */
  update(name: string, patch: Partial<ServerStatus>, note?: string): void {
    const e = this.map.get(name);
    if (!e) return;
    const before = e.status;
    const next = patched(before, patch);
    // An equal list keeps its reference: `tools$` and `prompts$` compare lists by reference.
    for (const key of LIST_KEYS) {
      if (next[key] !== before[key] && equal(next[key], before[key])) Object.assign(next, { [key]: before[key] });
    }
    if (next.state !== before.state || next.error !== before.error) {
      const line: HistoryEntry = { ts: this.scheduler.now(), state: next.state };
      if (next.error !== undefined) line.message = next.error;
      next.history = [...before.history, line].slice(-this.historyLimit);
    }
    if (note !== undefined) next.history = [...next.history, { ts: this.scheduler.now(), state: next.state, message: note }].slice(-this.historyLimit);
    if (equal(next, before)) return;
    this.publish(e, next);
  }

  /** A line in the server's history that no state change brings: what happened, in words. */
  note(e: Entry, message: string): void {
    const line: HistoryEntry = { ts: this.scheduler.now(), state: e.status.state, message };
    this.publish(e, { ...e.status, history: [...e.status.history, line].slice(-this.historyLimit) });
  }

  /** The last publication, and the end of `changes$` (the servers are gone). */
  end(): void {
    this.flush();
    this.changesSubject.complete();
  }

  /**
   * Makes `next` the entry's status, tells `changes$` at once and `servers$` soon: on the
   * scheduler, with this change's frame (a virtual-time test sees no delay), spaced by
   * {@link PUBLISH_SPACING_MS_PER_SERVER} from the last publication — each costs O(servers) in
   * every subscriber, so a long burst of single changes (connects settling one by one) takes a
   * bounded share of the CPU instead of O(N²) (decision 171).
   */
  private publish(e: Entry, next: ServerStatus): void {
    e.status = next;
    this.stale = true;
    this.unpublished = true;
    this.changesSubject.next(next);
    this.schedulePublication();
  }

  private schedulePublication(): void {
    if (this.publishScheduled || this.holds > 0) return;
    this.publishScheduled = true;
    const spacing = this.map.size * PUBLISH_SPACING_MS_PER_SERVER;
    const wait = Math.max(0, this.publishedAt + spacing - this.scheduler.now());
    const action = this.scheduler.schedule(() => this.flush(), wait);
    // Kept to be cancelled by an earlier flush, unless a synchronous scheduler ran it already.
    if (this.publishScheduled) this.publication = action;
  }
}

/**
 * `{ ...before, ...patch }` without its undefined keys, in the same key order. Copied key by key:
 * two spreads and a `delete` per undefined key cost 30–80 µs per update in V8 (a second spread
 * takes the slow path, a `delete` turns the object into a dictionary) — seconds for the N
 * updates of one pass (decision 171); this costs about one.
 */
function patched(before: ServerStatus, patch: Partial<ServerStatus>): ServerStatus {
  const from = before as unknown as Record<string, unknown>;
  const changes = patch as Record<string, unknown>;
  const next: Record<string, unknown> = {};
  for (const key of Object.keys(from)) {
    const value = Object.hasOwn(changes, key) ? changes[key] : from[key];
    if (value !== undefined) next[key] = value;
  }
  for (const key of Object.keys(changes)) if (!Object.hasOwn(from, key) && changes[key] !== undefined) next[key] = changes[key];
  return next as unknown as ServerStatus;
}

/** 1 µs per server between two publications of changes made outside a pass: 20 ms at 20,000 servers, nothing at a few. */
const PUBLISH_SPACING_MS_PER_SERVER = 0.001;
