/**
 * mcp-live — a live MCP runtime: watches every settings source and reconciles MCP server
 * connections incrementally, with approval gating. See README.md and docs/embedding.md.
 *
 * The package root is what a host needs (decision 347): the session (`createMcpLive`, its face
 * and its options), how servers are reached (connector, pool, OAuth), what a host must show
 * safely (terminal text, masking, the review of an entry), and the types of everything the face
 * hands out. The pipeline's building blocks — the reconciler, the operators, the pure model
 * functions — are `mcp-live/pipeline` (src/pipeline.ts).
 *
 * @packageDocumentation
 */

// The session and its face (decisions 286, 346).
export { createMcpLive } from './live/createMcpLive.js';
export type {
  Authorization,
  EnablementChange,
  ExtraSource,
  McpLive,
  McpLiveApprovals,
  McpLiveAuth,
  McpLiveElicitation,
  McpLiveLsp,
  McpLiveOptions,
  McpLivePrompts,
  McpLiveResources,
  McpLiveServers,
  McpLiveSession,
  McpLiveTools,
  PendingElicitation,
  PipelineOptions,
  QualifiedPrompt,
  QualifiedResource,
  QualifiedResourceTemplate,
  ServerRequestOptions,
  Unavailable,
} from './live/types.js';
/** The types the `lsp` group of {@link McpLive} speaks in. */
export type { FileDiagnostics, OpenDocument } from './sinks/lsp/documents.js';
export type { LspTarget } from './sinks/lsp/languageServers.js';
/** Where a session's files are, and what it would do with them without starting anything. */
export { settingsPaths, type SettingsLocations } from './live/settingsPaths.js';
export { planReport, type PlanReport, type PlannedServer } from './live/planReport.js';

// How servers are reached: a connector of your own, the MCP SDK's, a pool shared by sessions, OAuth.
export { connectMcp, createMcpConnector, type McpConnectorOptions, type StepUpAuthorizer } from './sinks/mcp/connector.js';
export { eraMemory, type EraMemory } from './sinks/mcp/eraMemory.js';
export {
  createConnectionPool,
  DEFAULT_IDLE_GRACE_MS,
  type ConnectionPool,
  type ConnectionPoolOptions,
  type PooledConnectionStats,
} from './sinks/mcp/connectionPool.js';
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

// What a host shows: every server's or file's text through terminalSafe first (decision 161),
// an entry through its review and the masks (decision 52), a reason in words.
export { terminalSafe, hasUnsafeCharacters, terminalSafeJson } from './model/terminalText.js';
export { reviewEntry, type EntryReview, type ReviewLine } from './model/admission/reviewEntry.js';
export {
  maskEntryAsWritten,
  entryForReview,
  referencedVariables,
  createServerMasker,
  createTextMasker,
  isSecretName,
  type ServerSecrets,
} from './model/settings/secrets.js';
export { reasonText, type HintAudience } from './model/report/messages.js';

// The types of what the face hands out: statuses, events, tools, surfaces, entries.
export type * from './model/report/status.js';
export type * from './model/report/events.js';
export type { ToolMatch, ToolSearchOptions } from './model/tools/toolSearch.js';
export type { ServerSurface, SurfaceChange, SurfaceChangeKind } from './model/tools/surfaceTypes.js';
export type {
  HealthCheck,
  IdpSettings,
  LspSocket,
  LspView,
  NotAllowedBy,
  OAuthGrant,
  OAuthSettings,
  PromptInfo,
  Reason,
  ResolvedLsp,
  ResolvedServerConfig,
  ResourceInfo,
  ResourceTemplateInfo,
  Root,
  Scope,
  ServerConfig,
  ServerKind,
  ServerState,
  ToolInfo,
  TransportKind,
} from './model/types.js';
