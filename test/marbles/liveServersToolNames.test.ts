import { VirtualTimeScheduler } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { WantedServer } from '../../src/model/reconcile/plan.js';
import { sha256Hex } from '../../src/model/sha256Hex.js';
import type { ResolvedServerConfig } from '../../src/model/types.js';
import { createLiveServers } from '../../src/sinks/mcp/liveServers.js';
import { fakeConnector } from './fakeConnector.js';

/** LiveServers' side of decision 57: parts from the configured names, re-publishing, exact routing. */

const h4 = (name: string) => sha256Hex(name).slice(0, 4);

function setup() {
  const scheduler = new VirtualTimeScheduler();
  const fake = fakeConnector(scheduler);
  const live = createLiveServers({ connector: fake.connector, scheduler });
  const connect = (name: string): void => {
    const resolved: ResolvedServerConfig = { transport: 'stdio', command: 'x', args: ['connect=0'], env: {}, headers: {}, timeout: 1000 };
    const server: WantedServer = { name, scope: 'user', source: 's', fingerprint: name, view: {}, resolved };
    live.lifecycle.connect(server).subscribe();
    scheduler.flush();
  };
  const toolsOf = (name: string) => live.board.status(name)?.tools.map((t) => t.name);
  return { live, fake, connect, toolsOf };
}

describe('LiveServers: qualified names over the configured names', () => {
  it('re-publishes tools under suffixed names when a colliding name is configured, without reconnecting', async () => {
    const { live, fake, connect, toolsOf } = setup();
    expect(live.catalog.setConfiguredNames(['my_srv'])).toEqual([]);
    connect('my_srv');
    expect(toolsOf('my_srv')).toEqual(['mcp__my_srv__echo']);

    const warnings = live.catalog.setConfiguredNames(['my_srv', 'my.srv']);
    expect(warnings).toEqual([expect.stringContaining('MCP servers "my.srv" and "my_srv" collide')]);
    expect(warnings[0]).toContain(`"my_srv" → mcp__my_srv_${h4('my_srv')}__…`);
    expect(toolsOf('my_srv')).toEqual([`mcp__my_srv_${h4('my_srv')}__echo`]);
    expect(fake.starts('my_srv')).toBe(1);
    // Reported once while it lasts.
    expect(live.catalog.setConfiguredNames(['my.srv', 'my_srv'])).toEqual([]);

    connect('my.srv');
    expect(toolsOf('my.srv')).toEqual([`mcp__my_srv_${h4('my.srv')}__echo`]);
    await expect(live.requests.callTool(`mcp__my_srv_${h4('my.srv')}__echo`, {})).resolves.toEqual({ tool: 'echo', args: {} });
    await expect(live.requests.callTool('mcp__my_srv__echo', {})).rejects.toThrow(/are now named mcp__my_srv_/);

    // The collision gone: the plain name comes back; it would warn again should it return.
    live.catalog.setConfiguredNames(['my_srv']);
    expect(toolsOf('my_srv')).toEqual(['mcp__my_srv__echo']);
    expect(live.catalog.setConfiguredNames(['my_srv', 'my.srv'])).toHaveLength(1);
  });

  it('refuses a name that more than one server lists instead of routing it by guess', async () => {
    const { live, connect, toolsOf } = setup();
    // Never told the configured names: each server has the part it would have alone.
    connect('a.b');
    connect('a_b');
    expect(toolsOf('a.b')).toEqual(toolsOf('a_b'));
    await expect(live.requests.callTool('mcp__a_b__echo', {})).rejects.toThrow(
      'Tool "mcp__a_b__echo" is not available: it names a tool of more than one MCP server ("a.b" and "a_b"); refusing to guess.',
    );
  });

  it('a tool-not-found message finds a blocked server by its suffixed part', () => {
    const { live } = setup();
    live.catalog.setConfiguredNames(['a.b', 'a_b']);
    live.lifecycle.block('a.b', 'project', '/repo/.mcp.json', { reason: 'pending_approval' }).subscribe();
    expect(live.requests.toolNotFoundMessage(`mcp__a_b_${h4('a.b')}__echo`)).toMatch(/MCP server "a\.b" needs approval/);
  });
});
