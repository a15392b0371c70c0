import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { ClientCredentialsProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { afterEach, describe, expect, it } from 'vitest';
import { playBrowser, startOAuthFixture, type OAuthFixture, type OAuthFixtureOptions } from '../../fixtures/oauth/authServer.js';
import { textOf } from '../mcpServers.js';

/**
 * The OAuth fixture, judged by the SDK's own OAuth client (discovery, registration, PKCE, refresh,
 * step-up) and by hand-made requests where a spec rule is easier to see in the raw.
 */

const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  // Clients before servers, so no request is cut off half-way.
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function fixture(options?: OAuthFixtureOptions): Promise<OAuthFixture> {
  const started = await startOAuthFixture(options);
  cleanups.push(() => started.close());
  return started;
}

/** The client's loopback redirect target: keeps what the "browser" delivered to it. */
interface Callback {
  redirectUrl: string;
  received: URLSearchParams[];
  /** The code of the latest redirect, which must have carried one. */
  takeCode(): string;
}

async function startCallback(): Promise<Callback> {
  const received: URLSearchParams[] = [];
  const server = createServer((req, res) => {
    received.push(new URL(req.url ?? '/', 'http://127.0.0.1').searchParams);
    res.writeHead(200, { 'content-type': 'text/plain' }).end('You may close this window.');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    redirectUrl: `http://127.0.0.1:${port}/callback`,
    received,
    takeCode: () => {
      const code = received.at(-1)?.get('code');
      if (!code) throw new Error(`no code in the last redirect (error: ${received.at(-1)?.get('error') ?? 'none'})`);
      return code;
    },
  };
}

/** An in-memory OAuthClientProvider whose "browser" is playBrowser. */
class MemoryProvider implements OAuthClientProvider {
  readonly states: string[] = [];
  readonly browserStatuses: number[] = [];
  #tokens: OAuthTokens | undefined;
  #verifier = '';

  constructor(
    readonly redirectUrl: string,
    readonly clientMetadata: OAuthClientMetadata,
    private info?: OAuthClientInformationMixed,
  ) {}

  state(): string {
    this.states.push(randomUUID());
    return this.states.at(-1)!;
  }
  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed): void {
    this.info = info;
  }
  tokens(): OAuthTokens | undefined {
    return this.#tokens;
  }
  saveTokens(tokens: OAuthTokens): void {
    this.#tokens = tokens;
  }
  async redirectToAuthorization(url: URL): Promise<void> {
    this.browserStatuses.push(await playBrowser(url.href));
  }
  saveCodeVerifier(verifier: string): void {
    this.#verifier = verifier;
  }
  codeVerifier(): string {
    return this.#verifier;
  }
  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    if (scope === 'all' || scope === 'client') this.info = undefined;
    if (scope === 'all' || scope === 'tokens') this.#tokens = undefined;
  }
}

function publicClient(callback: Callback, info?: OAuthClientInformationMixed): MemoryProvider {
  return new MemoryProvider(
    callback.redirectUrl,
    {
      client_name: 'oauth-fixture-test',
      redirect_uris: [callback.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    },
    info,
  );
}

interface Connection {
  client: Client;
  transport: StreamableHTTPClientTransport;
}

function connection(target: OAuthFixture, provider: OAuthClientProvider): Connection {
  const transport = new StreamableHTTPClientTransport(new URL(target.mcpUrl), { authProvider: provider });
  const client = new Client({ name: 'oauth-fixture-test', version: '1.0.0' });
  cleanups.push(() => client.close());
  return { client, transport };
}

async function connected(target: OAuthFixture, provider: OAuthClientProvider): Promise<Connection> {
  const made = connection(target, provider);
  await made.client.connect(made.transport);
  return made;
}

/** The interactive sign-in: the first connect ends at the browser, finishAuth trades the code, the second connect works. */
async function signIn(target: OAuthFixture, provider: MemoryProvider, callback: Callback): Promise<Connection> {
  const first = connection(target, provider);
  await expect(first.client.connect(first.transport)).rejects.toBeInstanceOf(UnauthorizedError);
  await first.transport.finishAuth(callback.takeCode());
  return connected(target, provider);
}

async function whoami(client: Client): Promise<string> {
  return textOf(await client.callTool({ name: 'whoami', arguments: {} }));
}

function postInitialize(target: OAuthFixture, accessToken?: string): Promise<Response> {
  return fetch(target.mcpUrl, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(accessToken ? { authorization: `Bearer ${accessToken}` } : {}),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    }),
  });
}

