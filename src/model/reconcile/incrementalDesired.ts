import { admission, type Admission } from '../admission/admit.js';
import {
  approvalStanding,
  assembledServer,
  assemblyOrder,
  desiredState,
  type AssembleInput,
} from '../settings/assemble.js';
import { approvalHash } from '../settings/approvalHash.js';
import { resolveAssembled, type Blocked, type WantedServer } from './plan.js';
import { GATED_SCOPES, type AssembledServer, type DesiredState, type Gating, type SourceSnapshot } from '../types.js';
import { changedBetween, registerDerived } from './recordLineage.js';
import { launchHoldsEqual } from './equality.js';
import { launchHeld } from '../launch/launchHold.js';
import { VARIABLE } from '../settings/validate.js';
import { deriveRecord, plainRecord } from './persistentRecord.js';

type Environment = Readonly<Record<string, string | undefined>>;

/** What {@link IncrementalDesired.desiredServers} returns: `desiredServers`' result, plus the names. */
export interface DesiredServers {
  wanted: Record<string, WantedServer>;
  blocked: Record<string, Blocked>;
  /** Every key of `wanted` and `blocked`, sorted: what `plan` would otherwise enumerate. */
  names: readonly string[];
  /**
   * The names whose outcome (wanted server or why blocked, by identity) may differ from the last
   * call's — added and removed names included; `all` on the first call. A superset: the planner
   * need only look at these names of the desired side (decision 103).
   */
  changed: ReadonlySet<string> | 'all';
}

/**
 * `assemble` and `desiredServers` (src/model/settings/assemble.ts, plan.ts) with memory: each call gives
 * exactly what the pure function gives for the same arguments, but reuses what the previous call
 * computed for whatever did not change (decision 102). Results of unchanged entries keep their
 * object identity, so the comparisons downstream (the reconcile gate, the planner) are cheap.
 */
export interface IncrementalDesired {
  assemble(input: AssembleInput): DesiredState;
  /**
   * `desiredServers`, plus the names and what changed since the last call. The records are never
   * modified: the next call derives new ones, sharing what did not change (persistentRecord.ts).
   */
  desiredServers(
    desired: DesiredState,
    flagAllowed: readonly string[] | undefined,
    env: Environment,
    workspace?: string,
    home?: string,
  ): DesiredServers;
  /**
   * `approvalHash(config)`, remembered per entry object: the one an assembly computed for the
   * entry's standing, so the promptable set of a pass hashes nothing again (decision 171).
   */
  hashOf(config: unknown): string;
}

/**
 * A new incremental computation of the desired state; its state lives in the closure, no I/O.
 * What is kept, keyed by what (docs: /tmp/brief/decisions-P1.md, "Incremental passes"):
 *
 * - per source (scope + file + extension directory): its entries as assembled; a new snapshot
 *   re-assembles only that source, and only entries whose config is not the same object (or
 *   deep-equal to the last one) become new;
 * - the merge: only names of changed entries look for their winner again; a change of the set
 *   of sources (trust, an extension) merges everything again, still reusing the entries;
 * - approval standings: per name, recomputed when its entry or the decisions change;
 * - admission: one compiled rule set until the gating inputs change, a verdict per entry;
 * - resolution (validation, expansion, fingerprint, view fields): per entry, until the entry,
 *   the workspace, the home directory, or the value of a variable it reads (new environment
 *   object) changes.
 *
 * An environment is taken as unchanged while it is the same object: a caller that changes
 * variables in place must pass a new object to have them read again.
 */
export function createIncrementalDesired(): IncrementalDesired {
  const assembly = createIncrementalAssembly();
  const servers = createIncrementalServers((record) => assembly.namesOf(record));
  return { assemble: assembly.assemble, desiredServers: servers, hashOf: assembly.hashOf };
}

// --- assemble --------------------------------------------------------------------------------------

/** One source's entries as assembled, kept between calls and updated in place. */
interface Layer {
  /** The snapshot last applied. */
  source: SourceSnapshot;
  /** Its `servers` as last applied ({@link NOT_APPLIED} before the first). */
  servers: unknown;
  entries: Map<string, AssembledServer>;
}

