/**
 * Which URLs OAuth may open in a browser or fetch (decisions 189–191). A remote server names
 * most of them (`resource_metadata` in its 401, the authorization server in its metadata, that
 * server's endpoints), so none is trusted as given:
 *
 * - **opened or handed out** (the authorization URL): `https:`, or `http:` to a loopback host —
 *   nothing else reaches a browser, an `auth-required` event or a screen;
 * - **fetched**: the MCP server's own origin (the user configured it), else `https:` or loopback
 *   `http:`; never a link-local or unspecified address (cloud metadata services), whatever the
 *   scheme;
 * - **`resource_metadata`**: only on the MCP server's own origin; another is ignored and the
 *   server's well-known metadata URL (RFC 9728 §3) is used instead.
 */

/** 127.0.0.0/8, `localhost` (and its subdomains, RFC 6761), `[::1]`. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  if (host === 'localhost' || host.endsWith('.localhost') || host === '[::1]' || host === '::1') return true;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** An address no OAuth request has business with: link-local (169.254/16, fe80::/10) or unspecified. */
function isForbiddenAddress(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  if (/^169\.254\.\d{1,3}\.\d{1,3}$/.test(host) || /^0\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)) return true;
  if (host === '::' || /^fe[89ab][0-9a-f]:/.test(host)) return true;
  // An IPv4 address written inside IPv6 (::ffff:169.254.169.254 reads back as ::ffff:a9fe:a9fe).
  return /^::ffff:(a9fe|0{1,4}):/.test(host);
}

/** Where a URL goes, for an error text: scheme and host only (a query may carry state or codes). */
export function describeUrl(url: URL): string {
  return url.host === '' ? url.protocol : `${url.protocol}//${url.host}`;
}

const WEB_ONLY = 'only https: URLs, or http: to a loopback host';

/** Why `url` is not a web URL a person may be sent to, or undefined when it is one. */
function notWeb(url: URL): string | undefined {
  if (url.protocol === 'https:' && !isForbiddenAddress(url.hostname)) return undefined;
  if (url.protocol === 'http:' && isLoopbackHost(url.hostname)) return undefined;
  return WEB_ONLY;
}

/** Thrown when OAuth would open or fetch a URL this policy refuses; the flow fails with it. */
export class OAuthUrlRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OAuthUrlRefused';
  }
}

/** The authorization URL, if a browser may be sent there; else throws {@link OAuthUrlRefused}. */
export function openableAuthorizationUrl(url: string | URL): URL {
  const parsed = typeof url === 'string' ? parseOrUndefined(url) : url;
  if (parsed === undefined) throw new OAuthUrlRefused('refused to open the authorization URL: it is not a URL');
  const why = notWeb(parsed);
  if (why !== undefined) throw new OAuthUrlRefused(`refused to open the authorization URL (${describeUrl(parsed)}): ${why}`);
  return parsed;
}

/** Why a browser must not be sent to `url` (the refusal's text), or undefined when it may. */
export function refusedAuthorizationUrl(url: string): string | undefined {
  try {
    openableAuthorizationUrl(url);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

/** Why OAuth must not fetch `url` for the MCP server at `serverUrl`, or undefined when it may. */
export function fetchRefusal(url: URL, serverUrl: string): string | undefined {
  const server = parseOrUndefined(serverUrl);
  if (server !== undefined && url.origin === server.origin && url.origin !== 'null') return undefined;
  if (isForbiddenAddress(url.hostname)) return `refused to fetch ${describeUrl(url)} for OAuth: a link-local or unspecified address`;
  const why = notWeb(url);
  return why === undefined ? undefined : `refused to fetch ${describeUrl(url)} for OAuth: ${why}`;
}

/**
 * A `resource_metadata` URL from the server's challenge, if it may be used: the server's own
 * origin only. RFC 9728 lets the metadata live elsewhere, but its `resource` must name this
 * server anyway, so a server loses nothing by hosting it itself — while a URL on another origin
 * would let any server make mcp-live GET an address of its choosing, unasked.
 */
export function usableResourceMetadataUrl(url: URL | undefined, serverUrl: string): URL | undefined {
  if (url === undefined) return undefined;
  const server = parseOrUndefined(serverUrl);
  return server !== undefined && url.origin === server.origin && url.origin !== 'null' ? url : undefined;
}

function parseOrUndefined(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}
