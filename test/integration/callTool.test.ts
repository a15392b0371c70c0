import { BehaviorSubject, filter, firstValueFrom, type Observable } from 'rxjs';
import { describe, expect } from 'vitest';
import type { McpLive, McpLiveOptions } from '../../src/index.js';
import { connectMcp } from '../../src/sinks/mcp/connector.js';
import { connectOnce, fixture, nodeServer, textOf } from './mcpServers.js';
import { fake, fakeSession } from './fakeSession.js';
import { it, noLeftoversAfterAll, type TestScope } from './workspace.js';
import { deadline } from '../deadlines.js';

/**
 * The library's side of "never lies, never stalls" (decisions 64, 65 and 68): a call made at
 * start waits for the first pass instead of hearing that its server is not configured; a
 * cancelled call ends at once and its server is told; what a host renders (`tools$`, `prompts$`)
 * never repeats itself.
 */

/** A session on a temp workspace, servers from a stream, connected by the process-free fake connector. */
const session = (scope: TestScope, servers$: Observable<Record<string, unknown>>, options: Partial<McpLiveOptions> = {}): McpLive =>
  fakeSession(scope, 'mcp-live-calls-', servers$, options);

noLeftoversAfterAll();

describe('createMcpLive().dispose', () => {
  it('may be called more than once: every call waits for the one disposal', async ({ scope }) => {
    const l = session(scope, new BehaviorSubject({ a: fake() }));
    await l.start();
    let ended = false;
    l.events$.subscribe({ complete: () => (ended = true) });
    const first = l.dispose();
    expect(l.dispose()).toBe(first);
    expect(ended).toBe(false);
    await l.dispose();
    expect(ended).toBe(true);
  });
});

describe('createMcpLive().callTool before the first pass', () => {
  it('before start() it rejects: nothing is configured yet, and nothing will be', async ({ scope }) => {
    const l = session(scope, new BehaviorSubject({ a: fake() }));
    await expect(l.tools.call('mcp__a__echo', {})).rejects.toThrow('mcp-live is not started: call start() first');
  });

  it('right after start() it waits for the first pass and reaches its server', async ({ scope }) => {
    const l = session(scope, new BehaviorSubject({ a: fake('connect=200') }));
    const started = l.start();
    const call = l.tools.call('mcp__a__echo', { text: 'early' });
    await expect(call).resolves.toEqual({ tool: 'echo', args: { text: 'early' } });
    await started;
  });

  it('a listed tool is called at once, while the first pass still waits for a hung server', async ({ scope }) => {
    const l = session(scope, new BehaviorSubject({ a: fake(), h: fake('hang') }));
    const started = l.start();
    await firstValueFrom(l.tools.list$.pipe(filter((tools) => tools.length > 0)));
    await expect(l.tools.call('mcp__a__echo', { text: 'now' })).resolves.toEqual({ tool: 'echo', args: { text: 'now' } });
    expect(l.servers.status().find((s) => s.name === 'h')?.state).toBe('connecting');
    // The first pass has decided about every server, though it has not ended.
    await expect(l.planned()).resolves.toBeUndefined();
    await l.dispose();
    await started.catch(() => undefined);
  });

  it('a call made at start reaches its server once it connects, while another server still hangs (decision 325)', async ({ scope }) => {
    const l = session(scope, new BehaviorSubject({ a: fake('connect=50'), h: fake('hang') }));
    const started = l.start();
    // Made before `a` has connected; the first pass never ends (h hangs).
    const call = l.tools.call('mcp__a__echo', { text: 'early' });
    const stalled = new Promise((resolve) => setTimeout(() => resolve('still waiting after 10 s'), 10_000));
    await expect(Promise.race([call, stalled])).resolves.toEqual({ tool: 'echo', args: { text: 'early' } });
    expect(l.servers.status().find((s) => s.name === 'h')?.state).toBe('connecting');
    await l.dispose();
    await started.catch(() => undefined);
  });

  it('a signal that aborts while it waits ends the wait at once', async ({ scope }) => {
    const l = session(scope, new BehaviorSubject({ a: fake('connect=60000') }));
    const started = l.start();
    const abort = new AbortController();
    const call = l.tools.call('mcp__a__echo', {}, { signal: abort.signal });
    abort.abort(new Error('cancelled: quitting'));
    await expect(call).rejects.toThrow('cancelled: quitting');
    await l.dispose();
    await started.catch(() => undefined);
  });
});

