import { describe, expect, it } from 'vitest';
import { SessionEventStore } from '../../../src/hosts/gateway/sessionEventStore.js';

type Message = Record<string, unknown>;
const note = (n: number, pad = 0): Message => ({ jsonrpc: '2.0', method: 'notifications/message', params: { n, pad: 'x'.repeat(pad) } });
const bytesOf = (m: Message): number => Buffer.byteLength(JSON.stringify(m), 'utf8');

async function replay(store: SessionEventStore<Message>, lastEventId: string): Promise<{ stream: string; sent: [string, Message][] }> {
  const sent: [string, Message][] = [];
  const stream = await store.replayEventsAfter(lastEventId, {
    send: (id, message) => {
      sent.push([id, message]);
      return Promise.resolve();
    },
  });
  return { stream, sent };
}

describe('SessionEventStore', () => {
  it('replays the events of the named stream stored after it, in order, without the priming placeholder', async () => {
    const store = new SessionEventStore<Message>({ maxEvents: 10, maxBytes: 10_000 });
    const priming = await store.storeEvent('s1', {});
    const a = await store.storeEvent('s1', note(1));
    await store.storeEvent('s2', note(2));
    const c = await store.storeEvent('s1', note(3));
    expect(await store.getStreamIdForEventId(priming)).toBe('s1');
    expect(await replay(store, priming)).toEqual({ stream: 's1', sent: [[a, note(1)], [c, note(3)]] });
    expect(await replay(store, a)).toEqual({ stream: 's1', sent: [[c, note(3)]] });
    expect(await replay(store, c)).toEqual({ stream: 's1', sent: [] });
  });

  it('holds at most maxEvents: the oldest go first, and a resume from one of them is refused', async () => {
    const store = new SessionEventStore<Message>({ maxEvents: 3, maxBytes: 10_000 });
    const ids = [];
    for (let n = 0; n < 5; n++) ids.push(await store.storeEvent('s', note(n)));
    expect(store.size.events).toBe(3);
    expect(await store.getStreamIdForEventId(ids[1]!)).toBeUndefined();
    await expect(replay(store, ids[1]!)).rejects.toThrow(/not held/);
    expect((await replay(store, ids[2]!)).sent.map(([id]) => id)).toEqual([ids[3], ids[4]]);
  });

  it('holds at most maxBytes of messages: the oldest go first', async () => {
    const one = bytesOf(note(0, 100));
    const store = new SessionEventStore<Message>({ maxEvents: 100, maxBytes: one * 2 + 10 });
    const ids = [];
    for (let n = 0; n < 4; n++) ids.push(await store.storeEvent('s', note(n, 100)));
    expect(store.size).toEqual({ events: 2, bytes: bytesOf(note(2, 100)) + bytesOf(note(3, 100)) });
    expect(await store.getStreamIdForEventId(ids[1]!)).toBeUndefined();
    expect(await store.getStreamIdForEventId(ids[2]!)).toBe('s');
  });

  it('a message larger than maxBytes is not held and drops its stream’s history, so no resume skips it; other streams keep theirs', async () => {
    const store = new SessionEventStore<Message>({ maxEvents: 100, maxBytes: 500 });
    const before = await store.storeEvent('s1', note(1));
    const other = await store.storeEvent('s2', note(2));
    const big = await store.storeEvent('s1', note(3, 1_000));
    expect(big).not.toBe(before);
    expect(await store.getStreamIdForEventId(before)).toBeUndefined();
    expect(await store.getStreamIdForEventId(big)).toBeUndefined();
    expect(await store.getStreamIdForEventId(other)).toBe('s2');
    expect(store.size).toEqual({ events: 1, bytes: bytesOf(note(2)) });
  });

  it('an unknown or hostile Last-Event-ID is simply not held', async () => {
    const store = new SessionEventStore<Message>();
    await store.storeEvent('s', note(1));
    for (const id of ['', '0', '__proto__', 'constructor', '1'.repeat(10_000)]) {
      expect(await store.getStreamIdForEventId(id)).toBeUndefined();
      await expect(replay(store, id)).rejects.toThrow(/not held/);
    }
  });

  it('clear() frees everything: the session has ended', async () => {
    const store = new SessionEventStore<Message>();
    const id = await store.storeEvent('s', note(1));
    store.clear();
    expect(store.size).toEqual({ events: 0, bytes: 0 });
    expect(await store.getStreamIdForEventId(id)).toBeUndefined();
  });
});
