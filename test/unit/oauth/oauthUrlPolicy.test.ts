import { describe, expect, it } from 'vitest';
import { fetchRefusal, isLoopbackHost, openableAuthorizationUrl, usableResourceMetadataUrl } from '../../../src/model/oauth/oauthUrlPolicy.js';
import { openInBrowser } from '../../../src/sinks/remote/openBrowser.js';
import { AuthorizationInProgress, McpOAuthProvider } from '../../../src/sinks/remote/oauthProvider.js';
import { memoryTokenStore } from './memoryTokenStore.js';

/**
 * Which URLs OAuth opens and fetches (decisions 189–191), and the one-flow rule (decision 187).
 * Nothing here touches the network: the fetches go to a fake that records what reached it.
 */

const SERVER = 'http://127.0.0.1:4100/mcp';

describe('loopback hosts', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.8.9.10', true],
    ['localhost', true],
    ['LOCALHOST', true],
    ['app.localhost', true],
    ['[::1]', true],
    ['128.0.0.1', false],
    ['127.0.0.1.example.com', false],
    ['localhost.example.com', false],
    ['10.0.0.1', false],
    ['169.254.169.254', false],
    ['[::ffff:127.0.0.1]', false],
  ])('%s → %s', (host, loopback) => {
    expect(isLoopbackHost(host)).toBe(loopback);
  });
});

describe('an authorization URL a browser may be sent to', () => {
  it.each(['https://auth.example.com/authorize?x=1', 'http://127.0.0.1:9/authorize', 'http://localhost/authorize', 'http://[::1]:8080/a'])('%s is opened', (url) => {
    expect(openableAuthorizationUrl(url).href).toBe(new URL(url).href);
  });

  it.each([
    ['javascript:alert(1)', '(javascript:)'],
    ['file:///etc/passwd', '(file:)'],
    ['x-foo:open', '(x-foo:)'],
    ['data:text/html,<script>1</script>', '(data:)'],
    ['http://example.com/authorize?state=secret', '(http://example.com)'],
    ['http://10.0.0.1/authorize', '(http://10.0.0.1)'],
    ['https://169.254.169.254/', '(https://169.254.169.254)'],
  ])('%s is refused, naming only where it goes', (url, where) => {
    expect(() => openableAuthorizationUrl(url)).toThrow(`refused to open the authorization URL ${where}: only https: URLs, or http: to a loopback host`);
  });

  it('the browser opener refuses the same URLs before any system opener runs', async () => {
    const launched: string[] = [];
    const opener = (url: string) => Promise.resolve(void launched.push(url));
    await openInBrowser('https://auth.example.com/authorize', opener);
    for (const url of ['javascript:alert(1)', 'file:///etc/passwd', 'x-foo:bar', 'http://192.0.2.1/']) {
      await expect(openInBrowser(url, opener)).rejects.toThrow(/refused to open the authorization URL/);
    }
    expect(launched).toEqual(['https://auth.example.com/authorize']);
  });
});

describe('what OAuth may fetch for a server', () => {
  it.each([
    ['the server itself, whatever its scheme', 'http://intranet.example:8080/.well-known/oauth-protected-resource', 'http://intranet.example:8080/mcp'],
    ['an https authorization server elsewhere', 'https://auth.example.com/.well-known/oauth-authorization-server', SERVER],
    ['a loopback http authorization server', 'http://127.0.0.1:4200/token', SERVER],
  ])('%s', (_what, url, server) => {
    expect(fetchRefusal(new URL(url), server)).toBeUndefined();
  });

  it.each([
    ['http://169.254.169.254/latest/meta-data/', 'a link-local or unspecified address'],
    ['https://169.254.169.254/', 'a link-local or unspecified address'],
    ['http://[fe80::1]/', 'a link-local or unspecified address'],
    ['http://[::ffff:169.254.169.254]/', 'a link-local or unspecified address'],
    ['http://0.0.0.0:80/', 'a link-local or unspecified address'],
    ['http://10.0.0.5/register', 'only https: URLs, or http: to a loopback host'],
    ['http://auth.example.com/token', 'only https: URLs, or http: to a loopback host'],
    ['file:///etc/passwd', 'only https: URLs, or http: to a loopback host'],
  ])('%s is refused: %s', (url, why) => {
    expect(fetchRefusal(new URL(url), SERVER)).toMatch(why);
  });

  it('resource_metadata only on the server\'s own origin', () => {
    const own = new URL('http://127.0.0.1:4100/.well-known/oauth-protected-resource/mcp');
    expect(usableResourceMetadataUrl(own, SERVER)).toBe(own);
    for (const other of ['http://127.0.0.1:4101/.well-known/oauth-protected-resource', 'http://169.254.169.254/', 'file:///etc/passwd', 'javascript:alert(1)']) {
      expect(usableResourceMetadataUrl(new URL(other), SERVER)).toBeUndefined();
    }
  });
});

