/**
 * The generative model of settings edits for the fuzz tests: random sequences of edits (add,
 * remove, edit args, edit view fields, disable, exclude, allow, approve, reject, approve for the
 * session, folder trust), a world they change, the pipeline input that world is written as, and
 * an oracle — written from docs/contract.md ("Precedence", "Admission", "Approvals") on its own,
 * not with the code under test — that says what every server must look like once the pipeline
 * settled.
 */
import fc from 'fast-check';
import type { AssembleInput } from '../../src/model/settings/assemble.js';
import { approvalHash } from '../../src/model/settings/approvalHash.js';
import type { ApprovalRecord, Reason, ServerState, SourceSnapshot } from '../../src/model/types.js';

export const NAMES = ['a', 'b', 'c', 'd'] as const;
export type Name = (typeof NAMES)[number];
type SourceScope = 'user' | 'project' | 'workspace';

/** One server entry as the model knows it. */
export interface Cfg {
  /** Goes into args: a new rev is a new fingerprint. */
  rev: number;
  /** 0 plain · 1 includeTools [x] · 2 excludeTools [x] · 3 a description: view fields only. */
  view: number;
  /** The server fails to connect. */
  fail: boolean;
  disabled: boolean;
}

export interface World {
  user: Map<Name, Cfg>;
  project: Map<Name, Cfg>;
  workspace: Map<Name, Cfg>;
  excludedUser: Set<Name>;
  excludedWorkspace: Set<Name>;
  /** User `mcp.allowed`; `undefined` = key absent (allow all). */
  allowed?: Set<Name>;
  /** Stored decisions, bound to the entry as written (its key). */
  decisions: Map<Name, { key: string; status: 'approved' | 'rejected' }>;
  /** Approved for this session, bound to the entry as written. */
  session: Map<Name, string>;
  trustEnabled: boolean;
  trusted: boolean;
  nextRev: number;
}

export type Op =
  | { t: 'put'; scope: SourceScope; name: Name; view: number; fail: boolean; disabled: boolean }
  | { t: 'view'; scope: SourceScope; name: Name; view: number }
  | { t: 'del'; scope: SourceScope; name: Name }
  | { t: 'exclude'; name: Name; workspace: boolean }
  | { t: 'allow'; names: Name[] | undefined }
  | { t: 'decide'; name: Name; status: 'approved' | 'rejected' }
  | { t: 'session'; name: Name }
  | { t: 'trust'; enabled: boolean; trusted: boolean };

/** One step: edits written one after another within the debounce window (a burst), then a settle. */
export interface Step {
  ops: Op[];
  /** A manual reload after the settle. */
  reload: boolean;
}

export interface Scenario {
  /** `--allowed-mcp-server-names`, fixed for the run. */
  flag?: Name[];
  steps: Step[];
}

const nameArb = fc.constantFrom(...NAMES);
const scopeArb = fc.constantFrom<SourceScope>('user', 'user', 'user', 'project', 'workspace');

export const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ t: fc.constant('put' as const), scope: scopeArb, name: nameArb, view: fc.integer({ min: 0, max: 3 }), fail: fc.integer({ min: 0, max: 6 }).map((n) => n === 0), disabled: fc.integer({ min: 0, max: 9 }).map((n) => n === 0) }) },
  { weight: 3, arbitrary: fc.record({ t: fc.constant('view' as const), scope: scopeArb, name: nameArb, view: fc.integer({ min: 0, max: 3 }) }) },
  { weight: 3, arbitrary: fc.record({ t: fc.constant('del' as const), scope: scopeArb, name: nameArb }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('exclude' as const), name: nameArb, workspace: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('allow' as const), names: fc.option(fc.subarray([...NAMES]), { nil: undefined, freq: 2 }) }) },
  { weight: 3, arbitrary: fc.record({ t: fc.constant('decide' as const), name: nameArb, status: fc.constantFrom('approved' as const, 'approved' as const, 'rejected' as const) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('session' as const), name: nameArb }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('trust' as const), enabled: fc.boolean(), trusted: fc.boolean() }) },
);

