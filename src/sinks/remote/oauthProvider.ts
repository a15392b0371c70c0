import { randomBytes } from 'node:crypto';
import { createPrivateKeyJwtAuth, auth, computeScopeUnion, extractWWWAuthenticateParams, validateAuthorizationResponseIssuer } from '@modelcontextprotocol/client';
import type {
  OAuthClientProvider,
  OAuthClientInformationContext,
  OAuthDiscoveryState,
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
  FetchLike,
} from '@modelcontextprotocol/client';
import { boundedFetch } from './boundedFetch.js';
import { fetchWithinOrigin } from './withinOrigin.js';
import { DEFAULT_MAX_MESSAGE_BYTES } from '../../model/messageLimit.js';
import { NeedsAuthorization } from '../../model/connection.js';
import { oauthClientKey } from '../../model/oauth/oauthSettings.js';
import type { OAuthSettings } from '../../model/types.js';
import { fetchRefusal, OAuthUrlRefused, openableAuthorizationUrl, usableResourceMetadataUrl } from '../../model/oauth/oauthUrlPolicy.js';
import { holdSecrets } from '../../model/settings/secrets.js';
import { withoutUndefined } from '../../model/withoutUndefined.js';
import { oauthRecordKey, type OAuthRecord, type OAuthTokenStore } from '../stores/oauthTokenStore.js';

/**
 * One remote server's side of OAuth (decision 83): the SDK's {@link OAuthClientProvider}, backed by
 * the user's token file. The SDK runs the protocol — discovery (RFC 9728, RFC 8414, OpenID, the
 * 2025-03-26 fallbacks), registration or a client ID metadata document, PKCE, the resource
 * indicator, refresh, step-up on `insufficient_scope` — this class only decides what is stored
 * where, and when the user must be asked.
 *
 * What it keeps is bound to the authorization server that issued it (decision 395): a client and
 * its tokens are stored per issuer, so when a server moves to another authorization server
 * nothing of the old one is sent to the new one and mcp-live registers there again. Records
 * written before that keying are adopted under their issuer (decision 396).
 *
 * Two modes:
 * - **background** (every connect): stored tokens are used and refreshed; when only the user can
 *   help (no token, a refresh that fails, a step-up to a scope the token lacks), nothing is
 *   registered and no browser is opened — the connect ends in "needs authentication".
 * - **interactive** ({@link beginInteractive}, `/mcp auth NAME`): a new authorization through
 *   the user's browser, whatever tokens are stored, with the scope the server asked for last. It
 *   runs on a provider of its own (its verifier, state and redirect), one per server at a time:
 *   a connect meanwhile starts nothing and fails with "authorization in progress" (decision 187).
 */

/** What the server said in its last `WWW-Authenticate` challenge (401, or 403 `insufficient_scope`). */
export interface Challenge {
  scope?: string;
  resourceMetadataUrl?: URL;
  /** A 403 `insufficient_scope`: the token works but lacks scope; only a new authorization helps. */
  stepUp?: boolean;
}

/** The interactive flow's part: where the browser comes back, and who shows the URL. */
export interface InteractiveFlow {
  redirectUrl: string;
  state: string;
  onAuthorizationUrl: (url: URL) => void;
}

/** Thrown in the background when only the user can authorize: the connect reports `needs_auth`. */
export class AuthorizationRequired extends Error {
  constructor(message = 'authorization required') {
    super(message);
    this.name = 'AuthorizationRequired';
  }
}

/**
 * Thrown in the background while an interactive authorization is open: a connect then must not
 * start another one (a second URL, a new PKCE verifier, another registration), which would make
 * the user's sign-in fail (decision 187). The flow reconnects the server when it ends.
 */
export class AuthorizationInProgress extends NeedsAuthorization {
  constructor() {
    super('in_progress');
    this.name = 'AuthorizationInProgress';
  }
}

/** What a server's background provider and its interactive flow share. */
interface ServerOAuthState {
  challenge: Challenge;
  /** The background's discovery, dropped when the server answers 401 (decision 397). */
  discovery?: OAuthDiscoveryState;
  /** The issuer of the server's authorization server as last resolved; unknown before discovery. */
  issuer?: string;
  /** An interactive authorization is open (decision 187). */
  flowOpen: boolean;
  /** The scope the server's last authorization asked for (its URL's, or a machine grant's token request). */
  requested?: string;
}

