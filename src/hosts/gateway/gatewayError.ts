/**
 * An error answered to a client as `{code, message}` with the message exactly as given: an
 * `McpError` would go out as "MCP error <code>: …", and the client's SDK prefixes that again.
 */
export class GatewayError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = 'GatewayError';
  }
}
