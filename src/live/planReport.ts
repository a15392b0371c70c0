import { firstValueFrom, NEVER, of } from 'rxjs';
import { approvalHash, approvalState } from '../model/settings/approvalHash.js';
import { assemble, type AssembleInput } from '../model/settings/assemble.js';
import { allowedNamesWarning } from '../model/settings/allowedNamesWarning.js';
import { reasonText } from '../model/report/messages.js';
import { desiredServers, resolveAssembled, serverWarnings } from '../model/reconcile/plan.js';
import { reviewEntry, type ReviewLine } from '../model/admission/reviewEntry.js';
import { markWrittenByRepository } from '../model/settings/secrets.js';
import { languagesOf } from '../model/lsp/lspConfig.js';
import { serverKind } from '../model/serverKeys.js';
import { GATED_SCOPES, type ApprovalState, type NotAllowedBy, type Reason, type Scope, type ServerKind, type TransportKind } from '../model/types.js';
import { createApprovalsStore } from '../sinks/stores/approvalsStore.js';
import { createSurfaceStore } from '../sinks/stores/surfaceStore.js';
import type { EraVerdict } from '../model/connection.js';
import { systemPathKeys } from '../platform/systemPathKeys.js';
import type { McpLiveOptions } from './types.js';
import { settingsPaths } from './settingsPaths.js';
import { fromAllSources, type SourceNotice } from '../streams/fromAllSources.js';

/** One assembled server as `mcp-live plan` shows it: what would run, from where, and whether it may. */
export interface PlannedServer {
  /** The key: an MCP server's name, or `lsp:NAME` for a language server. */
  name: string;
  /** `lsp` for a language server (decision 157). */
  kind: ServerKind;
  scope: Scope;
  source: string;
  /** How it is reached; a language server's `stdio` or `socket`. */
  transport?: TransportKind | 'socket';
  /** A valid language server entry's language ids (from `extensionToLanguage`), sorted. */
  languages?: string[];
  /** `command args…` or the URL (a user-scope entry's literal secrets masked). Raw: print it with `terminalSafe`. */
  target: string;
  /** The entry as written, `${VAR}` references kept; a user-scope entry's literal secrets masked, a gated one's shown (decision 166). */
  config: unknown;
  /** The environment variables the entry reads. */
  readsEnv: string[];
  /** Everything that decides what runs or where data goes, one line a fact. */
  review: ReviewLine[];
  /** First 12 hex digits of the connection fingerprint, blocked or not; absent for an entry that does not resolve. */
  fingerprint?: string;
  admitted: boolean;
  reason?: Reason;
  notAllowedBy?: NotAllowedBy;
  /** Words for the reason, or the validation error. */
  message?: string;
  error?: string;
  /** For gated scopes: the decision bound to the current config. */
  approval?: ApprovalState;
  /** Problems that do not stop the entry, names only ("GITHUB_PAT is not set"); absent when none. */
  warnings?: string[];
  /**
   * The protocol era a connect found for this fingerprint (decision 380), from the surface record:
   * `modern` with the revisions the server offered, or `legacy`; `decidedAt` ISO. Absent when no
   * connect found one yet.
   */
  era?: { kind: 'modern' | 'legacy'; decidedAt: string; versions?: string[] };
}

export interface PlanReport {
  cwd: string;
  trusted: boolean;
  /** Set while a user or system settings file has never parsed: every server is blocked. */
  settingsError?: string;
  servers: PlannedServer[];
  notices: SourceNotice[];
}

/**
 * The dry run behind `mcp-live plan`: reads every source once, assembles and admits, and
 * reports — it never spawns or connects anything ("what would this repository run?").
 */
