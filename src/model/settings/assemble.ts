import {
  GATED_SCOPES,
  SCOPE_PRECEDENCE,
  type ApprovalDecisions,
  type AssembledServer,
  type DesiredState,
  type Gating,
  type LaunchHold,
  type Scope,
  type SourceSnapshot,
} from '../types.js';
import { approvalHash, approvalState } from './approvalHash.js';
import { LSP_PREFIX, lspKey } from '../serverKeys.js';
import { mergeAdmissionSettings } from './settingsMerge.js';

/** Everything the desired state is computed from. */
export interface AssembleInput {
  /** Every source's current content, in any order of scopes (same-scope sources in their order). */
  sources: readonly SourceSnapshot[];
  /** Decisions of this project root. */
  approvals: ApprovalDecisions;
  /** Name → approval hash approved for this session only (bound to the hash, decision 3). */
  sessionApprovals: Readonly<Record<string, string>>;
  /** Whether trustedFolders.json trusts the cwd. */
  folderTrusted: boolean;
  /** Name → enabled (`true`) or disabled (`false`) for this session only (`/mcp enable|disable`). */
  sessionEnablement?: Readonly<Record<string, boolean>>;
  /**
   * Present while no record trusts the workspace (decision 302): what may hold the user's own
   * servers there (decision 301), copied into the gating as it is. Absent: nothing is held.
   */
  launchHold?: LaunchHold;
}

/** Scopes whose settings are ignored in an untrusted folder: they arrive with the repository. */
const UNTRUSTED_IGNORED = GATED_SCOPES;

/**
 * Sources → desired state (docs/contract.md, "Precedence", "Admission", "Approvals").
 *
 * - `trusted` = folder trust disabled, or this folder trusted. When not trusted, workspace and
 *   project sources count for nothing: their `mcp` keys are not read, nothing of theirs is
 *   pending, and their servers only fill names no other source has — listed, so that the user
 *   sees "ignored: folder not trusted" instead of nothing (decision 260); admission blocks every
 *   server of an untrusted folder first (docs/contract.md, "Admission"), theirs included.
 * - Servers: whole entries, later wins by name, in {@link SCOPE_PRECEDENCE} order; sources of one
 *   scope apply in the order given. Entries are not validated here (a bad entry only breaks itself,
 *   later); each carries its scope and source file.
 * - Gating: the merged admission lists, plus `pending` (gated servers neither approved for their
 *   current approval hash nor approved for this session — rejected ones included: docs/contract.md,
 *   "Approvals") and `rejected` (the pending ones whose stored decision is a reject), both sorted.
 *   A session approval given after a reject is the newer choice, so it admits the server (rejected
 *   ⊆ pending). Only the winning entry of a name counts: a user-scope entry that overrides a
 *   workspace one is not gated.
 *
 * `servers` has a null prototype so a server called `__proto__` or `toString` is an ordinary key.
 */
export function assemble(input: AssembleInput): DesiredState {
  const { trusted, sources, counted } = assemblyOrder(input);
  const byName = new Map<string, AssembledServer>();
  for (const source of sources) {
    const servers: unknown = source.servers;
    if (servers === null || typeof servers !== 'object' || Array.isArray(servers)) continue;
    for (const [name, config] of Object.entries(servers)) byName.set(name, assembledServer(name, source, config));
  }

  const servers = Object.create(null) as Record<string, AssembledServer>;
  const pending: string[] = [];
  const rejected: string[] = [];
  for (const name of [...byName.keys()].sort()) {
    const server = byName.get(name)!;
    servers[name] = server;
    if (!GATED_SCOPES.has(server.scope)) continue;
    const standing = approvalStanding(name, approvalHash(server.config), input);
    if (standing === 'approved') continue;
    pending.push(name);
    if (standing === 'rejected') rejected.push(name);
  }
  return desiredState(input, counted, { servers, pending, rejected, trusted });
}

/**
 * The sources in assembly order (their servers merge in it, later wins), the sources whose
 * settings count, and whether the folder is trusted (see {@link assemble}): a step of its own so
 * the incremental assembly orders exactly alike. In an untrusted folder the ignored sources come
 * first, below every other, so their servers never shadow one of a source that counts.
 */
