/**
 * The remote parts (remoteParts.ts), loaded once on first use (decision 221): our OAuth provider
 * and what it brings, which a session of stdio servers never uses. (The SDK's own transports and
 * OAuth client are one bundle with its client since its v2 line, decision 365.) A remote connection attempt
 * awaits {@link loadRemoteParts} before it builds its transport; code that can only run after
 * that (a remote transport's errors, an OAuth provider) reads {@link remoteParts}.
 */
export type RemoteParts = typeof import('./remoteParts.js');

let parts: RemoteParts | undefined;
let loading: Promise<RemoteParts> | undefined;

/** Loads the remote parts (once; later calls share the first). */
export function loadRemoteParts(): Promise<RemoteParts> {
  loading ??= import('./remoteParts.js').then((loaded) => (parts = loaded));
  return loading;
}

/** The remote parts, loaded already: a remote connection awaited {@link loadRemoteParts} first. */
export function remoteParts(): RemoteParts {
  if (parts === undefined) throw new Error('internal: the remote transports were used before they were loaded');
  return parts;
}

/** The remote parts if something loaded them, else undefined (then no error can be one of theirs). */
export function loadedRemoteParts(): RemoteParts | undefined {
  return parts;
}
