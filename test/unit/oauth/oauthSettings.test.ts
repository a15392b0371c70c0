import { describe, expect, it } from 'vitest';
import { fingerprint } from '../../../src/model/reconcile/fingerprint.js';
import { needsAuthText, toolNotFoundMessage } from '../../../src/model/report/messages.js';
import { oauthClientKey, oauthProblems } from '../../../src/model/oauth/oauthSettings.js';
import { reviewEntry } from '../../../src/model/admission/reviewEntry.js';
import { holdSecrets, maskText } from '../../../src/model/settings/secrets.js';
import { resolveServerConfig, validateServerConfig } from '../../../src/model/settings/validate.js';
import { wantsOAuth } from '../../../src/sinks/remote/oauthManager.js';

describe('the oauth block of a server entry', () => {
  it('accepts Gemini CLI fields and expands $VAR in them', () => {
    const entry = {
      httpUrl: 'https://mcp.example.com/mcp',
      oauth: { clientId: 'app', clientSecret: '${APP_SECRET}', scopes: ['read', 'write'], redirectUri: 'http://127.0.0.1:7777/callback', audiences: ['api'] },
    };
    const r = resolveServerConfig(entry, { APP_SECRET: 's3cr3t-value' });
    expect(r.ok && r.resolved.oauth).toEqual({
      enabled: true,
      grantType: 'authorization_code',
      clientId: 'app',
      clientSecret: 's3cr3t-value',
      scopes: ['read', 'write'],
      redirectUri: 'http://127.0.0.1:7777/callback',
      audiences: ['api'],
      autoStart: false,
    });
  });

  it('names every bad field, and the credential a grant lacks', () => {
    expect(oauthProblems('yes')).toEqual(['oauth must be an object']);
    expect(oauthProblems({ scopes: 'read', enabled: 'no', redirectUri: 'not a url' })).toEqual([
      'oauth.enabled must be a boolean',
      'oauth.scopes must be an array of strings',
      'oauth.redirectUri must be a URL',
    ]);
    expect(oauthProblems({ grantType: 'client_credentials' })).toEqual([
      'oauth.clientId is needed for grantType "client_credentials"',
      'oauth.clientSecret or oauth.privateKey is needed for grantType "client_credentials"',
    ]);
    expect(oauthProblems({ grantType: 'jwt-bearer', clientId: 'c', idp: { tokenUrl: 'https://idp/token' } })).toEqual([
      'oauth.idp.clientId is needed for grantType "jwt-bearer"',
      'oauth.idp.idToken is needed for grantType "jwt-bearer"',
    ]);
    expect(oauthProblems({ grantType: 'password' })[0]).toMatch(/^oauth.grantType must be/);
    // A bad block breaks only its entry, with the reason.
    expect(validateServerConfig({ httpUrl: 'https://x/mcp', oauth: { scopes: 1 } })).toEqual({ ok: false, error: 'oauth.scopes must be an array of strings' });
  });

  it('an edit of the block changes the fingerprint (that server reconnects); autoStart does not', () => {
    const fp = (oauth: Record<string, unknown>) => {
      const r = resolveServerConfig({ httpUrl: 'https://x/mcp', oauth }, {});
      if (!r.ok) throw new Error(r.error);
      return fingerprint(r.resolved);
    };
    expect(fp({ scopes: ['a'] })).not.toBe(fp({ scopes: ['b'] }));
    expect(fp({ scopes: ['a'] })).toBe(fp({ scopes: ['a'], autoStart: true }));
  });

  it('tokens are keyed by client: the same URL and client keep them across edits', () => {
    expect(oauthClientKey(undefined)).toBe('dynamic');
    expect(oauthClientKey({ enabled: true, grantType: 'authorization_code', autoStart: false, scopes: ['x'] })).toBe('dynamic');
    expect(oauthClientKey({ enabled: true, grantType: 'authorization_code', autoStart: false, clientId: 'app' })).toBe('client:app');
  });

  it('the approval review shows where tokens come from and go, with its secrets masked', () => {
    const review = reviewEntry({
      httpUrl: 'https://x/mcp',
      oauth: { clientId: 'app', clientSecret: 'literal-secret-1234', tokenUrl: 'https://auth.example.com/token' },
    });
    const oauthLines = review.lines.filter((l) => l.label === 'oauth').map((l) => l.value);
    expect(oauthLines).toEqual(['clientId: app', expect.stringMatching(/^clientSecret: \*\*\*/), 'tokenUrl: https://auth.example.com/token']);
    expect(JSON.stringify(review)).not.toContain('literal-secret-1234');
  });

  it('a secret mcp-live holds (a token, a verifier) is masked in every text, whatever its form', () => {
    holdSecrets('plainwordtoken', 'abc'); // too short to mask: "abc" stays
    expect(maskText('the server said plainwordtoken; abc')).toBe('the server said ***; abc');
  });

  it('says how to authorize, where the hint is read', () => {
    expect(needsAuthText('gh', { why: 'required' }, 'ui')).toBe('needs authentication – run /mcp auth gh');
    expect(needsAuthText('gh', { why: 'scope', scope: 'repo' }, 'library')).toBe('needs more authorization (scope "repo") – run mcp-live auth gh');
    expect(toolNotFoundMessage('mcp__gh__x', 'gh', { state: 'needs_auth', error: 'needs authentication – run /mcp auth gh' })).toBe(
      'Tool "mcp__gh__x" is not available: MCP server "gh" needs authentication – run /mcp auth gh.',
    );
  });

  it('OAuth is for remote servers without their own Authorization header, unless turned off', () => {
    const resolved = (entry: Record<string, unknown>) => {
      const r = resolveServerConfig(entry, {});
      if (!r.ok) throw new Error(r.error);
      return r.resolved;
    };
    expect(wantsOAuth(resolved({ httpUrl: 'https://x/mcp' }))).toBe(true);
    expect(wantsOAuth(resolved({ url: 'https://x/sse' }))).toBe(true);
    expect(wantsOAuth(resolved({ httpUrl: 'https://x/mcp', headers: { authorization: 'Bearer ${T}' } }))).toBe(false);
    expect(wantsOAuth(resolved({ httpUrl: 'https://x/mcp', oauth: { enabled: false } }))).toBe(false);
    expect(wantsOAuth(resolved({ command: 'node', args: ['s.js'] }))).toBe(false);
  });
});
