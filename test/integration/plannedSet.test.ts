import { BehaviorSubject, type Observable } from 'rxjs';
import { describe, expect, vi } from 'vitest';
import { type McpLive, type McpLiveEvent } from '../../src/index.js';
import { deadline } from '../deadlines.js';
import { fake, fakeSession } from './fakeSession.js';
import { it, noLeftoversAfterAll, type TestScope } from './workspace.js';

/**
 * Decision 325: once `planned()` resolves, the set is whole — every server the first pass
 * connects is known, one still waiting for a connect slot (8 at a time) as `connecting`, so a
 * `status` answered then lists every server without waiting for the connections. A server only
 * queued by a pass that a newer one supersedes holds nothing: the next pass connects it (`added`).
 */

/** A session of the user's stream and a repository's pending `p`, connected by the process-free fake connector. */
const session = (scope: TestScope, servers$: Observable<Record<string, unknown>>): McpLive =>
  fakeSession(scope, 'mcp-live-planned-', servers$, {
    extraSources: [
      { scope: 'user', source: 'stream', servers$ },
      { scope: 'project', source: 'repo', servers$: new BehaviorSubject({ p: fake() }) },
    ],
  });

noLeftoversAfterAll();

describe('planned(): every server known, before any connection settles', () => {
  it('servers beyond the 8 connect slots are listed as connecting; an invalid one with its error; the gated one as pending', async ({ scope }) => {
    const servers: Record<string, unknown> = { bad: { command: 'fake', args: 'not a list' } };
    for (let i = 0; i < 12; i++) servers[`h${String(i).padStart(2, '0')}`] = fake('hang');
    const l = session(scope, new BehaviorSubject(servers));
    const started = l.start();
    await l.planned();
    const report = l.servers.status();
    expect(report.map((s) => s.name)).toEqual(['bad', ...Object.keys(servers).filter((n) => n !== 'bad'), 'p']);
    expect(report.filter((s) => s.name.startsWith('h')).every((s) => s.state === 'connecting')).toBe(true);
    expect(report.find((s) => s.name === 'bad')).toMatchObject({ state: 'error', error: expect.stringContaining('invalid_config') as string });
    expect(report.find((s) => s.name === 'p')).toMatchObject({ state: 'blocked', reason: 'pending_approval' });
    // One still queued is configured: /reconnect asks for the pass that connects it.
    expect(l.servers.reconnect('h11')).toBe(true);
    expect(l.servers.reconnect('nope')).toBe(false);
    await l.dispose();
    await started.catch(() => undefined);
  });

  it('a server queued by a superseded pass is connected by the next one as a new server; one removed while queued is removed', async ({ scope }) => {
    const servers: Record<string, unknown> = {};
    for (let i = 0; i < 8; i++) servers[`h${i}`] = fake('hang');
    servers.q = fake();
    servers.r = fake();
    const source = new BehaviorSubject(servers);
    const l = session(scope, source);
    const events: McpLiveEvent[] = [];
    l.events$.subscribe((e) => events.push(e));
    const started = l.start();
    await l.planned();
    expect(l.servers.status().filter((s) => s.name === 'q' || s.name === 'r').map((s) => s.state)).toEqual(['connecting', 'connecting']);
    // A newer desired state supersedes the first pass, which its hung connects would hold forever.
    const { r: _r, ...withoutR } = servers;
    source.next({ ...withoutR, z: fake() });
    await vi.waitFor(() => expect(l.servers.status().find((s) => s.name === 'q')?.state).toBe('connected'), { timeout: deadline(10_000) });
    // Connected as a new server: never taken down and started again as if it had held a process.
    expect(l.servers.status().find((s) => s.name === 'q')?.history.map((h) => h.state)).toEqual(['connecting', 'connected']);
    expect(l.servers.status().find((s) => s.name === 'r')).toMatchObject({ state: 'disconnected', reason: 'removed' });
    expect(l.servers.status().find((s) => s.name === 'r')?.history.map((h) => h.state)).toEqual(['connecting', 'disconnected']);
    expect(events.filter((e) => e.type === 'log' && e.level === 'error')).toEqual([]);
    await l.dispose();
    await started.catch(() => undefined);
  });
});
