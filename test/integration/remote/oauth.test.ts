import { mkdtemp, readFile, rm, stat, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { filter, firstValueFrom } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import { createMcpLive } from '../../../src/live/createMcpLive.js';
import { type McpLive } from '../../../src/live/types.js';
import type { McpLiveEvent } from '../../../src/model/report/events.js';
import { startOAuthFixture, playBrowser, type OAuthFixture } from '../../fixtures/oauth/authServer.js';
import { fixture } from '../mcpServers.js';
import { POSIX } from '../../platforms.js';
import { noLeftoversAfterAll, until } from '../workspace.js';

/**
 * OAuth against a real protected Streamable HTTP server and a real authorization server on
 * 127.0.0.1 (decision 83): the first connect ends in `needs_auth`, the browser flow (played by
 * following the redirects to mcp-live's own loopback callback) connects it, tokens are refreshed
 * and forgotten, a revoked token asks again, a step-up asks for the wider scope, a gated server
 * is never contacted, and no token ever reaches an output.
 */

let home: string;
let live: McpLive | undefined;
let oauth: OAuthFixture | undefined;
let events: McpLiveEvent[] = [];

afterEach(async () => {
  await live?.dispose();
  live = undefined;
  await oauth?.close();
  oauth = undefined;
  events = [];
  if (home) await rm(home, { recursive: true, force: true });
});
noLeftoversAfterAll();

async function session(servers: Record<string, unknown>, project?: Record<string, unknown>): Promise<McpLive> {
  home = await mkdtemp(join(tmpdir(), 'mcp-live-oauth-'));
  const workspace = join(home, 'work');
  await mkdir(join(home, '.qwen'), { recursive: true });
  await mkdir(workspace, { recursive: true });
  await writeFile(join(home, '.qwen', 'settings.json'), JSON.stringify({ mcpServers: servers }));
  if (project) await writeFile(join(workspace, '.mcp.json'), JSON.stringify({ mcpServers: project }));
  live = createMcpLive({ homeDir: home, cwd: workspace, debounceMs: 50, hints: 'json', runtimeDir: join(home, 'run') });
  live.events$.subscribe((e) => events.push(e));
  await live.start();
  return live;
}

const tokensFile = () => join(home, '.qwen', 'mcp-oauth-tokens.json');

async function storedTokens(): Promise<string[]> {
  const records = JSON.parse(await readFile(tokensFile(), 'utf8')) as Record<string, { tokens?: { access_token?: string; refresh_token?: string } }>;
  return Object.values(records).flatMap((r) => [r.tokens?.access_token, r.tokens?.refresh_token].filter((t): t is string => t !== undefined));
}

/** Authorizes `name` the way a user does: the URL from `authenticate`, opened in a "browser". */
async function authorize(l: McpLive, name: string): Promise<void> {
  const { url, completed } = await l.auth.authenticate(name);
  expect(url).toBeDefined();
  expect(await playBrowser(url!)).toBe(200);
  await completed;
}

/** The usual start: the server waits for authorization, the user gives it, it connects. */
async function firstAuthorization(l: McpLive, name: string): Promise<void> {
  await until(l, name, (s) => s.state === 'needs_auth');
  await authorize(l, name);
  await until(l, name, (s) => s.state === 'connected');
}

describe('OAuth for a remote server', () => {
  it('needs_auth first, connected after the browser flow; the token is stored 0600 and appears in no output', async () => {
    oauth = await startOAuthFixture({ wwwAuthenticateScope: 'mcp' });
    const l = await session({ remote: { httpUrl: oauth.mcpUrl } });
    const waiting = await until(l, 'remote', (s) => s.state === 'needs_auth');
    expect(waiting.error).toBe('needs authentication – send {"cmd":"auth","server":"remote"}');
    expect(oauth.authorizeRequests).toHaveLength(0);
    // Nothing was registered in the background: that is the start of an authorization, the user's.
    expect(oauth.registrations).toHaveLength(0);

    await authorize(l, 'remote');
    const up = await until(l, 'remote', (s) => s.state === 'connected');
    expect(up.tools.map((t) => t.tool).sort()).toEqual(['echo', 'whoami']);
    expect(await l.tools.call('mcp__remote__echo', { text: 'hi' })).toMatchObject({ content: [{ type: 'text', text: 'hi' }] });

    const [request] = oauth.authorizeRequests;
    expect(request).toMatchObject({ scope: 'mcp', resource: oauth.mcpUrl, codeChallengeMethod: 'S256' });
    expect(request!.redirectUri).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    expect(events.filter((e) => e.type === 'auth-required')).toEqual([expect.objectContaining({ server: 'remote' })]);

    // Mode bits are POSIX's (decision 276): Windows has none to check.
    if (POSIX) expect((await stat(tokensFile())).mode & 0o777).toBe(0o600);
    const tokens = await storedTokens();
    expect(tokens.length).toBeGreaterThan(0);
    const output = JSON.stringify(events) + JSON.stringify(l.servers.status());
    for (const token of tokens) expect(output).not.toContain(token);
  });

  it('refreshes an expired token on the 401, and ahead of expiry, without asking the user', async () => {
    oauth = await startOAuthFixture({ accessTokenTtlSeconds: 3600 });
    const l = await session({ remote: { httpUrl: oauth.mcpUrl } });
    await firstAuthorization(l, 'remote');

    oauth.expireAccessTokens();
    expect(await l.tools.call('mcp__remote__echo', { text: 'after expiry' })).toMatchObject({ content: [{ text: 'after expiry' }] });
    expect(oauth.tokenRequests.map((t) => t.grantType)).toEqual(['authorization_code', 'refresh_token']);
    expect(oauth.authorizeRequests).toHaveLength(1);
  });

  it('refreshes before a token expires: a token with less than a minute left is renewed before the request', async () => {
    oauth = await startOAuthFixture({ accessTokenTtlSeconds: 30 });
    const l = await session({ remote: { httpUrl: oauth.mcpUrl } });
    await firstAuthorization(l, 'remote');
    const unauthorizedBefore = oauth.mcpRequests.filter((r) => !r.authorized).length;
    await l.tools.call('mcp__remote__echo', { text: 'x' });
    expect(oauth.tokenRequests.filter((t) => t.grantType === 'refresh_token').length).toBeGreaterThan(0);
    // Renewed ahead: no request went out with the dying token and came back 401.
    expect(oauth.mcpRequests.filter((r) => !r.authorized).length).toBe(unauthorizedBefore);
  });

  it('a revoked token puts the server back to needs_auth, and a new authorization connects it again', async () => {
    oauth = await startOAuthFixture();
    const l = await session({ remote: { httpUrl: oauth.mcpUrl } });
    await firstAuthorization(l, 'remote');

    oauth.revokeAll();
    await expect(l.tools.call('mcp__remote__echo', { text: 'x' })).rejects.toThrow(/needs authentication/);
    const again = await until(l, 'remote', (s) => s.state === 'needs_auth');
    expect(again.error).toMatch(/refused the stored token/);
    await authorize(l, 'remote');
    await until(l, 'remote', (s) => s.state === 'connected');
    expect(oauth.authorizeRequests).toHaveLength(2);
  });

  it('step-up: a call that needs more scope says so, and the next authorization asks for it', async () => {
    oauth = await startOAuthFixture({
      scopesSupported: ['mcp', 'tools:call'],
      wwwAuthenticateScope: 'mcp',
      requiredScopes: { 'tools/call': ['mcp', 'tools:call'] },
    });
    const l = await session({ remote: { httpUrl: oauth.mcpUrl } });
    await firstAuthorization(l, 'remote');

    await expect(l.tools.call('mcp__remote__echo', { text: 'x' })).rejects.toThrow(
      'MCP server "remote" needs more authorization (scope "mcp tools:call") – send {"cmd":"auth","server":"remote"}',
    );
    // The server stays up for what its token allows.
    expect(l.servers.status().find((s) => s.name === 'remote')?.state).toBe('connected');
    await authorize(l, 'remote');
    await until(l, 'remote', (s) => s.state === 'connected');
    expect(oauth.authorizeRequests.map((r) => r.scope)).toEqual(['mcp', 'mcp tools:call']);
    expect(await l.tools.call('mcp__remote__echo', { text: 'now' })).toMatchObject({ content: [{ text: 'now' }] });
  });

  it('logout forgets the tokens: the next connect needs authorization again', async () => {
    oauth = await startOAuthFixture();
    const l = await session({ remote: { httpUrl: oauth.mcpUrl } });
    await firstAuthorization(l, 'remote');
    expect(await l.auth.logout('remote')).toBe(1);
    expect(await storedTokens()).toEqual([]);
    l.servers.reconnect('remote');
    await until(l, 'remote', (s) => s.state === 'needs_auth');
  });

  it('a gated server is never contacted before approval, not even for discovery, and cannot be authorized', async () => {
    oauth = await startOAuthFixture();
    const l = await session({}, { repo: { type: 'http', url: oauth.mcpUrl } });
    await until(l, 'repo', (s) => s.reason === 'pending_approval');
    await expect(l.auth.authenticate('repo')).rejects.toThrow('server "repo" is not admitted (needs approval); nothing is contacted for it until it is');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(oauth.mcpRequests).toEqual([]);
    expect(oauth.registrations).toEqual([]);
    expect(oauth.authorizeRequests).toEqual([]);
  });

  it('an edit of the oauth block reconnects only that server, and its tokens stay valid', async () => {
    oauth = await startOAuthFixture();
    const echo = { command: process.execPath, args: [fixture('echo-server.mjs')] };
    const l = await session({ remote: { httpUrl: oauth.mcpUrl }, local: echo });
    await firstAuthorization(l, 'remote');
    const localPid = (await until(l, 'local', (s) => s.state === 'connected')).pid;

    const reconciled = firstValueFrom(live!.events$.pipe(filter((e) => e.type === 'reconcile' && e.trigger === 'watch')));
    await writeFile(
      join(home, '.qwen', 'settings.json'),
      JSON.stringify({ mcpServers: { remote: { httpUrl: oauth.mcpUrl, oauth: { scopes: ['mcp'] } }, local: echo } }),
    );
    expect(await reconciled).toMatchObject({ reconnected: ['remote'] });
    await until(l, 'remote', (s) => s.state === 'connected');
    expect(l.servers.status().find((s) => s.name === 'local')?.pid).toBe(localPid);
    expect(oauth.authorizeRequests).toHaveLength(1);
  });

  it('a reconnect while the browser flow is open starts no second authorization: one auth-required, one registration, the sign-in completes', async () => {
    oauth = await startOAuthFixture({ wwwAuthenticateScope: 'mcp' });
    const l = await session({ remote: { httpUrl: oauth.mcpUrl } });
    await until(l, 'remote', (s) => s.state === 'needs_auth');
    const { url, completed } = await l.auth.authenticate('remote');
    // The user reconnects (or supervision retries) before finishing in the browser.
    expect(l.servers.reconnect('remote')).toBe(true);
    const during = await until(l, 'remote', (s) => s.state === 'needs_auth' && /in progress/.test(s.error ?? ''));
    expect(during.error).toMatch(/authorization in progress/);
    expect(events.filter((e) => e.type === 'auth-required')).toHaveLength(1);
    expect(oauth.registrations).toHaveLength(1);
    expect(oauth.authorizeRequests).toHaveLength(0);
    expect(await playBrowser(url!)).toBe(200);
    await completed;
    await until(l, 'remote', (s) => s.state === 'connected');
    expect(oauth.registrations).toHaveLength(1);
    expect(oauth.tokenRequests.map((t) => t.grantType)).toEqual(['authorization_code']);
  });

  it('a pre-registered client with configured endpoints and audiences: no registration, the entry\'s endpoints, `audience` sent', async () => {
    oauth = await startOAuthFixture({ dcr: false, preRegistered: [{ clientId: 'app', clientSecret: 'app-secret-value' }] });
    const issuer = oauth.issuer;
    const l = await session({
      remote: {
        httpUrl: oauth.mcpUrl,
        oauth: { clientId: 'app', clientSecret: 'app-secret-value', authorizationUrl: `${issuer}/authorize`, tokenUrl: `${issuer}/token`, audiences: ['api'] },
      },
    });
    await until(l, 'remote', (s) => s.state === 'needs_auth');
    const { url, completed } = await l.auth.authenticate('remote');
    expect(new URL(url!).searchParams.get('audience')).toBe('api');
    expect(new URL(url!).searchParams.get('client_id')).toBe('app');
    await playBrowser(url!);
    await completed;
    await until(l, 'remote', (s) => s.state === 'connected');
    expect(oauth.registrations).toEqual([]);
    expect(oauth.tokenRequests).toEqual([expect.objectContaining({ grantType: 'authorization_code', clientId: 'app', authMethod: 'client_secret_basic' })]);
    expect(JSON.stringify(events)).not.toContain('app-secret-value');
  });

  it('a pre-registered client with client credentials connects with no browser at all', async () => {
    oauth = await startOAuthFixture({ dcr: false, clientCredentials: true, preRegistered: [{ clientId: 'machine', clientSecret: 'machine-secret-value' }] });
    const l = await session({
      m2m: { httpUrl: oauth.mcpUrl, oauth: { grantType: 'client_credentials', clientId: 'machine', clientSecret: '${M2M_SECRET}' } },
    });
    // Not set in this process: an unset variable expands to "" and the server refuses it…
    await until(l, 'm2m', (s) => s.state === 'needs_auth' || s.state === 'error');
    await l.dispose();
    process.env.M2M_SECRET = 'machine-secret-value';
    try {
      live = createMcpLive({ homeDir: home, cwd: join(home, 'work'), debounceMs: 50, runtimeDir: join(home, 'run') });
      live.events$.subscribe((e) => events.push(e));
      await live.start();
      await until(live, 'm2m', (s) => s.state === 'connected');
      expect(oauth.tokenRequests.at(-1)).toMatchObject({ grantType: 'client_credentials', clientId: 'machine', authMethod: 'client_secret_basic' });
      expect(oauth.authorizeRequests).toEqual([]);
      expect(JSON.stringify(events)).not.toContain('machine-secret-value');
    } finally {
      delete process.env.M2M_SECRET;
    }
  });
});
