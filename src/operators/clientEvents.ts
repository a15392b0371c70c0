/**
 * clientEvents — the gateway's client list as `client-connected` / `client-disconnected` events.
 *
 * ```
 * source:  --[]--[a]--[a']--[a' b']--[b']--|     a: connected; a': initialized (has its name)
 * result:  -----------A-----B--------a-----|     A, B: client-connected; a: client-disconnected
 * ```
 * A client counts from its `initialize` on (when it has said its name): a connection that never
 * initializes is no MCP client, and the events can say who came. Each event carries the count
 * after it, so a reader needs no state; in one change departures come first, so that count never
 * overshoots. The state lives in the subscription (`scan`'s seed is per subscriber).
 */
import { asyncScheduler, concatMap, map, pipe, scan, type OperatorFunction, type SchedulerLike } from 'rxjs';
import type { ClientConnectedEvent, ClientDisconnectedEvent, GatewayClientFields } from '../model/report/events.js';

/** A client as the gateway lists it (`clientName` once it has initialized). */
export interface ListedClient {
  id: string;
  transport: GatewayClientFields['transport'];
  clientName?: string;
  clientVersion?: string;
}

type ClientEvent = ClientConnectedEvent | ClientDisconnectedEvent;

interface State {
  /** The clients announced by a `client-connected`, by id. */
  announced: ReadonlyMap<string, ListedClient>;
  events: readonly ClientEvent[];
}

export function clientEvents(scheduler: SchedulerLike = asyncScheduler): OperatorFunction<readonly ListedClient[], ClientEvent> {
  return pipe(
    map((clients: readonly ListedClient[]) => ({ clients, ts: scheduler.now() })),
    scan(({ announced }: State, { clients, ts }) => changes(announced, clients, ts), { announced: new Map(), events: [] }),
    concatMap(({ events }) => events),
  );
}

function changes(before: ReadonlyMap<string, ListedClient>, clients: readonly ListedClient[], ts: number): State {
  const present = new Set(clients.map((c) => c.id));
  const announced = new Map(before);
  const events: ClientEvent[] = [];
  for (const [id, client] of before) {
    if (present.has(id)) continue;
    announced.delete(id);
    events.push({ type: 'client-disconnected', ...fields(client, announced.size), ts });
  }
  for (const client of clients) {
    if (client.clientName === undefined || announced.has(client.id)) continue;
    announced.set(client.id, client);
    events.push({ type: 'client-connected', ...fields(client, announced.size), ts });
  }
  return { announced, events };
}

function fields(c: ListedClient, clients: number): GatewayClientFields {
  return {
    client: c.id,
    transport: c.transport,
    ...(c.clientName === undefined ? {} : { clientName: c.clientName }),
    ...(c.clientVersion === undefined ? {} : { clientVersion: c.clientVersion }),
    clients,
  };
}
