import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { approvalHash } from '../../../src/model/settings/approvalHash.js';
import { assemble, type AssembleInput } from '../../../src/model/settings/assemble.js';
import { canonicalJson } from '../../../src/model/canonicalJson.js';
import { mcpServersEqual } from '../../../src/model/reconcile/equality.js';
import { createIncrementalDesired } from '../../../src/model/reconcile/incrementalDesired.js';
import { createIncrementalPlan } from '../../../src/model/reconcile/incrementalPlan.js';
import { registerDerived } from '../../../src/model/reconcile/recordLineage.js';
import { desiredServers, keptRunning, plan, type Blocked, type LiveEntry, type WantedServer } from '../../../src/model/reconcile/plan.js';
import type { Scope, SourceSnapshot } from '../../../src/model/types.js';

type Env = Readonly<Record<string, string | undefined>>;

/** A record whose keys are defined as data, so a server called `__proto__` is an ordinary key. */
function record(entries: Iterable<readonly [string, unknown]>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of entries) Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  return out;
}

/** `lsp:a` in an `mcpServers` map is left out (the key of language server `a`). */
const NAMES = ['a', 'b', 'c', 'gh', 'toString', '__proto__', 'lsp:a'] as const;

/** Language servers (decision 145): a layer of their own in some sources, keyed `lsp:NAME` once assembled. */
const LSP_LAYERS: readonly (Record<string, unknown> | undefined)[] = [
  { a: { command: 'ts-ls', extensionToLanguage: { '.ts': 'typescript' } } },
  undefined,
  { a: { command: 'evil', extensionToLanguage: { '.ts': 'typescript' } }, b: { command: 'py', extensionToLanguage: { '.py': 'python' }, settings: { x: 1 } } },
  { b: { args: ['no command'] } },
];

/** Entries as written: valid and invalid, reading variables and built-ins, gated by `disabled`. */
const configArb: fc.Arbitrary<unknown> = fc.oneof(
  fc.record(
    {
      command: fc.constantFrom('node', '$CMD', '${HOME}/bin/srv', './srv'),
      args: fc.array(fc.constantFrom('x', '$TOKEN', '${workspacePath}/f', '${extensionPath}/s', '${MISSING:-dflt}', '${/}'), { maxLength: 3 }),
      env: fc.constantFrom({ K: '$TOKEN' }, { K: 'plain' }),
      cwd: fc.constantFrom('sub', '$HOME'),
      disabled: fc.boolean(),
      includeTools: fc.constantFrom(['t1'], []),
      description: fc.constantFrom('one', 'two'),
    },
    { requiredKeys: ['command'] },
  ),
  fc.record(
    {
      url: fc.constantFrom('http://h/$TOKEN', 'http://h/mcp'),
      type: fc.constantFrom('http', 'sse'),
      headers: fc.constantFrom({ Authorization: 'Bearer ${TOKEN}' }, {}),
      oauth: fc.constantFrom({ clientId: '$CID' }, { clientId: 'fixed' }),
      timeout: fc.constantFrom(5_000, -1),
      headersHelper: fc.constantFrom('get-token', './token.sh ${workspacePath}'),
    },
    { requiredKeys: ['url'] },
  ),
  fc.constantFrom('not an object', 5, null, [], { args: 'x' }, {}),
);

const SLOTS: readonly { scope: Scope; file: string; extensionPath?: string }[] = [
  { scope: 'extension', file: 'extension:one', extensionPath: '/ext/one' },
  { scope: 'user', file: '/home/.qwen/settings.json' },
  { scope: 'project', file: '/w/.mcp.json' },
  { scope: 'workspace', file: '/w/.qwen/settings.json' },
  { scope: 'system', file: '/etc/qwen/settings.json' },
  { scope: 'cli', file: 'same-label' },
  { scope: 'cli', file: 'same-label' },
  { scope: 'session', file: 'session' },
];

const patternsArb = fc.option(fc.constantFrom(['a', 'g*'], ['*'], ['B*'], ['toString', '__proto__'], []), { nil: undefined });