/** The `servers` of a layer no snapshot was applied to yet: equal to no value a source can have. */
const NOT_APPLIED = Symbol('not applied');

function createIncrementalAssembly() {
  let layers = new Map<string, Layer>();
  /** Slot keys of the layers in assembly order, as last assembled. */
  let order: string[] = [];
  let winners = new Map<string, AssembledServer>();
  let names: string[] = [];
  let servers: Readonly<Record<string, AssembledServer>> | undefined;
  /** Gated names that wait: `true` when rejected. */
  const waiting = new Map<string, boolean>();
  let pending: readonly string[] = [];
  let rejected: readonly string[] = [];
  let decisions: Pick<AssembleInput, 'approvals' | 'sessionApprovals'> | undefined;
  /** Sorted names of the servers records this instance made: the order their keys were inserted. */
  const namesByRecord = new WeakMap<object, readonly string[]>();
  const hashes = new WeakMap<object, string>();

  const hashOf = (config: unknown): string => {
    if (config === null || typeof config !== 'object') return approvalHash(config);
    let hash = hashes.get(config);
    if (hash === undefined) hashes.set(config, (hash = approvalHash(config)));
    return hash;
  };

  /** Whether a name's wait for approval changed; keeps {@link waiting} up to date. */
  const restand = (name: string, input: AssembleInput): boolean => {
    const server = winners.get(name);
    const before = waiting.get(name);
    const standing = server !== undefined && GATED_SCOPES.has(server.scope) ? approvalStanding(name, hashOf(server.config), input) : 'approved';
    if (standing === 'approved') waiting.delete(name);
    else waiting.set(name, standing === 'rejected');
    return before !== waiting.get(name);
  };

  const assemble = (input: AssembleInput): DesiredState => {
    const { trusted, sources, counted } = assemblyOrder(input);
    const keys = slotKeys(sources);
    const dirty = new Set<string>();
    const next = new Map<string, Layer>();
    const ordered = sources.map((source, i) => {
      const key = keys[i]!;
      const layer = layers.get(key) ?? { source, servers: NOT_APPLIED, entries: new Map<string, AssembledServer>() };
      applySource(layer, source, dirty);
      next.set(key, layer);
      return layer;
    });
    const regrouped = servers === undefined || !sameList(order, keys);
    layers = next;
    order = keys;

    const changed = regrouped ? remerge(ordered) : rewin(ordered, dirty);
    const redecided = decisions?.approvals !== input.approvals || decisions.sessionApprovals !== input.sessionApprovals;
    decisions = input;
    // Names whose standing may have moved: the changed winners (removed ones included), or every
    // name when the decisions or the sources changed — plus, then, the waiting names now gone.
    let standings = false;
    const everyName = redecided || regrouped;
    for (const name of everyName ? names : changed) standings = restand(name, input) || standings;
    if (everyName) for (const name of [...waiting.keys()]) if (!winners.has(name)) standings = restand(name, input) || standings;
    if (standings) {
      pending = names.filter((name) => waiting.has(name));
      rejected = pending.filter((name) => waiting.get(name) === true);
    }
    if (regrouped || servers === undefined) servers = plainRecord(names, (name) => winners.get(name)!);
    else if (changed.length > 0) {
      const base = servers;
      servers = deriveRecord(base, names, new Map(changed.map((name) => [name, winners.get(name)])));
      registerDerived(servers, base, changed);
    }
    namesByRecord.set(servers, names);
    return desiredState(input, counted, { servers, pending, rejected, trusted });
  };

  /** Every name looks for its winner again (the set or order of sources changed); returns all names. */
  const remerge = (ordered: readonly Layer[]): readonly string[] => {
    winners = new Map();
    for (const layer of ordered) for (const [name, server] of layer.entries) winners.set(name, server);
    names = [...winners.keys()].sort();
    return names;
  };

  /** The names in `dirty` look for their winner again; returns those whose winner changed. */
  const rewin = (ordered: readonly Layer[], dirty: ReadonlySet<string>): string[] => {
    const changed: string[] = [];
    const added: string[] = [];
    const removed = new Set<string>();
    for (const name of dirty) {
      const before = winners.get(name);
      const after = winnerOf(ordered, name);
      if (after === before) continue;
      changed.push(name);
      if (after === undefined) {
        winners.delete(name);
        removed.add(name);
      } else {
        winners.set(name, after);
        if (before === undefined) added.push(name);
      }
    }
    if (added.length + removed.size > FEW) {
      names = mergeSorted(removed.size > 0 ? names.filter((name) => !removed.has(name)) : names, added.sort());
    } else {
      for (const name of added) names = withSorted(names, name, true);
      for (const name of removed) names = withSorted(names, name, false);
    }
    return changed;
  };

  return { assemble, hashOf, namesOf: (record: object) => namesByRecord.get(record) };
}

