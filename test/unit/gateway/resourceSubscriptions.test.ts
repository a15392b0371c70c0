import { describe, expect, it } from 'vitest';
import { ResourceSubscriptions, type Subscriber } from '../../../src/hosts/gateway/resourceSubscriptions.js';

/** A live's `resources` that records what the backends are asked, and refuses URIs starting with `bad:`. */
function fakeResources() {
  const asked: string[] = [];
  return {
    asked,
    subscribe: (uri: string) => {
      asked.push(`subscribe ${uri}`);
      return uri.startsWith('bad:') ? Promise.reject(new Error(`no resource "${uri}"`)) : Promise.resolve();
    },
    unsubscribe: (uri: string) => {
      asked.push(`unsubscribe ${uri}`);
      return Promise.resolve();
    },
  };
}

function client(): Subscriber & { heard: string[] } {
  const heard: string[] = [];
  return { heard, resourceUpdated: (uri) => void heard.push(uri) };
}

describe('ResourceSubscriptions', () => {
  it('asks the backend once per URI, tells each subscriber, and lets go with the last one', async () => {
    const live = fakeResources();
    const subs = new ResourceSubscriptions(live);
    const [a, b] = [client(), client()];
    await subs.subscribe(a, 'r://1');
    await subs.subscribe(b, 'r://1');
    await subs.subscribe(a, 'r://1');
    subs.updated('r://1');
    subs.updated('r://other');
    expect([a.heard, b.heard]).toEqual([['r://1'], ['r://1']]);
    await subs.unsubscribe(a, 'r://1');
    expect(live.asked).toEqual(['subscribe r://1']);
    await subs.unsubscribe(b, 'r://1');
    expect(live.asked).toEqual(['subscribe r://1', 'unsubscribe r://1']);
    subs.updated('r://1');
    expect(b.heard).toEqual(['r://1']);
  });

  it('a client that goes away ends its subscriptions; a refused subscription is not kept', async () => {
    const live = fakeResources();
    const subs = new ResourceSubscriptions(live);
    const [a, b] = [client(), client()];
    await subs.subscribe(a, 'r://1');
    await subs.subscribe(a, 'r://2');
    await subs.subscribe(b, 'r://2');
    subs.dropClient(a);
    expect(live.asked).toEqual(['subscribe r://1', 'subscribe r://2', 'unsubscribe r://1']);
    await expect(subs.subscribe(a, 'bad:x')).rejects.toThrow('no resource "bad:x"');
    await subs.subscribe(b, 'bad:x').catch(() => undefined);
    expect(live.asked.filter((q) => q === 'subscribe bad:x')).toHaveLength(2);
  });
});
