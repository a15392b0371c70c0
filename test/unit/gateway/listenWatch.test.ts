import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { ListenWatchingTransport } from '../../../src/hosts/gateway/listenWatch.js';

/** A transport whose inbound messages and end the test drives. */
function fakeWire(): Transport & { receive(message: unknown): void; end(): void } {
  const wire = {
    start: () => Promise.resolve(),
    send: () => Promise.resolve(),
    close: () => Promise.resolve(),
    receive(message: unknown) {
      wire.onmessage?.(message as JSONRPCMessage);
    },
    end() {
      wire.onclose?.();
    },
  } as Transport & { receive(message: unknown): void; end(): void };
  return wire;
}

const ENVELOPE = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'agent', version: '2' } };

describe('ListenWatchingTransport: what the gateway must know of a relay connection the SDK serves (decision 388)', () => {
  it('hears a modern listen’s resources, its cancel, the client’s name and the end; passes every message on unchanged', () => {
    const wire = fakeWire();
    const heard: unknown[] = [];
    const watched = new ListenWatchingTransport(wire, {
      onListen: (id, uris) => heard.push(['listen', id, uris]),
      onListenEnd: (id) => heard.push(['end', id]),
      onClientInfo: (info) => heard.push(['client', info]),
      onEnd: () => heard.push(['closed']),
    });
    const passed: unknown[] = [];
    watched.onmessage = (message) => passed.push(message);
    let closed = false;
    watched.onclose = () => (closed = true);

    const listen = { jsonrpc: '2.0', id: 7, method: 'subscriptions/listen', params: { notifications: { resourceSubscriptions: ['a://x', 3] }, _meta: ENVELOPE } };
    wire.receive(listen);
    wire.receive({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7 } });
    wire.end();

    expect(passed[0]).toBe(listen);
    expect(passed).toHaveLength(2);
    expect(heard).toEqual([['client', { name: 'agent', version: '2' }], ['listen', 7, ['a://x']], ['end', 7], ['closed']]);
    expect(closed).toBe(true);
  });

  it('a listen without the envelope (a legacy connection, where the method is unknown) is not a stream', () => {
    const wire = fakeWire();
    const heard: unknown[] = [];
    new ListenWatchingTransport(wire, {
      onListen: (id) => heard.push(id),
      onListenEnd: () => undefined,
      onClientInfo: () => undefined,
      onEnd: () => undefined,
    });
    wire.receive({ jsonrpc: '2.0', id: 1, method: 'subscriptions/listen', params: { notifications: { resourceSubscriptions: ['a://x'] } } });
    expect(heard).toEqual([]);
  });
});
