import { BehaviorSubject, type Observable } from 'rxjs';
import type { ServerIdentity } from '../../model/connection.js';
import type { WantedServer } from '../../model/reconcile/plan.js';
import { diffSurfaces, surfaceApprovalHash, surfaceHash, surfaceOf } from '../../model/tools/surface.js';
import { type ServerSurface, type SurfaceChange } from '../../model/tools/surfaceTypes.js';
import {
  pinChanges,
  pinDifference,
  pinDigest,
  pinOf,
  withholdAll,
  withholdsAnything,
  type PinDifference,
  type SurfacePin,
} from '../../model/tools/surfacePin.js';
import { sameVerdict } from '../../model/tools/eraVerdict.js';
import { GATED_SCOPES, type ServerLists } from '../../model/types.js';
import type { SurfaceRecord, SurfaceStore } from '../stores/surfaceStore.js';
import type { PinOutcome, PinRecord, PinStore } from '../stores/pinStore.js';

/** A changed surface waiting for the user (decision 197): what changed, and the hash that approves it. */
export interface SurfaceApproval {
  name: string;
  fingerprint: string;
  /** Binds the entry (its approval hash) and the pin of the new surface. */
  hash: string;
  changes: readonly SurfaceChange[];
  surface: ServerSurface;
}

/** What an approval says of the server's pin (decisions 309, 315): the digest of the pin recorded for it. */
export interface ApprovalMarks {
  /** The digest of the pin the approval of `name` under `configHash` recorded; undefined when its surface was never pinned. */
  approvedPin(name: string, configHash: string): string | undefined;
  /** Records in that approval the digest of the pin that holds now (a persisted approval in its file, a session's in memory). */
  markPinned(name: string, configHash: string, pin: string): void;
}

export interface SurfacePinsDeps {
  /** The surface records: a cache (what a lazy server is listed from, the approved text a diff shows). */
  store: SurfaceStore;
  /** The pins (decision 307). */
  pins: PinStore;
  /** The approval hash of the server's entry as assembled now (undefined when it is gone). */
  configHash: (name: string) => string | undefined;
  /** `mcp.pinTools: "strict"`: every server's changed tools are withheld, not only a gated one's. */
  strict: () => boolean;
  /** A surface other than the recorded one: for the `surface-changed` event. */
  onChanged: (server: string, changes: readonly SurfaceChange[], withheld: readonly string[]) => void;
  /** A pin settled after the server's surface was last observed: observe it again. */
  reobserve?: (name: string) => void;
  /** The approvals' pin markers (none: every missing pin is a first sight). */
  marks?: ApprovalMarks;
  /** Epoch ms. */
  now: () => number;
}

/**
 * What is withheld of a surface; nothing for a server that is not pinned. `reason`: why everything
 * is, when it is not a change the user can approve (the pin is being written, or could not be).
 */
export interface SurfaceWithheld extends PinDifference {
  reason?: string;
}

const NOTHING: SurfaceWithheld = { tools: new Set(), prompts: new Set(), instructions: false };

/** How old a record's `seenAt` may grow while its server shows the same surface, before it is written again. */
const SEEN_AGAIN_MS = 24 * 60 * 60 * 1000;

/** The change a server is asked for with when it has no pin and shows another surface than its approval recorded (decisions 309, 315). */
export const MISSING_PIN = 'the surface differs from the one you approved, whose pin is not at hand: every tool, prompt and the instructions are withheld until you approve it again';

/** A fingerprint without a pin in the pin store: its pin is being settled, is missing after approval, or could not be written. */
type Unpinned = 'settling' | 'missing' | { error: string };

