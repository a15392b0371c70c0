import { describe, it } from 'vitest';
import type { ClientConnectedEvent } from '../../src/model/report/events.js';
import { clientEvents, type ListedClient } from '../../src/operators/clientEvents.js';
import { marbles } from './marbles.js';

const a: ListedClient = { id: 'socket-1', transport: 'socket' };
const aNamed: ListedClient = { ...a, clientName: 'claude-desktop', clientVersion: '1.0' };
const b: ListedClient = { id: 'http-2', transport: 'http' };
const bNamed: ListedClient = { ...b, clientName: 'cursor' };

const inputs = {
  e: [],
  a: [a],
  n: [aNamed],
  b: [aNamed, b],
  x: [aNamed, bNamed],
  y: [bNamed],
  z: [] as ListedClient[],
  u: [b], // b connected, not initialized
};

const connectedA = (ts: number, clients = 1): ClientConnectedEvent => ({
  type: 'client-connected',
  client: 'socket-1',
  transport: 'socket',
  clientName: 'claude-desktop',
  clientVersion: '1.0',
  clients,
  ts,
});

describe('clientEvents', () => {
  it(
    'completes without emitting for an empty source',
    marbles((m) => {
      m.expect(m.cold<ListedClient[]>('|').pipe(clientEvents(m.scheduler))).toBeObservable('|');
    }),
  );

  it(
    'never emits for a never source',
    marbles((m) => {
      m.expect(m.cold<ListedClient[]>('-').pipe(clientEvents(m.scheduler))).toBeObservable('-');
    }),
  );

  it(
    'passes an error on',
    marbles((m) => {
      m.expect(m.cold<ListedClient[]>('-n-#', inputs).pipe(clientEvents(m.scheduler))).toBeObservable('-A-#', { A: connectedA(1) });
    }),
  );

  it(
    'a client counts from its initialize: one event when it has said its name, one when it leaves, each with the count after it',
    marbles((m) => {
      const source = m.cold<ListedClient[]>('e-a-n-b-x-y-z|', inputs);
      m.expect(source.pipe(clientEvents(m.scheduler))).toBeObservable('----A---B-C-D|', {
        A: connectedA(4),
        B: { type: 'client-connected', client: 'http-2', transport: 'http', clientName: 'cursor', clients: 2, ts: 8 },
        C: { type: 'client-disconnected', client: 'socket-1', transport: 'socket', clientName: 'claude-desktop', clientVersion: '1.0', clients: 1, ts: 10 },
        D: { type: 'client-disconnected', client: 'http-2', transport: 'http', clientName: 'cursor', clients: 0, ts: 12 },
      });
    }),
  );

  it(
    'a connection that leaves without initializing makes no event',
    marbles((m) => {
      m.expect(m.cold<ListedClient[]>('e-u-z|', inputs).pipe(clientEvents(m.scheduler))).toBeObservable('-----|');
    }),
  );

  it(
    'a departure and an arrival in one change: the departure first, so the count never overshoots',
    marbles((m) => {
      const source = m.cold<ListedClient[]>('n-y---|', inputs);
      m.expect(source.pipe(clientEvents(m.scheduler))).toBeObservable('A-(LC)|', {
        A: connectedA(0),
        L: { type: 'client-disconnected', client: 'socket-1', transport: 'socket', clientName: 'claude-desktop', clientVersion: '1.0', clients: 0, ts: 2 },
        C: { type: 'client-connected', client: 'http-2', transport: 'http', clientName: 'cursor', clients: 1, ts: 2 },
      });
    }),
  );

  it(
    'each subscriber has its own state',
    marbles((m) => {
      const events = m.cold<ListedClient[]>('n|', inputs).pipe(clientEvents(m.scheduler));
      m.expect(events).toBeObservable('A|', { A: connectedA(0) });
      m.expect(events).toBeObservable('A|', { A: connectedA(0) });
    }),
  );
});
