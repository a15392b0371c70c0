import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { filter } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import { createMcpLive } from '../../../src/live/createMcpLive.js';
import { type McpLive, type McpLiveOptions } from '../../../src/live/types.js';
import { playBrowser, startOAuthFixture, type OAuthFixture } from '../../fixtures/oauth/authServer.js';
import type { OAuthFixtureOptions } from '../../fixtures/oauth/fixtureOptions.js';
import { noLeftoversAfterAll, until } from '../workspace.js';
import { deadline } from '../../deadlines.js';

/**
 * Step-up during a call (decision 242), against the real protected Streamable HTTP
 * server and authorization server of the OAuth fixture: a token with scope `mcp` may list but
 * not call (`tools/call` needs `mcp tools:call`, else 403 `insufficient_scope`). With someone to
 * open the browser, the call starts the authorization itself (`auth-required`), waits for it and
 * is sent again on the same connection; nobody opening it ends the call at its timeout. (Without
 * an interactive surface the call fails as before: oauth.test.ts, "step-up".)
 */

let home: string | undefined;
let live: McpLive | undefined;
let oauth: OAuthFixture | undefined;

afterEach(async () => {
  await live?.dispose();
  live = undefined;
  await oauth?.close();
  oauth = undefined;
  if (home) await rm(home, { recursive: true, force: true });
  home = undefined;
});
noLeftoversAfterAll();

async function session(options: Partial<McpLiveOptions>, fixture: Partial<OAuthFixtureOptions> = {}): Promise<McpLive> {
  oauth = await startOAuthFixture({
    scopesSupported: ['mcp', 'tools:call'],
    wwwAuthenticateScope: 'mcp',
    requiredScopes: { 'tools/call': ['mcp', 'tools:call'] },
    ...fixture,
  });
  home = await mkdtemp(join(tmpdir(), 'mcp-live-stepup-'));
  await mkdir(join(home, '.qwen'), { recursive: true });
  await mkdir(join(home, 'work'));
  await writeFile(join(home, '.qwen', 'settings.json'), JSON.stringify({ mcpServers: { remote: { httpUrl: oauth.mcpUrl } } }));
  live = createMcpLive({ homeDir: home, cwd: join(home, 'work'), runtimeDir: join(home, 'run'), debounceMs: 50, hints: 'json', ...options });
  await live.start();
  // The first authorization (scope `mcp`), as the user gives it with `/mcp auth`.
  await until(live, 'remote', (s) => s.state === 'needs_auth');
  const { url, completed } = await live.auth.authenticate('remote');
  expect(await playBrowser(url!)).toBe(200);
  await completed;
  await until(live, 'remote', (s) => s.state === 'connected');
  return live;
}

describe('step-up during a call', () => {
  it('with interactiveAuth, the call starts the authorization (auth-required), waits for it and succeeds on the same connection', async () => {
    const l = await session({ interactiveAuth: true });
    const states: string[] = [];
    l.servers.list$.subscribe((all) => states.push(all.find((s) => s.name === 'remote')?.state ?? 'gone'));
    // The "browser": whoever reads the event opens the URL it carries.
    const opened: Promise<number>[] = [];
    l.events$.pipe(filter((e) => e.type === 'auth-required')).subscribe((e) => opened.push(playBrowser(e.url)));

    const result = await l.tools.call('mcp__remote__echo', { text: 'stepped up' });
    expect(result).toMatchObject({ content: [{ type: 'text', text: 'stepped up' }] });
    expect(await Promise.all(opened)).toEqual([200]);
    // The second authorization asked for what the call needed.
    expect(oauth!.authorizeRequests.map((r) => r.scope)).toEqual(['mcp', 'mcp tools:call']);
    // No reconnect: the connection sends the new token from then on.
    expect(states.filter((s) => s !== 'connected')).toEqual([]);
    expect(await l.tools.call('mcp__remote__echo', { text: 'again' })).toMatchObject({ content: [{ text: 'again' }] });
    expect(oauth!.authorizeRequests).toHaveLength(2);
  }, deadline(30_000));

  it('a challenge naming only the new scope: the authorization asks for it with the scope asked for before (decision 375)', async () => {
    // Listing needs `mcp`, calling `tools:call`; the 403 names `tools:call` alone.
    const l = await session({ interactiveAuth: true }, { requiredScopes: { 'tools/list': ['mcp'], 'tools/call': ['tools:call'] } });
    const opened: Promise<number>[] = [];
    l.events$.pipe(filter((e) => e.type === 'auth-required')).subscribe((e) => opened.push(playBrowser(e.url)));

    expect(await l.tools.call('mcp__remote__whoami', {})).toMatchObject({ content: [{ type: 'text', text: 'mcp tools:call' }] });
    expect(await Promise.all(opened)).toEqual([200]);
    expect(oauth!.authorizeRequests.map((r) => r.scope)).toEqual(['mcp', 'mcp tools:call']);
    // The new token still lists: nothing the first one allowed was lost.
    const mark = oauth!.mcpRequests.length;
    const states: string[] = [];
    const watching = l.servers.list$.subscribe((all) => states.push(all.find((s) => s.name === 'remote')?.state ?? 'gone'));
    expect(l.servers.reconnect('remote')).toBe(true);
    await until(l, 'remote', (s) => s.state === 'connected' && states.some((state) => state !== 'connected'));
    watching.unsubscribe();
    const lists = oauth!.mcpRequests.slice(mark).filter((r) => r.method === 'tools/list');
    expect(lists.length).toBeGreaterThan(0);
    expect(lists.every((r) => r.authorized)).toBe(true);
  }, deadline(30_000));

  it('a host with onAuthorizationUrl is an interactive surface by default', async () => {
    const urls: string[] = [];
    const l = await session({ onAuthorizationUrl: (server, url) => urls.push(`${server} ${url}`) });
    urls.length = 0;
    const call = l.tools.call('mcp__remote__echo', { text: 'hosted' });
    const url = await new Promise<string>((resolve) => {
      const poll = setInterval(() => {
        if (urls.length > 0) {
          clearInterval(poll);
          resolve(urls[0]!);
        }
      }, 20);
    });
    expect(url.startsWith('remote http://127.0.0.1:')).toBe(true);
    expect(await playBrowser(url.slice('remote '.length))).toBe(200);
    expect(await call).toMatchObject({ content: [{ text: 'hosted' }] });
  }, deadline(30_000));

  it('nobody opens the browser: the call ends at its timeout, saying it waited for the authorization; the server stays up; a later call can step up', async () => {
    const l = await session({ interactiveAuth: true });
    const started = Date.now();
    await expect(l.tools.call('mcp__remote__echo', { text: 'x' }, { timeout: 1_500 })).rejects.toThrow(
      'timed out after 1500 ms (raise the call\'s "timeout") while waiting for the authorization it needs (scope "mcp tools:call")',
    );
    expect(Date.now() - started).toBeLessThan(4_000);
    expect(l.servers.status().find((s) => s.name === 'remote')?.state).toBe('connected');

    const opened: Promise<number>[] = [];
    l.events$.pipe(filter((e) => e.type === 'auth-required')).subscribe((e) => opened.push(playBrowser(e.url)));
    expect(await l.tools.call('mcp__remote__echo', { text: 'later' })).toMatchObject({ content: [{ text: 'later' }] });
    expect(await Promise.all(opened)).toEqual([200]);
  }, deadline(30_000));
});
