import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startOAuthFixture, type OAuthFixture } from '../../fixtures/oauth/authServer.js';
import { noLeftoversAfterAll, until } from '../workspace.js';
import { oauthSession, signIn, tokenRecords, type OAuthSession } from './oauthSession.js';

/**
 * Token files written before records were kept per authorization server (decision 396): a record
 * under `"<server URL> <client>"` is not lost. With the SDK's issuer stamp in it, it moves under
 * that issuer at the first read; without one it is used for the same server until discovery shows
 * the authorization server, and is then kept under that one; stamped by another authorization
 * server than the server names now, it is not sent to the new one.
 */

let oauth: OAuthFixture | undefined;
const sessions: OAuthSession[] = [];

afterEach(async () => {
  for (const session of sessions.splice(0)) await session.dispose();
  await oauth?.close();
  oauth = undefined;
});
noLeftoversAfterAll();

type StoredRecord = Awaited<ReturnType<typeof tokenRecords>>[string];

/** Real credentials from a sign-in, as the record an earlier version kept: no issuer anywhere, unless `stamp` is given. */
async function oldRecord(fixture: OAuthFixture, stamp?: string): Promise<StoredRecord> {
  const first = await oauthSession({ remote: { httpUrl: fixture.mcpUrl } });
  sessions.push(first);
  await signIn(first.live, 'remote');
  const [record] = Object.values(await tokenRecords(first));
  const { issuer: _issuer, savedAt: _savedAt, ...rest } = record as StoredRecord & { savedAt?: number };
  const { issuer: _t, ...tokens } = rest.tokens!;
  const { issuer: _c, ...client } = rest.client!;
  return {
    ...rest,
    tokens: stamp === undefined ? tokens : { ...tokens, issuer: stamp },
    client: stamp === undefined ? client : { ...client, issuer: stamp },
  };
}

/** A session whose token file holds `record` under the key of before (server URL and client only). */
async function sessionWithOldFile(fixture: OAuthFixture, record: StoredRecord): Promise<OAuthSession> {
  const session = await oauthSession({ remote: { httpUrl: fixture.mcpUrl } }, async (profileDir) => {
    await writeFile(join(profileDir, 'mcp-oauth-tokens.json'), JSON.stringify({ [`${fixture.mcpUrl} dynamic`]: record }, null, 2), { mode: 0o600 });
  });
  sessions.push(session);
  return session;
}

describe('a token file from before the keying by authorization server', () => {
  it('an unstamped record is used as it is, then kept under the issuer the first refresh shows', async () => {
    oauth = await startOAuthFixture();
    const record = await oldRecord(oauth);
    const registrations = oauth.registrations.length;
    const authorizations = oauth.authorizeRequests.length;

    const s = await sessionWithOldFile(oauth, record);
    await until(s.live, 'remote', (st) => st.state === 'connected');
    expect(Object.keys(await tokenRecords(s))).toEqual([`${oauth.mcpUrl} dynamic`]);

    oauth.expireAccessTokens();
    expect(await s.live.tools.call('mcp__remote__echo', { text: 'after' })).toMatchObject({ content: [{ text: 'after' }] });
    expect(oauth.tokenRequests.at(-1)).toMatchObject({ grantType: 'refresh_token', clientId: record.client!.client_id });
    const records = await tokenRecords(s);
    expect(Object.keys(records)).toEqual([`${oauth.mcpUrl} dynamic ${oauth.issuer}`]);
    expect(records[`${oauth.mcpUrl} dynamic ${oauth.issuer}`]).toMatchObject({
      server: 'remote',
      issuer: oauth.issuer,
      client: { client_id: record.client!.client_id, issuer: oauth.issuer },
      tokens: { issuer: oauth.issuer },
    });
    // Nobody was asked: no registration, no browser.
    expect(oauth.registrations).toHaveLength(registrations);
    expect(oauth.authorizeRequests).toHaveLength(authorizations);
  });

  it('a record with the SDK stamp moves under that issuer at the first read', async () => {
    oauth = await startOAuthFixture();
    const record = await oldRecord(oauth, oauth.issuer);
    const s = await sessionWithOldFile(oauth, record);
    await until(s.live, 'remote', (st) => st.state === 'connected');
    const records = await tokenRecords(s);
    expect(Object.keys(records)).toEqual([`${oauth.mcpUrl} dynamic ${oauth.issuer}`]);
    expect(records[`${oauth.mcpUrl} dynamic ${oauth.issuer}`]!.tokens!.access_token).toBe(record.tokens!.access_token);
  });

  it('a record stamped by another authorization server is not sent to the one the server names now', async () => {
    oauth = await startOAuthFixture();
    const elsewhere = 'https://old-auth.example.com';
    const record = await oldRecord(oauth, elsewhere);
    const registrations = oauth.registrations.length;
    const tokenRequests = oauth.tokenRequests.length;

    const s = await sessionWithOldFile(oauth, record);
    // Before any discovery the stored token goes to the server (its own), which still takes it;
    // once it is refused, nothing of the old authorization server goes to the current one.
    await until(s.live, 'remote', (st) => st.state === 'connected');
    oauth.revokeAll();
    await expect(s.live.tools.call('mcp__remote__echo', { text: 'x' })).rejects.toThrow(/needs authentication/);
    expect(oauth.tokenRequests).toHaveLength(tokenRequests);
    await signIn(s.live, 'remote');
    expect(oauth.registrations).toHaveLength(registrations + 1);
    expect(oauth.authorizeRequests.at(-1)!.clientId).not.toBe(record.client!.client_id);
    expect(Object.keys(await tokenRecords(s)).sort()).toEqual([`${oauth.mcpUrl} dynamic ${elsewhere}`, `${oauth.mcpUrl} dynamic ${oauth.issuer}`].sort());
  });
});