/** One edit of the inputs, as the pipeline sees them: everything not edited keeps its identity. */
const editArb = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({ kind: fc.constant('set' as const), slot: fc.nat(SLOTS.length - 1), name: fc.constantFrom(...NAMES), config: fc.nat(7), copy: fc.boolean() }),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('delete' as const), slot: fc.nat(SLOTS.length - 1), name: fc.constantFrom(...NAMES) }) },
  fc.record({ kind: fc.constant('resnapshot' as const), slot: fc.nat(SLOTS.length - 1), copyServers: fc.boolean() }),
  fc.record({ kind: fc.constant('toggleSource' as const), slot: fc.nat(SLOTS.length - 1) }),
  fc.record({ kind: fc.constant('mcp' as const), slot: fc.constantFrom(1, 3, 4), allowed: patternsArb, excluded: patternsArb }),
  fc.record({ kind: fc.constant('folderTrust' as const), slot: fc.constantFrom(1, 4), enabled: fc.option(fc.boolean(), { nil: undefined }) }),
  fc.record({ kind: fc.constant('broken' as const), slot: fc.constantFrom(1, 4), broken: fc.option(fc.constant('bad json at 1:1'), { nil: undefined }) }),
  fc.record({ kind: fc.constant('trusted' as const), trusted: fc.boolean() }),
  fc.record({ kind: fc.constant('decide' as const), name: fc.constantFrom(...NAMES), config: fc.nat(7), status: fc.constantFrom('approved', 'rejected') }),
  fc.record({ kind: fc.constant('sessionApprove' as const), name: fc.constantFrom(...NAMES), config: fc.nat(7) }),
  fc.record({ kind: fc.constant('enable' as const), name: fc.constantFrom(...NAMES), enabled: fc.option(fc.boolean(), { nil: undefined }) }),
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('env' as const),
      name: fc.constantFrom('TOKEN', 'CMD', 'MISSING', 'UNRELATED', 'workspacePath', 'CID'),
      value: fc.option(fc.constantFrom('', 'v1', 'v2'), { nil: undefined }),
    }),
  },
  fc.record({ kind: fc.constant('workspace' as const), workspace: fc.constantFrom(undefined, '/w', '/other') }),
  fc.record({ kind: fc.constant('home' as const), home: fc.constantFrom(undefined, '/h', '/other-home') }),
  fc.record({ kind: fc.constant('flag' as const), flag: fc.constantFrom(undefined, ['a', 'gh'], ['*'], ['t*']) }),
  // What holds the user's own servers (decision 301): none (trusted), or an untrusted folder with 0, 1 or 2 launcher files.
  fc.record({ kind: fc.constant('launch' as const), files: fc.option(fc.constantFrom([], ['/w/node_modules'], ['/w/.npmrc', '/w/node_modules']), { nil: undefined }) }),
);

type Edit = typeof editArb extends fc.Arbitrary<infer E> ? E : never;

/** Changes of the live side between two plans: a name's entry set to one of a few, or dropped. */
const liveEditsArb = fc.array(
  fc.record({
    name: fc.constantFrom(...NAMES, 'z'),
    entry: fc.option(
      fc.record({
        state: fc.constantFrom('connected', 'connecting', 'error', 'blocked', 'disconnected', 'needs_auth'),
        fingerprint: fc.option(fc.constantFrom('f1', 'f2'), { nil: undefined }),
        reason: fc.option(fc.constantFrom('removed', 'excluded', 'pending_approval') as fc.Arbitrary<NonNullable<LiveEntry['reason']>>, { nil: undefined }),
      }),
      { nil: undefined },
    ),
  }),
  { maxLength: 3 },
);

/** Applies live edits in place; returns the names they touched. */
function applyLiveEdits(live: Map<string, LiveEntry>, edits: typeof liveEditsArb extends fc.Arbitrary<infer E> ? E : never): string[] {
  for (const { name, entry } of edits) {
    if (entry === undefined) live.delete(name);
    else live.set(name, Object.fromEntries(Object.entries(entry).filter(([, v]) => v !== undefined)) as unknown as LiveEntry);
  }
  return edits.map((e) => e.name);
}

