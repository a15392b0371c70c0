import type { ResolvedServerConfig } from '../model/types.js';

/**
 * Builds a function that masks a server's secrets — its `env` values and `headers` values — in
 * any text we produce from what the server or the network said (error messages, stderr lines).
 * SPEC §9: secrets never appear in any event.
 *
 * Values shorter than {@link MIN_SECRET_CHARS} are left alone: `DEBUG=1` or `LOG=info` are not
 * secrets, and masking every `1` would garble the text. A header such as
 * `Authorization: Bearer sk-…` is also masked word by word, so the bare token is caught too.
 */
export const MIN_SECRET_CHARS = 6;
export const SECRET_MASK = '***';

/** The scheme word of an `Authorization` value is no secret ("Bearer" stays readable). */
const AUTH_SCHEMES = /^(basic|bearer|digest|token)$/i;

export function redactSecrets(config: Pick<ResolvedServerConfig, 'env' | 'headers'>): (text: string) => string {
  const secrets = new Set<string>();
  const add = (value: string): void => {
    if (value.length >= MIN_SECRET_CHARS) secrets.add(value);
  };
  for (const value of Object.values(config.env)) add(value);
  for (const value of Object.values(config.headers)) {
    add(value);
    for (const word of value.split(/\s+/)) if (!AUTH_SCHEMES.test(word)) add(word);
  }
  // Longest first, so a whole header value is masked before one of its words.
  const ordered = [...secrets].sort((a, b) => b.length - a.length);
  if (ordered.length === 0) return (text) => text;
  return (text) => ordered.reduce((masked, secret) => masked.split(secret).join(SECRET_MASK), text);
}