export async function planReport(options: McpLiveOptions = {}): Promise<PlanReport> {
  const { input, notices, cwd, home } = await readInputsOnce(options);
  const desired = assemble(input);
  const allowedWarning = allowedNamesWarning(options.allowedMcpServerNames, Object.keys(desired.servers));
  if (allowedWarning !== undefined) notices.push({ type: 'log', level: 'warn', message: allowedWarning });
  const env = options.env ?? process.env;
  const { wanted, blocked } = desiredServers(desired, options.allowedMcpServerNames, env, cwd, home);
  // Read only: what connects found (decision 380); an unusable file just shows no era.
  const surfaces = createSurfaceStore(settingsPaths(options).surfaces);
  await surfaces.load();
  const servers = Object.values(desired.servers)
    .sort((a, b) => (a.name < b.name ? -1 : 1))
    .map((server): PlannedServer => {
      // A gated entry as written, literals and all (decision 166).
      const review = reviewEntry(server.config, serverKind(server.name), server.scope);
      const entry: PlannedServer = {
        name: server.name,
        kind: serverKind(server.name),
        scope: server.scope,
        source: server.source,
        target: review.target,
        config: review.config,
        readsEnv: review.readsEnv,
        review: review.lines,
        admitted: !Object.hasOwn(blocked, server.name),
      };
      const w = wanted[server.name];
      if (w?.invalid) entry.error = w.invalid;
      // Resolved whether or not it is admitted: a blocked entry also says what it would lack or
      // get, how it would be reached and its fingerprint — what an approval of it would bind to
      // (decision 321). Only an entry that does not resolve has neither.
      const resolution = w ?? resolveAssembled(server, env, cwd, home);
      if (resolution.resolved) {
        entry.transport = resolution.resolved.lsp?.transport ?? resolution.resolved.transport;
        entry.fingerprint = resolution.fingerprint.slice(0, 12);
        const era = surfaces.get(resolution.fingerprint)?.era;
        if (era !== undefined) entry.era = eraShown(era);
      }
      const lsp = resolution.resolved?.lsp;
      if (lsp !== undefined) entry.languages = languagesOf(lsp.view);
      const b = blocked[server.name];
      if (b) {
        entry.reason = b.reason;
        if (b.notAllowedBy) entry.notAllowedBy = b.notAllowedBy;
        entry.message = reasonText(b.reason, b.notAllowedBy, b.detail, entry.kind);
      }
      if (GATED_SCOPES.has(server.scope)) {
        entry.approval = approvalState(server.name, approvalHash(server.config), input.approvals);
        // Its one-line target is the repository's text too: the net masks real secrets only (decision 167).
        markWrittenByRepository(entry, ['target']);
      }
      const warnings = serverWarnings(resolution);
      if (warnings !== undefined) entry.warnings = warnings;
      return entry;
    });
  return {
    cwd,
    trusted: desired.trusted,
    ...(desired.settingsError === undefined ? {} : { settingsError: desired.settingsError }),
    servers,
    notices,
  };
}

/** A stored verdict as `plan` and `mcp get` show it. */
function eraShown(era: EraVerdict): NonNullable<PlannedServer['era']> {
  const decidedAt = new Date(era.decidedAt).toISOString();
  if (era.kind === 'legacy') return { kind: 'legacy', decidedAt };
  const offered = era.discover.supportedVersions;
  const versions = Array.isArray(offered) ? offered.filter((v): v is string => typeof v === 'string') : [];
  return { kind: 'modern', decidedAt, versions };
}

/** Every source read once (the watchers start and stop again), plus what they complained about. */
export async function readInputsOnce(
  options: McpLiveOptions,
): Promise<{ input: AssembleInput; notices: SourceNotice[]; cwd: string; home: string; projectRoot: string; approvalsFile: string }> {
  const paths = settingsPaths(options);
  const notices: SourceNotice[] = [];
  const input = await firstValueFrom(
    fromAllSources(paths, {
      store: createApprovalsStore(paths.approvals),
      pathKeys: systemPathKeys,
      session$: of({}),
      sessionApprovals$: of({}),
      written$: NEVER,
      extraSources: options.extraSources,
      onNotice: (n) => notices.push(n),
    }),
  );
  return { input, notices, cwd: paths.cwd, home: paths.home, projectRoot: paths.projectRoot, approvalsFile: paths.approvals };
}

