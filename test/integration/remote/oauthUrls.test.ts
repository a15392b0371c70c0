import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createMcpLive } from '../../../src/live/createMcpLive.js';
import { type McpLive } from '../../../src/live/types.js';
import type { McpLiveEvent } from '../../../src/model/report/events.js';
import { playBrowser, startOAuthFixture, type OAuthFixture, type OAuthFixtureOptions } from '../../fixtures/oauth/authServer.js';
import { listenOnLoopback, type LoopbackServer } from '../../fixtures/oauth/oauthHttp.js';
import { noLeftoversAfterAll, until } from '../workspace.js';

/**
 * What a hostile remote server can make mcp-live fetch or open through OAuth (decisions 189–191):
 * a `resource_metadata` on another origin or with a non-web scheme is never fetched (discovery
 * uses the server's own well-known metadata), and an authorization URL that is not https (or
 * http to a loopback host) fails the flow before any opener sees it. Only loopback addresses.
 */

let home: string | undefined;
let live: McpLive | undefined;
let oauth: OAuthFixture | undefined;
let bystander: LoopbackServer | undefined;
let events: McpLiveEvent[] = [];
let opened: string[] = [];

afterEach(async () => {
  await live?.dispose();
  live = undefined;
  await oauth?.close();
  oauth = undefined;
  await bystander?.close();
  bystander = undefined;
  events = [];
  opened = [];
  if (home) await rm(home, { recursive: true, force: true });
  home = undefined;
});
noLeftoversAfterAll();

async function session(servers: Record<string, unknown>): Promise<McpLive> {
  home = await mkdtemp(join(tmpdir(), 'mcp-live-oauth-urls-'));
  await mkdir(join(home, '.qwen'), { recursive: true });
  await mkdir(join(home, 'work'), { recursive: true });
  await writeFile(join(home, '.qwen', 'settings.json'), JSON.stringify({ mcpServers: servers }));
  live = createMcpLive({
    homeDir: home,
    cwd: join(home, 'work'),
    debounceMs: 50,
    hints: 'json',
    runtimeDir: join(home, 'run'),
    // The "opener": what a host would hand to a browser.
    onAuthorizationUrl: (_server, url) => opened.push(url),
  });
  live.events$.subscribe((e) => events.push(e));
  await live.start();
  return live;
}

/** A second loopback server that only counts what reaches it. */
async function startBystander(): Promise<{ server: LoopbackServer; hits: string[] }> {
  const hits: string[] = [];
  const server = await listenOnLoopback();
  server.serve((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    res.writeHead(404).end();
    return Promise.resolve();
  });
  return { server, hits };
}

async function remote(options: OAuthFixtureOptions, entry: Record<string, unknown> = {}): Promise<McpLive> {
  oauth = await startOAuthFixture(options);
  return session({ remote: { httpUrl: oauth.mcpUrl, ...entry } });
}

describe('OAuth URLs a server names', () => {
  it('a resource_metadata on another origin is never fetched, in the background or in the flow; the server\'s own metadata is used', async () => {
    const started = await startBystander();
    bystander = started.server;
    const l = await remote({ challengeResourceMetadataUrl: `${started.server.origin}/.well-known/oauth-protected-resource/mcp` });
    await until(l, 'remote', (s) => s.state === 'needs_auth');
    const { url, completed } = await l.auth.authenticate('remote');
    expect(await playBrowser(url!)).toBe(200);
    await completed;
    await until(l, 'remote', (s) => s.state === 'connected');
    expect(started.hits).toEqual([]);
  });

  it.each(['file:///etc/passwd', 'javascript:alert(1)', 'x-foo://metadata'])('a resource_metadata of %s is ignored: the sign-in goes on with the server\'s own metadata', async (metadataUrl) => {
    const l = await remote({ challengeResourceMetadataUrl: metadataUrl });
    await until(l, 'remote', (s) => s.state === 'needs_auth');
    const { url, completed } = await l.auth.authenticate('remote');
    expect(new URL(url!).origin).toBe(oauth!.issuer);
    expect(await playBrowser(url!)).toBe(200);
    await completed;
    await until(l, 'remote', (s) => s.state === 'connected');
  });

  it.each(['x-foo:open-me', 'file:///etc/passwd', 'http://example.invalid/authorize'])(
    'an authorization_endpoint of %s fails the flow with a clear error and never reaches the opener',
    async (endpoint) => {
      const l = await remote({ authorizationEndpoint: endpoint });
      await until(l, 'remote', (s) => s.state === 'needs_auth');
      await expect(l.auth.authenticate('remote')).rejects.toThrow(/refused to open the authorization URL .*only https: URLs, or http: to a loopback host/);
      expect(opened).toEqual([]);
      expect(events.filter((e) => e.type === 'auth-required')).toEqual([]);
    },
  );

  it('a configured authorizationUrl of javascript:alert(1) never reaches the opener either', async () => {
    oauth = await startOAuthFixture({ dcr: false, preRegistered: [{ clientId: 'app' }] });
    const l = await session({
      remote: { httpUrl: oauth.mcpUrl, oauth: { clientId: 'app', authorizationUrl: 'javascript:alert(1)', tokenUrl: `${oauth.issuer}/token` } },
    });
    await until(l, 'remote', (s) => s.state === 'needs_auth');
    await expect(l.auth.authenticate('remote')).rejects.toThrow(/refused to open the authorization URL \(javascript:\)/);
    expect(opened).toEqual([]);
    expect(events.filter((e) => e.type === 'auth-required')).toEqual([]);
  });
});
