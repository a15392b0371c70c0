import { BehaviorSubject, type Observable } from 'rxjs';
import type { ServerIdentity } from '../../model/connection.js';
import type { WantedServer } from '../../model/reconcile/plan.js';
import {
  changedTools,
  diffSurfaces,
  surfaceApprovalHash,
  surfaceHash,
  surfaceOf,
  type ServerSurface,
  type SurfaceChange,
} from '../../model/tools/surface.js';
import { GATED_SCOPES, type ServerLists } from '../../model/types.js';
import type { SurfaceStore } from '../files/surfaceStore.js';

/** A changed surface waiting for the user (decision 197): what changed, and the hash that approves it. */
export interface SurfaceApproval {
  name: string;
  fingerprint: string;
  /** Binds the entry (its approval hash) and the new surface. */
  hash: string;
  changes: readonly SurfaceChange[];
  surface: ServerSurface;
}

export interface SurfacePinsDeps {
  store: SurfaceStore;
  /** The approval hash of the server's entry as assembled now (undefined when it is gone). */
  configHash: (name: string) => string | undefined;
  /** `mcp.pinTools: "strict"`: every server's changed tools are withheld, not only a gated one's. */
  strict: () => boolean;
  /** A surface other than the recorded one: for the `surface-changed` event. */
  onChanged: (server: string, changes: readonly SurfaceChange[], withheld: readonly string[]) => void;
  /** Epoch ms. */
  now: () => number;
}

/**
 * The surface record's keeper (decisions 195, 197): every surface a server shows — at connect,
 * on `list_changed`, from a lazy server's record — is compared with the record of its
 * fingerprint and recorded. A difference is reported; for a gated server (or with
 * `mcp.pinTools: "strict"`) the changed and added tools are withheld against the surface the
 * user approved (the pin) until the user approves the new one, which then becomes the pin. A
 * server's first surface under a fingerprint is its pin: the user approved that entry just now.
 */
export class SurfacePins {
  private readonly waiting = new Map<string, SurfaceApproval>();
  private readonly pendingSubject = new BehaviorSubject<readonly SurfaceApproval[]>([]);
  /** The surface hash last reported per fingerprint: a pinned difference is reported once, not on every refresh. */
  private readonly reported = new Map<string, string>();
  /** Approval hashes the user rejected this session: not asked again, their tools stay withheld. */
  private readonly rejected = new Set<string>();

  /** The changed surfaces waiting for a decision, by name; replays the current list. */
  readonly pending$: Observable<readonly SurfaceApproval[]> = this.pendingSubject.asObservable();

  constructor(private readonly deps: SurfacePinsDeps) {}

  /** Records what `server` shows now and returns the own names of the tools to withhold. */
  observe(server: WantedServer, lists: ServerLists, identity: ServerIdentity | undefined): ReadonlySet<string> {
    const { store } = this.deps;
    const surface = surfaceOf(lists, identity);
    const hash = surfaceHash(surface);
    const record = store.get(server.fingerprint);
    const pinning = GATED_SCOPES.has(server.scope) || this.deps.strict();
    const pin = pinning ? (record?.pinned ?? (record === undefined ? undefined : { hash: record.hash, surface: record.surface, approvedAt: record.seenAt })) : undefined;
    const baseline = pinning ? pin : record;
    const now = this.deps.now();
    if (record?.hash !== hash || (pinning && record.pinned === undefined) || (!pinning && record.pinned !== undefined)) {
      store.put({
        name: server.name,
        fingerprint: server.fingerprint,
        hash,
        surface,
        seenAt: now,
        ...(pinning ? { pinned: pin ?? { hash, surface, approvedAt: now } } : {}),
      });
    }
    const changes = baseline === undefined || baseline.hash === hash ? [] : diffSurfaces(baseline.surface, surface);
    const withheld = pinning && baseline !== undefined && changes.length > 0 ? changedTools(baseline.surface, surface) : new Set<string>();
    if (changes.length > 0 && this.reported.get(server.fingerprint) !== hash) {
      this.reported.set(server.fingerprint, hash);
      this.deps.onChanged(server.name, changes, [...withheld]);
    }
    if (changes.length === 0) this.reported.delete(server.fingerprint);
    this.setWaiting(server, surface, changes, withheld);
    return withheld;
  }

  /** The changed surface `name` waits with, if any. */
  waitingFor(name: string): SurfaceApproval | undefined {
    return this.waiting.get(name);
  }

  /**
   * Approves the surface that was shown with `hash`: it becomes the pin. False when `name`'s
   * surface waiting now has another hash (it changed again since it was shown).
   */
  approve(name: string, hash: string): boolean {
    const waiting = this.waiting.get(name);
    if (waiting === undefined || waiting.hash !== hash) return false;
    const record = this.deps.store.get(waiting.fingerprint);
    const surfaceHashNow = surfaceHash(waiting.surface);
    this.deps.store.put({
      name,
      fingerprint: waiting.fingerprint,
      hash: record?.hash ?? surfaceHashNow,
      surface: record?.surface ?? waiting.surface,
      seenAt: this.deps.now(),
      pinned: { hash: surfaceHashNow, surface: waiting.surface, approvedAt: this.deps.now() },
    });
    this.drop(name);
    return true;
  }

  /** Rejects the surface shown with `hash`: not asked again this session; its changed tools stay withheld. */
  reject(name: string, hash: string): boolean {
    const waiting = this.waiting.get(name);
    if (waiting === undefined || waiting.hash !== hash) return false;
    this.rejected.add(hash);
    this.drop(name);
    return true;
  }

  /** `name` no longer shows a surface (disconnected, blocked, removed): nothing of it waits. */
  forget(name: string): void {
    this.drop(name);
  }

  private setWaiting(server: WantedServer, surface: ServerSurface, changes: readonly SurfaceChange[], withheld: ReadonlySet<string>): void {
    const configHash = withheld.size === 0 ? undefined : this.deps.configHash(server.name);
    if (configHash === undefined) return this.drop(server.name);
    const hash = surfaceApprovalHash(configHash, surface);
    if (this.rejected.has(hash)) return this.drop(server.name);
    if (this.waiting.get(server.name)?.hash === hash) return;
    this.waiting.set(server.name, { name: server.name, fingerprint: server.fingerprint, hash, changes, surface });
    this.publish();
  }

  private drop(name: string): void {
    if (this.waiting.delete(name)) this.publish();
  }

  private publish(): void {
    this.pendingSubject.next([...this.waiting.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)));
  }

  dispose(): void {
    this.pendingSubject.complete();
  }
}
