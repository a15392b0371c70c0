/** What replaces a secret value. */
export const MASK = '***';

/** Keys whose values are all secrets (SPEC §9: env and header values never appear). */
const SECRET_MAPS = new Set(['env', 'headers']);

/**
 * A copy of a server config (or a whole `mcpServers` map, or any JSON value holding them) fit to
 * show on screen: every value of every `env` and `headers` object, at any depth, becomes
 * {@link MASK}, and so does the password of a URL with credentials (`https://user:pw@host`).
 * Keys stay visible, so the user can see *which* variables are set. The input is not modified.
 */
export function maskConfig(config: unknown): unknown {
  return mask(config, undefined);
}

function mask(value: unknown, key: string | undefined): unknown {
  if (Array.isArray(value)) return value.map((v) => mask(v, undefined));
  if (typeof value === 'string') return key === 'url' || key === 'httpUrl' ? maskUrlPassword(value) : value;
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    const secretMap = SECRET_MAPS.has(k) && typeof v === 'object' && v !== null && !Array.isArray(v);
    // defineProperty, so a key named `__proto__` is copied as data, not as the prototype.
    Object.defineProperty(out, k, {
      value: secretMap ? Object.fromEntries(Object.keys(v).map((name) => [name, MASK])) : mask(v, k),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

function maskUrlPassword(text: string): string {
  try {
    const url = new URL(text);
    if (url.password === '') return text;
    url.password = MASK;
    return url.toString();
  } catch {
    return text;
  }
}
