import {
  GATED_SCOPES,
  type AssembledServer,
  type DesiredState,
  type NotAllowedBy,
  type Reason,
  type ResolvedServerConfig,
  type Scope,
  type ServerState,
  type ViewFields,
} from '../types.js';
import { admitAll } from '../admission/admit.js';
import { launchHeld } from '../launch/launchHold.js';
import { fingerprint, invalidFingerprint, viewFieldsEqual } from './fingerprint.js';
import { resolveLspConfig } from '../lsp/lspConfig.js';
import { serverKind } from '../serverKeys.js';
import { resolveServerConfig, unsetVariableWarning } from '../settings/validate.js';

/** An admitted server, resolved: what a reconcile pass wants running. */
export interface WantedServer {
  name: string;
  scope: Scope;
  source: string;
  /** {@link fingerprint} of `resolved`, or {@link invalidFingerprint} of the entry when invalid. */
  fingerprint: string;
  view: ViewFields;
  /** Present when the entry is valid. */
  resolved?: ResolvedServerConfig;
  /** `invalid_config: <message>` when the entry fails validation: connecting it ends in `error`. */
  invalid?: string;
  /** Environment variables the entry reads that are not set (they expanded to ""), sorted; absent when none. */
  unsetVariables?: string[];
}

/** The warnings of a wanted server, in words ("GITHUB_PAT is not set"); undefined when none. */
export function serverWarnings(server: Pick<WantedServer, 'unsetVariables'>): string[] | undefined {
  return server.unsetVariables?.map(unsetVariableWarning);
}

/**
 * One assembled entry resolved: {@link resolveServerConfig} with the entry's own variables
 * (`${workspacePath}` = `workspace`, `${extensionPath}` = its extension's directory), and a
 * `headersHelper` placed by where the entry comes from ({@link helperPlaced}).
 */
export function resolveAssembled(
  server: AssembledServer,
  env: Readonly<Record<string, string | undefined>>,
  workspace?: string,
  home?: string,
): WantedServer {
  const identity = { name: server.name, scope: server.scope, source: server.source };
  const resolve = serverKind(server.name) === 'lsp' ? resolveLspConfig : resolveServerConfig;
  const resolution = resolve(server.config, env, workspace, server.extensionPath, server.lazyDefault);
  if (!resolution.ok) {
    return { ...identity, fingerprint: invalidFingerprint(server.config), view: {}, invalid: `invalid_config: ${resolution.error}` };
  }
  const resolved = helperPlaced(resolution.resolved, server.scope, home);
  const wanted: WantedServer = {
    ...identity,
    fingerprint: fingerprint(resolved),
    view: resolution.view,
    resolved,
  };
  if (resolution.unsetVariables.length > 0) wanted.unsetVariables = resolution.unsetVariables;
  return wanted;
}

/**
 * Where a `headersHelper` runs (decision 299): a gated entry's (`.mcp.json`, workspace settings)
 * in the workspace, where the user approved it; any other's — the user's own, an extension's, a
 * `--mcp-config` file's — in the home directory, never in a workspace whose files it could then
 * run (`./token.sh`, or `get-token` through a `.` on PATH). Without a `home`, no directory: the
 * helper then runs in the user's home directory as the process knows it (headersHelper.ts). Part
 * of the fingerprint like the rest of the helper, so servers of sessions in different workspaces
 * share one connection when their helper runs in the same home.
 */
function helperPlaced(resolved: ResolvedServerConfig, scope: Scope, home: string | undefined): ResolvedServerConfig {
  if (resolved.headersHelper === undefined || GATED_SCOPES.has(scope)) return resolved;
  return { ...resolved, headersHelper: { command: resolved.headersHelper.command, ...(home === undefined ? {} : { cwd: home }) } };
}

/** Why a name is blocked; `notAllowedBy` only with `not_allowed`, `detail` with `settings_error` or a session's `disabled`. */
export interface Blocked {
  reason: Reason;
  notAllowedBy?: NotAllowedBy;
  /** The words of a reason that depends on more than the name (which file does not parse, where). */
  detail?: string;
}

/**
 * What the sinks report about one server right now, as far as planning needs it. A removed
 * server may be reported as `blocked` or as `disconnected`: reason `removed` marks it either way.
 */
export interface LiveEntry {
  fingerprint?: string;
  view?: ViewFields;
  state: ServerState;
  reason?: Reason;
  detail?: string;
  /** Known from an earlier plan, its connect never begun (decision 325): it holds nothing. */
  queued?: boolean;
}

/** How one server changes in a pass; the words of the `reconcile` event (docs/contract.md, "Events"). */
export type Change = 'added' | 'removed' | 'reconnected' | 'updated' | 'unchanged' | 'retried' | 'blocked';

