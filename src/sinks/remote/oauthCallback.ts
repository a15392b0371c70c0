import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The loopback end of an authorization (RFC 8252 §7.3): an HTTP listener on 127.0.0.1 where the
 * user's browser comes back with `?code=…&state=…` (and `iss`, RFC 9207). The port is chosen
 * when the flow starts, unless the entry pins a `redirectUri`. Only a request to the callback
 * path with the flow's own `state` is taken; anything else is answered 404 or 400 and changes
 * nothing, so another page that guesses the port cannot complete or end the flow. The answer is
 * handed on whole: whether its code or its error is believed is decided against the issuer the
 * flow recorded (decision 397).
 */

export interface LoopbackCallback {
  /** `http://127.0.0.1:<port>/callback`, or the pinned URI. */
  readonly redirectUrl: string;
  /** Resolves with the query of the answer that carries `state` (a code or an error); rejects on timeout or abort. */
  response(state: string, options?: { timeoutMs?: number; signal?: AbortSignal }): Promise<URLSearchParams>;
  close(): Promise<void>;
}

/** How long the user has to finish in the browser. */
export const AUTHORIZATION_TIMEOUT_MS = 5 * 60_000;

const PAGE = (title: string, text: string): string =>
  `<!doctype html><meta charset="utf-8"><title>${title}</title><body style="font-family:sans-serif;margin:3em"><h1>${title}</h1><p>${text}</p></body>`;

export async function listenForCallback(pinned?: string): Promise<LoopbackCallback> {
  const target = pinned === undefined ? undefined : new URL(pinned);
  if (target !== undefined && target.protocol !== 'http:') throw new Error(`redirectUri must be an http:// loopback URL, not ${target.protocol}//`);
  const host = target?.hostname.replace(/^\[(.*)\]$/, '$1') ?? '127.0.0.1';
  if (!['127.0.0.1', 'localhost', '::1'].includes(host)) throw new Error(`redirectUri must point at this machine (127.0.0.1), not ${host}`);
  const path = target?.pathname ?? '/callback';
  let deliver: ((query: URLSearchParams) => boolean) | undefined;
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method !== 'GET' || url.pathname !== path) {
      res.writeHead(404).end();
      return;
    }
    const taken = deliver?.(url.searchParams) ?? false;
    const error = url.searchParams.get('error');
    res.writeHead(taken ? 200 : 400, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    if (!taken) res.end(PAGE('Not for this sign-in', 'This link does not belong to the sign-in mcp-live is waiting for.'));
    else if (error !== null) res.end(PAGE('Authorization failed', 'mcp-live was told the authorization failed; see your terminal.'));
    else res.end(PAGE('Authorized', 'mcp-live has the authorization. You can close this tab.'));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(target?.port === undefined || target.port === '' ? 0 : Number(target.port), host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const redirectUrl = target?.href ?? `http://127.0.0.1:${port}${path}`;

  const response = (state: string, { timeoutMs = AUTHORIZATION_TIMEOUT_MS, signal }: { timeoutMs?: number; signal?: AbortSignal } = {}) =>
    new Promise<URLSearchParams>((resolve, reject) => {
      const finish = (settle: () => void): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        deliver = undefined;
        settle();
      };
      const onAbort = (): void => finish(() => reject(signal?.reason instanceof Error ? signal.reason : new Error('authorization cancelled')));
      const timer = setTimeout(
        () => finish(() => reject(new Error(`no answer from the browser within ${Math.round(timeoutMs / 1000)} s; start the authorization again`))),
        timeoutMs,
      );
      signal?.addEventListener('abort', onAbort, { once: true });
      deliver = (query) => {
        if (query.get('state') !== state) return false;
        finish(() => resolve(query));
        return true;
      };
    });

  const close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });

  return { redirectUrl, response, close };
}