/**
 * Thrown when a server's authorization server is no longer the one its pre-registered client
 * (`oauth.clientId`) was used with: that client belongs to the old one, and is not sent to the
 * new one (decision 395). The user registers a client there, or logs out to use it anyway.
 */
export class AuthorizationServerMoved extends Error {
  constructor(server: string, from: string, to: string) {
    super(
      `the authorization server of ${server} is now ${to}, not ${from} where oauth.clientId was used: ` +
        `set the client registered with ${to}, or run "mcp-live auth logout ${server}" to use this one there`,
    );
    this.name = 'AuthorizationServerMoved';
  }
}

/** Refresh an access token this long before it expires, so no request is sent with a dying one. */
export const REFRESH_BEFORE_EXPIRY_MS = 60_000;
const PLACEHOLDER_REDIRECT = 'http://127.0.0.1/callback';
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

export class McpOAuthProvider implements OAuthClientProvider {
  private readonly shared: ServerOAuthState;
  /** Set on the flow's own provider only ({@link beginInteractive}); the background one has none. */
  private readonly interactive?: InteractiveFlow;
  private verifier?: string;
  /** The flow's own discovery: the issuer its code must come back from (RFC 9207, decision 397). */
  private flowDiscovery?: OAuthDiscoveryState;
  private refreshing = false;
  readonly addClientAuthentication?: OAuthClientProvider['addClientAuthentication'];
  private readonly clientKey: string;
  /** The key of this server's record from before the keying by issuer (decision 396). */
  private readonly legacyKey: string;
  private adopted?: Promise<void>;

  constructor(
    readonly server: string,
    readonly url: string,
    private readonly settings: OAuthSettings | undefined,
    private readonly store: OAuthTokenStore,
    private readonly now: () => number = Date.now,
    flow?: { shared: ServerOAuthState; interactive: InteractiveFlow },
  ) {
    this.shared = flow?.shared ?? { challenge: {}, flowOpen: false };
    this.interactive = flow?.interactive;
    this.clientKey = oauthClientKey(settings);
    this.legacyKey = oauthRecordKey(url, this.clientKey);
    holdSecrets(settings?.clientSecret, settings?.privateKey, settings?.idp?.clientSecret, settings?.idp?.idToken);
    if (settings?.privateKey !== undefined && settings.clientId !== undefined) {
      // RFC 7523 client authentication, signed by the SDK for each token request.
      this.addClientAuthentication = createPrivateKeyJwtAuth({
        issuer: settings.clientId,
        subject: settings.clientId,
        privateKey: settings.privateKey,
        alg: settings.signingAlgorithm ?? 'RS256',
      });
    }
  }

  /** The last challenge the server sent (kept across connects of this server, shared with its flow). */
  get challenge(): Challenge {
    return this.shared.challenge;
  }

  set challenge(challenge: Challenge) {
    this.shared.challenge = challenge;
  }

  /**
   * The scope a new authorization asks for: the last challenge's; after a step-up (403
   * `insufficient_scope`), the union of what was asked for before (the last authorization's
   * scope, and the stored token's granted scope) and what the server challenges now, so the new
   * token keeps what the old one allowed (decision 375). The challenge itself keeps the scope
   * the server named: a token covering that ends the step-up.
   */
  async authorizationScope(): Promise<string | undefined> {
    const { stepUp, scope } = this.challenge;
    if (stepUp !== true) return scope;
    const granted = (await this.record())?.tokens?.scope;
    return computeScopeUnion(this.shared.requested, granted, scope);
  }

  /** Whether an interactive authorization of this server is open. */
  get authorizing(): boolean {
    return this.shared.flowOpen;
  }

  /** A grant that needs no browser (client credentials, cross-app access): the SDK runs it at connect. */
  get nonInteractive(): boolean {
    return this.settings?.grantType === 'client_credentials' || this.settings?.grantType === 'jwt-bearer';
  }

