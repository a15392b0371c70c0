import { CLIENT_INFO_META_KEY, PROTOCOL_VERSION_META_KEY } from '@modelcontextprotocol/server';
import type { JSONRPCMessage, MessageExtraInfo, Transport, TransportSendOptions } from '@modelcontextprotocol/server';

/**
 * A connection's transport as `serveStdio` gets it, with an eye on what comes in: the gateway must
 * ask its backends for the resources a modern client's `subscriptions/listen` names (decision
 * 388), and the SDK answers the listen itself. `onListen` hears each listen request's id and
 * resource URIs, `onListenEnd` a cancel of one, `onClientInfo` the name a modern client gives on
 * its requests (it has no `initialize`), `onEnd` the connection's end.
 */
export class ListenWatchingTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;

  constructor(
    private readonly inner: Transport,
    private readonly watch: {
      onListen(id: unknown, uris: readonly string[]): void;
      onListenEnd(id: unknown): void;
      /** The `clientInfo` of a modern request's envelope. */
      onClientInfo(info: { name?: unknown; version?: unknown }): void;
      onEnd(): void;
    },
  ) {
    inner.onmessage = (message, extra) => {
      this.peek(message);
      this.onmessage?.(message, extra);
    };
    inner.onclose = () => {
      watch.onEnd();
      this.onclose?.();
    };
    inner.onerror = (error) => this.onerror?.(error);
  }

  start(): Promise<void> {
    return this.inner.start();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    return this.inner.send(message, options);
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  setProtocolVersion(version: string): void {
    this.inner.setProtocolVersion?.(version);
  }

  private peek(message: JSONRPCMessage): void {
    const { method, params, id } = message as { method?: unknown; params?: Record<string, unknown>; id?: unknown };
    const meta = params?._meta as Record<string, unknown> | undefined;
    const client = meta?.[CLIENT_INFO_META_KEY];
    if (client !== null && typeof client === 'object') this.watch.onClientInfo(client);
    if (method === 'subscriptions/listen' && id !== undefined) {
      // Only a modern listen (it carries the envelope); on a legacy connection the method is unknown.
      if (meta?.[PROTOCOL_VERSION_META_KEY] === undefined) return;
      const uris = (params?.notifications as { resourceSubscriptions?: unknown } | undefined)?.resourceSubscriptions;
      this.watch.onListen(id, Array.isArray(uris) ? uris.filter((u): u is string => typeof u === 'string') : []);
    } else if (method === 'notifications/cancelled') {
      this.watch.onListenEnd(params?.requestId);
    }
  }
}
