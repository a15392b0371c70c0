import { fieldProblems, isBoolean, isNonEmptyString, isPlainObject, isStringArray, type FieldCheck, type FieldRule } from '../fieldChecks.js';
import type { OAuthGrant, OAuthSettings } from '../types.js';
import { withoutUndefined } from '../withoutUndefined.js';

/**
 * A remote server's `oauth` block, with Gemini CLI's field names: how mcp-live gets a
 * token for it. Pure: validation and `$VAR` expansion; the flows live in `src/sinks/remote/oauth*`.
 *
 * Without a block, a remote server that answers 401 still gets OAuth with everything discovered
 * (RFC 9728 / RFC 8414, dynamic registration or a client ID metadata document): the block only
 * adds what discovery cannot know — a pre-registered client, scopes, a pinned redirect URI, a
 * non-interactive grant — or turns OAuth off (`"enabled": false`).
 */

const isUrl: FieldCheck = (v) => typeof v === 'string' && (URL.canParse(v) || v.includes('$'));

const GRANTS: Record<string, OAuthGrant> = {
  authorization_code: 'authorization_code',
  client_credentials: 'client_credentials',
  'jwt-bearer': 'jwt-bearer',
  'urn:ietf:params:oauth:grant-type:jwt-bearer': 'jwt-bearer',
};

const FIELDS: readonly FieldRule[] = [
  ['enabled', isBoolean, 'a boolean'],
  ['grantType', (v) => typeof v === 'string' && Object.hasOwn(GRANTS, v), '"authorization_code", "client_credentials" or "jwt-bearer"'],
  ['clientId', isNonEmptyString, 'a non-empty string'],
  ['clientSecret', isNonEmptyString, 'a non-empty string'],
  ['scopes', isStringArray, 'an array of strings'],
  ['redirectUri', isUrl, 'a URL'],
  ['authorizationUrl', isUrl, 'a URL'],
  ['tokenUrl', isUrl, 'a URL'],
  ['audiences', isStringArray, 'an array of strings'],
  ['clientMetadataUrl', isUrl, 'an https URL'],
  ['privateKey', isNonEmptyString, 'a PEM string'],
  ['signingAlgorithm', isNonEmptyString, 'a string such as "ES256"'],
  ['autoStart', isBoolean, 'a boolean'],
];

const IDP_FIELDS: readonly FieldRule[] = [
  ['tokenUrl', isUrl, 'a URL'],
  ['clientId', isNonEmptyString, 'a non-empty string'],
  ['clientSecret', isNonEmptyString, 'a non-empty string'],
  ['idToken', isNonEmptyString, 'a non-empty string'],
];

/**
 * What is wrong with an `oauth` block, each problem in words ("oauth.scopes must be an array of
 * strings"); empty when it is fine. A grant that needs a credential names the one missing.
 */
export function oauthProblems(raw: unknown): string[] {
  if (!isPlainObject(raw)) return ['oauth must be an object'];
  const problems = fieldProblems(raw, FIELDS, 'oauth.');
  const idp = Object.hasOwn(raw, 'idp') ? raw.idp : undefined;
  if (idp !== undefined) {
    if (!isPlainObject(idp)) problems.push('oauth.idp must be an object');
    else problems.push(...fieldProblems(idp, IDP_FIELDS, 'oauth.idp.'));
  }
  if (problems.length > 0) return problems;
  const grant = GRANTS[(raw.grantType as string | undefined) ?? 'authorization_code'];
  if (grant !== 'authorization_code' && raw.clientId === undefined) problems.push(`oauth.clientId is needed for grantType "${String(raw.grantType)}"`);
  if (grant === 'client_credentials' && raw.clientSecret === undefined && raw.privateKey === undefined) {
    problems.push('oauth.clientSecret or oauth.privateKey is needed for grantType "client_credentials"');
  }
  if (grant === 'jwt-bearer') {
    if (!isPlainObject(idp)) problems.push('oauth.idp (tokenUrl, clientId, idToken) is needed for grantType "jwt-bearer"');
    else for (const field of ['tokenUrl', 'clientId', 'idToken']) if (idp[field] === undefined) problems.push(`oauth.idp.${field} is needed for grantType "jwt-bearer"`);
  }
  return problems;
}

/** A valid `oauth` block (see {@link oauthProblems}) with every string expanded. */
export function resolveOAuthSettings(raw: Record<string, unknown>, expand: (text: string) => string): OAuthSettings {
  const text = (value: unknown): string | undefined => (typeof value === 'string' ? expand(value) : undefined);
  const list = (value: unknown): string[] | undefined => (Array.isArray(value) ? (value as string[]).map(expand) : undefined);
  const idp = isPlainObject(raw.idp) ? raw.idp : undefined;
  const settings: OAuthSettings = {
    enabled: raw.enabled !== false,
    grantType: GRANTS[(raw.grantType as string | undefined) ?? 'authorization_code'] ?? 'authorization_code',
    clientId: text(raw.clientId),
    clientSecret: text(raw.clientSecret),
    scopes: list(raw.scopes),
    redirectUri: text(raw.redirectUri),
    authorizationUrl: text(raw.authorizationUrl),
    tokenUrl: text(raw.tokenUrl),
    audiences: list(raw.audiences),
    clientMetadataUrl: text(raw.clientMetadataUrl),
    privateKey: text(raw.privateKey),
    signingAlgorithm: text(raw.signingAlgorithm),
    idp: idp && {
      tokenUrl: text(idp.tokenUrl) ?? '',
      clientId: text(idp.clientId) ?? '',
      clientSecret: text(idp.clientSecret),
      idToken: text(idp.idToken) ?? '',
    },
    autoStart: raw.autoStart === true,
  };
  return withoutUndefined(settings);
}

/**
 * Which client a stored token belongs to: the pre-registered client ID, the metadata document
 * URL, or `dynamic` (registered by mcp-live). With the server's URL it keys the token store, so
 * a token survives every edit that keeps both (decision 86: hot reload keeps tokens valid).
 */
export function oauthClientKey(settings: OAuthSettings | undefined): string {
  if (settings?.clientId !== undefined) return `client:${settings.clientId}`;
  if (settings?.clientMetadataUrl !== undefined) return `cimd:${settings.clientMetadataUrl}`;
  return 'dynamic';
}