/**
 * A source's slot between calls: scope, file and extension directory, and how many sources
 * before it had the same three (two extra sources may share a label).
 */
function slotKeys(sources: readonly SourceSnapshot[]): string[] {
  const seen = new Map<string, number>();
  return sources.map((source) => {
    const key = `${source.scope}\0${source.file}\0${source.extensionPath ?? ''}\0${source.layer ?? ''}`;
    const count = seen.get(key) ?? 0;
    seen.set(key, count + 1);
    return `${key}\0${count}`;
  });
}

/**
 * Brings a layer up to a new snapshot of its source, in place: an entry whose config is the same
 * object as before (or deep-equal to it) keeps its assembled object; the names of entries that
 * were added, removed or replaced go into `dirty`.
 */
function applySource(layer: Layer, source: SourceSnapshot, dirty: Set<string>): void {
  layer.source = source;
  if (layer.servers === source.servers) return;
  const previous = layer.servers;
  layer.servers = source.servers;
  const raw: unknown = source.servers;
  const servers = raw !== null && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
  const { entries } = layer;
  // The file reader says which entries a re-read changed (recordLineage): only those are looked at.
  const known = typeof previous === 'object' && previous !== null && servers === raw ? changedBetween(previous, servers) : undefined;
  if (known !== undefined) {
    for (const name of known) {
      const before = entries.get(name);
      if (!Object.hasOwn(servers, name)) {
        if (before !== undefined && entries.delete(name)) dirty.add(name);
        continue;
      }
      const config = servers[name];
      if (before !== undefined && sameJson(before.config, config)) continue;
      entries.set(name, assembledServer(name, source, config));
      dirty.add(name);
    }
    return;
  }
  let count = 0;
  for (const name of Object.keys(servers)) {
    count += 1;
    const config = servers[name];
    const before = entries.get(name);
    if (before !== undefined && sameJson(before.config, config)) continue;
    entries.set(name, assembledServer(name, source, config));
    dirty.add(name);
  }
  if (count === entries.size) return;
  for (const name of entries.keys()) {
    if (Object.hasOwn(servers, name)) continue;
    entries.delete(name);
    dirty.add(name);
  }
}

/** The entry of the last layer that has `name`. */
function winnerOf(ordered: readonly Layer[], name: string): AssembledServer | undefined {
  for (let i = ordered.length - 1; i >= 0; i--) {
    const server = ordered[i]!.entries.get(name);
    if (server !== undefined) return server;
  }
  return undefined;
}

/** Up to this many names added or removed are put in place one by one; more are merged. */
const FEW = 8;

/** Two sorted lists of distinct names, merged (code-unit order, as `Array.prototype.sort`). */
function mergeSorted(a: readonly string[], b: readonly string[]): string[] {
  if (b.length === 0) return [...a];
  const merged: string[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) merged.push(a[i]! < b[j]! ? a[i++]! : b[j++]!);
  while (i < a.length) merged.push(a[i++]!);
  while (j < b.length) merged.push(b[j++]!);
  return merged;
}

/** `keys` (sorted, distinct) with `key` added or removed: a new array, `keys` left as it is. */
function withSorted(keys: readonly string[], key: string, add: boolean): string[] {
  let low = 0;
  let high = keys.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (keys[middle]! < key) low = middle + 1;
    else high = middle;
  }
  const next = [...keys];
  if (add) next.splice(low, 0, key);
  else if (keys[low] === key) next.splice(low, 1);
  return next;
}

function sameList<T>(a: readonly T[] | undefined, b: readonly T[] | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined || a.length !== b.length) return false;
  return a.every((item, i) => item === b[i]);
}

