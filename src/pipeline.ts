/**
 * `mcp-live/pipeline`: the building blocks the session is made of (decision 347), for a host that
 * composes its own pipeline — its own sources into `createReconciler`, the operators in a stream
 * of its own, the pure model functions (assembly, admission, planning, fingerprints, equality)
 * in tests or tools. A host that runs sessions needs only the package root (src/index.ts).
 *
 * @packageDocumentation
 */

// The reactive core: a stream of assembled inputs and a connector in, live servers out.
export { createReconciler, type PassRequest, type PassResult, type Reconciler, type ReconcilerDeps } from './live/reconciler.js';

// The operators it is built of, each a plain pipeable operator.
export { exhaustMapWithTrailing } from './operators/exhaustMapWithTrailing.js';
export { distinctUntilChangedUnless } from './operators/distinctUntilChangedUnless.js';
export { settle } from './operators/settle.js';
export { distinctFlatList } from './operators/distinctFlatList.js';
export { reconcileByServer, type ServerTask } from './operators/reconcileByServer.js';

// The pure model: settings → desired state → admission → plan.
export { assemble, type AssembleInput } from './model/settings/assemble.js';
/** Admission is called `admit`: the first reason that applies, or admitted. */
export { admit, admitAll, type Admission } from './model/admission/admit.js';
export { approvalHash, approvalState } from './model/settings/approvalHash.js';
export { fingerprint } from './model/reconcile/fingerprint.js';
export { mcpServersEqual, mcpGatingEqual, desiredStateEqual } from './model/reconcile/equality.js';
export { plan, desiredServers, type Action, type PlanStep, type WantedServer, type LiveEntry } from './model/reconcile/plan.js';
export { resolveServerConfig, validateServerConfig, transportKind, expandVars } from './model/settings/validate.js';
export { qualifiedToolName, filterTools, serverNameParts } from './model/tools/toolNames.js';
export { toolNotFoundMessage, type ToolFilter, type ToolNotFoundContext } from './model/report/messages.js';
export { matchesName } from './model/settings/namePatterns.js';
// Every type and constant of the model (scopes, their precedence, the entries' limits).
export * from './model/types.js';