  get redirectUrl(): string | undefined {
    if (this.nonInteractive) return undefined;
    return this.interactive?.redirectUrl ?? this.settings?.redirectUri ?? PLACEHOLDER_REDIRECT;
  }

  get clientMetadataUrl(): string | undefined {
    return this.settings?.clientMetadataUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    const scope = this.settings?.scopes?.join(' ');
    const grant = this.settings?.grantType;
    const grantTypes = grant === 'jwt-bearer' ? [JWT_BEARER] : grant === 'client_credentials' ? ['client_credentials'] : ['authorization_code', 'refresh_token'];
    const authMethod = this.settings?.privateKey !== undefined ? 'private_key_jwt' : this.settings?.clientSecret !== undefined ? 'client_secret_basic' : 'none';
    return {
      client_name: 'mcp-live',
      redirect_uris: this.redirectUrl === undefined ? [] : [this.redirectUrl],
      // A CLI coming back to a loopback redirect is a native application (RFC 8252, decision 398):
      // said outright, since an OpenID provider takes a registration without it as "web".
      ...(this.redirectUrl === undefined ? {} : { application_type: 'native' }),
      grant_types: grantTypes,
      response_types: this.nonInteractive ? [] : ['code'],
      token_endpoint_auth_method: authMethod,
      ...(scope === undefined ? {} : { scope }),
    };
  }

  /**
   * Opens the server's one interactive authorization and returns the provider it runs on: its
   * tokens read as none, it registers a client for its redirect, keeps its own PKCE verifier and
   * hands its URL to `flow`. Until {@link endInteractive} on that provider, this one (the
   * transport's) starts no authorization, and a second flow is refused (decision 187).
   */
  beginInteractive(flow: InteractiveFlow): McpOAuthProvider {
    if (this.shared.flowOpen) throw new AuthorizationInProgress();
    this.shared.flowOpen = true;
    return new McpOAuthProvider(this.server, this.url, this.settings, this.store, this.now, { shared: this.shared, interactive: flow });
  }

  /** Closes the flow this provider runs (a no-op on the background provider). */
  endInteractive(): void {
    if (this.interactive !== undefined) this.shared.flowOpen = false;
  }

  state(): string {
    if (this.interactive !== undefined) return this.interactive.state;
    // The SDK asks for a state just before it starts an authorization: in the background that is
    // never the user's, and during their flow it would replace the URL they are signing in with.
    if (this.shared.flowOpen) throw new AuthorizationInProgress();
    return randomBytes(16).toString('base64url');
  }

  async clientInformation(ctx?: OAuthClientInformationContext): Promise<OAuthClientInformationMixed | undefined> {
    this.resolved(ctx);
    if (this.settings?.clientId !== undefined) {
      if (ctx !== undefined) await this.refuseMovedClient(ctx.issuer);
      return {
        client_id: this.settings.clientId,
        ...(this.settings.clientSecret === undefined ? {} : { client_secret: this.settings.clientSecret }),
        ...(ctx === undefined ? {} : { issuer: ctx.issuer }),
      };
    }
    const client = (await this.record(ctx?.issuer))?.client;
    if (this.interactive) {
      // A client registered for another loopback port is registered again (a strict
      // authorization server compares redirect URIs exactly); a metadata document has none.
      const uris = (client as { redirect_uris?: string[] } | undefined)?.redirect_uris;
      return uris === undefined || uris.includes(this.interactive.redirectUrl) ? client : undefined;
    }
    // In the background nothing is registered: registering is the start of an authorization,
    // which is the user's to begin (and during their flow, the flow's).
    if (client === undefined && !this.nonInteractive) throw this.shared.flowOpen ? new AuthorizationInProgress() : new AuthorizationRequired();
    return client;
  }

  async saveClientInformation(client: OAuthClientInformationMixed & { issuer?: string }, ctx?: OAuthClientInformationContext): Promise<void> {
    // Pre-registered and machine clients come from the entry; only ours are stored.
    if (this.settings?.clientId !== undefined) return;
    this.resolved(ctx);
    await this.change((record) => ({ ...record, client }), ctx?.issuer ?? client.issuer);
  }