/**
 * Deep equality of two entries as written: own enumerable keys, same prototypes, leaves by
 * `Object.is` (so `0` and `-0` differ). Cheaper than hashing an entry again, and strict enough
 * that reusing the older of two equal objects changes no result.
 */
function sameJson(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b) || Array.isArray(a) !== Array.isArray(b)) return false;
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = Object.keys(left);
  if (keys.length !== Object.keys(right).length) return false;
  return keys.every((key) => Object.hasOwn(right, key) && sameJson(left[key], right[key]));
}

// --- desiredServers ------------------------------------------------------------------------------

/** What one name resolved to last time, and what that depended on. */
interface Resolved {
  server: AssembledServer;
  /** The admission rule set the verdict was made by (see `rules`). */
  rules: number;
  verdict: Admission;
  /** `verdict` without `admitted`, when blocked: the value of `blocked[name]`. */
  why?: Blocked;
  wanted?: WantedServer;
  /** Admitted but held (decision 301): the value of `blocked[name]`, judged for `heldFor` by the rule set `heldRules`. */
  held?: Blocked;
  heldFor?: WantedServer;
  heldRules?: number;
  workspace?: string;
  home?: string;
  /** The environment (see `envs`) the reads were last checked against. */
  env: number;
  /** Every variable the entry could read, with its value then. */
  reads?: readonly (readonly [name: string, value: string | undefined])[];
}

/** Where the servers run: the workspace, and the home directory (a user's `headersHelper`, decision 299). */
interface Place {
  workspace: string | undefined;
  home: string | undefined;
}

/** The inputs of one admission rule set. */
interface Gate {
  gating: Gating;
  trusted: boolean;
  settingsError: string | undefined;
  flagAllowed: readonly string[] | undefined;
}

