import { defer, mergeMap, type SchedulerLike } from 'rxjs';
import type { Connector } from '../model/connection.js';
import type { LspDocuments } from '../sinks/lsp/documents.js';
import type { LspConnector } from '../sinks/lsp/lspConnector.js';
import { createMcpConnector, type StepUpAuthorizer } from '../sinks/mcp/connector.js';
import { eraMemory } from '../sinks/mcp/eraMemory.js';
import { lazyConnector } from '../sinks/mcp/lazyConnector.js';
import type { OAuthManager } from '../sinks/remote/oauthManager.js';
import type { SurfaceStore } from '../sinks/stores/surfaceStore.js';
import type { McpLiveOptions } from './types.js';

export interface SessionConnectorDeps {
  options: Pick<McpLiveOptions, 'pool' | 'connector' | 'interactiveAuth' | 'onAuthorizationUrl'>;
  oauth: OAuthManager;
  /** The one document store of the session: language servers are told about these documents. */
  documents: LspDocuments;
  surfaces: SurfaceStore;
  scheduler: SchedulerLike | undefined;
  /** Aborts when the session ends: a step-up waiting for a browser ends with it. */
  sessionEnded: AbortSignal;
  /** Tells the host and the events the URL the user must open (`auth-required`, `onAuthorizationUrl`). */
  announce: (server: string, url: string) => void;
}

/**
 * How the session reaches a server: language servers through the LSP connector (decision 153),
 * MCP servers through the host's connector, the pool's, or the MCP SDK's — `lazy` and
 * `idleTimeout` ones on demand, listed from their record meanwhile (decision 196).
 */
export function sessionConnector({ options, oauth, documents, surfaces, scheduler, sessionEnded, announce }: SessionConnectorDeps): Connector {
  // A step-up during a request starts its own authorization, without a reconnect: the connection
  // sends the new token from then on (decision 242).
  const stepUp: StepUpAuthorizer = (name, config, { signal }) =>
    oauth.authenticate(name, config, { signal: AbortSignal.any([signal, sessionEnded]), onAuthorizationUrl: (url) => announce(name, url) });
  const interactiveAuth = options.interactiveAuth ?? options.onAuthorizationUrl !== undefined;
  // Each server's era is learned once and kept with its surface record (decision 380).
  const eras = eraMemory(surfaces);
  const mcpConnector = options.pool?.connector ?? options.connector ?? createMcpConnector({ oauth, eras, ...(interactiveAuth ? { stepUp } : {}) });
  // Loaded with the first language server: the LSP library costs a session without one ~20 MB of
  // RSS and its load time (measured by the idle and cold-start benches).
  let lspConnector: Promise<LspConnector> | undefined;
  const connectLsp: Connector = (name, config, _handlers, ended) =>
    defer(() => (lspConnector ??= import('../sinks/lsp/lspConnector.js').then(({ createLspConnector }) => createLspConnector({ documents })))).pipe(
      mergeMap((connect) => connect(name, config, ended)),
    );
  const onDemand = lazyConnector(mcpConnector, { surfaces, scheduler });
  return (name, config, serverHandlers, ended) =>
    config.lsp !== undefined ? connectLsp(name, config, undefined, ended) : onDemand(name, config, serverHandlers, ended);
}
