import type { ResolvedServerConfig } from '../model/types.js';

/**
 * Builds a function that masks a server's secrets — its `env` values and `headers` values — in
 * any text we produce from what the server or the network said (error messages, stderr lines).
 * SPEC §9: secrets never appear in any event.
 *
 * Values shorter than {@link MIN_SECRET_CHARS} are left alone: `DEBUG=1` or `LOG=info` are not
 * secrets, and masking every `1` would garble the text. A header such as
 * `Authorization: Bearer sk-…` is also masked word by word, so the bare token is caught too.
 *
 * A remote server's URL may carry a token too (`?api_key=…`, `https://user:pass@…`, or a path
 * such as `…/s/<token>/mcp`), which error texts can quote: a server answering "not found: /mcp?
 * api_key=…", or fetch refusing a URL with credentials and naming it. Masked: the user name and
 * password, every query value, and path segments of {@link MIN_PATH_TOKEN_CHARS} or more.
 */
export const MIN_SECRET_CHARS = 6;
export const SECRET_MASK = '***';

/** A path segment this long is taken for a token (ordinary segments are words: `api`, `mcp`, `v1`). */
export const MIN_PATH_TOKEN_CHARS = 16;

/** The scheme word of an `Authorization` value is no secret ("Bearer" stays readable). */
const AUTH_SCHEMES = /^(basic|bearer|digest|token)$/i;

export function redactSecrets(config: Pick<ResolvedServerConfig, 'env' | 'headers' | 'url'>): (text: string) => string {
  const secrets = new Set<string>();
  const add = (value: string): void => {
    if (value.length >= MIN_SECRET_CHARS) secrets.add(value);
  };
  for (const value of Object.values(config.env)) add(value);
  for (const value of Object.values(config.headers)) {
    add(value);
    for (const word of value.split(/\s+/)) if (!AUTH_SCHEMES.test(word)) add(word);
  }
  if (config.url !== undefined) for (const value of urlSecrets(config.url)) add(value);
  // Longest first, so a whole header value is masked before one of its words.
  const ordered = [...secrets].sort((a, b) => b.length - a.length);
  if (ordered.length === 0) return (text) => text;
  return (text) => ordered.reduce((masked, secret) => masked.split(secret).join(SECRET_MASK), text);
}

/** The parts of a URL that may be secret, as written and percent-decoded. */
function urlSecrets(url: string): string[] {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return [];
  }
  const raw = [parsed.username, parsed.password, ...parsed.pathname.split('/').filter((s) => s.length >= MIN_PATH_TOKEN_CHARS)];
  const query = parsed.search.slice(1).split('&').map((pair) => pair.slice(pair.indexOf('=') + 1));
  const values = [...raw, ...query].filter((v) => v !== '');
  return values.flatMap((v) => [v, safeDecode(v)]);
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value.replace(/\+/g, ' '));
  } catch {
    return value;
  }
}