async function getJson(url: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(url);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function tokenRequest(target: OAuthFixture, params: Record<string, string>, headers: Record<string, string> = {}) {
  const response = await fetch(`${target.issuer}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(params),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, unknown> };
}

const basic = (id: string, secret: string): Record<string, string> => ({ authorization: `Basic ${btoa(`${id}:${secret}`)}` });

function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** GET /authorize by hand, without following the redirect. */
function authorizeRaw(target: OAuthFixture, params: Record<string, string>): Promise<Response> {
  return fetch(`${target.issuer}/authorize?${new URLSearchParams(params).toString()}`, { redirect: 'manual' });
}

describe('OAuth fixture metadata and challenges', () => {
  it('answers a request without a token with 401 and serves RFC 9728 and RFC 8414 metadata', async () => {
    const target = await fixture();
    const origin = new URL(target.mcpUrl).origin;
    const unauthenticated = await postInitialize(target);
    expect(unauthenticated.status).toBe(401);
    expect(unauthenticated.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`);
    expect(target.mcpRequests).toEqual([{ method: 'initialize', authorized: false }]);

    expect(await getJson(`${origin}/.well-known/oauth-protected-resource/mcp`)).toEqual({
      status: 200,
      body: { resource: target.mcpUrl, authorization_servers: [target.issuer], scopes_supported: ['mcp'], bearer_methods_supported: ['header'] },
    });
    expect((await getJson(`${origin}/.well-known/oauth-protected-resource`)).status).toBe(404);
    expect(new URL(target.issuer).port).not.toBe(new URL(origin).port);
    const metadata = await getJson(`${target.issuer}/.well-known/oauth-authorization-server`);
    expect(metadata.body).toMatchObject({
      issuer: target.issuer,
      authorization_endpoint: `${target.issuer}/authorize`,
      token_endpoint: `${target.issuer}/token`,
      registration_endpoint: `${target.issuer}/register`,
      response_types_supported: ['code'],
      code_challenge_methods_supported: ['S256'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
      scopes_supported: ['mcp'],
    });
    expect((await getJson(`${target.issuer}/.well-known/openid-configuration`)).status).toBe(404);
  });

  it('follows its options: root metadata, 401 scope, no registration, OpenID configuration', async () => {
    const target = await fixture({
      dcr: false,
      prmPath: 'root',
      wwwAuthenticateScope: 'mcp',
      refreshTokens: false,
      clientCredentials: true,
      serveOpenIdConfiguration: true,
      scopesSupported: ['mcp', 'admin'],
      tokenEndpointAuthMethods: ['client_secret_post'],
    });
    const origin = new URL(target.mcpUrl).origin;
    expect((await postInitialize(target)).headers.get('www-authenticate')).toBe(
      `Bearer scope="mcp", resource_metadata="${origin}/.well-known/oauth-protected-resource"`,
    );
    expect((await getJson(`${origin}/.well-known/oauth-protected-resource`)).body.scopes_supported).toEqual(['mcp', 'admin']);
    expect((await getJson(`${origin}/.well-known/oauth-protected-resource/mcp`)).status).toBe(404);
    const metadata = (await getJson(`${target.issuer}/.well-known/oauth-authorization-server`)).body;
    expect(metadata.registration_endpoint).toBeUndefined();
    expect(metadata.grant_types_supported).toEqual(['authorization_code', 'client_credentials']);
    expect(metadata.token_endpoint_auth_methods_supported).toEqual(['client_secret_post']);
    const openId = await getJson(`${target.issuer}/.well-known/openid-configuration`);
    expect(openId.body).toMatchObject({ issuer: target.issuer, jwks_uri: `${target.issuer}/jwks`, subject_types_supported: ['public'] });
    const register = await fetch(`${target.issuer}/register`, { method: 'POST', body: '{}' });
    expect(register.status).toBe(404);
  });
});