interface World {
  present: boolean[];
  snapshots: SourceSnapshot[];
  input: Omit<AssembleInput, 'sources'>;
  env: Env;
  workspace: string | undefined;
  home: string | undefined;
  flag: readonly string[] | undefined;
}

/** Every source starts with some of the names, each with one of the configs. */
function initialWorld(configs: readonly unknown[], seed: number): World {
  let bits = seed;
  const servers = () => record(NAMES.flatMap((name, i) => ((bits >>= 1) & 1 ? [[name, configs[(seed + i) % configs.length]] as const] : [])));
  return {
    present: SLOTS.map(() => true),
    snapshots: SLOTS.map((slot) => {
      bits = (bits * 2_654_435_761 + 1) >>> 0;
      const lspServers = LSP_LAYERS[(seed + bits) % LSP_LAYERS.length];
      return { ...slot, servers: servers(), ...(lspServers === undefined ? {} : { lspServers }) };
    }),
    input: { approvals: {}, sessionApprovals: {}, folderTrusted: true },
    env: { HOME: '/h', TOKEN: 't', CMD: 'node', CID: 'c' },
    workspace: '/w',
    home: '/h',
    flag: undefined,
  };
}

/** The world after one edit: new objects for what changed, the same objects for the rest. */
function applyEdit(world: World, edit: Edit, configs: readonly unknown[]): World {
  const next = { ...world, snapshots: [...world.snapshots], present: [...world.present] };
  const config = (i: number, copy = false): unknown => {
    const value = configs[i % configs.length];
    return copy ? structuredClone(value) : value;
  };
  const reshape = (slot: number, change: (s: SourceSnapshot) => SourceSnapshot) => (next.snapshots[slot] = change(world.snapshots[slot]!));
  switch (edit.kind) {
    case 'set':
      reshape(edit.slot, (s) => reread(edit.slot, s, record([...Object.entries(s.servers).filter(([n]) => n !== edit.name), [edit.name, config(edit.config, edit.copy)]]), [edit.name]));
      break;
    case 'delete':
      reshape(edit.slot, (s) => reread(edit.slot, s, record(Object.entries(s.servers).filter(([n]) => n !== edit.name)), [edit.name]));
      break;
    case 'resnapshot':
      reshape(edit.slot, (s) => (edit.copyServers ? reread(edit.slot, s, record(Object.entries(s.servers)), []) : s));
      break;
    case 'toggleSource':
      next.present[edit.slot] = !world.present[edit.slot];
      break;
    case 'mcp':
      reshape(edit.slot, (s) => ({ ...s, mcp: { ...(edit.allowed ? { allowed: [...edit.allowed] } : {}), ...(edit.excluded ? { excluded: [...edit.excluded] } : {}) } }));
      break;
    case 'folderTrust':
      reshape(edit.slot, ({ folderTrustEnabled: _f, ...s }) => (edit.enabled === undefined ? s : { ...s, folderTrustEnabled: edit.enabled }));
      break;
    case 'broken':
      reshape(edit.slot, ({ broken: _b, ...s }) => (edit.broken === undefined ? s : { ...s, broken: edit.broken }));
      break;
    case 'trusted':
      next.input = { ...world.input, folderTrusted: edit.trusted };
      break;
    case 'decide':
      next.input = { ...world.input, approvals: { ...world.input.approvals, [edit.name]: { hash: approvalHash(config(edit.config)), status: edit.status } } };
      break;
    case 'sessionApprove':
      next.input = { ...world.input, sessionApprovals: { ...world.input.sessionApprovals, [edit.name]: approvalHash(config(edit.config)) } };
      break;
    case 'enable': {
      const { [edit.name]: _e, ...rest } = world.input.sessionEnablement ?? {};
      next.input = { ...world.input, sessionEnablement: edit.enabled === undefined ? rest : { ...rest, [edit.name]: edit.enabled } };
      break;
    }
    case 'env': {
      const { [edit.name]: _v, ...rest } = world.env;
      next.env = edit.value === undefined ? rest : { ...rest, [edit.name]: edit.value };
      break;
    }
    case 'workspace':
      next.workspace = edit.workspace;
      break;
    case 'home':
      next.home = edit.home;
      break;
    case 'flag':
      next.flag = edit.flag;
      break;
    case 'launch': {
      // A new object each time, equal or not: the rule set is kept by value.
      const { launchHold: _l, ...rest } = world.input;
      next.input = edit.files === undefined ? rest : { ...rest, launchHold: { workspace: '/w', files: [...edit.files], ignoresCase: false, windows: false } };
      break;
    }
  }
  return next;
}

