import { ProtocolErrorCode } from '@modelcontextprotocol/client';

/**
 * A read of a URI the server does not have (decision 383): `-32002` (2025) or `-32602` (the
 * 2026-07-28 wording, invalid params) — one message naming the URI, the server's code kept.
 */
export function unknownResource(error: unknown, uri: string, server: string): Error | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (code !== -32002 && code !== ProtocolErrorCode.InvalidParams) return undefined;
  const said = error instanceof Error ? `: ${error.message}` : '';
  return Object.assign(new Error(`resource "${uri}" not found on server "${server}"${said}`), { code });
}