  /**
   * The tokens for the authorization server `ctx` names; without one (the transport's request
   * header) those of the server's authorization server as last resolved, or before any
   * discovery in this process the ones stored last (decision 395).
   */
  async tokens(ctx?: OAuthClientInformationContext): Promise<OAuthTokens | undefined> {
    if (this.interactive) return undefined;
    this.resolved(ctx);
    const record = await this.record(ctx?.issuer);
    const tokens = record?.tokens;
    if (tokens === undefined) return undefined;
    const { stepUp, scope } = this.challenge;
    if (stepUp === true && !covers(tokens.scope, scope)) {
      // A refresh keeps the scope the token has: only a new authorization can add the missing one.
      const { refresh_token: _dropped, ...withoutRefresh } = tokens;
      return withoutRefresh;
    }
    const expiring = record?.expiresAt !== undefined && record.expiresAt - this.now() < REFRESH_BEFORE_EXPIRY_MS;
    if (expiring && !this.refreshing && (tokens.refresh_token !== undefined || this.nonInteractive)) {
      await this.refresh();
      return (await this.record(ctx?.issuer))?.tokens;
    }
    return tokens;
  }

  async saveTokens(tokens: OAuthTokens & { issuer?: string }, ctx?: OAuthClientInformationContext): Promise<void> {
    holdSecrets(tokens.access_token, tokens.refresh_token, tokens.id_token);
    this.resolved(ctx);
    if (this.challenge.stepUp === true && covers(tokens.scope, this.challenge.scope)) this.challenge = { ...this.challenge, stepUp: false };
    const savedAt = this.now();
    const expiresAt = tokens.expires_in === undefined ? undefined : savedAt + tokens.expires_in * 1000;
    await this.change((record) => ({ ...record, tokens, savedAt, ...(expiresAt === undefined ? { expiresAt: undefined } : { expiresAt }) }), ctx?.issuer ?? tokens.issuer);
  }

  redirectToAuthorization(url: URL): void {
    // In the background the URL goes nowhere: the connect ends in "needs authentication".
    if (this.interactive === undefined) return;
    // A server's metadata (or an entry) names this URL: only a web URL reaches a browser, an
    // event or a screen (decision 189). Thrown, it fails the flow before anyone sees it.
    openableAuthorizationUrl(url);
    // Gemini CLI's `audiences`: the APIs the token is for, as the authorization server's `audience`.
    const audiences = this.settings?.audiences ?? [];
    if (audiences.length > 0) url.searchParams.set('audience', audiences.join(' '));
    this.shared.requested = url.searchParams.get('scope') ?? undefined;
    this.interactive.onAuthorizationUrl(url);
  }

  saveCodeVerifier(verifier: string): void {
    holdSecrets(verifier);
    this.verifier = verifier;
  }

