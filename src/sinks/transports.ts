import { SSEClientTransport, SseError } from '@modelcontextprotocol/sdk/client/sse.js';
import {
  StreamableHTTPClientTransport,
  type StreamableHTTPReconnectionOptions,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { ResolvedServerConfig } from '../model/types.js';
import type { StderrRing } from './stderrRing.js';
import { StdioProcessTransport, type GroupRecording, type StdioShutdownGraces } from './stdioTransport.js';

/**
 * Picks and builds the transport for a resolved server config (SPEC §3): our stdio transport
 * for `stdio`, the SDK's SSE and Streamable HTTP client transports for remote servers.
 */

export interface TransportOptions {
  graces: StdioShutdownGraces;
  /** Streamable HTTP: how the SDK retries a dropped server-to-client stream before we call it lost. */
  httpReconnection?: StreamableHTTPReconnectionOptions;
  /** stdio: where the server's process group is recorded while it runs. */
  processGroups?: GroupRecording;
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
      );
      return { kind: 'stdio', transport };
    }
    case 'sse': {
      // The SDK sends requestInit.headers on the event stream's GET as well as on every POST.
      const transport = new SSEClientTransport(remoteUrl(config), { requestInit: { headers: config.headers } });
      return { kind: 'sse', transport };
    }
    case 'http': {
      const transport = new StreamableHTTPClientTransport(remoteUrl(config), {
        requestInit: { headers: config.headers },
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
 * Whether an error a remote transport reported after connecting means the server is gone.
 * SSE: the event stream failed (the `eventsource` client would retry forever on its own; the
 * supervisor restarts us instead). Streamable HTTP: the SDK retried the dropped stream and gave
 * up. Failed POSTs are not fatal by themselves: they fail the request they carried.
 */
export function isConnectionLost(kind: McpTransport['kind'], error: Error): boolean {
  if (kind === 'sse') return error instanceof SseError;
  if (kind === 'http') return error.message.startsWith('Maximum reconnection attempts');
  return false;
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

/** SPEC §3: stdio children get the process environment overlaid with the config's `env`. */
function childEnvironment(overlay: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined) env[key] = value;
  }
  return { ...env, ...overlay };
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
