import type { OAuthRecord, OAuthTokenStore } from '../../../src/sinks/stores/oauthTokenStore.js';

/** An {@link OAuthTokenStore} in memory, for provider tests that need no file; `records` is its content. */
export function memoryTokenStore(records = new Map<string, OAuthRecord>()): OAuthTokenStore & { records: Map<string, OAuthRecord> } {
  return {
    records,
    file: '/nonexistent/tokens.json',
    get: (key) => Promise.resolve(records.get(key)),
    update: (key, change) => {
      const next = change(records.get(key));
      if (next === undefined) records.delete(key);
      else records.set(key, next);
      return Promise.resolve();
    },
    list: (prefix) => Promise.resolve([...records].filter(([key]) => key.startsWith(prefix))),
    move: (from, to, change) => {
      const source = records.get(from);
      if (source !== undefined && !records.has(to)) {
        records.set(to, change(source));
        records.delete(from);
      }
      return Promise.resolve(records.get(to));
    },
    forgetServer: () => Promise.resolve(0),
  };
}
