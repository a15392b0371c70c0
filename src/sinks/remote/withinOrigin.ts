import type { FetchLike } from '@modelcontextprotocol/client';

const MAX_REDIRECTS = 5;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/**
 * A fetch that follows a redirect only while it stays within the origin it started from (the same
 * scheme, host and port, or the https form of an http origin on default ports), at most five hops,
 * never one that adds user info, and never a 301/302/303 that would turn a request with a body
 * into a GET. Any other redirect response is returned as it is, unfollowed (decision 190). A
 * caller that asks for `redirect: 'manual'` or `'error'` itself gets exactly that. The SDK's
 * transports wrap their fetch the same way; its OAuth requests go through this one.
 */
export function fetchWithinOrigin(baseFetch: FetchLike): FetchLike {
  return async (url, init) => {
    if (init?.redirect === 'error' || init?.redirect === 'manual') return baseFetch(url, init);
    let from = new URL(String(url instanceof Request ? url.url : url));
    let response = await baseFetch(url, { ...init, redirect: 'manual' });
    for (let hop = 0; hop < MAX_REDIRECTS; hop++) {
      const target = nextHop(response, from, init?.method);
      if (target === undefined) return response;
      await response.body?.cancel();
      response = await baseFetch(target, { ...init, redirect: 'manual' });
      from = target;
    }
    return response;
  };
}

function nextHop(response: Response, from: URL, method = 'GET'): URL | undefined {
  const location = REDIRECT_STATUSES.has(response.status) ? response.headers.get('location') : null;
  if (location === null) return undefined;
  let target: URL;
  try {
    target = new URL(location, from);
  } catch {
    return undefined;
  }
  const keepsMethod = response.status === 307 || response.status === 308 || method.toUpperCase() === 'GET';
  const addsUserinfo = (target.username !== '' || target.password !== '') && (target.username !== from.username || target.password !== from.password);
  return keepsMethod && !addsUserinfo && isWithinOrigin(from, target) ? target : undefined;
}

function isWithinOrigin(from: URL, to: URL): boolean {
  if (from.protocol === to.protocol && from.hostname === to.hostname && from.port === to.port) return true;
  return from.hostname === to.hostname && from.protocol === 'http:' && from.port === '' && to.protocol === 'https:' && to.port === '';
}