const sameList = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((x, i) => x === b[i]);

/** The emissions, each checked to differ from the one before it (a repeated one fails the test). */
function onlyRealChanges(emitted: readonly string[][]): string[][] {
  emitted.forEach((list, i) => {
    if (i > 0) expect(list).not.toEqual(emitted[i - 1]);
  });
  return [...emitted];
}

describe('createMcpLive(): what a host renders', () => {
  it('tools$ and prompts.list$ emit only real changes; trust and the hints reach the host', async ({ scope }) => {
    const servers = new BehaviorSubject<Record<string, unknown>>({
      a: { ...fake('prompts=p1'), trust: true },
      b: fake('connect=100', 'prompts=p2'),
    });
    const l = session(scope, servers, {
      hints: 'json',
      extraSources: [
        { scope: 'user', source: 'stream', servers$: servers },
        { scope: 'project', source: 'repo', servers$: new BehaviorSubject({ p: fake() }) },
      ],
    });
    const tools: string[][] = [];
    const prompts: string[][] = [];
    l.tools.list$.subscribe((t) => tools.push(t.map((x) => `${x.name}${x.trust ? ' (trusted)' : ''}`)));
    l.prompts.list$.subscribe((p) => prompts.push(p.map((x) => `${x.server}/${x.name}`)));
    await l.start();
    // a connects at once and b 100 ms later: a alone in between, unless a loaded machine held the
    // publication of a until b had connected too. Either way, only real changes.
    expect(onlyRealChanges(tools)).toEqual([[], ['mcp__a__echo (trusted)'], ['mcp__a__echo (trusted)', 'mcp__b__echo']].filter((t) => tools.some((x) => sameList(x, t))));
    expect(tools.at(-1)).toEqual(['mcp__a__echo (trusted)', 'mcp__b__echo']);
    expect(onlyRealChanges(prompts)).toEqual([[], ['a/p1'], ['a/p1', 'b/p2']].filter((p) => prompts.some((x) => sameList(x, p))));
    expect(prompts.at(-1)).toEqual(['a/p1', 'b/p2']);
    expect(l.servers.status().map((s) => [s.name, s.trust])).toEqual([
      ['a', true],
      ['b', false],
      ['p', undefined], // blocked: pending approval
    ]);

    // A server that comes and fails changes servers$, not the tools or prompts.
    const failed = firstValueFrom(l.servers.list$.pipe(filter((all) => all.some((s) => s.name === 'c' && s.state === 'error'))));
    servers.next({ ...servers.getValue(), c: fake('fail=boom') });
    await failed;
    expect(tools).toHaveLength(3);
    expect(prompts).toHaveLength(3);

    // hints: 'json' — the fix is a command line, not /mcp.
    expect(l.tools.notFoundMessage('mcp__p__echo')).toBe(
      'Tool "mcp__p__echo" is not available: MCP server "p" needs approval – approve it with {"cmd":"approve","server":"p"} or mcp-live approvals approve p.',
    );
    servers.next({ ...servers.getValue(), c: { ...fake(), excludeTools: ['echo'] } });
    await firstValueFrom(l.servers.list$.pipe(filter((all) => all.some((s) => s.name === 'c' && s.state === 'connected'))));
    await expect(l.tools.call('mcp__c__echo', {})).rejects.toThrow(
      'tool "echo" of MCP server "c" is filtered out by excludeTools – remove it from excludeTools to use it.',
    );
  });
});

describe('a cancelled call (real server)', () => {
  it('rejects at once with the reason, the server is told, and the connection goes on', async ({ scope }) => {
    const config = nodeServer(fixture('echo-server.mjs'), ['--slow-tool', '60000'], { timeout: 30_000 });
    const connection = scope.closes(await connectOnce(connectMcp('cancel', config)));
    const abort = new AbortController();
    const call = connection.callTool('slow', {}, { signal: abort.signal });
    // Cancel once the server has the request: an echo sent after it has come back.
    expect(textOf(await connection.callTool('echo', { text: 'after slow' }))).toBe('after slow');
    const started = Date.now();
    abort.abort(new Error('cancelled: quitting'));
    await expect(call).rejects.toThrow('cancelled: quitting');
    expect(Date.now() - started).toBeLessThan(1_000);
    await expect.poll(() => connection.stderrTail(), { timeout: deadline(10_000) }).toContain('slow cancelled');
    expect(textOf(await connection.callTool('echo', { text: 'still here' }))).toBe('still here');
  });
});
