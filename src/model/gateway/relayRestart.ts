import type { ListKind } from './gatewayView.js';

/**
 * `serve --stdio --restart-on-change` (decisions 226, 227): what the relay reads of the
 * messages it passes on, to end the client's session once a list the client has read is out of
 * date, the changes have settled and none of the client's requests is unanswered. Pure: the
 * relay feeds it every message and asks when to end.
 *
 *   client  ── tools/list ─────────────────────▶ tools listed (and not stale)
 *   gateway ── notifications/tools/list_changed ▶ tools stale, if listed (a kind never listed is not)
 *   client  ── tools/list again ───────────────▶ not stale: it refreshes by itself, no restart
 *   stale · quiet for quietMs since the last change · no request unanswered ──▶ end the session
 */

export interface RelayWatch {
  /** The lists the client has asked for in this session. */
  readonly listed: ReadonlySet<ListKind>;
  /** Listed lists the gateway said changed since the client last asked for them. */
  readonly stale: ReadonlySet<ListKind>;
  /** When the latest change of a listed list came (ms). */
  readonly changedAt: number | undefined;
  /** The client's requests not answered yet, oldest first (their ids as JSON: `1` and `"1"` differ). */
  readonly inFlight: readonly string[];
}

export const NEW_RELAY_WATCH: RelayWatch = { listed: new Set(), stale: new Set(), changedAt: undefined, inFlight: [] };

const LISTS: ReadonlyMap<string, ListKind> = new Map([
  ['tools/list', 'tools'],
  ['prompts/list', 'prompts'],
  ['resources/list', 'resources'],
  ['resources/templates/list', 'resources'],
]);

const CHANGES: ReadonlyMap<string, ListKind> = new Map([
  ['notifications/tools/list_changed', 'tools'],
  ['notifications/prompts/list_changed', 'prompts'],
  ['notifications/resources/list_changed', 'resources'],
]);

/** A message (or batch) the client sent the gateway; anything that is not JSON-RPC changes nothing. */
export function clientSent(watch: RelayWatch, message: unknown): RelayWatch {
  if (Array.isArray(message)) return message.reduce<RelayWatch>(clientSent, watch);
  if (!isObject(message) || typeof message.method !== 'string') return watch;
  const id = idOf(message.id);
  if (id === undefined) {
    // A cancelled request is never answered.
    if (message.method !== 'notifications/cancelled' || !isObject(message.params)) return watch;
    return withoutRequest(watch, idOf(message.params.requestId));
  }
  const inFlight = [...watch.inFlight, id];
  const kind = LISTS.get(message.method);
  if (kind === undefined) return { ...watch, inFlight };
  return { ...watch, inFlight, listed: withKind(watch.listed, kind), stale: withoutKind(watch.stale, kind) };
}

/**
 * A message (or batch) the gateway sent the client. `undefined` is a line the relay could not
 * read (over its size cap, or not JSON): the gateway's long lines are answers (a big
 * tools/list, a resource), so it counts as the answer to the oldest request in flight — one
 * answer per line keeps the count right, which is all the restart waits on.
 */
export function gatewaySent(watch: RelayWatch, message: unknown, now: number): RelayWatch {
  if (message === undefined) return watch.inFlight.length === 0 ? watch : { ...watch, inFlight: watch.inFlight.slice(1) };
  if (Array.isArray(message)) return message.reduce<RelayWatch>((w, m) => gatewaySent(w, m, now), watch);
  if (!isObject(message)) return watch;
  if (typeof message.method !== 'string') return 'result' in message || 'error' in message ? withoutRequest(watch, idOf(message.id)) : watch;
  // The gateway's own requests (a form, sampling) are answered by the client; they wait on nothing here.
  if (message.id !== undefined) return watch;
  const kind = CHANGES.get(message.method);
  if (kind === undefined || !watch.listed.has(kind)) return watch;
  return { ...watch, stale: withKind(watch.stale, kind), changedAt: now };
}

/**
 * In how many ms the session should end (0: now), or undefined while nothing is stale or a
 * request is unanswered (asked again after the next message). Changes settle for `quietMs`
 * after the latest one: one settings edit that starts several servers ends the session once.
 */
export function restartIn(watch: RelayWatch, now: number, quietMs: number): number | undefined {
  if (watch.stale.size === 0 || watch.inFlight.length > 0 || watch.changedAt === undefined) return undefined;
  return Math.max(0, watch.changedAt + quietMs - now);
}

function withoutRequest(watch: RelayWatch, id: string | undefined): RelayWatch {
  const at = id === undefined ? -1 : watch.inFlight.indexOf(id);
  return at === -1 ? watch : { ...watch, inFlight: [...watch.inFlight.slice(0, at), ...watch.inFlight.slice(at + 1)] };
}

function idOf(id: unknown): string | undefined {
  return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? JSON.stringify(id) : undefined;
}

function withKind(kinds: ReadonlySet<ListKind>, kind: ListKind): ReadonlySet<ListKind> {
  return kinds.has(kind) ? kinds : new Set([...kinds, kind]);
}

function withoutKind(kinds: ReadonlySet<ListKind>, kind: ListKind): ReadonlySet<ListKind> {
  if (!kinds.has(kind)) return kinds;
  const left = new Set(kinds);
  left.delete(kind);
  return left;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