export function assemblyOrder(input: AssembleInput): { trusted: boolean; sources: SourceSnapshot[]; counted: SourceSnapshot[] } {
  const { folderTrustEnabled } = mergeAdmissionSettings(input.sources);
  const trusted = !folderTrustEnabled || input.folderTrusted;
  const ignored = (source: SourceSnapshot) => !trusted && UNTRUSTED_IGNORED.has(source.scope);
  const sources = input.sources
    .map((source, order) => ({ source, order }))
    .sort((a, b) => Number(ignored(b.source)) - Number(ignored(a.source)) || rank(a.source) - rank(b.source) || a.order - b.order)
    .flatMap(({ source }) => kindLayers(source));
  return { trusted, sources, counted: trusted ? sources : sources.filter((source) => !ignored(source)) };
}

/**
 * A source as the layers assembly merges (decision 145): its MCP servers, then — when it has any —
 * its language servers as a layer of their own whose keys are `lsp:NAME`. One merge, one
 * precedence for both kinds; the keys never meet. An `mcpServers` entry whose name begins with
 * `lsp:` would take a language server's key: it is left out (decision 145).
 */
function kindLayers(source: SourceSnapshot): SourceSnapshot[] {
  const mcp = withoutLspKeys(source);
  const lsp = source.lspServers;
  if (lsp === undefined || lsp === null || typeof lsp !== 'object' || Array.isArray(lsp)) return [mcp];
  return [mcp, { scope: source.scope, file: source.file, ...(source.extensionPath === undefined ? {} : { extensionPath: source.extensionPath }), servers: prefixed(lsp), layer: 'lsp' }];
}

const prefixedRecords = new WeakMap<object, Record<string, unknown>>();

/** A language server map keyed `lsp:NAME`; the same object for the same map, so an unchanged layer stays unchanged. */
function prefixed(servers: Record<string, unknown>): Record<string, unknown> {
  let record = prefixedRecords.get(servers);
  if (record === undefined) {
    record = Object.create(null) as Record<string, unknown>;
    for (const [name, config] of Object.entries(servers)) record[lspKey(name)] = config;
    prefixedRecords.set(servers, record);
  }
  return record;
}

const filteredSources = new WeakMap<SourceSnapshot, SourceSnapshot>();

/** The source with its `mcpServers` names that begin with `lsp:` left out (itself when it has none). */
function withoutLspKeys(source: SourceSnapshot): SourceSnapshot {
  const servers: unknown = source.servers;
  if (servers === null || typeof servers !== 'object' || Array.isArray(servers)) return source;
  if (!Object.keys(servers).some((name) => name.startsWith(LSP_PREFIX))) return source;
  let filtered = filteredSources.get(source);
  if (filtered === undefined) {
    const kept = Object.create(null) as Record<string, unknown>;
    for (const [name, config] of Object.entries(servers)) if (!name.startsWith(LSP_PREFIX)) kept[name] = config;
    filtered = { ...source, servers: kept };
    filteredSources.set(source, filtered);
  }
  return filtered;
}

/** One entry of a source, tagged with where it came from. */
export function assembledServer(name: string, source: SourceSnapshot, config: unknown): AssembledServer {
  const server: AssembledServer = { name, scope: source.scope, source: source.file, config };
  if (source.extensionPath !== undefined) server.extensionPath = source.extensionPath;
  // Only language servers have no `lazy` (decision 196): their layer is keyed `lsp:NAME`.
  if (source.mcp?.lazy !== undefined && source.layer !== 'lsp') server.lazyDefault = source.mcp.lazy;
  return server;
}

/**
 * Where a gated server with approval hash `hash` stands: approved (stored for this hash, or for
 * this session), rejected (stored), or pending. A session approval after a reject wins.
 */
export function approvalStanding(name: string, hash: string, input: AssembleInput): 'approved' | 'pending' | 'rejected' {
  const state = approvalState(name, hash, input.approvals);
  const sessionApproved = Object.hasOwn(input.sessionApprovals, name) && input.sessionApprovals[name] === hash;
  return state === 'approved' || sessionApproved ? 'approved' : state;
}