/** One step for one server; the actions of a server run in order. */
export type Action =
  | { type: 'connect'; server: WantedServer }
  | { type: 'disconnect' }
  /** Make-before-break (decision 101): connect the new config while the old connection serves, then swap. */
  | { type: 'replace'; server: WantedServer }
  | { type: 'refilter'; server: WantedServer }
  /** Reason `removed` for a name that is gone. */
  | ({ type: 'block' } & Blocked);

/** The plan for one name. */
export interface PlanStep {
  name: string;
  change: Change;
  actions: Action[];
}

/**
 * Desired state → the servers a pass wants connected, and the blocked ones with their reasons.
 * Admission first (decision 4): a blocked entry is blocked whether or not it is valid;
 * an admitted entry that fails validation is wanted with `invalid` set, so it becomes that one
 * server's `error` and every other entry still applies. An admitted entry that would start a
 * process the folder could change is held last, by what it resolved to (`untrusted_launch`,
 * decision 303). Both maps have a null prototype.
 */
export function desiredServers(
  desired: DesiredState,
  flagAllowed: readonly string[] | undefined,
  env: Readonly<Record<string, string | undefined>>,
  workspace?: string,
  home?: string,
): { wanted: Record<string, WantedServer>; blocked: Record<string, Blocked> } {
  const wanted = Object.create(null) as Record<string, WantedServer>;
  const blocked = Object.create(null) as Record<string, Blocked>;
  for (const [name, admission] of Object.entries(admitAll(desired, flagAllowed))) {
    if (!admission.admitted) {
      const { admitted: _admitted, ...why } = admission;
      blocked[name] = why;
      continue;
    }
    const verdict = admittedVerdict(desired.servers[name]!, desired, env, workspace, home);
    if ('wanted' in verdict) wanted[name] = verdict.wanted;
    else blocked[name] = verdict.blocked;
  }
  return { wanted, blocked };
}

/**
 * An admitted entry resolved: wanted, or held last by what it resolved to (`untrusted_launch`,
 * decision 303) — the one rule for a pass and for a session's answer to an enable.
 */
export function admittedVerdict(
  server: AssembledServer,
  desired: DesiredState,
  env: Readonly<Record<string, string | undefined>>,
  workspace?: string,
  home?: string,
): { wanted: WantedServer } | { blocked: Blocked } {
  const resolved = resolveAssembled(server, env, workspace, home);
  const held = launchHeld(server, resolved.resolved, desired.gating.launch);
  return held === undefined ? { wanted: resolved } : { blocked: { reason: 'untrusted_launch', detail: held } };
}

/**
 * One reconcile pass's plan (docs/contract.md, "Reconcile"): desired (wanted + blocked) against
 * live, one step per name, sorted by name.
 *
 * | desired            | live                                         | change      | actions                 |
 * |--------------------|----------------------------------------------|-------------|-------------------------|
 * | wanted             | absent, `blocked`, or removed                | added       | connect                 |
 * | wanted             | has a connection, other fingerprint          | reconnected | disconnect, connect     |
 * | wanted             | same fingerprint, `error`/`disconnected`     | retried     | connect                 |
 * | wanted             | same fingerprint, connected/ing, other view  | updated     | refilter                |
 * | wanted             | same fingerprint and view, connected/ing     | unchanged   | —                       |
 * | blocked            | has a connection                             | blocked     | disconnect, block       |
 * | blocked            | `blocked`, same reason                       | unchanged   | —                       |
 * | blocked            | absent, or blocked for another reason        | blocked     | block                   |
 * | neither            | reason `removed` (already removed)           | (no step)   |                         |
 * | neither            | anything else                                | removed     | [disconnect,] block(removed) |
 *
 * "Has a connection" = any live state but `blocked`, unless the reason is `removed` (a removed
 * server may be shown as `disconnected`); the disconnect also ends a pending retry.
 * `notAllowedBy` travels with the block action but is not compared: the flag is fixed for the
 * life of the process, so a name's `not_allowed` cannot move between flag and settings.
 * One exception: an invalid entry whose unchanged config already shows its `error` is unchanged,
 * not retried — retrying cannot fix a config, and re-reporting it every pass would be noise.
 * A name both wanted and blocked (not produced by {@link desiredServers}) is treated as blocked.
 * `desiredNames`, the keys of `wanted` and `blocked` together, may be given by a caller that
 * has them (the incremental desired state): the two records are then not enumerated.
 * `only` (the dirty hint, decision 103) plans just those names: their steps, exactly as the plan of
 * every name has them; `live` then needs entries for those names only.
 */
export function plan(
  wanted: Readonly<Record<string, WantedServer>>,
  blocked: Readonly<Record<string, Blocked>>,
  live: ReadonlyMap<string, LiveEntry>,
  desiredNames?: readonly string[],
  only?: Iterable<string>,
): PlanStep[] {
  const steps: PlanStep[] = [];
  const names =
    only !== undefined ? [...new Set(only)].sort() : unionSorted(desiredNames ?? [...Object.keys(wanted), ...Object.keys(blocked)], [...live.keys()]);
  for (const name of names) {
    const current = live.get(name);
    const step = Object.hasOwn(blocked, name)
      ? planBlocked(blocked[name]!, current)
      : Object.hasOwn(wanted, name)
        ? planWanted(wanted[name]!, current)
        : planGone(current);
    if (step !== undefined) steps.push({ name, change: step.change, actions: step.actions });
  }
  return steps;
}