/**
 * The keeper of surfaces and pins (decisions 195, 197, 306–310): every surface a server shows — at
 * connect, on `list_changed`, from a lazy server's record — is recorded in the surface cache and,
 * for a gated server (or with `mcp.pinTools: "strict"`), compared with its pin: the changed and
 * added tools and prompts, and changed instructions, are withheld until the user approves the new
 * surface, which then becomes the pin. A server's first surface under a fingerprint is pinned
 * before it is used — unless another process pinned one first (that one holds), or its approval
 * recorded a pin already: then only a surface with that very pin is pinned (a rotated secret, a
 * lost pin file), the approved pin kept under another fingerprint is taken if there is one, and
 * else everything is withheld and the user asked.
 * A pin that cannot be written withholds everything (fail closed).
 */
export class SurfacePins {
  private readonly waiting = new Map<string, SurfaceApproval>();
  private readonly pendingSubject = new BehaviorSubject<readonly SurfaceApproval[]>([]);
  /** The surface hash last reported per fingerprint: a pinned difference is reported once, not on every refresh. */
  private readonly reported = new Map<string, string>();
  /** Approval hashes the user rejected this session: not asked again, their items stay withheld. */
  private readonly rejected = new Set<string>();
  private readonly unpinned = new Map<string, Unpinned>();
  /** Servers from gated scopes, by name: only their approvals carry a pin marker. */
  private readonly gated = new Set<string>();
  /** Who waits for a fingerprint's pin to settle ({@link prepare}). */
  private readonly settled = new Map<string, { promise: Promise<void>; resolve: () => void }>();

  /** The changed surfaces waiting for a decision, by name; replays the current list. */
  readonly pending$: Observable<readonly SurfaceApproval[]> = this.pendingSubject.asObservable();

  constructor(private readonly deps: SurfacePinsDeps) {}

  private pinning(server: WantedServer): boolean {
    return GATED_SCOPES.has(server.scope) || this.deps.strict();
  }

  /**
   * Settles the pin of a server about to be used: resolves once it is known (pinned, found,
   * missing, or not writable), or undefined when there is nothing to wait for. Never rejects.
   */
  prepare(server: WantedServer, lists: ServerLists, identity: ServerIdentity | undefined): Promise<void> | undefined {
    if (!this.pinning(server)) return undefined;
    // A connect tries a pin that could not be written again (`/reconnect` after freeing the disk).
    if (typeof this.unpinned.get(server.fingerprint) === 'object') this.unpinned.delete(server.fingerprint);
    if (this.deps.pins.get(server.fingerprint) !== undefined) return undefined;
    this.pinFor(server, surfaceOf(lists, identity));
    return this.unpinned.get(server.fingerprint) === 'settling' ? this.settled.get(server.fingerprint)?.promise : undefined;
  }

  /** Records what `server` shows now and returns what to withhold of it. */
  observe(server: WantedServer, lists: ServerLists, identity: ServerIdentity | undefined): SurfaceWithheld {
    const surface = surfaceOf(lists, identity);
    const hash = surfaceHash(surface);
    const record = this.deps.store.get(server.fingerprint);
    const pinning = this.pinning(server);
    // The era the connection found (decision 380), else the one recorded: a new verdict is written.
    const era = identity?.protocol?.verdict ?? record?.era;
    // A surface seen again a day later is seen anew: the cache drops the least recently seen first.
    if (record?.hash !== hash || this.deps.now() - record.seenAt > SEEN_AGAIN_MS || !sameVerdict(era, record.era)) {
      // The approved text stays beside the record, whoever shows this fingerprint now.
      const kept = { ...(record?.pinned !== undefined ? { pinned: record.pinned } : {}), ...(era !== undefined ? { era } : {}) };
      this.deps.store.put({ name: server.name, fingerprint: server.fingerprint, hash, surface, seenAt: this.deps.now(), ...kept });
    }
    if (!pinning) {
      // Reported against the surface seen last, never withheld.
      const changes = record === undefined || record.hash === hash ? [] : diffSurfaces(record.surface, surface);
      this.report(server, hash, changes, NOTHING);
      this.drop(server.name);
      return NOTHING;
    }
    const held = this.pinFor(server, surface);
    if (held === undefined) return this.withoutPin(server, surface, hash);
    // The pin that holds is the one the approval records (its marker is written where it lacks it).
    this.mark(server.name, held.pin);
    const withheld = pinDifference(held.pin, surface);
    const changes = pinDigest(held.pin) === pinDigest(pinOf(surface)) ? [] : this.changesFrom(held, record, surface, withheld);
    this.report(server, hash, changes, withheld);
    this.setWaiting(server, surface, changes, withheld);
    return withheld;
  }