function createIncrementalServers(namesOf: (record: object) => readonly string[] | undefined) {
  const byName = new Map<string, Resolved>();
  let gate: Gate | undefined;
  let admitOne: (name: string, server: AssembledServer) => Admission = () => ({ admitted: true });
  let rules = 0;
  let lastEnv: Environment | undefined;
  let envs = 0;
  /** What the last call was given, to tell what changed since. */
  let last: { servers: object; rules: number; envs: number; workspace: string | undefined; home: string | undefined; names: readonly string[] } | undefined;
  /** The records the last call returned (never modified: the next call derives new ones). */
  let wanted: Readonly<Record<string, WantedServer>> = Object.create(null) as Record<string, WantedServer>;
  let blocked: Readonly<Record<string, Blocked>> = Object.create(null) as Record<string, Blocked>;
  /** The keys of `wanted` and `blocked`, in order. */
  let wantedKeys: readonly string[] = [];
  let blockedKeys: readonly string[] = [];

  return (desired: DesiredState, flagAllowed: readonly string[] | undefined, env: Environment, workspace?: string, home?: string): DesiredServers => {
    const names = namesOf(desired.servers) ?? Object.keys(desired.servers);
    const next: Gate = { gating: desired.gating, trusted: desired.trusted, settingsError: desired.settingsError, flagAllowed };
    if (gate === undefined || !sameGate(gate, next)) {
      admitOne = admission(desired, flagAllowed);
      rules += 1;
    }
    gate = next;
    if (env !== lastEnv) {
      lastEnv = env;
      envs += 1;
    }

    // Only the names the servers record changed since the last call need a look, when nothing
    // else an outcome reads changed (rule set, environment object, workspace, home).
    const place = { workspace, home };
    const since =
      last !== undefined && last.rules === rules && last.envs === envs && last.workspace === workspace && last.home === home
        ? desired.servers === last.servers
          ? new Set<string>()
          : changedBetween(last.servers, desired.servers)
        : undefined;
    const changed = since === undefined ? rebuild(desired, names, env, place) : update(desired, since, env, place);
    last = { servers: desired.servers, rules, envs, workspace, home, names };
    return { wanted, blocked, names, changed };
  };

  /** The entry of `name` for `server`, judged by the current rule set. */
  function entryOf(name: string, server: AssembledServer): Resolved {
    let entry = byName.get(name);
    if (entry === undefined || !sameAssembled(entry.server, server)) {
      entry = { server, rules: 0, verdict: { admitted: true }, env: 0 };
      byName.set(name, entry);
    }
    entry.server = server;
    if (entry.rules !== rules) judge(entry, name);
    return entry;
  }

  /** What the last call gave for `name`: its wanted server, why it is blocked, or undefined. */
  function outcomeOf(name: string): WantedServer | Blocked | undefined {
    return Object.hasOwn(wanted, name) ? wanted[name] : Object.hasOwn(blocked, name) ? blocked[name] : undefined;
  }

  /** Every name looked at again, both records new; returns the names whose outcome changed. */
  function rebuild(desired: DesiredState, names: readonly string[], env: Environment, place: Place): Set<string> | 'all' {
    const previous = { wanted, blocked, names: last?.names };
    const keys: { wanted: string[]; blocked: string[] } = { wanted: [], blocked: [] };
    for (const name of names) {
      const entry = entryOf(name, desired.servers[name]!);
      keys[decide(entry, env, place)].push(name);
    }
    wanted = plainRecord(keys.wanted, (name) => byName.get(name)!.wanted!);
    blocked = plainRecord(keys.blocked, (name) => blockedOf(byName.get(name)!));
    wantedKeys = keys.wanted;
    blockedKeys = keys.blocked;
    if (names !== previous.names) for (const name of byName.keys()) if (!Object.hasOwn(desired.servers, name)) byName.delete(name);
    if (previous.names === undefined) return 'all';
    const changed = new Set<string>();
    const was = (name: string) => (Object.hasOwn(previous.wanted, name) ? previous.wanted[name] : Object.hasOwn(previous.blocked, name) ? previous.blocked[name] : undefined);
    for (const name of names) if (was(name) !== outcomeOf(name)) changed.add(name);
    for (const name of previous.names) if (!Object.hasOwn(desired.servers, name)) changed.add(name);
    return changed;
  }

  /**
   * Only the names in `since` looked at again; both records derived from the last ones with
   * just those members changed (in name order, the order `desiredServers` gives).
   */
  function update(desired: DesiredState, since: ReadonlySet<string>, env: Environment, place: Place): Set<string> {
    const changed = new Set<string>();
    const changes = { wanted: new Map<string, WantedServer | undefined>(), blocked: new Map<string, Blocked | undefined>() };
    const keys = { wanted: wantedKeys, blocked: blockedKeys };
    /** Sets `name` in one record (or in none) and drops it from the other. */
    const put = (name: string, into: 'wanted' | 'blocked' | undefined, outcome: WantedServer | Blocked | undefined) => {
      for (const side of ['wanted', 'blocked'] as const) {
        const record = side === 'wanted' ? wanted : blocked;
        if (side === into) {
          (changes[side] as Map<string, unknown>).set(name, outcome);
          if (!Object.hasOwn(record, name)) keys[side] = withSorted(keys[side], name, true);
        } else if (Object.hasOwn(record, name)) {
          changes[side].set(name, undefined);
          keys[side] = withSorted(keys[side], name, false);
        }
      }
    };
    for (const name of since) {
      const before = outcomeOf(name);
      if (!Object.hasOwn(desired.servers, name)) {
        byName.delete(name);
        if (before === undefined) continue;
        changed.add(name);
        put(name, undefined, undefined);
        continue;
      }
      const entry = entryOf(name, desired.servers[name]!);
      const side = decide(entry, env, place);
      const after = side === 'wanted' ? entry.wanted! : blockedOf(entry);
      if (after === before) continue;
      changed.add(name);
      put(name, side, after);
    }
    if (changes.wanted.size > 0) wanted = deriveRecord(wanted, (wantedKeys = keys.wanted), changes.wanted);
    if (changes.blocked.size > 0) blocked = deriveRecord(blocked, (blockedKeys = keys.blocked), changes.blocked);
    return changed;
  }

  /**
   * Which record an entry goes in: blocked by admission, else resolved and — by what it resolved
   * to — held or wanted (decision 303). The held verdict is kept while the resolution and the
   * rule set are the same, so an unchanged outcome keeps its identity.
   */
  function decide(entry: Resolved, env: Environment, place: Place): 'wanted' | 'blocked' {
    if (entry.why !== undefined) return 'blocked';
    const resolution = resolve(entry, env, place);
    if (entry.heldFor !== resolution || entry.heldRules !== rules) {
      const detail = launchHeld(entry.server, resolution.resolved, gate?.gating.launch);
      entry.held = detail === undefined ? undefined : entry.held?.detail === detail ? entry.held : { reason: 'untrusted_launch', detail };
      entry.heldFor = resolution;
      entry.heldRules = rules;
    }
    return entry.held === undefined ? 'wanted' : 'blocked';
  }

  function judge(entry: Resolved, name: string): void {
    entry.verdict = admitOne(name, entry.server);
    entry.rules = rules;
    if (entry.verdict.admitted) entry.why = undefined;
    else {
      const { admitted: _admitted, ...why } = entry.verdict;
      entry.why = why;
    }
  }

  function resolve(entry: Resolved, env: Environment, { workspace, home }: Place): WantedServer {
    if (
      entry.wanted !== undefined &&
      entry.workspace === workspace &&
      entry.home === home &&
      (entry.env === envs || readsUnchanged(entry.reads ?? [], env))
    ) {
      entry.env = envs;
      return entry.wanted;
    }
    entry.wanted = resolveAssembled(entry.server, env, workspace, home);
    entry.workspace = workspace;
    entry.home = home;
    entry.env = envs;
    entry.reads = variablesOf(entry.server.config).map((name) => [name, valueOf(env, name)] as const);
    return entry.wanted;
  }
}

