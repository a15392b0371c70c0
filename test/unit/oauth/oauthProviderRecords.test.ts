import { describe, expect, it } from 'vitest';
import { McpOAuthProvider } from '../../../src/sinks/remote/oauthProvider.js';
import { oauthRecordKey, type OAuthRecord } from '../../../src/sinks/stores/oauthTokenStore.js';
import { memoryTokenStore } from './memoryTokenStore.js';

/**
 * Where the provider keeps and finds a server's credentials (decisions 395, 396, 399): per
 * authorization server, the transport's ctx-less read, records of before, and a file that cannot
 * be written. The SDK's calls are made by hand, with the `ctx` it passes.
 */

const SERVER = 'https://mcp.example.com/mcp';
const AS1 = 'https://as-one.example.com';
const AS2 = 'https://as-two.example.com';
const legacyKey = oauthRecordKey(SERVER, 'dynamic');
const keyOf = (issuer: string) => oauthRecordKey(SERVER, 'dynamic', issuer);
const tokens = (access: string) => ({ access_token: access, token_type: 'Bearer', refresh_token: `r-${access}` });

function provider(records: Map<string, OAuthRecord>, clock = { now: 1_000 }, settings?: ConstructorParameters<typeof McpOAuthProvider>[2]) {
  return new McpOAuthProvider('remote', SERVER, settings, memoryTokenStore(records), () => clock.now);
}

describe('credentials per authorization server', () => {
  it('saves under the issuer the SDK names; reads back per issuer; another issuer finds none', async () => {
    const records = new Map<string, OAuthRecord>();
    const p = provider(records);
    await p.saveClientInformation({ client_id: 'c1', issuer: AS1 }, { issuer: AS1 });
    await p.saveTokens({ ...tokens('a1'), issuer: AS1 }, { issuer: AS1 });
    expect([...records.keys()]).toEqual([keyOf(AS1)]);
    expect(records.get(keyOf(AS1))).toMatchObject({ server: 'remote', issuer: AS1, client: { client_id: 'c1' }, tokens: { access_token: 'a1' }, savedAt: 1_000 });
    expect((await p.tokens({ issuer: AS1 }))?.access_token).toBe('a1');
    expect(await p.tokens({ issuer: AS2 })).toBeUndefined();
  });

  it("the transport's read without ctx: the last resolved issuer's tokens; before any, the ones stored last", async () => {
    const records = new Map<string, OAuthRecord>([
      [keyOf(AS1), { server: 'remote', issuer: AS1, tokens: tokens('old'), savedAt: 10 }],
      [keyOf(AS2), { server: 'remote', issuer: AS2, tokens: tokens('new'), savedAt: 20 }],
      [legacyKey, { server: 'remote', tokens: tokens('oldest') }],
    ]);
    const p = provider(records);
    expect((await p.tokens())?.access_token).toBe('new');
    await p.clientInformation({ issuer: AS1 }).catch(() => undefined);
    expect((await p.tokens())?.access_token).toBe('old');
  });

  it('a record of before without a stamp: used before discovery, adopted by the first issuer resolved', async () => {
    const records = new Map<string, OAuthRecord>([[legacyKey, { server: 'remote', tokens: tokens('v1'), client: { client_id: 'c-v1' } }]]);
    const p = provider(records);
    expect((await p.tokens())?.access_token).toBe('v1');
    expect([...records.keys()]).toEqual([legacyKey]);
    expect(await p.clientInformation({ issuer: AS1 })).toEqual({ client_id: 'c-v1', issuer: AS1 });
    expect([...records.keys()]).toEqual([keyOf(AS1)]);
    expect(records.get(keyOf(AS1))).toMatchObject({ issuer: AS1, tokens: { access_token: 'v1', issuer: AS1 } });
  });

  it('a record of before with a stamp moves under it at once, and is no one else\'s', async () => {
    const records = new Map<string, OAuthRecord>([[legacyKey, { server: 'remote', tokens: { ...tokens('v2'), issuer: AS1 } }]]);
    const p = provider(records);
    expect(await p.tokens({ issuer: AS2 })).toBeUndefined();
    expect([...records.keys()]).toEqual([keyOf(AS1)]);
    expect((await p.tokens({ issuer: AS1 }))?.access_token).toBe('v2');
  });

  it('a file that cannot be written: the record of before is still used as it is', async () => {
    const records = new Map<string, OAuthRecord>([[legacyKey, { server: 'remote', tokens: tokens('v1') }]]);
    const store = { ...memoryTokenStore(records), move: () => Promise.reject(new Error('read-only')) };
    const p = new McpOAuthProvider('remote', SERVER, undefined, store, () => 1_000);
    expect((await p.tokens({ issuer: AS1 }))?.access_token).toBe('v1');
    expect([...records.keys()]).toEqual([legacyKey]);
  });

  it('a pre-registered client once used with one authorization server is refused at another (decision 399)', async () => {
    const settings = { enabled: true, grantType: 'authorization_code' as const, clientId: 'app', autoStart: false };
    const records = new Map<string, OAuthRecord>();
    const p = provider(records, { now: 1 }, settings);
    expect(await p.clientInformation({ issuer: AS1 })).toEqual({ client_id: 'app', issuer: AS1 });
    await p.saveTokens({ ...tokens('t'), issuer: AS1 }, { issuer: AS1 });
    expect(await p.clientInformation({ issuer: AS1 })).toEqual({ client_id: 'app', issuer: AS1 });
    await expect(p.clientInformation({ issuer: AS2 })).rejects.toThrow(`the authorization server of remote is now ${AS2}, not ${AS1} where oauth.clientId was used`);
  });
});
