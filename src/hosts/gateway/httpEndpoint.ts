import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isInitializeRequest, type JSONRPCMessage } from '@modelcontextprotocol/server';
import { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import type { Gateway } from './gateway.js';
import { bearerMatches } from './gatewayToken.js';
import { SessionEventStore } from './sessionEventStore.js';
import { modernLeg } from './modernEndpoint.js';

/**
 * The most 2025-era sessions the endpoint keeps (decision 367). Each holds a server, its client's
 * state and up to 1 MiB of SSE events; a client that never ends its session must not make the
 * gateway's memory grow without bound.
 */
const MAX_HTTP_SESSIONS = 64;

/** The MCP endpoint's path. */
const GATEWAY_HTTP_PATH = '/mcp';

/** A request body larger than this is refused (413) before it is parsed. */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

/** The `retry` of an SSE stream's priming event: how long a client waits before it resumes a stream (decision 363). */
const SSE_RETRY_MS = 1_000;

export interface HttpEndpoint {
  /** `http://127.0.0.1:<port>/mcp` */
  readonly url: string;
  readonly port: number;
  /** Stops listening and drops every connection (open SSE streams included). */
  close(): Promise<void>;
}

/**
 * The gateway over Streamable HTTP on 127.0.0.1 (decision 124): one SDK transport per MCP session,
 * found by its `mcp-session-id`, for legacy (2025) clients; a request of the 2026-07-28 revision
 * (no session, its `_meta` envelope) goes to the modern leg (modernEndpoint.ts, decision 388).
 * Every request passes, in this order, the DNS-rebinding checks (a
 * Host that is not this endpoint on loopback, or an Origin that is present and not loopback: 403)
 * and the bearer token (401). A web page the user visits can thus neither reach the endpoint
 * under a name of its own nor read its answers, and another local user cannot use it either.
 * Each session keeps its SSE events in a bounded store of its own, dropped with it, so a client
 * resumes a broken stream with `Last-Event-ID` (decision 363).
 */
export async function listenHttp(
  gateway: Pick<Gateway, 'connect' | 'requestServer' | 'changes$' | 'listening' | 'toolInputSchema'>,
  options: { port: number; token: string; maxSessions?: number },
): Promise<HttpEndpoint> {
  const maxSessions = options.maxSessions ?? MAX_HTTP_SESSIONS;
  const sessions = new Map<string, NodeStreamableHTTPServerTransport>();
  const modern = modernLeg(gateway, MAX_BODY_BYTES);
  let port = options.port;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (!hostAllowed(req.headers.host, port)) {
      return refuse(res, 403, `forbidden: the Host must be 127.0.0.1:${port}, localhost:${port} or [::1]:${port}`);
    }
    const origin = req.headers.origin;
    if (origin !== undefined && !loopbackOrigin(origin)) return refuse(res, 403, 'forbidden: requests from web pages of other origins are refused');
    if (!bearerMatches(req.headers.authorization, options.token)) {
      return refuse(res, 401, 'unauthorized: send "Authorization: Bearer <token>" (mcp-live serve --print-token)', {
        'WWW-Authenticate': 'Bearer',
      });
    }
    if (new URL(req.url ?? '/', 'http://localhost').pathname !== GATEWAY_HTTP_PATH) {
      return refuse(res, 404, `not found: the MCP endpoint is ${GATEWAY_HTTP_PATH}`);
    }
    const sessionId = req.headers['mcp-session-id'];
    if (typeof sessionId === 'string') {
      const transport = sessions.get(sessionId);
      if (!transport) return refuse(res, 404, 'session not found: it ended; initialize a new one');
      // Most recently used last: the session a full endpoint ends first is the one idle longest.
      sessions.delete(sessionId);
      sessions.set(sessionId, transport);
      if (req.method !== 'POST') return transport.handleRequest(req, res);
      // Read here, as for a new session: the SDK's transport then takes the JSON as it is instead
      // of building a web Request body stream from the Node one, a cost on every call.
      const body = await readJson(req);
      if (!body.ok) return refuse(res, body.status, body.message);
      return transport.handleRequest(req, res, body.value);
    }
    if (req.method !== 'POST') return refuse(res, 400, 'bad request: no mcp-session-id; a session begins with a POST of initialize');
    const body = await readJson(req);
    if (!body.ok) return refuse(res, body.status, body.message);
    if (await modern.claims(req, body.value)) return modern.serve(req, res, body.value);
    if (!isInitializeRequest(body.value)) return refuse(res, 400, 'bad request: no mcp-session-id; a session begins with initialize');
    await startSession(req, res, body.value);
  };

  const startSession = async (req: IncomingMessage, res: ServerResponse, initialize: unknown): Promise<void> => {
    // Full (decision 367): the session idle longest ends; its client gets 404 and initializes anew.
    for (const [id, idle] of sessions) {
      if (sessions.size < maxSessions) break;
      sessions.delete(id);
      await idle.close().catch(() => undefined);
    }
    const eventStore = new SessionEventStore<JSONRPCMessage>();
    const transport: NodeStreamableHTTPServerTransport = new NodeStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => void sessions.set(id, transport),
      eventStore,
      retryInterval: SSE_RETRY_MS,
    });
    const session = await gateway.connect(transport, 'http');
    void session.closed.then(() => {
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
      eventStore.clear();
    });
    await transport.handleRequest(req, res, initialize);
    // A refused initialize (a bad protocol version) opened no session: nothing will come back to it.
    if (transport.sessionId === undefined || !sessions.has(transport.sessionId)) await session.close();
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) refuse(res, 500, `internal error: ${error instanceof Error ? error.message : String(error)}`);
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'EADDRINUSE'
          ? new Error(`port ${options.port} on 127.0.0.1 is in use (another gateway, or another program): choose one with --port N`)
          : error,
      ),
    );
    server.listen(options.port, '127.0.0.1', () => resolve());
  });
  port = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}${GATEWAY_HTTP_PATH}`,
    port,
    async close() {
      await modern.close().catch(() => undefined);
      await Promise.all([...sessions.values()].map((transport) => transport.close().catch(() => undefined)));
      sessions.clear();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}

const LOOPBACK_HOSTS = ['127.0.0.1', 'localhost', '[::1]'];

/** The Host names this endpoint: a loopback name and our port, nothing a DNS name could rebind to. */
function hostAllowed(host: string | undefined, port: number): boolean {
  return host !== undefined && LOOPBACK_HOSTS.some((name) => host.toLowerCase() === `${name}:${port}`);
}

/** A page served from this machine (any port); `null` (a sandboxed or file: page) is not. */
function loopbackOrigin(origin: string): boolean {
  try {
    const url = new URL(origin);
    return (url.protocol === 'http:' || url.protocol === 'https:') && LOOPBACK_HOSTS.includes(url.hostname);
  } catch {
    return false;
  }
}

function refuse(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: status === 400 ? -32600 : -32000, message }, id: null }));
}

type Body = { ok: true; value: unknown } | { ok: false; status: number; message: string };

async function readJson(req: IncomingMessage): Promise<Body> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return { ok: false, status: 413, message: `request body larger than ${MAX_BODY_BYTES} bytes` };
    chunks.push(chunk);
  }
  try {
    return { ok: true, value: JSON.parse(Buffer.concat(chunks).toString('utf8')) };
  } catch {
    return { ok: false, status: 400, message: 'parse error: the body is not JSON' };
  }
}
