import { randomBytes } from 'node:crypto';
import type { ResolvedServerConfig } from '../../model/types.js';
import { listenForCallback } from './oauthCallback.js';
import type { McpOAuthProvider } from './oauthProvider.js';
import { loadRemoteParts, remoteParts } from './remoteSdk.js';
import type { OAuthTokenStore } from '../stores/oauthTokenStore.js';

/**
 * The session's OAuth (decision 83): one {@link McpOAuthProvider} per remote server, kept across
 * reconnects (its last challenge and discovered metadata with it) and replaced when the server's
 * URL or `oauth` block changes; the interactive flow; logout.
 *
 * Nothing here ever runs for a server that is not admitted: providers are asked for by the
 * connector, which only runs for admitted servers, and by `authenticate`, which the session only
 * calls for a server it wants now (decision 89: gating first).
 */

export interface AuthenticateOptions {
  /** Called once with the URL the user must open (the UI opens a browser; headless prints it). */
  onAuthorizationUrl: (url: string) => void;
  signal?: AbortSignal;
  /** How long the browser may take (default 5 minutes). */
  timeoutMs?: number;
}

export interface OAuthManager {
  readonly store: OAuthTokenStore;
  /**
   * The provider for a remote server's transport, or undefined when it gets no OAuth: a stdio
   * server, `oauth.enabled: false`, or an entry that sends its own `Authorization` header.
   * Called by a remote connection's attempt, after the remote parts were loaded (decision 221).
   */
  provider(name: string, config: ResolvedServerConfig): McpOAuthProvider | undefined;
  /**
   * Authorizes `name` now: a machine grant fetches its token; otherwise a new authorization in
   * the user's browser, with the scope the server asked for last (after a step-up, with the
   * scope asked for before too, decision 375). Resolves once the token is
   * stored; the caller then reconnects the server.
   */
  authenticate(name: string, config: ResolvedServerConfig, options: AuthenticateOptions): Promise<void>;
  /** Forgets every token and registered client stored for `name`; returns how many records went. */
  logout(name: string): Promise<number>;
}

export function wantsOAuth(config: ResolvedServerConfig): boolean {
  if (config.transport === 'stdio' || config.url === undefined) return false;
  if (config.oauth?.enabled === false) return false;
  return !Object.keys(config.headers).some((header) => header.toLowerCase() === 'authorization');
}

export function createOAuthManager(store: OAuthTokenStore): OAuthManager {
  const providers = new Map<string, { identity: string; provider: McpOAuthProvider }>();

  function provider(name: string, config: ResolvedServerConfig): McpOAuthProvider | undefined {
    if (!wantsOAuth(config)) return undefined;
    const identity = JSON.stringify([config.url, config.oauth ?? null]);
    const known = providers.get(name);
    if (known?.identity === identity) return known.provider;
    // Asked for by a remote connection's attempt, which loaded the remote parts (decision 221).
    const created = new (remoteParts().McpOAuthProvider)(name, config.url!, config.oauth, store);
    providers.set(name, { identity, provider: created });
    return created;
  }

  async function authenticate(name: string, config: ResolvedServerConfig, options: AuthenticateOptions): Promise<void> {
    const { auth, AuthorizationInProgress } = await loadRemoteParts();
    const oauth = provider(name, config);
    if (oauth === undefined) {
      throw new Error(`server "${name}" does not use OAuth (${config.transport === 'stdio' ? 'a stdio server' : 'it sets its own Authorization header or oauth.enabled: false'})`);
    }
    const serverUrl = config.url!;
    const fetchFn = oauth.observe();
    if (oauth.nonInteractive) {
      await auth(oauth, { serverUrl, scope: await oauth.authorizationScope(), resourceMetadataUrl: oauth.challenge.resourceMetadataUrl, fetchFn });
      return;
    }
    // One flow per server (decision 187): a second one would replace the first's verifier.
    if (oauth.authorizing) throw new AuthorizationInProgress();
    if (oauth.challenge.resourceMetadataUrl === undefined && oauth.challenge.scope === undefined) await probe(serverUrl, fetchFn);
    const callback = await listenForCallback(config.oauth?.redirectUri);
    const state = randomBytes(24).toString('base64url');
    let published = false;
    let flow: McpOAuthProvider;
    try {
      flow = oauth.beginInteractive({
        redirectUrl: callback.redirectUrl,
        state,
        onAuthorizationUrl: (url) => {
          published = true;
          options.onAuthorizationUrl(url.href);
        },
      });
    } catch (error) {
      await callback.close();
      throw error;
    }
    try {
      const { resourceMetadataUrl } = oauth.challenge;
      const scope = await oauth.authorizationScope();
      const first = await auth(flow, { serverUrl, scope, resourceMetadataUrl, fetchFn });
      if (first === 'AUTHORIZED' || !published) return;
      const answer = await callback.response(state, { timeoutMs: options.timeoutMs, signal: options.signal });
      // RFC 9207 (decision 397): the SDK compares `iss` with the issuer the flow recorded before
      // it sends the code anywhere; an error answer is believed only after the same check.
      const { code, iss } = flow.authorizationResponse(answer);
      await auth(flow, { serverUrl, authorizationCode: code, iss, scope, resourceMetadataUrl, fetchFn });
    } finally {
      flow.endInteractive();
      await callback.close();
    }
  }

  return {
    store,
    provider,
    authenticate,
    logout: (name) => {
      providers.delete(name);
      return store.forgetServer(name);
    },
  };
}

/**
 * Asks the server once without a token, so that its 401 challenge (scope, metadata URL) is known
 * before an authorization that no connect has preceded (`mcp-live auth NAME` in a new process).
 */
async function probe(serverUrl: string, fetchFn: (url: string | URL, init?: RequestInit) => Promise<Response>): Promise<void> {
  try {
    const response = await fetchFn(serverUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'mcp-live', version: '0' } },
      }),
      signal: AbortSignal.timeout(10_000),
    });
    await response.body?.cancel();
  } catch {
    // Discovery goes on from the server's well-known URLs.
  }
}
