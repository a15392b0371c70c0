import { afterEach, describe, expect, it } from 'vitest';
import { startOAuthFixture, type OAuthFixture } from '../../fixtures/oauth/authServer.js';
import { noLeftoversAfterAll, until } from '../workspace.js';
import { attemptSignIn, oauthSession, signIn, tokenRecords, type OAuthSession } from './oauthSession.js';

/**
 * The authorization rules of MCP 2026-07-28 as a client of remote servers, against the real
 * fixture servers: the authorization response's `iss` (RFC 9207) is checked before a code goes
 * anywhere (decision 397); a client and its tokens belong to the authorization server that issued
 * them, and a server that moves to another one gets a new registration there and nothing of the
 * old one (decision 395); a registration says `application_type: native` (decision 398); a client
 * ID metadata document is used where the authorization server takes one; a resource that names
 * another server is refused; `offline_access` is asked for only where the authorization server offers it.
 */

let oauth: OAuthFixture | undefined;
let session: OAuthSession | undefined;

afterEach(async () => {
  await session?.dispose();
  session = undefined;
  await oauth?.close();
  oauth = undefined;
});
noLeftoversAfterAll();

async function start(servers: Record<string, unknown>): Promise<OAuthSession> {
  session = await oauthSession(servers);
  return session;
}

describe('RFC 9207: the authorization response names its issuer', () => {
  it('an iss equal to the issuer is taken: the code is exchanged and the server connects', async () => {
    oauth = await startOAuthFixture({ issParameterSupported: true });
    const { live } = await start({ remote: { httpUrl: oauth.mcpUrl } });
    await signIn(live, 'remote');
    expect(oauth.tokenRequests.map((t) => t.grantType)).toEqual(['authorization_code']);
  });

  for (const [issInResponse, why] of [
    ['wrong', 'another issuer (a mix-up)'],
    ['trailing-slash', 'the issuer with a trailing slash: equal only after normalizing'],
    ['none', 'no iss although the metadata promises one'],
  ] as const) {
    it(`an answer with ${why} is refused before the code goes to any token endpoint`, async () => {
      oauth = await startOAuthFixture({ issParameterSupported: true, issInResponse });
      const { live } = await start({ remote: { httpUrl: oauth.mcpUrl } });
      const { error } = await attemptSignIn(live, 'remote');
      expect(error?.message).toMatch(/issuer/i);
      expect(oauth.authorizeRequests).toHaveLength(1);
      expect(oauth.tokenRequests).toEqual([]);
      expect(live.servers.status().find((s) => s.name === 'remote')?.state).not.toBe('connected');
    });
  }

  it('an iss that the metadata does not promise is still compared, and a wrong one refused', async () => {
    oauth = await startOAuthFixture({ issParameterSupported: false, issInResponse: 'wrong' });
    const { live } = await start({ remote: { httpUrl: oauth.mcpUrl } });
    const { error } = await attemptSignIn(live, 'remote');
    expect(error?.message).toMatch(/issuer/i);
    expect(oauth.tokenRequests).toEqual([]);
  });

  it("an error answer's description is shown only when its iss is the issuer's", async () => {
    // A scope the authorization server does not know: it answers with an error in the redirect.
    oauth = await startOAuthFixture({ issParameterSupported: true, wwwAuthenticateScope: 'unheard-of' });
    let { live } = await start({ remote: { httpUrl: oauth.mcpUrl } });
    const genuine = await attemptSignIn(live, 'remote');
    expect(genuine.error?.message).toBe('the authorization server refused: invalid_scope (unsupported scope: unheard-of)');
    await session!.dispose();
    session = undefined;
    await oauth.close();

    oauth = await startOAuthFixture({ issParameterSupported: true, issInResponse: 'wrong', wwwAuthenticateScope: 'unheard-of' });
    ({ live } = await start({ remote: { httpUrl: oauth.mcpUrl } }));
    const forged = await attemptSignIn(live, 'remote');
    expect(forged.error?.message).toMatch(/issuer/i);
    expect(forged.error?.message).not.toMatch(/unsupported scope|invalid_scope/);
    expect(JSON.stringify(session!.events)).not.toContain('unsupported scope');
  });
});