export function scenarioArb(maxSteps: number): fc.Arbitrary<Scenario> {
  return fc.record(
    {
      // Mostly no flag.
      flag: fc.oneof({ weight: 4, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.subarray([...NAMES], { minLength: 1 }) }),
      steps: fc.array(fc.record({ ops: fc.array(opArb, { minLength: 1, maxLength: 3 }), reload: fc.boolean() }), {
        minLength: 1,
        maxLength: maxSteps,
      }),
    },
  );
}

export function emptyWorld(): World {
  return {
    user: new Map(),
    project: new Map(),
    workspace: new Map(),
    excludedUser: new Set(),
    excludedWorkspace: new Set(),
    decisions: new Map(),
    session: new Map(),
    trustEnabled: false,
    trusted: true,
    nextRev: 1,
  };
}

function sourceOf(world: World, scope: SourceScope): Map<Name, Cfg> {
  return scope === 'user' ? world.user : scope === 'project' ? world.project : world.workspace;
}

/** Applies one edit; edits that make no sense in the world (edit a missing entry) do nothing. */
export function apply(world: World, op: Op): void {
  switch (op.t) {
    case 'put':
      sourceOf(world, op.scope).set(op.name, { rev: world.nextRev++, view: op.view, fail: op.fail, disabled: op.disabled });
      return;
    case 'view': {
      const cfg = sourceOf(world, op.scope).get(op.name);
      if (cfg) cfg.view = op.view;
      return;
    }
    case 'del':
      sourceOf(world, op.scope).delete(op.name);
      return;
    case 'exclude': {
      const set = op.workspace ? world.excludedWorkspace : world.excludedUser;
      if (set.has(op.name)) set.delete(op.name);
      else set.add(op.name);
      return;
    }
    case 'allow':
      world.allowed = op.names === undefined ? undefined : new Set(op.names);
      return;
    case 'decide': {
      const w = winner(world, op.name);
      if (w && w.scope !== 'user') world.decisions.set(op.name, { key: entryKey(w.cfg), status: op.status });
      return;
    }
    case 'session': {
      const w = winner(world, op.name);
      if (w && w.scope !== 'user') world.session.set(op.name, entryKey(w.cfg));
      return;
    }
    case 'trust':
      world.trustEnabled = op.enabled;
      world.trusted = op.trusted;
      return;
  }
}

/** The config object as written in a settings file; the connector reads its behaviour from args. */
export function entryOf(cfg: Cfg): Record<string, unknown> {
  const entry: Record<string, unknown> = { command: 'fake', args: [`rev=${cfg.rev}`, 'tools=echo,x', ...(cfg.fail ? ['fail=boom'] : [])] };
  return withView(entry, cfg);
}

/** Adds the view fields and `disabled` of a model entry to a config. */
export function withView(entry: Record<string, unknown>, cfg: Cfg): Record<string, unknown> {
  if (cfg.view === 1) entry.includeTools = ['x'];
  if (cfg.view === 2) entry.excludeTools = ['x'];
  if (cfg.view === 3) entry.description = 'described';
  if (cfg.disabled) entry.disabled = true;
  return entry;
}

/**
 * What the approval hash covers: the entry as written, without `description`
 * (docs/contract.md, "Approvals") — so view 3 (a description only) counts as view 0.
 */
function entryKey(cfg: Cfg): string {
  return JSON.stringify([cfg.rev, cfg.view === 3 ? 0 : cfg.view, cfg.fail, cfg.disabled]);
}

function folderTrusted(world: World): boolean {
  return !world.trustEnabled || world.trusted;
}

/**
 * The entry that wins a name (docs/contract.md, "Precedence": user < project < workspace).
 * Untrusted, the gated sources rank below the user's and only fill names it lacks (decision 260):
 * listed, blocked all the same.
 */
export function winner(world: World, name: Name): { scope: SourceScope; cfg: Cfg } | undefined {
  const user = world.user.get(name);
  if (!folderTrusted(world) && user) return { scope: 'user', cfg: user };
  const ws = world.workspace.get(name);
  if (ws) return { scope: 'workspace', cfg: ws };
  const project = world.project.get(name);
  if (project) return { scope: 'project', cfg: project };
  return user ? { scope: 'user', cfg: user } : undefined;
}

export interface Expected {
  state: ServerState;
  reason?: Reason;
  /** Unqualified tool names when connected. */
  tools?: string[];
  /** What decides a restart: a change means a reconnect. */
  fingerprintKey?: string;
}