  codeVerifier(): string {
    if (this.verifier === undefined) throw new Error('no authorization in progress');
    return this.verifier;
  }

  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    if (scope === 'verifier' || scope === 'all') this.verifier = undefined;
    if (scope === 'discovery' || scope === 'all') {
      this.shared.discovery = undefined;
      this.flowDiscovery = undefined;
    }
    if (scope === 'verifier' || scope === 'discovery') return;
    await this.change((record) => ({
      ...record,
      ...(scope === 'all' || scope === 'tokens' ? { tokens: undefined, expiresAt: undefined } : {}),
      ...(scope === 'all' || scope === 'client' ? { client: undefined } : {}),
    }));
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    if (this.interactive !== undefined) this.flowDiscovery = state;
    this.shared.discovery = state;
    this.shared.issuer = state.authorizationServerMetadata?.issuer ?? state.authorizationServerUrl;
  }

  /**
   * What discovery found; before it ran, the entry's `authorizationUrl` and `tokenUrl` when it
   * names both (Gemini CLI's fields): the authorization server is then taken as configured.
   * A flow starts from no discovery and keeps its own until its code is exchanged: the issuer it
   * recorded before the redirect is the one the browser must come back from (decision 397).
   */
  discoveryState(): OAuthDiscoveryState | undefined {
    const discovered = this.interactive === undefined ? this.shared.discovery : this.flowDiscovery;
    if (discovered !== undefined) return discovered;
    const { authorizationUrl, tokenUrl } = this.settings ?? {};
    if (authorizationUrl === undefined || tokenUrl === undefined) return undefined;
    const issuer = new URL(authorizationUrl).origin;
    return {
      authorizationServerUrl: issuer,
      authorizationServerMetadata: {
        issuer,
        authorization_endpoint: authorizationUrl,
        token_endpoint: tokenUrl,
        response_types_supported: ['code'],
        code_challenge_methods_supported: ['S256'],
      },
    };
  }

  /**
   * The code and `iss` of the flow's authorization response (the callback's query). An error
   * response is believed only once its `iss` matches the issuer the flow recorded (RFC 9207
   * §2.4, decision 397): from another authorization server its error and description are an
   * attacker's words, never shown. A code's `iss` is checked by the SDK before the exchange.
   */
  authorizationResponse(query: URLSearchParams): { code: string; iss?: string } {
    const iss = query.get('iss') ?? undefined;
    const code = query.get('code');
    if (code !== null && code !== '') {
      holdSecrets(code);
      return { code, ...(iss === undefined ? {} : { iss }) };
    }
    const metadata = this.discoveryState()?.authorizationServerMetadata;
    validateAuthorizationResponseIssuer({
      iss,
      expectedIssuer: metadata?.issuer,
      issParameterSupported: metadata?.authorization_response_iss_parameter_supported === true,
    });
    const error = query.get('error');
    if (error === null) throw new Error('the browser came back without an authorization code');
    const description = query.get('error_description');
    throw new Error(`the authorization server refused: ${error}${description ? ` (${description})` : ''}`);
  }

  async prepareTokenRequest(scope?: string): Promise<URLSearchParams | undefined> {
    if (this.nonInteractive) this.shared.requested = scope;
    switch (this.settings?.grantType) {
      case 'client_credentials':
        return new URLSearchParams({ grant_type: 'client_credentials', ...(scope ? { scope } : {}) });
      case 'jwt-bearer':
        return this.jwtBearerRequest(scope);
      default:
        return undefined;
    }
  }

  /**
   * The fetch for everything OAuth of this server (the transport's requests, discovery,
   * registration, tokens). It goes only where {@link fetchRefusal} allows, each redirect hop
   * included (decision 190); it drops a `resource_metadata` on another origin from a challenge
   * before the SDK reads it (decision 191); and it notes every `WWW-Authenticate` challenge: the
   * scope a 401 names is what an authorization the user starts later must ask for, and a 403
   * `insufficient_scope` marks a step-up. Without a `fetchFn` (the interactive flow, a refresh)
   * each body is still bounded (decision 179), by the default cap: it is the server's to send.
   */
  observe(fetchFn: FetchLike = boundedFetch(DEFAULT_MAX_MESSAGE_BYTES, () => undefined)): FetchLike {
    const guarded: FetchLike = (input, init) => {
      const refusal = fetchRefusal(new URL(String(input instanceof Request ? input.url : input)), this.url);
      return refusal === undefined ? fetchFn(input, init) : Promise.reject(new OAuthUrlRefused(refusal));
    };
    // A hop to another origin is not followed at all: a token or registration endpoint must not
    // bounce mcp-live to an address of the server's choosing.
    const within = fetchWithinOrigin(guarded);
    return async (input, init) => {
      const response = this.withoutForeignMetadata(await within(input, init));
      // The server refused its token: its authorization server may have changed since the last
      // discovery, so the next authorization discovers again (decision 397). A flow keeps its own.
      if (response.status === 401 && sameResource(input, this.url)) this.shared.discovery = undefined;
      if (response.status === 401 || response.status === 403) {
        const { scope, resourceMetadataUrl, error } = extractWWWAuthenticateParams(response);
        const stepUp = response.status === 403 && error === 'insufficient_scope';
        if (response.status === 401 || stepUp) {
          this.challenge = {
            scope: scope ?? (stepUp ? this.challenge.scope : undefined),
            resourceMetadataUrl: resourceMetadataUrl ?? this.challenge.resourceMetadataUrl,
            stepUp,
          };
        }
      }
      return response;
    };
  }

  /**
   * A 401 or 403 whose challenge names a `resource_metadata` that {@link usableResourceMetadataUrl}
   * refuses, as the same response without that parameter: the SDK then looks for the metadata at
   * the server's own well-known URL (RFC 9728 §3), and the refused URL is never fetched.
   */
  private withoutForeignMetadata(response: Response): Response {
    if (response.status !== 401 && response.status !== 403) return response;
    const { resourceMetadataUrl } = extractWWWAuthenticateParams(response);
    const header = response.headers.get('www-authenticate');
    if (header === null || usableResourceMetadataUrl(resourceMetadataUrl, this.url) !== undefined) return response;
    if (resourceMetadataUrl === undefined && !/resource_metadata\s*=/i.test(header)) return response;
    // Renamed rather than cut out: the rest of the challenge (scheme, scope, error) parses as before.
    const headers = new Headers(response.headers);
    headers.set('www-authenticate', header.replace(/resource_metadata(?=\s*=)/gi, 'ignored_metadata'));
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
  }

  /** Refreshes (or, for a machine grant, renews) the access token now; a failure leaves it to the next 401. */
  private async refresh(): Promise<void> {
    this.refreshing = true;
    try {
      await auth(this, { serverUrl: this.url, resourceMetadataUrl: this.challenge.resourceMetadataUrl, scope: this.challenge.scope, fetchFn: this.observe() });
    } catch {
      // The request goes out with what there is; a 401 then takes the usual way.
    } finally {
      this.refreshing = false;
    }
  }

  /**
   * Cross-app access (SEP-990): the user's ID token is exchanged at the IdP for an ID-JAG
   * (RFC 8693), which the authorization server takes as a JWT bearer grant (RFC 7523).
   */
  private async jwtBearerRequest(scope?: string): Promise<URLSearchParams> {
    const idp = this.settings?.idp;
    if (idp === undefined) throw new Error('oauth.idp is needed for grantType "jwt-bearer"');
    const { discovery } = this.shared;
    const issuer = discovery?.authorizationServerMetadata?.issuer ?? discovery?.authorizationServerUrl;
    const resource = discovery?.resourceMetadata?.resource ?? this.url;
    const exchange = new URLSearchParams({
      grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
      requested_token_type: 'urn:ietf:params:oauth:token-type:id-jag',
      subject_token: idp.idToken,
      subject_token_type: 'urn:ietf:params:oauth:token-type:id_token',
      client_id: idp.clientId,
      resource,
    });
    if (issuer !== undefined) exchange.set('audience', String(issuer));
    if (idp.clientSecret !== undefined) exchange.set('client_secret', idp.clientSecret);
    if (scope) exchange.set('scope', scope);
    const response = await fetch(idp.tokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: exchange,
    });
    if (!response.ok) throw new Error(`the identity provider refused the token exchange (HTTP ${response.status})`);
    const body = (await response.json()) as { access_token?: unknown };
    if (typeof body.access_token !== 'string') throw new Error('the identity provider answered the token exchange without a token');
    holdSecrets(body.access_token);
    const params = new URLSearchParams({ grant_type: JWT_BEARER, assertion: body.access_token });
    if (scope) params.set('scope', scope);
    return params;
  }

  /** Notes the authorization server an SDK call resolved: a request with no `ctx` uses its tokens. */
  private resolved(ctx: OAuthClientInformationContext | undefined): void {
    if (ctx !== undefined) this.shared.issuer = ctx.issuer;
  }

  private keyFor(issuer: string): string {
    return oauthRecordKey(this.url, this.clientKey, issuer);
  }

  /**
   * The record of `issuer`, else of the server's authorization server as last resolved; with
   * neither known yet, the one whose tokens were stored last (decision 395). A record from before
   * the keying by issuer is adopted by the first authorization server this process resolves, unless
   * the SDK's stamp in it names another (decision 396).
   */
  private async record(issuer = this.shared.issuer): Promise<OAuthRecord | undefined> {
    await (this.adopted ??= this.adoptStamped());
    if (issuer === undefined) return this.newest();
    const record = await this.store.get(this.keyFor(issuer));
    if (record !== undefined) return record;
    const legacy = await this.store.get(this.legacyKey);
    const stamp = legacy === undefined ? undefined : stampOf(legacy);
    if (legacy === undefined || (stamp !== undefined && !sameIssuer(stamp, issuer))) return undefined;
    try {
      return await this.store.move(this.legacyKey, this.keyFor(issuer), (old) => bindTo(old, issuer));
    } catch {
      // A file that can be read but not written: the record is used as it is, and moved another time.
      return bindTo(legacy, issuer);
    }
  }

  /** A record from before the keying by issuer whose tokens or client carry the SDK's stamp moves under that issuer. */
  private async adoptStamped(): Promise<void> {
    const legacy = await this.store.get(this.legacyKey);
    const stamp = legacy === undefined ? undefined : stampOf(legacy);
    if (stamp === undefined) return;
    try {
      await this.store.move(this.legacyKey, this.keyFor(stamp), (old) => bindTo(old, stamp));
    } catch {
      // Not writable now: the record stays where it was and is still found there (newest()).
    }
  }

  /** This server's records for this client: one per authorization server, and one from before that keying. */
  private async records(): Promise<OAuthRecord[]> {
    const listed = await this.store.list(this.legacyKey);
    // A client key may contain spaces: a key is ours only if it is exactly what we would write.
    return listed.filter(([key, record]) => key === (record.issuer === undefined ? this.legacyKey : this.keyFor(record.issuer))).map(([, record]) => record);
  }

  private async newest(): Promise<OAuthRecord | undefined> {
    let newest: OAuthRecord | undefined;
    for (const record of await this.records()) {
      if (record.tokens !== undefined && (newest === undefined || (record.savedAt ?? 0) > (newest.savedAt ?? 0))) newest = record;
    }
    return newest;
  }

  /**
   * A pre-registered client belongs to one authorization server. Once tokens were obtained with
   * it from one, it is not sent to another the server now names: the user is told instead
   * (decision 395).
   */
  private async refuseMovedClient(issuer: string): Promise<void> {
    const used = (await this.records()).map((record) => record.issuer).filter((known): known is string => known !== undefined);
    if (used.length > 0 && !used.some((known) => sameIssuer(known, issuer))) throw new AuthorizationServerMoved(this.server, used[0]!, issuer);
  }

  private change(patch: (record: OAuthRecord) => OAuthRecord, issuer = this.shared.issuer): Promise<void> {
    const key = issuer === undefined ? this.legacyKey : this.keyFor(issuer);
    return this.store.update(key, (record) => {
      const next = patch(record ?? { server: this.server });
      const kept = withoutUndefined({ ...next, server: this.server, issuer });
      return kept.tokens === undefined && kept.client === undefined ? undefined : kept;
    });
  }
}

