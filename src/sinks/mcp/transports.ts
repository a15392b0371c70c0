import type {
  SSEClientTransport,
  StreamableHTTPClientTransport,
  StreamableHTTPReconnectionOptions,
  FetchLike,
} from '@modelcontextprotocol/client';
import type { ResolvedServerConfig } from '../../model/types.js';
import { boundedFetch } from '../remote/boundedFetch.js';
import { DEFAULT_MAX_MESSAGE_BYTES, type MessageTooLarge } from '../../model/messageLimit.js';
import type { McpOAuthProvider } from '../remote/oauthProvider.js';
import { loadedRemoteParts, remoteParts } from '../remote/remoteSdk.js';
import type { StderrRing } from '../../process/stderrRing.js';
import { childEnvironment, type GroupRecording } from '../../process/serverProcess.js';
import { StdioProcessTransport, type StdioShutdownGraces } from './stdioTransport.js';

/**
 * Picks and builds the transport for a resolved server config (docs/contract.md, "Server entries"):
 * our stdio transport for `stdio`, the SDK's SSE and Streamable HTTP client transports for remote
 * servers (loaded on first use, decision 221: a remote config's attempt awaits `loadRemoteParts()`
 * first).
 */

export interface TransportOptions {
  graces: StdioShutdownGraces;
  /** Streamable HTTP: how the SDK retries a dropped server-to-client stream before we call it lost. */
  httpReconnection?: StreamableHTTPReconnectionOptions;
  /** stdio: where the server's process group is recorded while it runs. */
  processGroups?: GroupRecording;
  /** Remote servers: the OAuth provider that supplies and renews tokens (decision 83). */
  oauth?: McpOAuthProvider;
  /** The largest message the server may send (default {@link DEFAULT_MAX_MESSAGE_BYTES}; decisions 179–180). */
  maxMessageBytes?: number;
  /** A message passed {@link maxMessageBytes}: the connection is unusable from here (stdio reports it through `onerror`). */
  onMessageTooLarge?: (error: MessageTooLarge) => void;
  /**
   * Remote servers with a `headersHelper` (decision 240): the headers every request sends, an
   * object the caller keeps up to date (the SDK reads it anew for each request), and how to run
   * the helper again; it resolves true when the headers changed. A request answered 401 that
   * carried them is sent once more with the new ones before the 401 reaches OAuth.
   */
  helper?: { headers: Record<string, string>; refresh: () => Promise<boolean> };
}

export type McpTransport =
  | { kind: 'stdio'; transport: StdioProcessTransport }
  | { kind: 'sse'; transport: SSEClientTransport }
  | { kind: 'http'; transport: StreamableHTTPClientTransport };

export function createTransport(
  config: ResolvedServerConfig,
  stderr: StderrRing,
  options: TransportOptions,
): McpTransport {
  switch (config.transport) {
    case 'stdio': {
      if (!config.command) throw new Error('no command to start');
      const transport = new StdioProcessTransport(
        { command: config.command, args: config.args, env: childEnvironment(config.env), cwd: config.cwd },
        stderr,
        options.graces,
        options.processGroups,
        options.maxMessageBytes,
      );
      return { kind: 'stdio', transport };
    }
    case 'sse': {
      // The SDK sends requestInit.headers on the event stream's GET as well as on every POST.
      const transport = new (remoteParts().SSEClientTransport)(remoteUrl(config), {
        requestInit: { headers: options.helper?.headers ?? config.headers },
        ...fetchOptions(options),
      });
      return { kind: 'sse', transport };
    }
    case 'http': {
      const transport = new (remoteParts().StreamableHTTPClientTransport)(remoteUrl(config), {
        requestInit: { headers: options.helper?.headers ?? config.headers },
        ...fetchOptions(options),
        ...(options.httpReconnection ? { reconnectionOptions: options.httpReconnection } : {}),
      });
      return { kind: 'http', transport };
    }
    default: {
      const unknown: never = config.transport;
      throw new Error(`unknown transport "${String(unknown)}"`);
    }
  }
}

/**
 * The SDK transports' fetch: bounded per message (decision 179), the innermost wrapper so that
 * every body — the server's answers, its event stream, OAuth metadata and tokens — is counted;
 * with OAuth, the provider's on top, which sees every challenge.
 */
function fetchOptions({ oauth, maxMessageBytes, onMessageTooLarge, helper }: TransportOptions): { authProvider?: McpOAuthProvider; fetch: FetchLike } {
  const bounded = boundedFetch(maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES, (error) => onMessageTooLarge?.(error));
  // Under OAuth's observer: the provider sees only the answer to the retried request.
  const fetch = helper === undefined ? bounded : retryingWithFreshHeaders(bounded, helper);
  return oauth === undefined ? { fetch } : { authProvider: oauth, fetch: oauth.observe(fetch) };
}

