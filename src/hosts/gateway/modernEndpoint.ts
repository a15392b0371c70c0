import type { IncomingMessage, ServerResponse } from 'node:http';
import { CLIENT_INFO_META_KEY, createMcpHandler, isJsonContentType, isLegacyRequest, type SubscriptionFilter } from '@modelcontextprotocol/server';
import { toNodeHandler, toWebRequest } from '@modelcontextprotocol/node';
import { paramHeaderMismatch } from '../../model/gateway/paramHeaders.js';
import type { Gateway } from './gateway.js';

/**
 * The modern leg of the gateway's HTTP endpoint (decision 388): requests of the 2026-07-28
 * revision, each served on its own by the SDK's `createMcpHandler` from a fresh gateway instance
 * — no session, no `Mcp-Session-Id`, so any gateway process on the same settings answers any
 * request. The handler validates the `_meta` envelope and the `Mcp-Method` / `Mcp-Name` headers
 * against the body; `subscriptions/listen` streams hear the gateway's list changes and the
 * updates of the resources they name ({@link Gateway.changes$}).
 *
 *   POST /mcp ─(Host, Origin, token: httpEndpoint)─▶ legacy? ─yes─▶ the 2025 sessions
 *                                                           └─no──▶ createMcpHandler(requestServer)
 */
export interface ModernLeg {
  /** Whether `body` (the POST's parsed JSON) is the modern era's: the handler owns its answer, errors included. */
  claims(req: IncomingMessage, body: unknown): Promise<boolean>;
  serve(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void>;
  /** Ends the modern exchanges in flight and the listen streams. */
  close(): Promise<void>;
}

export function modernLeg(gateway: Pick<Gateway, 'requestServer' | 'changes$' | 'listening' | 'toolInputSchema'>, maxBodyBytes: number): ModernLeg {
  // Strict: 2025 traffic never reaches it, the sessionful leg serves that (decision 388).
  const handler = createMcpHandler(() => gateway.requestServer(), { legacy: 'reject', maxRequestBodySize: maxBodyBytes });
  const forwarding = gateway.changes$.subscribe((event) => handler.bus.publish(event));
  const node = toNodeHandler(handler, { maxRequestBodySize: maxBodyBytes });

  return {
    async claims(req, body) {
      return !(await isLegacyRequest(await toWebRequest(req, body), body, { maxRequestBodySize: maxBodyBytes }));
    },
    async serve(req, res, body) {
      // The SDK's building blocks leave the media type to the composition.
      if (!isJsonContentType(req.headers['content-type'] ?? null)) {
        res.writeHead(415, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32600, message: 'unsupported media type: send Content-Type: application/json' }, id: null }));
        return;
      }
      // The SDK checks a tool's `Mcp-Param-*` headers for the tools it registers; these are the backends' (decision 374).
      const refusal = await paramHeadersRefusal(gateway, req, body);
      if (refusal !== undefined) {
        res.writeHead(400, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: refusal.id, error: { code: HEADER_MISMATCH, message: `Bad Request: ${refusal.message}` } }));
        return;
      }
      const filter = listenFilterOf(body);
      if (filter !== undefined) {
        const release = gateway.listening(filter, 'http', clientInfoOf(body));
        res.once('close', release);
      }
      await node(req, res, body);
    },
    async close() {
      forwarding.unsubscribe();
      await handler.close();
    },
  };
}

/** The 2026-07-28 revision's HeaderMismatch: what a header disagrees with in the body. */
const HEADER_MISMATCH = -32020;

/** Why a `tools/call`'s `Mcp-Param-*` headers are refused, with the request's id; else undefined. */
async function paramHeadersRefusal(
  gateway: Pick<Gateway, 'toolInputSchema'>,
  req: IncomingMessage,
  body: unknown,
): Promise<{ id: unknown; message: string } | undefined> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const { method, params, id } = body as { method?: unknown; params?: { name?: unknown; arguments?: unknown }; id?: unknown };
  if (method !== 'tools/call' || typeof params?.name !== 'string') return undefined;
  const schema = await gateway.toolInputSchema(params.name);
  if (schema === undefined) return undefined;
  const message = paramHeaderMismatch(schema, params.arguments, (name) => {
    const value = req.headers[name.toLowerCase()];
    return Array.isArray(value) ? value.join(', ') : value;
  });
  return message === undefined ? undefined : { id: id ?? null, message };
}

/** The `clientInfo` of a request's envelope: how a modern client names itself. */
function clientInfoOf(body: unknown): { name?: unknown; version?: unknown } | undefined {
  const info = (body as { params?: { _meta?: Record<string, unknown> } }).params?._meta?.[CLIENT_INFO_META_KEY];
  return info !== null && typeof info === 'object' ? info : undefined;
}

/** The filter of a `subscriptions/listen` request, else undefined. */
function listenFilterOf(body: unknown): SubscriptionFilter | undefined {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const { method, params } = body as { method?: unknown; params?: { notifications?: unknown } };
  if (method !== 'subscriptions/listen') return undefined;
  const filter = params?.notifications;
  if (filter === null || typeof filter !== 'object') return {};
  const { resourceSubscriptions } = filter as SubscriptionFilter;
  return Array.isArray(resourceSubscriptions) ? { resourceSubscriptions: resourceSubscriptions.filter((u) => typeof u === 'string') } : {};
}