  /** The changed surface `name` waits with, if any. */
  waitingFor(name: string): SurfaceApproval | undefined {
    return this.waiting.get(name);
  }

  /**
   * Approves the surface that was shown with `hash`: its pin replaces the old one. False when
   * `name`'s surface waiting now has another hash (it changed again since it was shown).
   */
  approve(name: string, hash: string): boolean {
    const waiting = this.waiting.get(name);
    if (waiting === undefined || waiting.hash !== hash) return false;
    const { fingerprint, surface } = waiting;
    const now = this.deps.now();
    this.unpinned.delete(fingerprint);
    this.deps.pins.replace({ name, fingerprint, pin: pinOf(surface), pinnedAt: now }, (outcome) => {
      if ('error' in outcome) this.failed(fingerprint, name, outcome.error);
      else if ('pin' in outcome) this.mark(name, outcome.pin.pin);
    });
    this.keepApprovedText(name, fingerprint, surface);
    this.drop(name);
    return true;
  }

  /** Rejects the surface shown with `hash`: not asked again this session; its changed items stay withheld. */
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

  dispose(): void {
    this.pendingSubject.complete();
    for (const { resolve } of this.settled.values()) resolve();
  }

  /**
   * The pin of `server`, starting to settle it when there is none yet: the old pin kept in the
   * surface cache (the file of earlier versions, decision 310), else this surface as a first sight
   * — when its approval recorded a pin, only if this surface has that very pin, else the recorded
   * pin where another fingerprint still keeps it (decision 315). The pin store reads its file again
   * under the lock and keeps what another process pinned meanwhile (decision 308).
   */
  private pinFor(server: WantedServer, surface: ServerSurface): PinRecord | undefined {
    const { fingerprint, name } = server;
    if (GATED_SCOPES.has(server.scope)) this.gated.add(name);
    else this.gated.delete(name);
    // Settling, missing, or not written (an approval's pin too): no pin to compare with.
    if (this.unpinned.has(fingerprint)) return undefined;
    const held = this.deps.pins.get(fingerprint);
    if (held !== undefined) return held;
    this.unpinned.set(fingerprint, 'settling');
    let resolve!: () => void;
    const promise = new Promise<void>((done) => (resolve = done));
    this.settled.set(fingerprint, { promise, resolve });
    const old = this.deps.store.get(fingerprint)?.pinned;
    const seen = pinOf(surface);
    const candidate = old !== undefined ? pinOf(old.surface) : this.firstPin(name, seen);
    const record = candidate === undefined ? undefined : { name, fingerprint, pin: candidate, pinnedAt: this.deps.now() };
    let synchronous = true;
    this.deps.pins.pinFirst(fingerprint, record, (outcome: PinOutcome) => {
      if ('pin' in outcome) {
        this.unpinned.delete(fingerprint);
        if (outcome.pin === record && candidate === seen) this.keepApprovedText(name, fingerprint, surface);
        this.mark(name, outcome.pin.pin);
      } else if ('missing' in outcome) {
        this.unpinned.set(fingerprint, 'missing');
      } else {
        this.unpinned.set(fingerprint, { error: outcome.error });
      }
      this.settled.get(fingerprint)?.resolve();
      this.settled.delete(fingerprint);
      if (!synchronous) this.deps.reobserve?.(name);
    });
    synchronous = false;
    return this.deps.pins.get(fingerprint);
  }

