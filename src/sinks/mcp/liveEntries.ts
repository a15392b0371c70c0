import type { AsyncSubject, Observable, Subscription } from 'rxjs';
import type { Connection } from '../../model/connection.js';
import type { WantedServer } from '../../model/reconcile/plan.js';
import type { ServerStatus } from '../../model/report/status.js';
import type { ServerLists } from '../../model/types.js';
import type { SurfaceWithheld } from './surfacePins.js';

/**
 * What the parts of the live servers share (decision 340): one entry per known server, kept by
 * the status board and handed to the others as a read-only map.
 */
export interface Entry {
  status: ServerStatus;
  /** What the current (or last attempted) connection was made for. */
  server?: WantedServer;
  conn?: Connection;
  /** stderr of earlier processes of this server (they died or were replaced), newest last. */
  pastStderr: readonly string[];
  lists?: ServerLists;
  /** Tools, prompts (own names) and instructions of `lists` withheld until their new definition is approved (decisions 197, 311). */
  withheld?: SurfaceWithheld;
  /** The connect attempt and, once connected, the subscription to its `lists$`. */
  session?: Subscription;
  /** A pending supervised restart. */
  retry?: Subscription;
  failures: number;
  connectedAt?: number;
  /** Set by `/reconnect NAME`: the next pass reconnects it whatever its fingerprint. */
  forceReconnect?: boolean;
  /** Completes when the last process closed here is gone; the next attempt waits for it. */
  closing?: Observable<never>;
  /** Completes when the attempt `connect` started has settled (or was ended): what passes wait for. */
  settling?: AsyncSubject<never>;
  /** A new config's connect while the old connection still serves (`ServerLifecycle.replace`), and what it is for. */
  replacing?: { server: WantedServer; attempt: Subscription };
  /** Known from a pass's plan, its connect not begun (`ServerLifecycle.expect`): it holds nothing yet. */
  queued?: boolean;
}

/** Every known server's entry by name: only the status board adds one (decision 340). */
export type Entries = ReadonlyMap<string, Entry>;

/** How many stderr lines a server keeps. */
export const STDERR_LINES = 200;

export const EMPTY_LISTS: Pick<ServerStatus, 'tools' | 'prompts' | 'resources'> = {
  tools: [],
  prompts: [],
  resources: [],
};

export type ListKey = 'tools' | 'prompts' | 'resources' | 'resourceTemplates';
export const LIST_KEYS: readonly ListKey[] = ['tools', 'prompts', 'resources', 'resourceTemplates'];

/** What a server that is not connected shows: no lists, and nothing of what it said in `initialize`. */
export const NOT_CONNECTED: Pick<ServerStatus, ListKey | 'serverInfo' | 'protocolVersion' | 'era' | 'instructions' | 'capabilities' | 'idle' | 'withheld'> = {
  ...EMPTY_LISTS,
  resourceTemplates: undefined,
  serverInfo: undefined,
  protocolVersion: undefined,
  era: undefined,
  instructions: undefined,
  capabilities: undefined,
  idle: undefined,
  withheld: undefined,
};

/** The entry's `trust` view field (false for a server not wanted now). */
export function trustOf(server: WantedServer | undefined): boolean {
  return server?.view.trust === true;
}

/** Requests in flight per connection, so a replaced one is closed only when its own have ended. */
export class InFlight {
  private readonly counts = new Map<Connection, number>();
  private readonly idle = new Map<Connection, () => void>();

  /** Counts one request on `conn`; call the returned function when it has ended. */
  begin(conn: Connection): () => void {
    this.counts.set(conn, (this.counts.get(conn) ?? 0) + 1);
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      const left = (this.counts.get(conn) ?? 1) - 1;
      if (left > 0) return void this.counts.set(conn, left);
      this.counts.delete(conn);
      const onIdle = this.idle.get(conn);
      this.idle.delete(conn);
      onIdle?.();
    };
  }

  /** Runs `then` once `conn` has no request in flight: at once when it has none. */
  whenIdle(conn: Connection, then: () => void): void {
    if (!this.counts.has(conn)) return then();
    this.idle.set(conn, then);
  }
}
