import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { desiredServers, keptRunning, plan, type Blocked, type LiveEntry, type PlanStep, type WantedServer } from '../../../src/model/reconcile/plan.js';
import { fingerprint, invalidFingerprint } from '../../../src/model/reconcile/fingerprint.js';
import type { AssembledServer, DesiredState, Reason, ResolvedServerConfig, Scope, ServerState, ViewFields } from '../../../src/model/types.js';

function wantedServer(name: string, fp = `fp-${name}`, view: ViewFields = {}): WantedServer {
  return { name, scope: 'user', source: '/u.json', fingerprint: fp, view };
}

function live(entries: Record<string, LiveEntry>): Map<string, LiveEntry> {
  return new Map(Object.entries(entries));
}

function only(steps: PlanStep[]): PlanStep {
  expect(steps).toHaveLength(1);
  return steps[0]!;
}

describe('desiredServers', () => {
  const assembled = (name: string, config: unknown, scope: Scope = 'user'): AssembledServer => ({ name, scope, source: `/${scope}.json`, config });

  it('resolves admitted servers and blocks the rest with their reasons', () => {
    const desired: DesiredState = {
      servers: {
        ok: assembled('ok', { command: 'node', args: ['$X'], description: 'd' }, 'cli'),
        gone: assembled('gone', { command: 'x' }),
        other: assembled('other', { command: 'x' }),
        pend: assembled('pend', { command: 'x' }, 'project'),
      },
      gating: { excluded: ['gone'], pending: ['pend'] },
      trusted: true,
    };
    const { wanted, blocked } = desiredServers(desired, ['ok', 'gone', 'pend'], { X: 'expanded' });
    expect(Object.keys(wanted)).toEqual(['ok']);
    const resolved: ResolvedServerConfig = {
      transport: 'stdio',
      command: 'node',
      args: ['expanded'],
      env: {},
      headers: {},
      timeout: 600_000,
      connectTimeout: 30_000,
    };
    expect(wanted.ok).toEqual({
      name: 'ok',
      scope: 'cli',
      source: '/cli.json',
      fingerprint: fingerprint(resolved),
      view: { description: 'd' },
      resolved,
    });
    expect({ ...blocked }).toEqual({
      gone: { reason: 'excluded' },
      other: { reason: 'not_allowed', notAllowedBy: 'flag' },
      pend: { reason: 'pending_approval' },
    });
  });

  it('an invalid admitted entry is wanted with invalid_config and breaks only itself', () => {
    const desired: DesiredState = {
      servers: { bad: assembled('bad', { args: 'x' }), none: assembled('none', {}), good: assembled('good', { command: 'g' }) },
      gating: {},
      trusted: true,
    };
    const { wanted } = desiredServers(desired, undefined, {});
    expect(wanted.bad).toMatchObject({ invalid: 'invalid_config: args must be an array of strings', fingerprint: invalidFingerprint({ args: 'x' }), view: {} });
    expect(wanted.bad?.resolved).toBeUndefined();
    expect(wanted.none?.invalid).toBe('invalid_config: no transport: set command, url or httpUrl');
    expect(wanted.good?.resolved?.command).toBe('g');
    expect(wanted.good?.invalid).toBeUndefined();
  });

  it('an invalid but blocked entry is just blocked', () => {
    const desired: DesiredState = { servers: { bad: assembled('bad', 42) }, gating: { excluded: ['bad'] }, trusted: true };
    const { wanted, blocked } = desiredServers(desired, undefined, {});
    expect(Object.keys(wanted)).toEqual([]);
    expect(blocked.bad).toEqual({ reason: 'excluded' });
  });

  it('handles __proto__ and has no prototype members', () => {
    const servers = JSON.parse('{"__proto__": {"name": "__proto__", "scope": "user", "source": "/u", "config": {"command": "p"}}}') as DesiredState['servers'];
    const { wanted, blocked } = desiredServers({ servers, gating: {}, trusted: true }, undefined, {});
    expect(Object.keys(wanted)).toEqual(['__proto__']);
    expect(wanted.__proto__?.resolved?.command).toBe('p');
    expect(wanted.toString).toBeUndefined();
    expect(blocked.toString).toBeUndefined();
  });
});

