import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Client, McpSubscription, SubscriptionFilter } from '@modelcontextprotocol/client';
import { ListenStream, REOPEN_DELAYS_MS } from '../../../src/sinks/mcp/listenStream.js';
import { MIN_TTL_REFRESH_MS, TtlRefresh } from '../../../src/sinks/mcp/ttlRefresh.js';
import type { ListKind } from '../../../src/sinks/mcp/serverLists.js';

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

/** A client whose listen streams the test ends; `refuse` makes the next listens fail. */
function fakeClient(capabilities: Record<string, unknown>) {
  const streams: { filter: SubscriptionFilter; end: (reason: 'graceful' | 'remote') => void; closed: boolean }[] = [];
  let refuse = 0;
  const client = {
    getServerCapabilities: () => capabilities,
    listen: (filter: SubscriptionFilter): Promise<McpSubscription> => {
      if (refuse > 0) {
        refuse -= 1;
        return Promise.reject(new Error('refused'));
      }
      let end!: (reason: 'local' | 'graceful' | 'remote') => void;
      const closed = new Promise<'local' | 'graceful' | 'remote'>((resolve) => (end = resolve));
      const entry = { filter, end, closed: false };
      streams.push(entry);
      return Promise.resolve({
        honoredFilter: filter,
        closed,
        close: () => {
          entry.closed = true;
          end('local');
          return Promise.resolve();
        },
      });
    },
  } as unknown as Client;
  return { client, streams, refuseNext: (n: number) => (refuse = n) };
}

describe('ListenStream (decision 381)', () => {
  const caps = { tools: { listChanged: true }, prompts: {}, resources: { subscribe: true, listChanged: true } };

  it('asks for what the server advertises; a subscription reopens the stream with it before the old one closes', async () => {
    const { client, streams } = fakeClient(caps);
    const stream = new ListenStream(client, { refresh: vi.fn(), lost: vi.fn(), timeoutMs: 1000 });
    await stream.open();
    expect(streams[0]!.filter).toEqual({ toolsListChanged: true, resourcesListChanged: true });
    expect([...stream.covered].sort()).toEqual(['resourceTemplates', 'resources', 'tools']);
    await stream.subscribe('a://1', true);
    expect(streams[1]!.filter).toEqual({ toolsListChanged: true, resourcesListChanged: true, resourceSubscriptions: ['a://1'] });
    expect(streams[0]!.closed).toBe(true);
    await stream.subscribe('a://1', false);
    expect(streams[2]!.filter).not.toHaveProperty('resourceSubscriptions');
    stream.close();
    expect(streams[2]!.closed).toBe(true);
  });

  it('a dropped stream is reopened after a backoff and the lists it covers refreshed; past the last delay the connection is lost', async () => {
    const { client, streams, refuseNext } = fakeClient(caps);
    const refresh = vi.fn<(kinds: readonly ListKind[]) => void>();
    const lost = vi.fn();
    const stream = new ListenStream(client, { refresh, lost, timeoutMs: 1000 });
    await stream.open();
    streams[0]!.end('remote');
    await vi.advanceTimersByTimeAsync(REOPEN_DELAYS_MS[0]!);
    expect(streams).toHaveLength(2);
    expect(refresh).toHaveBeenCalledWith(expect.arrayContaining(['tools', 'resources', 'resourceTemplates']));
    // It drops again at once, and every reopen is refused: the delays grow, then it is lost.
    refuseNext(10);
    streams[1]!.end('graceful');
    for (const delay of REOPEN_DELAYS_MS.slice(1)) {
      expect(lost).not.toHaveBeenCalled();
      await vi.advanceTimersByTimeAsync(delay);
    }
    expect(lost).toHaveBeenCalledWith(new Error('the subscriptions/listen stream ended (refused) and could not be reopened'));
    stream.close();
  });

  it('a server that advertises no change opens no stream', async () => {
    const { client, streams } = fakeClient({ tools: {} });
    const stream = new ListenStream(client, { refresh: vi.fn(), lost: vi.fn(), timeoutMs: 1000 });
    await stream.open();
    expect(streams).toHaveLength(0);
    expect(stream.covered.size).toBe(0);
    stream.close();
  });
});

describe('TtlRefresh (decision 381)', () => {
  it('refreshes a list when its ttl runs out, never sooner, never without a ttl, never when its changes are told', async () => {
    const refreshed: ListKind[] = [];
    let told = false;
    const ttl = new TtlRefresh((kind) => refreshed.push(kind), () => told);
    ttl.listed('tools', 5_000);
    ttl.listed('prompts', undefined);
    ttl.listed('resources', 10);
    // A ttl below the floor waits the floor.
    await vi.advanceTimersByTimeAsync(999);
    expect(refreshed).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(refreshed).toEqual(['resources']);
    await vi.advanceTimersByTimeAsync(3_999);
    expect(refreshed).toEqual(['resources']);
    await vi.advanceTimersByTimeAsync(1);
    expect(refreshed).toEqual(['resources', 'tools']);
    expect(MIN_TTL_REFRESH_MS).toBe(1_000);
    told = true;
    ttl.listed('tools', 1_000);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(refreshed).toEqual(['resources', 'tools']);
    told = false;
    ttl.listed('tools', 1_000);
    ttl.stop();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(refreshed).toEqual(['resources', 'tools']);
  });
});
