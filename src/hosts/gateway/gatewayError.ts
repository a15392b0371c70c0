/**
 * An error answered to a client as `{code, message, data?}` with the message exactly as given: an
 * `McpError` would go out as "MCP error <code>: …", and the client's SDK prefixes that again.
 */
export class GatewayError extends Error {
  constructor(
    readonly code: number,
    message: string,
    /** The error's `data`, when it has one (a backend's, passed on; the URI of an unknown resource). */
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'GatewayError';
  }
}