/** The merged servers and the names that wait for approval, as {@link desiredState} takes them. */
export interface AssembledServers {
  /** Null prototype, keys inserted in sorted order. */
  servers: Record<string, AssembledServer>;
  /** Sorted. */
  pending: readonly string[];
  /** Sorted; a subset of `pending`. */
  rejected: readonly string[];
  trusted: boolean;
}

/**
 * The rest of {@link assemble} once the servers are merged: admission lists, session overrides,
 * fail-closed error. `sources`: the ones whose settings count ({@link assemblyOrder}'s `counted`).
 */
export function desiredState(input: AssembleInput, sources: readonly SourceSnapshot[], merged: AssembledServers): DesiredState {
  const { servers, pending, rejected, trusted } = merged;
  const admission = mergeAdmissionSettings(sources);
  // Nothing is asked in an untrusted folder: trusting it comes first (docs/contract.md, "Admission").
  const gating: Gating = { excluded: admission.excluded, pending: trusted ? pending : [], rejected: trusted ? rejected : [] };
  if (admission.allowed !== undefined) gating.allowed = admission.allowed;
  if (admission.lspExcluded.length > 0) gating.lspExcluded = admission.lspExcluded;
  if (admission.lspAllowed !== undefined) gating.lspAllowed = admission.lspAllowed;
  addSessionEnablement(gating, input.sessionEnablement, servers);
  const pinTools = pinToolsOf(sources);
  if (pinTools !== undefined) gating.pinTools = pinTools;
  if (input.launchHold !== undefined) gating.launch = input.launchHold;
  const desired: DesiredState = { servers, gating, trusted };
  const settingsError = brokenSettings(input.sources);
  if (settingsError !== undefined) desired.settingsError = settingsError;
  return desired;
}

/**
 * `mcp.pinTools` of the user's own files (decision 197): system settings over user settings. A
 * workspace's is not read — a repository's file does not decide how its own servers are watched.
 */
function pinToolsOf(sources: readonly SourceSnapshot[]): 'strict' | 'report' | undefined {
  let pin: 'strict' | 'report' | undefined;
  for (const scope of ['user', 'system'] as const) {
    for (const source of sources) if (source.scope === scope && source.mcp?.pinTools !== undefined) pin = source.mcp.pinTools;
  }
  return pin;
}

/** Session overrides of configured names into the gating (only when there are some, so gating stays as it was). */
function addSessionEnablement(
  gating: Gating,
  enablement: Readonly<Record<string, boolean>> | undefined,
  servers: Readonly<Record<string, AssembledServer>>,
): void {
  if (enablement === undefined) return;
  const names = Object.keys(enablement).filter((name) => Object.hasOwn(servers, name)).sort();
  const disabled = names.filter((name) => enablement[name] === false);
  const enabled = names.filter((name) => enablement[name] === true);
  if (disabled.length > 0) gating.sessionDisabled = disabled;
  if (enabled.length > 0) gating.sessionEnabled = enabled;
}

/** Scopes whose admission keys guard every server: while one of them never parsed, fail closed. */
const FAIL_CLOSED_SCOPES: ReadonlySet<Scope> = new Set<Scope>(['user', 'system']);

/**
 * The fail-closed message (decision 51) for the first user or system settings file that has never
 * been read whole, or undefined. Without that file's `mcp.excluded` and folder-trust switch,
 * admitting anything could connect what the user excluded.
 */
function brokenSettings(sources: readonly SourceSnapshot[]): string | undefined {
  const broken = sources.find((s) => FAIL_CLOSED_SCOPES.has(s.scope) && s.broken !== undefined);
  if (broken === undefined) return undefined;
  return `${broken.scope} settings do not parse: ${broken.broken} — fix it to connect servers`;
}

/** Position in the assembly order; an unknown scope (a bug elsewhere) sorts first, so it loses. */
function rank(source: SourceSnapshot): number {
  return SCOPE_PRECEDENCE.indexOf(source.scope);
}