  /**
   * What a first sight under a fingerprint pins (decision 315): the pin of the surface seen, unless
   * the server's approval recorded another — then the recorded one where the pin store still keeps
   * it under another fingerprint (the surface is compared with it as with any pin), else nothing
   * (the pin is missing: everything is withheld and the user asked).
   */
  private firstPin(name: string, seen: SurfacePin): SurfacePin | undefined {
    const configHash = this.deps.configHash(name);
    const approved = configHash !== undefined && this.gated.has(name) ? this.deps.marks?.approvedPin(name, configHash) : undefined;
    if (approved === undefined || pinDigest(seen) === approved) return seen;
    return this.deps.pins.withDigest(approved)?.pin;
  }

  /** A pinned server without a pin: everything withheld; a missing pin is asked for again. */
  private withoutPin(server: WantedServer, surface: ServerSurface, hash: string): SurfaceWithheld {
    const withheld = withholdAll(surface);
    const state = this.unpinned.get(server.fingerprint);
    if (state !== 'missing') {
      this.drop(server.name);
      const reason =
        typeof state === 'object'
          ? `could not pin its surface (${state.error}), so none of its tools, prompts or instructions are used – free the disk or remove the pins of servers no longer used from ${this.deps.pins.path}, then reconnect it`
          : 'is pinning its surface before it is used – try again in a moment';
      return { ...withheld, reason };
    }
    const changes: SurfaceChange[] = [{ kind: 'tool', name: '', change: 'description', after: MISSING_PIN }];
    this.report(server, hash, changes, withheld);
    this.setWaiting(server, surface, changes, withheld);
    return withheld;
  }

  /**
   * What changed since the pin, for a person: a diff with the approved text where the cache still
   * keeps the text of this very pin, else what the pin alone can tell (decision 307).
   */
  private changesFrom(held: PinRecord, record: SurfaceRecord | undefined, surface: ServerSurface, withheld: SurfaceWithheld): SurfaceChange[] {
    const approved = record?.pinned?.surface;
    if (approved !== undefined && pinDigest(pinOf(approved)) === pinDigest(held.pin)) {
      const changes = diffSurfaces(approved, surface);
      if (changes.length > 0 || !withholdsAnything(withheld)) return changes;
    }
    return pinChanges(held.pin, surface, withheld);
  }

  /** Keeps the approved surface's text beside the cache record, for the diff a later change shows. */
  private keepApprovedText(name: string, fingerprint: string, surface: ServerSurface): void {
    const record = this.deps.store.get(fingerprint);
    const hash = surfaceHash(surface);
    const now = this.deps.now();
    this.deps.store.put({
      name,
      fingerprint,
      hash: record?.hash ?? hash,
      surface: record?.surface ?? surface,
      seenAt: now,
      pinned: { hash, surface, approvedAt: now },
      ...(record?.era === undefined ? {} : { era: record.era }),
    });
  }

  /** Records the digest of the pin that holds for a gated server in its approval (decisions 309, 315). */
  private mark(name: string, pin: SurfacePin): void {
    const marks = this.deps.marks;
    const configHash = this.deps.configHash(name);
    if (!this.gated.has(name) || marks === undefined || configHash === undefined) return;
    // Every time a pin holds, not only when it is new to this session: an approval given again
    // (after its file was lost or corrupt) is a record on disk without the marker until it is written.
    marks.markPinned(name, configHash, pinDigest(pin));
  }

  private failed(fingerprint: string, name: string, error: string): void {
    this.unpinned.set(fingerprint, { error });
    this.deps.reobserve?.(name);
  }

  private report(server: WantedServer, hash: string, changes: readonly SurfaceChange[], withheld: SurfaceWithheld): void {
    if (changes.length === 0) {
      this.reported.delete(server.fingerprint);
      return;
    }
    if (this.reported.get(server.fingerprint) === hash) return;
    this.reported.set(server.fingerprint, hash);
    this.deps.onChanged(server.name, changes, [...withheld.tools].sort());
  }

  private setWaiting(server: WantedServer, surface: ServerSurface, changes: readonly SurfaceChange[], withheld: SurfaceWithheld): void {
    const configHash = withholdsAnything(withheld) ? this.deps.configHash(server.name) : undefined;
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
}
