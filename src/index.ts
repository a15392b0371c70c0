/**
 * mcp-live — a live MCP runtime: watches every settings source and reconciles MCP server
 * connections incrementally, with approval gating. See README.md and docs/embedding.md.
 *
 * @packageDocumentation
 */

// The library facade (SPEC §9).
export { createMcpLive } from './live/createMcpLive.js';
export { type Authorization, type ExtraSource, type EnablementChange, type McpLive, type McpLiveApprovals, type McpLiveAuth, type McpLiveElicitation, type McpLiveLsp, type McpLiveOptions, type McpLivePrompts, type McpLiveResources, type McpLiveSession, type PendingElicitation, type QualifiedPrompt, type QualifiedResource, type QualifiedResourceTemplate, type ServerRequestOptions, type Unavailable } from './live/types.js';
/** The types the `lsp` group of {@link McpLive} speaks in. */
export type { FileDiagnostics, OpenDocument } from './sinks/lsp/documents.js';
export type { LspTarget } from './sinks/lsp/languageServers.js';
export { settingsPaths } from './live/settingsPaths.js';
export { planReport, type PlanReport, type PlannedServer } from './live/planReport.js';

// The reactive core, for hosts that bring their own sources or connector.
export { createReconciler, type PassRequest, type Reconciler, type ReconcilerDeps } from './live/reconciler.js';
export { connectMcp, createMcpConnector, type McpConnectorOptions } from './sinks/mcp/connector.js';
export { createOAuthManager, type OAuthManager } from './sinks/remote/oauthManager.js';
export { createOAuthTokenStore, type OAuthTokenStore } from './sinks/stores/oauthTokenStore.js';
export {
  NeedsAuthorization,
  SharedConnectionRestarted,
  type AttemptEnded,
  type CallProgress,
  type CallToolOptions,
  type Connection,
  type Connector,
  type ElicitationAnswer,
  type ElicitationField,
  type ElicitationForm,
  type ElicitationSchema,
  type RequestOptions,
  type ServerIdentity,
  type ServerRequestHandlers,
} from './model/connection.js';
export {
  createConnectionPool,
  DEFAULT_IDLE_GRACE_MS,
  type ConnectionPool,
  type ConnectionPoolOptions,
  type PooledConnectionStats,
} from './sinks/mcp/connectionPool.js';

// Operators (SPEC §8).
export { exhaustMapWithTrailing } from './operators/exhaustMapWithTrailing.js';
export { distinctUntilChangedUnless } from './operators/distinctUntilChangedUnless.js';
export { settle } from './operators/settle.js';
export { distinctFlatList } from './operators/distinctFlatList.js';
export { reconcileByServer, type ServerTask } from './operators/reconcileByServer.js';

// Pure domain functions.
export { assemble, type AssembleInput } from './model/settings/assemble.js';
/** Admission (SPEC §4) is called `admit`: the first reason that applies, or admitted. */
export { admit, admitAll, type Admission } from './model/admission/admit.js';
export { approvalHash, approvalState } from './model/settings/approvalHash.js';
export { fingerprint } from './model/reconcile/fingerprint.js';
export { mcpServersEqual, mcpGatingEqual, desiredStateEqual } from './model/reconcile/equality.js';
export { plan, desiredServers, type Action, type PlanStep, type WantedServer, type LiveEntry } from './model/reconcile/plan.js';
export { resolveServerConfig, validateServerConfig, transportKind, expandVars } from './model/settings/validate.js';
export { qualifiedToolName, filterTools, serverNameParts } from './model/tools/toolNames.js';
/** What a person approving an entry must see, and the one masking module of every output. */
export { reviewEntry, type EntryReview, type ReviewLine } from './model/admission/reviewEntry.js';
export { maskEntryAsWritten, entryForReview, referencedVariables, createServerMasker, createTextMasker, isSecretName } from './model/settings/secrets.js';
/** What a host prints of a server's or a file's text goes through this first (decision 161). */
export { terminalSafe, hasUnsafeCharacters, terminalSafeJson } from './model/terminalText.js';
export type { ToolMatch, ToolSearchOptions } from './model/tools/toolSearch.js';
export type { ServerSurface, SurfaceChange, SurfaceChangeKind } from './model/tools/surfaceTypes.js';
export { reasonText, toolNotFoundMessage, type HintAudience, type ToolFilter, type ToolNotFoundContext } from './model/report/messages.js';
export { matchesName } from './model/settings/namePatterns.js';

export type * from './model/types.js';
export type * from './model/report/status.js';
export type * from './model/report/events.js';
