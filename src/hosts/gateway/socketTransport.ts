import type { Socket } from 'node:net';
import type { Transport, JSONRPCMessage } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';

/**
 * The server side of one `serve --stdio` relay: the SDK's stdio framing over the socket. The
 * SDK transport watches neither end of its streams, so this one closes when the socket does (the
 * relay was killed, its client left) and ends the socket when the gateway closes the session.
 */
export class SocketServerTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private readonly framing: StdioServerTransport;
  private closed = false;

  constructor(private readonly socket: Socket) {
    this.framing = new StdioServerTransport(socket, socket);
    this.framing.onmessage = (message) => this.onmessage?.(message);
    this.framing.onerror = (error) => this.onerror?.(error);
    this.framing.onclose = () => this.ended();
    // Before start() too: an EPIPE from a relay killed at once must not be an uncaught 'error'.
    socket.on('error', () => socket.destroy());
    socket.once('close', () => void this.framing.close());
  }

  start(): Promise<void> {
    return this.framing.start();
  }

  send(message: JSONRPCMessage): Promise<void> {
    // The SDK waits for 'drain' on a full buffer, which a destroyed socket never emits.
    if (this.closed || this.socket.destroyed) return Promise.reject(new Error('the client is gone'));
    return this.framing.send(message);
  }

  close(): Promise<void> {
    return this.framing.close();
  }

  private ended(): void {
    if (this.closed) return;
    this.closed = true;
    // end, not destroy: what the gateway sent last (an error, a result) still reaches the client.
    this.socket.end();
    this.onclose?.();
  }
}