type StepBody = Omit<PlanStep, 'name'>;

/**
 * Whether a step leaves its server running as it was (decision 329): `unchanged` and wanted, with
 * a valid entry (`connected`, `connecting` or `idle` live, by the table of {@link plan}). An
 * unchanged blocked name (excluded, pending approval) or an invalid entry still in its `error`
 * changes nothing too, but nothing of it runs: the log's `kept N` does not count it.
 */
export function keptRunning(
  step: PlanStep,
  wanted: Readonly<Record<string, WantedServer>>,
  blocked: Readonly<Record<string, Blocked>>,
): boolean {
  return step.change === 'unchanged' && !Object.hasOwn(blocked, step.name) && Object.hasOwn(wanted, step.name) && wanted[step.name]!.invalid === undefined;
}

/**
 * The names of two lists, once each, sorted (code-unit order, as `Array.prototype.sort`). The
 * lists usually come sorted already (desired names always, live names nearly), so they are only
 * checked, then merged: no set and no sort of 10,000 names in every pass.
 */
function unionSorted(a: readonly string[], b: readonly string[]): string[] {
  const left = sortedUnique(a);
  const right = sortedUnique(b);
  const names: string[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length && j < right.length) {
    const x = left[i]!;
    const y = right[j]!;
    names.push(x <= y ? x : y);
    if (x <= y) i += 1;
    if (y <= x) j += 1;
  }
  while (i < left.length) names.push(left[i++]!);
  while (j < right.length) names.push(right[j++]!);
  return names;
}

/** A list strictly ascending as it is, or a sorted copy without repeats. */
function sortedUnique(list: readonly string[]): readonly string[] {
  if (list.every((name, i) => i === 0 || list[i - 1]! < name)) return list;
  return [...list].sort().filter((name, i, sorted) => i === 0 || sorted[i - 1] !== name);
}

/**
 * Any live state but `blocked` may own a process, a transport or a pending retry — except a
 * server already removed, which the sinks may show as `disconnected`, and one only queued by a
 * plan whose connect never began (decision 325).
 */
export function holdsConnection(current: LiveEntry | undefined): boolean {
  return current !== undefined && current.state !== 'blocked' && current.reason !== 'removed' && current.queued !== true;
}

function planWanted(server: WantedServer, current: LiveEntry | undefined): StepBody {
  if (current === undefined || !holdsConnection(current)) return { change: 'added', actions: [{ type: 'connect', server }] };
  if (current.fingerprint !== server.fingerprint) {
    return { change: 'reconnected', actions: overlaps(server, current) ? [{ type: 'replace', server }] : [{ type: 'disconnect' }, { type: 'connect', server }] };
  }
  // A server waiting for authorization is asked again too: a token may have come meanwhile
  // (`mcp-live auth NAME` in another terminal).
  if (current.state === 'error' || current.state === 'disconnected' || current.state === 'needs_auth') {
    if (server.invalid !== undefined && current.state === 'error') return { change: 'unchanged', actions: [] };
    return { change: 'retried', actions: [{ type: 'connect', server }] };
  }
  if (!viewFieldsEqual(current.view ?? {}, server.view)) {
    return { change: 'updated', actions: [{ type: 'refilter', server }] };
  }
  return { change: 'unchanged', actions: [] };
}

/**
 * Whether a changed server's new config starts while the old connection still serves (decision 101):
 * only when there is one serving (`connected`) with a config of its own (a `/reconnect` asks for
 * the same config again, so the old process must go first), the new entry is valid, and it does
 * not ask for `"restart": "stop-first"`.
 */
function overlaps(server: WantedServer, current: LiveEntry): boolean {
  // An idle server (decision 196) serves from its record: the new config is learned before it goes.
  return (current.state === 'connected' || current.state === 'idle') && current.fingerprint !== undefined && server.resolved !== undefined && server.view.restart !== 'stop-first';
}

function planBlocked(target: Blocked, current: LiveEntry | undefined): StepBody {
  const block: Action = { type: 'block', ...target };
  if (holdsConnection(current)) return { change: 'blocked', actions: [{ type: 'disconnect' }, block] };
  if (current !== undefined && current.reason === target.reason && current.detail === target.detail) {
    return { change: 'unchanged', actions: [] };
  }
  return { change: 'blocked', actions: [block] };
}

function planGone(current: LiveEntry | undefined): StepBody | undefined {
  if (current === undefined || current.reason === 'removed') return undefined;
  const block: Action = { type: 'block', reason: 'removed' };
  return holdsConnection(current)
    ? { change: 'removed', actions: [{ type: 'disconnect' }, block] }
    : { change: 'removed', actions: [block] };
}