describe('plan: wanted servers', () => {
  const a = wantedServer('a');

  it('not live → added [connect]', () => {
    expect(plan({ a }, {}, live({}))).toEqual([{ name: 'a', change: 'added', actions: [{ type: 'connect', server: a }] }]);
  });

  it('live but blocked → added [connect]', () => {
    const step = only(plan({ a }, {}, live({ a: { state: 'blocked', reason: 'pending_approval' } })));
    expect(step).toEqual({ name: 'a', change: 'added', actions: [{ type: 'connect', server: a }] });
  });

  it.each<ServerState>(['connecting', 'connected', 'error', 'disconnected'])('fingerprint changed while %s → reconnected [disconnect, connect]', (state) => {
    const step = only(plan({ a }, {}, live({ a: { state, fingerprint: 'old' } })));
    expect(step).toEqual({ name: 'a', change: 'reconnected', actions: [{ type: 'disconnect' }, { type: 'connect', server: a }] });
  });

  it.each<ServerState>(['error', 'disconnected'])('same fingerprint, %s → retried [connect]', (state) => {
    const step = only(plan({ a }, {}, live({ a: { state, fingerprint: a.fingerprint } })));
    expect(step).toEqual({ name: 'a', change: 'retried', actions: [{ type: 'connect', server: a }] });
  });

  it.each<ServerState>(['connected', 'connecting'])('same fingerprint, %s, view changed → updated [refilter]', (state) => {
    const viewed = wantedServer('a', a.fingerprint, { excludeTools: ['x'] });
    const step = only(plan({ a: viewed }, {}, live({ a: { state, fingerprint: a.fingerprint, view: {} } })));
    expect(step).toEqual({ name: 'a', change: 'updated', actions: [{ type: 'refilter', server: viewed }] });
  });

  it.each<ServerState>(['connected', 'connecting'])('same fingerprint and view, %s → unchanged []', (state) => {
    const viewed = wantedServer('a', a.fingerprint, { includeTools: ['x', 'y'] });
    const step = only(plan({ a: viewed }, {}, live({ a: { state, fingerprint: a.fingerprint, view: { includeTools: ['y', 'x'] } } })));
    expect(step).toEqual({ name: 'a', change: 'unchanged', actions: [] });
  });

  it('an absent live view counts as {}', () => {
    expect(only(plan({ a }, {}, live({ a: { state: 'connected', fingerprint: a.fingerprint } }))).change).toBe('unchanged');
  });

  it('an unchanged invalid entry already in error is unchanged, not retried every pass', () => {
    const bad: WantedServer = { ...wantedServer('a', 'invalid:h'), invalid: 'invalid_config: x' };
    expect(only(plan({ a: bad }, {}, live({ a: { state: 'error', fingerprint: 'invalid:h' } }))).change).toBe('unchanged');
    expect(only(plan({ a: bad }, {}, live({ a: { state: 'error', fingerprint: 'fp-a' } }))).change).toBe('reconnected');
  });
});

describe('plan: blocked servers', () => {
  it.each<ServerState>(['connecting', 'connected', 'error', 'disconnected'])('holding a connection (%s) → blocked [disconnect, block]', (state) => {
    const step = only(plan({}, { a: { reason: 'excluded' } }, live({ a: { state, fingerprint: 'f' } })));
    expect(step).toEqual({ name: 'a', change: 'blocked', actions: [{ type: 'disconnect' }, { type: 'block', reason: 'excluded' }] });
  });

  it('already blocked for the same reason → unchanged []', () => {
    const step = only(plan({}, { a: { reason: 'excluded' } }, live({ a: { state: 'blocked', reason: 'excluded' } })));
    expect(step).toEqual({ name: 'a', change: 'unchanged', actions: [] });
  });

  it('blocked for another reason, or not live → blocked [block]', () => {
    const step = only(plan({}, { a: { reason: 'rejected' } }, live({ a: { state: 'blocked', reason: 'pending_approval' } })));
    expect(step).toEqual({ name: 'a', change: 'blocked', actions: [{ type: 'block', reason: 'rejected' }] });
    expect(only(plan({}, { a: { reason: 'disabled' } }, live({})))).toEqual({
      name: 'a',
      change: 'blocked',
      actions: [{ type: 'block', reason: 'disabled' }],
    });
  });

  it('a removed name that is configured again but blocked → blocked [block]', () => {
    const step = only(plan({}, { a: { reason: 'disabled' } }, live({ a: { state: 'blocked', reason: 'removed' } })));
    expect(step.actions).toEqual([{ type: 'block', reason: 'disabled' }]);
  });

  it('carries notAllowedBy in the block action, without comparing it (the flag is fixed per process)', () => {
    const blocked: Record<string, Blocked> = { a: { reason: 'not_allowed', notAllowedBy: 'flag' } };
    expect(only(plan({}, blocked, live({}))).actions).toEqual([{ type: 'block', reason: 'not_allowed', notAllowedBy: 'flag' }]);
    expect(only(plan({}, blocked, live({ a: { state: 'blocked', reason: 'not_allowed' } }))).change).toBe('unchanged');
  });

  it('a name both wanted and blocked is treated as blocked', () => {
    expect(only(plan({ a: wantedServer('a') }, { a: { reason: 'excluded' } }, live({}))).change).toBe('blocked');
  });
});

