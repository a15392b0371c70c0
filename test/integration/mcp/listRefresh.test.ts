import { afterEach, describe, expect, it } from 'vitest';
import { connectMcp } from '../../../src/sinks/mcp/connector.js';
import { closeTracked, connectOnce, fixture, nodeServer, track } from '../mcpServers.js';
import { sleep } from '../processes.js';
import { noLeftoversAfterAll } from '../workspace.js';

afterEach(closeTracked);
noLeftoversAfterAll();

describe('list refresh under a list_changed storm (found by test/slow/server-faults)', () => {
  it('a server notifying 100 times a second but listing in 50 ms still gets its list refreshed during the storm', async () => {
    // The storm starts at initialize, so connecting (slow on a loaded machine) eats into it: it
    // lasts well beyond what the refreshes need, and the test waits only until it has seen them.
    const stormMs = 3_000;
    const config = nodeServer(fixture('tiny-server.mjs'), ['--storm-rate', '100', '--storm-ms', String(stormMs), '--list-delay', '50']);
    const stormUntil = Date.now() + stormMs;
    const connection = track(await connectOnce(connectMcp('storm', config)));
    const seen = new Set<string>();
    const sub = connection.lists$.subscribe((lists) => {
      for (const tool of lists.tools ?? []) if (tool.name.startsWith('gen_')) seen.add(tool.name);
    });
    // switchMap dropped every answer while notifications kept arriving (at most 1 list during the
    // storm, and one after it); one refresh at a time plus a trailing one gives about one list
    // per 50 ms.
    while (seen.size <= 4 && Date.now() < stormUntil) await sleep(25);
    sub.unsubscribe();
    expect(seen.size).toBeGreaterThan(4);
  });
});