/**
 * A source re-read with `servers`: in even slots the reader also says which names changed (its
 * record lineage, as `fromSettingsFile` registers it), in odd ones it does not — both ways are
 * checked against the pure functions.
 */
function reread(slot: number, snapshot: SourceSnapshot, servers: Record<string, unknown>, changed: string[]): SourceSnapshot {
  if (slot % 2 === 0) registerDerived(servers, snapshot.servers, changed);
  return { ...snapshot, servers };
}

const inputOf = (world: World): AssembleInput => ({ ...world.input, sources: world.snapshots.filter((_, i) => world.present[i]) });

/** Equal, and with keys in the same order at the top of each record (what iteration sees). */
function expectSame(actual: Record<string, unknown>, expected: Record<string, unknown>): void {
  expect(actual).toStrictEqual(expected);
  expect(Object.keys(actual)).toEqual(Object.keys(expected));
}

/**
 * Runs of the sequence property: 100 in the default suite (about 1,300 edits, each of the 16 kinds
 * at least ~50 times), ten times that in test/slow/reconcileProperties.test.ts.
 */
const RUNS = 100 * Number(process.env.MCP_LIVE_PROPERTY_SCALE ?? 1);

describe('createIncrementalDesired', () => {
  it('gives what assemble + desiredServers give from scratch, over any sequence of edits', () => {
    fc.assert(
      fc.property(
        fc.array(configArb, { minLength: 1, maxLength: 8 }),
        fc.nat(),
        fc.array(fc.tuple(editArb, liveEditsArb), { minLength: 1, maxLength: 25 }),
        (configs, seed, edits) => {
          const incremental = createIncrementalDesired();
          const planner = createIncrementalPlan();
          const live = new Map<string, LiveEntry>();
          let world = initialWorld(configs, seed);
          let previous: { servers: Record<string, unknown>; outcomes: Map<string, unknown> } | undefined;
          for (const [edit, liveEdits] of edits) {
            world = applyEdit(world, edit, configs);
            const input = inputOf(world);
            const desired = incremental.assemble(input);
            const reference = assemble(input);
            expect(desired).toStrictEqual(reference);
            expect(Object.keys(desired.servers)).toEqual(Object.keys(reference.servers));
            // The gate's answer, through the record lineage or not, is the canonical one.
            if (previous !== undefined) {
              expect(mcpServersEqual(previous.servers, desired.servers)).toBe(canonicalJson(previous.servers) === canonicalJson(desired.servers));
            }
            const got = incremental.desiredServers(desired, world.flag, world.env, world.workspace, world.home);
            const want = desiredServers(reference, world.flag, world.env, world.workspace, world.home);
            expectSame(got.wanted, want.wanted);
            expectSame(got.blocked, want.blocked);
            expect(got.names).toEqual(Object.keys(reference.servers));
            // Every name whose outcome is another object than last time is in the change set.
            const outcomes = new Map<string, unknown>([...Object.entries(got.wanted), ...Object.entries(got.blocked)]);
            if (previous !== undefined && got.changed !== 'all') {
              for (const name of new Set([...outcomes.keys(), ...previous.outcomes.keys()])) {
                if (outcomes.get(name) !== previous.outcomes.get(name)) expect(got.changed).toContain(name);
              }
            } else {
              expect(previous === undefined || got.changed !== 'all').toBe(true);
            }
            previous = { servers: desired.servers, outcomes };
            // The live side moved (as actions and retries move it): the dirty hint names what did.
            const liveChanged = applyLiveEdits(live, liveEdits);
            const dirty = got.changed === 'all' ? 'all' : [...got.changed, ...liveChanged];
            const hinted = planner.plan(got.wanted, got.blocked, got.names, dirty, () => live);
            const full = plan(want.wanted, want.blocked, live);
            expect(hinted.steps.filter((s) => s.change !== 'unchanged')).toEqual(full.filter((s) => s.change !== 'unchanged'));
            expect(hinted.unchanged).toBe(full.filter((s) => s.change === 'unchanged').length);
            // Of them, the servers left running (decision 329): counted alike, though not re-planned.
            expect(hinted.kept).toBe(full.filter((s) => keptRunning(s, want.wanted, want.blocked)).length);
            for (const step of hinted.steps) expect(full).toContainEqual(step);
          }
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('resolves a desired state it did not assemble itself like desiredServers does', () => {
    const incremental = createIncrementalDesired();
    const input: AssembleInput = {
      sources: [{ scope: 'user', file: 'u', servers: { b: { command: 'x' }, a: { command: '$TOKEN' } } }],
      approvals: {},
      sessionApprovals: {},
      folderTrusted: true,
    };
    for (const env of [{ TOKEN: '1' }, { TOKEN: '2' }]) {
      const desired = assemble(input);
      const got = incremental.desiredServers(desired, undefined, env);
      expectSame(got.wanted, desiredServers(desired, undefined, env).wanted);
      expect(got.names).toEqual(['a', 'b']);
    }
  });

  it('keeps the objects of unchanged entries when one entry of a source changes', () => {
    const incremental = createIncrementalDesired();
    const same = { command: 'node', args: ['same.js'] };
    const before = { command: 'node', args: ['v1.js'] };
    const input = (edited: unknown): AssembleInput => ({
      sources: [{ scope: 'user', file: 'u', servers: { same, edited } }],
      approvals: {},
      sessionApprovals: {},
      folderTrusted: true,
    });
    const env = {};
    const first = incremental.assemble(input(before));
    // The records are updated in place by the next call: what a caller keeps, it copies.
    const firstServers = { ...incremental.desiredServers(first, undefined, env).wanted };
    const second = incremental.assemble(input({ command: 'node', args: ['v2.js'] }));
    const secondResult = incremental.desiredServers(second, undefined, env);
    const secondServers = { ...secondResult, wanted: { ...secondResult.wanted } };

    expect(second.servers.same).toBe(first.servers.same);
    expect(secondServers.wanted.same).toBe(firstServers.same);
    expect(secondServers.wanted.edited).not.toBe(firstServers.edited);
    expect(secondServers.wanted.edited!.resolved!.args).toEqual(['v2.js']);
    expect(secondResult.changed).toEqual(new Set(['edited']));
    // A deep-equal copy (a source that re-creates its objects) counts as unchanged.
    const third = incremental.assemble(input({ command: 'node', args: ['v2.js'] }));
    expect(third.servers.edited).toBe(second.servers.edited);
    const thirdResult = incremental.desiredServers(third, undefined, env);
    expect(thirdResult.wanted.edited).toBe(secondServers.wanted.edited);
    expect(thirdResult.changed).toEqual(new Set());
  });

  it('resolves again only the entries that read a variable whose value changed', () => {
    const incremental = createIncrementalDesired();
    const input: AssembleInput = {
      sources: [
        {
          scope: 'user',
          file: 'u',
          servers: {
            reads: { command: 'node', env: { T: '$TOKEN' } },
            remote: { url: 'https://h/mcp', oauth: { clientSecret: '${TOKEN}' } },
            plain: { command: 'node', env: { T: 'fixed' } },
          },
        },
      ],
      approvals: {},
      sessionApprovals: {},
      folderTrusted: true,
    };
    const desired = incremental.assemble(input);
    const first = incremental.desiredServers(desired, undefined, { TOKEN: 'one', OTHER: 'x' });
    const otherChanged = incremental.desiredServers(desired, undefined, { TOKEN: 'one', OTHER: 'y' });
    expect(otherChanged.wanted.reads).toBe(first.wanted.reads);
    expect(otherChanged.wanted.remote).toBe(first.wanted.remote);

    const tokenChanged = incremental.desiredServers(desired, undefined, { TOKEN: 'two', OTHER: 'y' });
    expect(tokenChanged.wanted.plain).toBe(first.wanted.plain);
    expect(tokenChanged.wanted.reads).not.toBe(first.wanted.reads);
    expect(tokenChanged.wanted.reads!.resolved!.env).toEqual({ T: 'two' });
    expect(tokenChanged.wanted.reads!.fingerprint).not.toBe(first.wanted.reads!.fingerprint);
    expect(tokenChanged.wanted.remote!.resolved!.oauth?.clientSecret).toBe('two');
  });

  it('admits again when the gating changes, and only then', () => {
    const incremental = createIncrementalDesired();
    const servers = { alpha: { command: 'a' }, beta: { command: 'b' } };
    const input = (excluded?: string[]): AssembleInput => ({
      sources: [{ scope: 'user', file: 'u', servers, ...(excluded ? { mcp: { excluded } } : {}) }],
      approvals: {},
      sessionApprovals: {},
      folderTrusted: true,
    });
    const first = incremental.desiredServers(incremental.assemble(input()), undefined, {});
    expect(Object.keys(first.wanted)).toEqual(['alpha', 'beta']);

    const excluded = incremental.desiredServers(incremental.assemble(input(['ALPHA'])), undefined, {});
    expect(excluded.blocked).toEqual({ alpha: { reason: 'excluded' } });
    expect(excluded.wanted.beta).toBe(first.wanted.beta);

    const flagged = incremental.desiredServers(incremental.assemble(input(['ALPHA'])), ['al*'], {});
    expect(flagged.blocked).toEqual({ alpha: { reason: 'excluded' }, beta: { reason: 'not_allowed', notAllowedBy: 'flag' } });

    const again = incremental.desiredServers(incremental.assemble(input()), undefined, {});
    expect(Object.keys(again.wanted)).toEqual(['alpha', 'beta']);
    expect(again.wanted.alpha).toBe(first.wanted.alpha);
  });
});

describe('plan with the desired names given', () => {
  const state = fc.constantFrom('connected', 'connecting', 'error', 'blocked', 'disconnected') as fc.Arbitrary<LiveEntry['state']>;
  it('plans exactly as without them, whatever order the live names come in', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.constantFrom(...NAMES, 'z', 'A', 'é'), { maxLength: 8 }),
        fc.array(fc.tuple(fc.constantFrom(...NAMES, 'z', 'A', 'é'), state, fc.constantFrom('f1', 'f2')), { maxLength: 8 }),
        fc.nat(),
        (desired, liveEntries, mask) => {
          const wanted = Object.create(null) as Record<string, WantedServer>;
          const blocked = Object.create(null) as Record<string, Blocked>;
          desired.forEach((name, i) => {
            if ((mask >> i) & 1) blocked[name] = { reason: 'excluded' };
            else wanted[name] = { name, scope: 'user', source: 'u', fingerprint: 'f1', view: {} };
          });
          const live = new Map<string, LiveEntry>(liveEntries.map(([name, s, fingerprint]) => [name, { state: s, fingerprint }]));
          const steps = plan(wanted, blocked, live);
          expect(plan(wanted, blocked, live, [...desired].sort())).toEqual(steps);
          expect(plan(wanted, blocked, live, desired)).toEqual(steps);
          // One step per name at most, in sorted order; every wanted name has one.
          const named = steps.map((s) => s.name);
          expect(named).toEqual([...new Set([...desired, ...live.keys()])].sort().filter((name) => named.includes(name)));
          expect(named).toEqual(expect.arrayContaining(Object.keys(wanted)));
        },
      ),
    );
  });
});