describe('plan: names gone from the desired state', () => {
  it.each<ServerState>(['connecting', 'connected', 'error', 'disconnected'])('%s → removed [disconnect, block(removed)]', (state) => {
    const step = only(plan({}, {}, live({ a: { state, fingerprint: 'f' } })));
    expect(step).toEqual({ name: 'a', change: 'removed', actions: [{ type: 'disconnect' }, { type: 'block', reason: 'removed' }] });
  });

  it('blocked for another reason → removed [block(removed)], no disconnect', () => {
    const step = only(plan({}, {}, live({ a: { state: 'blocked', reason: 'excluded' } })));
    expect(step).toEqual({ name: 'a', change: 'removed', actions: [{ type: 'block', reason: 'removed' }] });
  });

  it.each<ServerState>(['blocked', 'disconnected'])('already removed (shown as %s) → no step', (state) => {
    expect(plan({}, {}, live({ a: { state, reason: 'removed' } }))).toEqual([]);
  });

  it.each<ServerState>(['blocked', 'disconnected'])('a removed name (shown as %s) that comes back → added [connect]', (state) => {
    const a = wantedServer('a');
    expect(only(plan({ a }, {}, live({ a: { state, reason: 'removed' } })))).toEqual({
      name: 'a',
      change: 'added',
      actions: [{ type: 'connect', server: a }],
    });
  });

  it('a removed name (shown as disconnected) that comes back blocked → blocked [block], no disconnect', () => {
    const step = only(plan({}, { a: { reason: 'excluded' } }, live({ a: { state: 'disconnected', reason: 'removed' } })));
    expect(step).toEqual({ name: 'a', change: 'blocked', actions: [{ type: 'block', reason: 'excluded' }] });
  });
});