describe('credentials belong to the authorization server that issued them', () => {
  it('a server that moves to another authorization server: registered there anew, nothing of the old one sent to it', async () => {
    oauth = await startOAuthFixture({ wwwAuthenticateScope: 'mcp' });
    const s = await start({ remote: { httpUrl: oauth.mcpUrl } });
    await signIn(s.live, 'remote');
    const oldClient = oauth.authorizeRequests[0]!.clientId;
    const oldTokenRequests = oauth.tokenRequests.length;

    const moved = await oauth.moveAuthorizationServer();
    await expect(s.live.tools.call('mcp__remote__echo', { text: 'x' })).rejects.toThrow(/needs authentication/);
    await signIn(s.live, 'remote');
    expect(await s.live.tools.call('mcp__remote__echo', { text: 'there' })).toMatchObject({ content: [{ text: 'there' }] });

    expect(moved.registrations).toHaveLength(1);
    expect(moved.authorizeRequests.map((r) => r.clientId)).not.toContain(oldClient);
    expect(moved.tokenRequests.map((r) => r.clientId)).not.toContain(oldClient);
    expect(moved.tokenRequests.map((r) => r.clientId)).toEqual([moved.authorizeRequests[0]!.clientId]);
    // The old authorization server saw no refresh either: the server no longer names it.
    expect(oauth.tokenRequests).toHaveLength(oldTokenRequests);

    const records = await tokenRecords(s);
    expect(Object.keys(records).sort()).toEqual([`${oauth.mcpUrl} dynamic ${oauth.issuer}`, `${oauth.mcpUrl} dynamic ${moved.issuer}`].sort());
    expect(records[`${oauth.mcpUrl} dynamic ${moved.issuer}`]).toMatchObject({ server: 'remote', issuer: moved.issuer, client: { issuer: moved.issuer } });
  });

  it('a pre-registered client is not sent to the authorization server the server moved to: the user is told', async () => {
    oauth = await startOAuthFixture({ dcr: false, preRegistered: [{ clientId: 'app', clientSecret: 'app-secret-value' }] });
    const s = await start({ remote: { httpUrl: oauth.mcpUrl, oauth: { clientId: 'app', clientSecret: 'app-secret-value' } } });
    await signIn(s.live, 'remote');
    const moved = await oauth.moveAuthorizationServer();
    const told = /the authorization server of remote is now \S+, not \S+ where oauth\.clientId was used/;
    await expect(s.live.tools.call('mcp__remote__echo', { text: 'x' })).rejects.toThrow(told);
    await expect(s.live.auth.authenticate('remote')).rejects.toThrow(told);
    expect(moved.authorizeRequests).toEqual([]);
    expect(moved.tokenRequests).toEqual([]);
  });
});

describe('registration', () => {
  it('dynamic registration says application_type native, with the loopback redirect and refresh_token', async () => {
    oauth = await startOAuthFixture();
    const { live } = await start({ remote: { httpUrl: oauth.mcpUrl } });
    await signIn(live, 'remote');
    expect(oauth.registrationBodies).toHaveLength(1);
    expect(oauth.registrationBodies[0]).toMatchObject({
      application_type: 'native',
      redirect_uris: [expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/callback$/)],
      grant_types: ['authorization_code', 'refresh_token'],
    });
  });

  it('a client ID metadata document is used where the authorization server takes one, and nothing is registered', async () => {
    const document = 'https://client.example.com/mcp-live.json';
    oauth = await startOAuthFixture({ clientIdMetadataDocuments: true });
    const { live } = await start({ remote: { httpUrl: oauth.mcpUrl, oauth: { clientMetadataUrl: document } } });
    await signIn(live, 'remote');
    expect(oauth.registrations).toEqual([]);
    expect(oauth.authorizeRequests.map((r) => r.clientId)).toEqual([document]);
    expect(oauth.tokenRequests).toEqual([expect.objectContaining({ grantType: 'authorization_code', clientId: document, authMethod: 'none' })]);
  });

  it('where the authorization server takes no metadata document, the same entry registers dynamically', async () => {
    oauth = await startOAuthFixture({ clientIdMetadataDocuments: false });
    const { live } = await start({ remote: { httpUrl: oauth.mcpUrl, oauth: { clientMetadataUrl: 'https://client.example.com/mcp-live.json' } } });
    await signIn(live, 'remote');
    expect(oauth.registrations).toHaveLength(1);
  });
});

describe('the resource and the scope', () => {
  it('resource metadata naming another resource is refused: no authorization starts', async () => {
    oauth = await startOAuthFixture({ resourceOverride: 'https://evil.example.com/mcp' });
    const { live } = await start({ remote: { httpUrl: oauth.mcpUrl } });
    const failed = await until(live, 'remote', (s) => s.state === 'error' || s.state === 'needs_auth');
    await expect(live.auth.authenticate('remote')).rejects.toThrow(/evil\.example\.com\/mcp does not match/);
    expect(failed.error).toBeDefined();
    expect(oauth.registrations).toEqual([]);
    expect(oauth.authorizeRequests).toEqual([]);
  });

  it('offline_access is asked for when the authorization server offers it, and not otherwise', async () => {
    oauth = await startOAuthFixture({ offlineAccess: true, wwwAuthenticateScope: 'mcp' });
    let { live } = await start({ remote: { httpUrl: oauth.mcpUrl } });
    await signIn(live, 'remote');
    expect(oauth.authorizeRequests[0]!.scope?.split(' ')).toEqual(['mcp', 'offline_access']);
    await session!.dispose();
    session = undefined;
    await oauth.close();

    oauth = await startOAuthFixture({ wwwAuthenticateScope: 'mcp' });
    ({ live } = await start({ remote: { httpUrl: oauth.mcpUrl } }));
    await signIn(live, 'remote');
    expect(oauth.authorizeRequests[0]!.scope).toBe('mcp');
  });
});
