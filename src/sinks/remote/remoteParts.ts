/**
 * What only a remote server needs: the SDK's SSE and Streamable HTTP client transports, its OAuth
 * client, and our OAuth provider on top of it. Never imported statically (decision 221): load it
 * with {@link loadRemoteParts} from remoteSdk.ts. The SDK's part is in the bundle a stdio session
 * loads anyway (its v2 client is one module, decision 365); ours is not.
 */
export { SSEClientTransport, SseError } from '@modelcontextprotocol/client';
export { SdkHttpError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
export { UnauthorizedError, auth } from '@modelcontextprotocol/client';
export { AuthorizationInProgress, AuthorizationRequired, McpOAuthProvider } from './oauthProvider.js';