/** Admission (docs/contract.md, "Admission") for one name, in order: untrusted_folder, excluded, not_allowed, disabled, rejected, pending_approval. */
export function expected(world: World, name: Name, flag: readonly Name[] | undefined, everConfigured: boolean): Expected | undefined {
  const w = winner(world, name);
  if (!w) return everConfigured ? { state: 'disconnected', reason: 'removed' } : undefined;
  const blocked = (reason: Reason): Expected => ({ state: 'blocked', reason });
  if (!folderTrusted(world)) return blocked('untrusted_folder');
  if (world.excludedUser.has(name) || world.excludedWorkspace.has(name)) return blocked('excluded');
  if (flag && !flag.includes(name)) return blocked('not_allowed');
  if (world.allowed && !world.allowed.has(name)) return blocked('not_allowed');
  if (w.cfg.disabled) return blocked('disabled');
  if (w.scope !== 'user') {
    const key = entryKey(w.cfg);
    const decision = world.decisions.get(name);
    const session = world.session.get(name) === key;
    if (!session && decision?.key === key && decision.status === 'rejected') return blocked('rejected');
    if (!session && !(decision?.key === key && decision.status === 'approved')) return blocked('pending_approval');
  }
  const fingerprintKey = `${w.cfg.rev}/${w.cfg.fail}`;
  if (w.cfg.fail) return { state: 'error', fingerprintKey };
  const tools = w.cfg.view === 1 ? ['x'] : w.cfg.view === 2 ? ['echo'] : ['echo', 'x'];
  return { state: 'connected', tools, fingerprintKey };
}

/** The world written as the pipeline's input (what the file sources would deliver). */
export type EntryOf = (cfg: Cfg, name: Name) => Record<string, unknown>;

export function toInput(world: World, entry: EntryOf = (c) => entryOf(c)): AssembleInput {
  const servers = (m: Map<Name, Cfg>) => Object.fromEntries([...m].map(([n, c]) => [n, entry(c, n)]));
  const user: SourceSnapshot = { scope: 'user', file: '/home/u/.qwen/settings.json', servers: servers(world.user), folderTrustEnabled: world.trustEnabled };
  const mcp: NonNullable<SourceSnapshot['mcp']> = { excluded: [...world.excludedUser] };
  if (world.allowed) mcp.allowed = [...world.allowed];
  user.mcp = mcp;
  const approvals: Record<string, ApprovalRecord> = {};
  const sessionApprovals: Record<string, string> = {};
  // Decisions and session approvals are bound to a config: the hash of the config they were given for.
  for (const [name, d] of world.decisions) approvals[name] = { hash: hashOfKey(d.key, name, entry), status: d.status };
  for (const [name, key] of world.session) sessionApprovals[name] = hashOfKey(key, name, entry);
  return {
    sources: [
      user,
      { scope: 'project', file: '/work/p/.mcp.json', servers: servers(world.project) },
      { scope: 'workspace', file: '/work/p/.qwen/settings.json', servers: servers(world.workspace), mcp: { excluded: [...world.excludedWorkspace] } },
    ],
    approvals,
    sessionApprovals,
    folderTrusted: world.trusted,
  };
}

/** The approval hash a decision was stored with: of the config it was given for. */
function hashOfKey(key: string, name: Name, entry: EntryOf): string {
  const [rev, view, fail, disabled] = JSON.parse(key) as [number, number, boolean, boolean];
  return approvalHash(entry({ rev, view, fail, disabled }, name));
}

/** A short text of a scenario for failure messages. */
export function describeScenario(s: Scenario): string {
  return JSON.stringify(s);
}

export function cloneWorld(w: World): World {
  return {
    ...w,
    user: new Map([...w.user].map(([k, v]) => [k, { ...v }])),
    project: new Map([...w.project].map(([k, v]) => [k, { ...v }])),
    workspace: new Map([...w.workspace].map(([k, v]) => [k, { ...v }])),
    excludedUser: new Set(w.excludedUser),
    excludedWorkspace: new Set(w.excludedWorkspace),
    allowed: w.allowed ? new Set(w.allowed) : undefined,
    decisions: new Map(w.decisions),
    session: new Map(w.session),
  };
}