describe('plan: the whole pass', () => {
  it('has one step per known name, sorted by name', () => {
    const steps = plan(
      { c: wantedServer('c'), a: wantedServer('a') },
      { b: { reason: 'excluded' } },
      live({ d: { state: 'connected', fingerprint: 'f' }, a: { state: 'connected', fingerprint: 'fp-a' }, e: { state: 'blocked', reason: 'removed' } }),
    );
    expect(steps.map((s) => [s.name, s.change])).toEqual([
      ['a', 'unchanged'],
      ['b', 'blocked'],
      ['c', 'added'],
      ['d', 'removed'],
    ]);
  });

  it('handles __proto__ and names like toString in every role', () => {
    const wanted = Object.fromEntries([['__proto__', wantedServer('__proto__')]]);
    const blocked = Object.fromEntries([['constructor', { reason: 'excluded' }]] as [string, Blocked][]);
    const steps = plan(wanted, blocked, new Map<string, LiveEntry>([['toString', { state: 'connected', fingerprint: 'f' }]]));
    expect(steps.map((s) => [s.name, s.change])).toEqual([
      ['__proto__', 'added'],
      ['constructor', 'blocked'],
      ['toString', 'removed'],
    ]);
  });

  /** What the sinks would report after carrying the plan out, when every connect succeeds. */
  function apply(steps: PlanStep[], before: ReadonlyMap<string, LiveEntry>, removedAs: ServerState): Map<string, LiveEntry> {
    const after = new Map(before);
    for (const step of steps) {
      for (const action of step.actions) {
        const current = after.get(step.name);
        switch (action.type) {
          case 'disconnect':
            after.set(step.name, { ...current, state: 'disconnected' });
            break;
          case 'connect':
            after.set(step.name, {
              state: action.server.invalid === undefined ? 'connected' : 'error',
              fingerprint: action.server.fingerprint,
              view: action.server.view,
            });
            break;
          case 'refilter':
            after.set(step.name, { ...current!, view: action.server.view });
            break;
          case 'block': {
            after.set(step.name, { state: action.reason === 'removed' ? removedAs : 'blocked', reason: action.reason });
            break;
          }
        }
      }
    }
    return after;
  }

  it('property: idempotent — planning again after applying yields only unchanged steps', () => {
    const name = fc.constantFrom('a', 'b', 'c', 'd', '__proto__');
    const view = fc.record({ excludeTools: fc.array(fc.constantFrom('t1', 't2'), { maxLength: 2 }) }, { requiredKeys: [] });
    const wantedArb = fc.record({ fp: fc.constantFrom('f1', 'f2', 'invalid:x'), view });
    const reason = fc.constantFrom<Reason>('excluded', 'not_allowed', 'disabled', 'rejected', 'pending_approval', 'untrusted_folder');
    const blockedArb = fc.record({ reason, notAllowedBy: fc.constantFrom<'flag' | 'settings' | undefined>('flag', 'settings', undefined) });
    const liveArb = fc.record({
      state: fc.constantFrom<ServerState>('connecting', 'connected', 'disconnected', 'error', 'blocked'),
      fingerprint: fc.constantFrom('f1', 'f2', 'invalid:x', undefined),
      view,
      reason: fc.constantFrom<Reason | undefined>('excluded', 'removed', 'pending_approval', undefined),
    });
    fc.assert(
      fc.property(
        fc.dictionary(name, fc.oneof(wantedArb.map((w) => ({ wanted: w })), blockedArb.map((b) => ({ blocked: b })))),
        fc.dictionary(name, liveArb),
        fc.constantFrom<ServerState>('blocked', 'disconnected'),
        (desiredByName, liveByName, removedAs) => {
          const wanted: Record<string, WantedServer> = Object.create(null) as Record<string, WantedServer>;
          const blocked: Record<string, Blocked> = Object.create(null) as Record<string, Blocked>;
          for (const [n, d] of Object.entries(desiredByName)) {
            if ('wanted' in d) {
              const server = wantedServer(n, d.wanted.fp, d.wanted.view);
              wanted[n] = d.wanted.fp.startsWith('invalid:') ? { ...server, invalid: 'invalid_config: x' } : server;
            } else {
              blocked[n] = d.blocked.notAllowedBy === undefined || d.blocked.reason !== 'not_allowed'
                ? { reason: d.blocked.reason }
                : { reason: d.blocked.reason, notAllowedBy: d.blocked.notAllowedBy };
            }
          }
          const before = new Map<string, LiveEntry>();
          for (const [n, entry] of Object.entries(liveByName)) {
            const clean: LiveEntry = { state: entry.state, view: entry.view };
            if (entry.fingerprint !== undefined) clean.fingerprint = entry.fingerprint;
            if (entry.reason !== undefined) clean.reason = entry.reason;
            before.set(n, clean);
          }
          const after = apply(plan(wanted, blocked, before), before, removedAs);
          for (const step of plan(wanted, blocked, after)) {
            expect(step).toEqual({ name: step.name, change: 'unchanged', actions: [] });
          }
        },
      ),
    );
  });
});

describe('keptRunning', () => {
  it('counts an unchanged server that runs, not an unchanged blocked name nor an invalid entry in its error (decision 329)', () => {
    const bad: WantedServer = { ...wantedServer('bad', 'invalid:h'), invalid: 'invalid_config: x' };
    const wanted = { run: wantedServer('run'), idle: wantedServer('idle'), bad, moved: wantedServer('moved', 'fp-new') };
    const blocked: Record<string, Blocked> = { excluded: { reason: 'excluded' }, pending: { reason: 'pending_approval' } };
    const steps = plan(
      wanted,
      blocked,
      live({
        run: { state: 'connected', fingerprint: 'fp-run' },
        idle: { state: 'idle', fingerprint: 'fp-idle' },
        bad: { state: 'error', fingerprint: 'invalid:h' },
        moved: { state: 'connected', fingerprint: 'fp-old' },
        excluded: { state: 'blocked', reason: 'excluded' },
        pending: { state: 'blocked', reason: 'pending_approval' },
      }),
    );
    expect(steps.filter((s) => s.change === 'unchanged').map((s) => s.name)).toEqual(['bad', 'excluded', 'idle', 'pending', 'run']);
    expect(steps.filter((s) => keptRunning(s, wanted, blocked)).map((s) => s.name)).toEqual(['idle', 'run']);
  });
});