describe('OAuth fixture with the SDK client', () => {
  it('goes 401 -> registration -> authorization -> token -> tools/list', async () => {
    const target = await fixture();
    const callback = await startCallback();
    const provider = publicClient(callback);
    const { client } = await signIn(target, provider, callback);

    const clientId = provider.clientInformation()!.client_id;
    expect(target.registrations).toEqual([{ clientName: 'oauth-fixture-test', redirectUris: [callback.redirectUrl] }]);
    expect(target.authorizeRequests).toEqual([
      { clientId, scope: 'mcp', resource: target.mcpUrl, redirectUri: callback.redirectUrl, codeChallengeMethod: 'S256' },
    ]);
    expect(provider.browserStatuses).toEqual([200]);
    expect(callback.received.map((params) => params.get('state'))).toEqual(provider.states);
    expect(target.tokenRequests).toEqual([{ grantType: 'authorization_code', clientId, authMethod: 'none', resource: target.mcpUrl }]);

    expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(['echo', 'whoami']);
    expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'hello' } }))).toBe('hello');
    expect(await whoami(client)).toBe('mcp');
    expect(target.mcpRequests[0]).toEqual({ method: 'initialize', authorized: false });
    expect(target.mcpRequests.slice(1)).toContainEqual({ method: 'tools/list', authorized: true });
    expect(target.mcpRequests.filter((r) => !r.authorized)).toHaveLength(1);

    const get = await fetch(target.mcpUrl, { headers: { accept: 'text/event-stream' } });
    expect(get.status).toBe(405);
  });

  it('refreshes after expireAccessTokens, rotating the refresh token', async () => {
    const target = await fixture();
    const callback = await startCallback();
    const provider = publicClient(callback);
    const { client } = await signIn(target, provider, callback);
    const before = provider.tokens()!;

    target.expireAccessTokens();
    const stale = await postInitialize(target, before.access_token);
    expect(stale.status).toBe(401);
    expect(stale.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token", resource_metadata="/);

    expect(await whoami(client)).toBe('mcp');
    expect(target.tokenRequests.map((r) => r.grantType)).toEqual(['authorization_code', 'refresh_token']);
    expect(target.tokenRequests[1]).toMatchObject({ authMethod: 'none', resource: target.mcpUrl });
    expect(target.authorizeRequests).toHaveLength(1);
    expect(provider.tokens()!.refresh_token).not.toBe(before.refresh_token);
    expect(target.mcpRequests.filter((r) => r.method === 'tools/call')).toEqual([
      { method: 'tools/call', authorized: false },
      { method: 'tools/call', authorized: true },
    ]);

    const replay = await tokenRequest(target, {
      grant_type: 'refresh_token',
      refresh_token: before.refresh_token!,
      client_id: provider.clientInformation()!.client_id,
    });
    expect(replay).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });

  it('after revokeAll answers 401 invalid_token, refuses the refresh token and takes a new sign-in', async () => {
    const target = await fixture();
    const callback = await startCallback();
    const provider = publicClient(callback);
    const { client, transport } = await signIn(target, provider, callback);
    const revoked = provider.tokens()!.access_token;

    target.revokeAll();
    const response = await postInitialize(target, revoked);
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toContain('error="invalid_token"');

    await expect(whoami(client)).rejects.toBeInstanceOf(UnauthorizedError);
    expect(target.tokenRequests.map((r) => r.grantType)).toEqual(['authorization_code', 'refresh_token']);
    expect(target.authorizeRequests).toHaveLength(2);
    await transport.finishAuth(callback.takeCode());
    expect(await whoami(client)).toBe('mcp');
    expect(target.registrations).toHaveLength(1);
  });

  it('steps up: 403 insufficient_scope for a method, then a token with the needed scopes', async () => {
    const target = await fixture({
      scopesSupported: ['mcp', 'tools:call'],
      wwwAuthenticateScope: 'mcp',
      requiredScopes: { 'tools/call': ['mcp', 'tools:call'] },
      // Without a refresh token the SDK re-authorizes for the wider scope instead of refreshing the narrow one.
      refreshTokens: false,
    });
    const callback = await startCallback();
    const provider = publicClient(callback);
    const { client, transport } = await signIn(target, provider, callback);
    expect(target.authorizeRequests[0]!.scope).toBe('mcp');
    expect((await client.listTools()).tools).toHaveLength(2);

    const origin = new URL(target.mcpUrl).origin;
    const forbidden = await fetch(target.mcpUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${provider.tokens()!.access_token}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'whoami', arguments: {} } }),
    });
    expect(forbidden.status).toBe(403);
    expect(forbidden.headers.get('www-authenticate')).toBe(
      `Bearer error="insufficient_scope", scope="mcp tools:call", resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`,
    );

    await expect(whoami(client)).rejects.toBeInstanceOf(UnauthorizedError);
    expect(target.authorizeRequests[1]).toMatchObject({ scope: 'mcp tools:call', resource: target.mcpUrl });
    await transport.finishAuth(callback.takeCode());
    expect(await whoami(client)).toBe('mcp tools:call');
    expect(target.mcpRequests.filter((r) => r.method === 'tools/call').map((r) => r.authorized)).toEqual([false, false, true]);
  });

  it.each(['client_secret_basic', 'client_secret_post'] as const)('signs in a pre-registered %s client', async (method) => {
    const target = await fixture({
      dcr: false,
      preRegistered: [
        { clientId: 'basic-app', clientSecret: 'basic-secret', authMethod: 'client_secret_basic' },
        { clientId: 'post-app', clientSecret: 'post-secret', authMethod: 'client_secret_post' },
      ],
    });
    const [clientId, secret] = method === 'client_secret_basic' ? ['basic-app', 'basic-secret'] : ['post-app', 'post-secret'];
    const callback = await startCallback();
    const provider = publicClient(callback, { client_id: clientId, client_secret: secret, token_endpoint_auth_method: method });
    const { client } = await signIn(target, provider, callback);
    expect(await whoami(client)).toBe('mcp');
    expect(target.registrations).toEqual([]);
    expect(target.tokenRequests).toEqual([{ grantType: 'authorization_code', clientId, authMethod: method, resource: target.mcpUrl }]);

    const refresh = { grant_type: 'refresh_token', refresh_token: provider.tokens()!.refresh_token! };
    const wrongSecret = await tokenRequest(target, refresh, basic('basic-app', 'guess'));
    expect(wrongSecret).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
    expect(wrongSecret.headers.get('www-authenticate')).toMatch(/^Basic /);
    const otherMethod =
      method === 'client_secret_basic'
        ? await tokenRequest(target, { ...refresh, client_id: clientId, client_secret: secret })
        : await tokenRequest(target, refresh, basic(clientId, secret));
    expect(otherMethod).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
  });

  it('grants client_credentials to a pre-registered confidential client', async () => {
    const target = await fixture({
      dcr: false,
      clientCredentials: true,
      preRegistered: [{ clientId: 'machine', clientSecret: 'machine-secret' }, { clientId: 'public-app' }],
    });
    const provider = new ClientCredentialsProvider({ clientId: 'machine', clientSecret: 'machine-secret', scope: 'mcp', expectedIssuer: target.issuer });
    const { client } = await connected(target, provider);
    expect(await whoami(client)).toBe('mcp');
    expect(provider.tokens()?.refresh_token).toBeUndefined();
    expect(target.tokenRequests).toEqual([
      { grantType: 'client_credentials', clientId: 'machine', authMethod: 'client_secret_basic', resource: target.mcpUrl, scope: 'mcp' },
    ]);

    target.expireAccessTokens();
    expect(await whoami(client)).toBe('mcp');
    expect(target.tokenRequests.map((r) => r.grantType)).toEqual(['client_credentials', 'client_credentials']);
    expect(target.authorizeRequests).toEqual([]);

    const publicAttempt = await tokenRequest(target, { grant_type: 'client_credentials', client_id: 'public-app' });
    expect(publicAttempt).toMatchObject({ status: 400, body: { error: 'unauthorized_client' } });
  });
});

