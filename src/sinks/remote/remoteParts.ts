/**
 * What only a remote server needs: the SDK's SSE and Streamable HTTP client transports, its OAuth
 * client, and our OAuth provider on top of it. Never imported statically (decision 221): load it
 * with {@link loadRemoteParts} from remoteSdk.ts, so a session of stdio servers never pays for it.
 */
export { SSEClientTransport, SseError } from '@modelcontextprotocol/sdk/client/sse.js';
export { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
export { UnauthorizedError, auth } from '@modelcontextprotocol/sdk/client/auth.js';
export { AuthorizationInProgress, AuthorizationRequired, McpOAuthProvider } from './oauthProvider.js';