/** The issuer the SDK stamped on a record's tokens or client (decision 396), if any. */
function stampOf(record: OAuthRecord): string | undefined {
  return record.tokens?.issuer ?? record.client?.issuer;
}

/** A record from before the keying by issuer, as the record of `issuer`. */
function bindTo(record: OAuthRecord, issuer: string): OAuthRecord {
  return withoutUndefined({
    ...record,
    issuer,
    tokens: record.tokens && { ...record.tokens, issuer },
    client: record.client && { ...record.client, issuer },
  });
}

/** Issuer identity as the SDK compares it: equal, or equal but for one trailing slash. */
function sameIssuer(a: string, b: string): boolean {
  return a === b || a === `${b}/` || b === `${a}/`;
}

/** Whether a request goes to the MCP server itself (not to its metadata or an authorization server). */
function sameResource(input: string | URL | Request, serverUrl: string): boolean {
  try {
    const target = new URL(String(input instanceof Request ? input.url : input));
    const server = new URL(serverUrl);
    return target.origin === server.origin && target.pathname === server.pathname;
  } catch {
    return false;
  }
}

/** Whether a token's scope (space-separated) has every scope of `needed`. */
function covers(granted: string | undefined, needed: string | undefined): boolean {
  if (needed === undefined || needed.trim() === '') return true;
  const have = new Set((granted ?? '').split(/\s+/));
  return needed.split(/\s+/).every((scope) => scope === '' || have.has(scope));
}