describe('OAuth fixture protocol rules', () => {
  async function registered(target: OAuthFixture, body: Record<string, unknown>) {
    const response = await fetch(`${target.issuer}/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: response.status, body: (await response.json()) as Record<string, string> };
  }

  it('registers only loopback http redirect URIs and keeps errors from unverified redirect URIs', async () => {
    const target = await fixture();
    const remote = await registered(target, { redirect_uris: ['http://example.com/callback'] });
    expect(remote).toMatchObject({ status: 400, body: { error: 'invalid_redirect_uri' } });
    const confidential = await registered(target, { client_name: 'app', redirect_uris: ['http://127.0.0.1:1/callback'] });
    expect(confidential.status).toBe(201);
    expect(confidential.body).toMatchObject({ token_endpoint_auth_method: 'client_secret_basic', client_name: 'app' });
    expect(confidential.body.client_secret).toEqual(expect.any(String));

    const { challenge } = pkcePair();
    const base = { response_type: 'code', client_id: confidential.body.client_id!, code_challenge: challenge, code_challenge_method: 'S256', state: 'xyz' };
    const elsewhere = await authorizeRaw(target, { ...base, redirect_uri: 'http://127.0.0.1:1/other' });
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.headers.get('location')).toBeNull();
    expect(await playBrowser(`${target.issuer}/authorize?${new URLSearchParams({ ...base, client_id: 'nobody', redirect_uri: 'http://127.0.0.1:1/callback' }).toString()}`)).toBe(400);

    // Any port on the registered loopback URI (RFC 8252 §7.3).
    const callback = await startCallback();
    const otherPort = { ...base, redirect_uri: callback.redirectUrl };
    const accepted = new URL((await authorizeRaw(target, otherPort)).headers.get('location')!);
    expect(accepted.origin + accepted.pathname).toBe(callback.redirectUrl);
    expect(accepted.searchParams.get('state')).toBe('xyz');
    expect(accepted.searchParams.get('code')).toEqual(expect.any(String));

    const errorOf = async (params: Record<string, string>) => {
      const location = new URL((await authorizeRaw(target, params)).headers.get('location')!);
      return [location.searchParams.get('error'), location.searchParams.get('state')];
    };
    const { code_challenge: _, ...withoutChallenge } = otherPort;
    expect(await errorOf(withoutChallenge)).toEqual(['invalid_request', 'xyz']);
    expect(await errorOf({ ...otherPort, code_challenge_method: 'plain' })).toEqual(['invalid_request', 'xyz']);
    expect(await errorOf({ ...otherPort, response_type: 'token' })).toEqual(['unsupported_response_type', 'xyz']);
    expect(await errorOf({ ...otherPort, scope: 'mcp admin' })).toEqual(['invalid_scope', 'xyz']);
    expect(await errorOf({ ...otherPort, resource: 'http://127.0.0.1:1/mcp' })).toEqual(['invalid_target', 'xyz']);
  });

  it('redeems a code once, with the PKCE verifier, the same redirect URI and the client authentication registered', async () => {
    const target = await fixture();
    const callback = await startCallback();
    const app = await registered(target, { redirect_uris: [callback.redirectUrl], token_endpoint_auth_method: 'client_secret_post' });
    const credentials = { client_id: app.body.client_id!, client_secret: app.body.client_secret! };
    const newCode = async (challenge: string) => {
      const status = await playBrowser(
        `${target.issuer}/authorize?${new URLSearchParams({
          response_type: 'code',
          client_id: credentials.client_id,
          redirect_uri: callback.redirectUrl,
          code_challenge: challenge,
          code_challenge_method: 'S256',
          scope: 'mcp',
          resource: target.mcpUrl,
        }).toString()}`,
      );
      expect(status).toBe(200);
      return callback.takeCode();
    };
    const pkce = pkcePair();
    const exchange = (code: string, extra: Record<string, string> = {}, auth: Record<string, string> = credentials) =>
      tokenRequest(target, { grant_type: 'authorization_code', code, redirect_uri: callback.redirectUrl, code_verifier: pkce.verifier, ...auth, ...extra });

    expect(await exchange(await newCode(pkce.challenge), { code_verifier: pkcePair().verifier })).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(await exchange(await newCode(pkce.challenge), { redirect_uri: `${callback.redirectUrl}x` })).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(await exchange(await newCode(pkce.challenge), {}, { client_id: credentials.client_id })).toMatchObject({ status: 401, body: { error: 'invalid_client' } });

    const code = await newCode(pkce.challenge);
    const granted = await exchange(code);
    expect(granted).toMatchObject({ status: 200, body: { token_type: 'Bearer', expires_in: 3600, scope: 'mcp' } });
    expect(granted.headers.get('cache-control')).toBe('no-store');
    expect(await exchange(code)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect((await postInitialize(target, granted.body.access_token as string)).status).toBe(200);

    const widen = await tokenRequest(target, { grant_type: 'refresh_token', refresh_token: granted.body.refresh_token as string, scope: 'mcp admin', ...credentials });
    expect(widen).toMatchObject({ status: 400, body: { error: 'invalid_scope' } });
    expect(target.tokenRequests.at(-1)).toEqual({ grantType: 'refresh_token', clientId: credentials.client_id, authMethod: 'client_secret_post', scope: 'mcp admin' });
    const unsupported = await tokenRequest(target, { grant_type: 'client_credentials', ...credentials });
    expect(unsupported).toMatchObject({ status: 400, body: { error: 'unsupported_grant_type' } });
  });
});