/**
 * A request answered 401 that carried the helper's headers (decision 240) runs the helper again
 * and, when that changed them, is sent once more with the new ones: a short-lived token is
 * renewed before OAuth or the user is bothered. Requests that did not carry them (OAuth's own
 * discovery and token requests) are left alone, so the helper's headers never reach them.
 */
function retryingWithFreshHeaders(fetchFn: FetchLike, helper: NonNullable<TransportOptions['helper']>): FetchLike {
  return async (input, init) => {
    const response = await fetchFn(input, init);
    if (response.status !== 401 || !carries(init?.headers, helper.headers)) return response;
    if (!(await helper.refresh().catch(() => false))) return response;
    await response.body?.cancel().catch(() => undefined);
    const headers = new Headers(init?.headers);
    for (const [name, value] of Object.entries(helper.headers)) headers.set(name, value);
    return fetchFn(input, { ...init, headers });
  };
}

/** Whether a request's headers hold every one of `expected` (the SDK merged them in). */
function carries(sent: ConstructorParameters<typeof Headers>[0], expected: Readonly<Record<string, string>>): boolean {
  const names = Object.keys(expected);
  if (names.length === 0 || sent === undefined) return false;
  const headers = new Headers(sent);
  return names.every((name) => headers.get(name) === expected[name]);
}

/**
 * Whether an error a remote transport reported after connecting means the server is gone.
 * SSE: the event stream failed (the `eventsource` client would retry forever on its own; the
 * supervisor restarts us instead). Streamable HTTP: the SDK retried the dropped stream and gave
 * up. Failed POSTs are not fatal by themselves: they fail the request they carried.
 */
export function isConnectionLost(kind: McpTransport['kind'], error: Error): boolean {
  if (kind === 'sse') return isSseError(error);
  if (kind === 'http') return error.message.startsWith('Maximum reconnection attempts');
  return false;
}

/** An SSE transport's error: none can be one before the SSE transport was loaded. */
function isSseError(error: unknown): boolean {
  const sse = loadedRemoteParts()?.SseError;
  return sse !== undefined && error instanceof sse;
}

/**
 * Whether a request failed because the server could not be reached at all (refused, reset, the
 * socket closed mid-answer): undici reports these as `TypeError: fetch failed` or `terminated`.
 */
export function isNetworkFailure(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error instanceof TypeError && (error.message === 'fetch failed' || error.message === 'terminated')) return true;
  const code = (error.cause as NodeJS.ErrnoException | undefined)?.code ?? (error as NodeJS.ErrnoException).code;
  return code !== undefined && NETWORK_FAILURE_CODES.has(code);
}

const NETWORK_FAILURE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED']);

/**
 * A failure in words: the error's message and its causes, each once. undici reports every
 * network failure as "fetch failed" and keeps why in `cause` (`connect ECONNREFUSED 127.0.0.1:4000`,
 * `getaddrinfo ENOTFOUND host`, `bad port`); a connect to a name with several addresses fails with
 * an `AggregateError` that has no message, only one error per address.
 */
export function describeError(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current !== undefined && current !== null && depth < MAX_CAUSES; depth++) {
    const text = ownText(current);
    // The SSE transport quotes its cause in its own message already.
    if (text !== '' && !parts.some((p) => p.includes(text))) parts.push(text);
    current = current instanceof Error ? current.cause : undefined;
  }
  return parts.join(': ');
}

/**
 * A remote server that could not be reached, named by its host (`URL.host`: never the user info,
 * path or query, where secrets live) unless the cause names it already: "fetch failed: bad port
 * (127.0.0.1:9)". Any other failure is {@link describeError}'s.
 */
export function describeRemoteFailure(error: unknown, url: string | undefined): string {
  const text = describeError(error);
  if (!(isNetworkFailure(error) || isSseError(error))) return text;
  const host = hostOf(url);
  return host && !text.includes(host.name) ? `${text} (${host.host})` : text;
}

/** Causes followed: undici nests one, a wrapper may add another; a cycle must not hang us. */
const MAX_CAUSES = 4;

function ownText(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  if (error.message !== '') return error.message;
  if (error instanceof AggregateError) return error.errors.map(ownText).filter((t) => t !== '').join('; ');
  return (error as NodeJS.ErrnoException).code ?? error.name;
}

function hostOf(url: string | undefined): { host: string; name: string } | undefined {
  if (url === undefined || !URL.canParse(url)) return undefined;
  const { host, hostname } = new URL(url);
  // Node quotes an IPv6 address without its brackets: `connect ECONNREFUSED ::1:4000`.
  return host === '' ? undefined : { host, name: hostname.replace(/^\[(.*)\]$/, '$1') };
}

function remoteUrl(config: ResolvedServerConfig): URL {
  if (!config.url) throw new Error('no url to connect to');
  try {
    return new URL(config.url);
  } catch {
    // The URL itself is not echoed: it may carry a token in its query.
    throw new Error('invalid url');
  }
}