/** A fake network: records each URL asked for and answers with `answer`. */
function fakeNetwork(answer: (url: string) => Response): { fetch: (url: string | URL, init?: RequestInit) => Promise<Response>; asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    fetch: (url) => {
      asked.push(String(url));
      return Promise.resolve(answer(String(url)));
    },
  };
}

describe('the provider\'s fetch (decisions 190, 191)', () => {
  it('a refused URL never reaches the network; the server and a loopback authorization server do', async () => {
    const provider = new McpOAuthProvider('remote', SERVER, undefined, memoryTokenStore());
    const net = fakeNetwork(() => new Response('{}', { status: 200 }));
    const fetchFn = provider.observe(net.fetch);
    await fetchFn(SERVER, { method: 'POST' });
    await fetchFn('http://127.0.0.1:4200/.well-known/oauth-authorization-server');
    for (const url of ['http://169.254.169.254/latest/meta-data/', 'http://10.0.0.5/token', 'file:///etc/passwd']) {
      await expect(fetchFn(url)).rejects.toThrow(/refused to fetch/);
    }
    expect(net.asked).toEqual([SERVER, 'http://127.0.0.1:4200/.well-known/oauth-authorization-server']);
  });

  it('a redirect to another origin is not followed (a token endpoint cannot bounce mcp-live to an internal address)', async () => {
    const provider = new McpOAuthProvider('remote', SERVER, undefined, memoryTokenStore());
    const net = fakeNetwork((url) =>
      url.endsWith('/token') ? new Response(null, { status: 307, headers: { location: 'http://127.0.0.1:4300/internal' } }) : new Response('{}'),
    );
    const response = await provider.observe(net.fetch)('http://127.0.0.1:4200/token', { method: 'POST', body: 'x' });
    expect(response.status).toBe(307);
    expect(net.asked).toEqual(['http://127.0.0.1:4200/token']);
  });

  it('a challenge\'s resource_metadata on another origin is dropped before the SDK sees it; scope and error stay', async () => {
    const provider = new McpOAuthProvider('remote', SERVER, undefined, memoryTokenStore());
    const challenge = 'Bearer resource_metadata="http://169.254.169.254/latest/meta-data/", scope="mcp", error="invalid_token"';
    const net = fakeNetwork(() => new Response('{}', { status: 401, headers: { 'www-authenticate': challenge } }));
    const response = await provider.observe(net.fetch)(SERVER, { method: 'POST' });
    expect(response.status).toBe(401);
    const header = response.headers.get('www-authenticate')!;
    expect(header).not.toMatch(/resource_metadata=/);
    expect(header).toMatch(/^Bearer .*scope="mcp".*error="invalid_token"/);
    expect(provider.challenge).toEqual({ scope: 'mcp', resourceMetadataUrl: undefined, stepUp: false });
    expect(net.asked).toEqual([SERVER]);
  });

  it('the server\'s own resource_metadata is kept', async () => {
    const provider = new McpOAuthProvider('remote', SERVER, undefined, memoryTokenStore());
    const own = 'http://127.0.0.1:4100/.well-known/oauth-protected-resource/mcp';
    const net = fakeNetwork(() => new Response('{}', { status: 401, headers: { 'www-authenticate': `Bearer resource_metadata="${own}"` } }));
    const response = await provider.observe(net.fetch)(SERVER);
    expect(response.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${own}"`);
    expect(provider.challenge.resourceMetadataUrl?.href).toBe(own);
  });
});

describe('one interactive authorization per server (decision 187)', () => {
  const flow = (opened: URL[]) => ({ redirectUrl: 'http://127.0.0.1:4500/callback', state: 'flow-state', onAuthorizationUrl: (url: URL) => void opened.push(url) });

  it('while a flow is open the transport\'s provider starts nothing: no state, no registration, no URL, the flow\'s verifier kept', async () => {
    const background = new McpOAuthProvider('remote', SERVER, undefined, memoryTokenStore());
    const opened: URL[] = [];
    const interactive = background.beginInteractive(flow(opened));
    interactive.saveCodeVerifier('the-flows-verifier');
    expect(background.authorizing).toBe(true);
    expect(() => background.state()).toThrow(AuthorizationInProgress);
    await expect(background.clientInformation()).rejects.toThrow('authorization in progress');
    background.saveCodeVerifier('another-verifier');
    background.redirectToAuthorization(new URL('https://auth.example.com/authorize?state=x'));
    expect(opened).toEqual([]);
    expect(interactive.codeVerifier()).toBe('the-flows-verifier');
    expect(interactive.state()).toBe('flow-state');
    expect(() => background.beginInteractive(flow(opened))).toThrow(AuthorizationInProgress);

    interactive.endInteractive();
    expect(background.authorizing).toBe(false);
    expect(background.state()).not.toBe('flow-state');
    background.beginInteractive(flow(opened)).endInteractive();
  });
});