/** A blocked entry's value in `blocked`: why admission blocked it, or why it is held. */
function blockedOf(entry: Resolved): Blocked {
  return entry.why ?? entry.held!;
}

/** Same name, origin and config object: everything an entry's verdict and resolution read. */
function sameAssembled(a: AssembledServer, b: AssembledServer): boolean {
  return a === b || (a.config === b.config && a.name === b.name && a.scope === b.scope && a.source === b.source && a.extensionPath === b.extensionPath && a.lazyDefault === b.lazyDefault);
}

function sameGate(a: Gate, b: Gate): boolean {
  if (a.trusted !== b.trusted || a.settingsError !== b.settingsError || !sameList(a.flagAllowed, b.flagAllowed)) return false;
  const x = a.gating;
  const y = b.gating;
  return (
    sameList(x.allowed, y.allowed) &&
    sameList(x.excluded, y.excluded) &&
    // The language servers' own bounds (decision 252): without them an edit of lsp.excluded kept the old rules.
    sameList(x.lspAllowed, y.lspAllowed) &&
    sameList(x.lspExcluded, y.lspExcluded) &&
    sameList(x.pending, y.pending) &&
    sameList(x.rejected, y.rejected) &&
    sameList(x.sessionDisabled, y.sessionDisabled) &&
    sameList(x.sessionEnabled, y.sessionEnabled) &&
    // What holds the user's own servers (decision 301): a launcher file or a yes re-judges them.
    launchHoldsEqual(x.launch, y.launch)
  );
}

/** A variable as expansion reads it: own members only. */
function valueOf(env: Environment, name: string): string | undefined {
  return Object.hasOwn(env, name) ? env[name] : undefined;
}

function readsUnchanged(reads: readonly (readonly [string, string | undefined])[], env: Environment): boolean {
  return reads.every(([name, value]) => valueOf(env, name) === value);
}

/**
 * Every name a `$VAR` / `${VAR}` reference anywhere in the entry could read from the environment:
 * all string values at any depth, built-ins included. A superset of what expansion reads (it
 * expands some fields only, and a built-in only when not known), so a change of anything outside
 * it cannot change the resolution.
 */
function variablesOf(config: unknown): string[] {
  const names = new Set<string>();
  const visit = (value: unknown): void => {
    if (typeof value === 'string') {
      if (!value.includes('$')) return;
      for (const reference of value.matchAll(VARIABLE)) names.add(reference[1] ?? reference[2] ?? '');
    } else if (value !== null && typeof value === 'object') {
      for (const item of Object.values(value)) visit(item);
    }
  };
  visit(config);
  return [...names];
}
