import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { admit, admitAll } from '../../src/model/admission/admit.js';
import { matchesName } from '../../src/model/settings/namePatterns.js';
import type { AssembledServer, DesiredState, Gating, Scope } from '../../src/model/types.js';

function server(name: string, scope: Scope = 'user', config: unknown = { command: name }): AssembledServer {
  return { name, scope, source: `/${scope}.json`, config };
}

function desired(servers: AssembledServer[], gating: Gating = {}, trusted = true): DesiredState {
  return { servers: Object.fromEntries(servers.map((s) => [s.name, s])), gating, trusted };
}

function admitOne(s: AssembledServer, gating: Gating = {}, flag?: readonly string[], trusted = true) {
  return admit(s.name, s, desired([s], gating, trusted), flag);
}

describe('admit: each reason', () => {
  it('admits by default', () => {
    expect(admitOne(server('a'))).toEqual({ admitted: true });
  });

  it('untrusted_folder blocks every server', () => {
    expect(admitOne(server('a'), {}, undefined, false)).toEqual({ admitted: false, reason: 'untrusted_folder' });
  });

  it('excluded by name or glob', () => {
    expect(admitOne(server('a'), { excluded: ['a'] })).toEqual({ admitted: false, reason: 'excluded' });
    expect(admitOne(server('abc'), { excluded: ['a*'] })).toEqual({ admitted: false, reason: 'excluded' });
    expect(admitOne(server('b'), { excluded: ['a*'] })).toEqual({ admitted: true });
  });

  it('excluded matches case-insensitively (it can only deny more); allowed and the flag stay exact', () => {
    const blocked = { admitted: false, reason: 'excluded' };
    expect(admitOne(server('blocked-server'), { excluded: ['BLOCKED-server'] })).toEqual(blocked);
    expect(admitOne(server('Blocked-Server'), { excluded: ['blocked-*'] })).toEqual(blocked);
    expect(admitOne(server('blocked-server'), { excluded: ['BLOCKED-*'] })).toEqual(blocked);
    expect(admitOne(server('blocked-server'), { excluded: ['BLOCKED-X*'] })).toEqual({ admitted: true });
    // A case mismatch in an allow list denies.
    expect(admitOne(server('github'), { allowed: ['GitHub'] })).toEqual({ admitted: false, reason: 'not_allowed', notAllowedBy: 'settings' });
    expect(admitOne(server('github'), {}, ['GITHUB'])).toEqual({ admitted: false, reason: 'not_allowed', notAllowedBy: 'flag' });
    expect(admitOne(server('github'), { allowed: ['git*'] }, ['GIT*'])).toMatchObject({ admitted: false, notAllowedBy: 'flag' });
  });

  it('disabled: true only (read defensively from any config)', () => {
    expect(admitOne(server('a', 'user', { command: 'a', disabled: true }))).toEqual({ admitted: false, reason: 'disabled' });
    expect(admitOne(server('a', 'user', { command: 'a', disabled: false }))).toEqual({ admitted: true });
    expect(admitOne(server('a', 'user', { command: 'a', disabled: 'true' }))).toEqual({ admitted: true });
    expect(admitOne(server('a', 'user', null))).toEqual({ admitted: true });
    expect(admitOne(server('a', 'user', 'disabled'))).toEqual({ admitted: true });
  });

  it('rejected and pending_approval apply to gated scopes only', () => {
    for (const scope of ['project', 'workspace'] as const) {
      expect(admitOne(server('a', scope), { rejected: ['a'], pending: ['a'] })).toEqual({ admitted: false, reason: 'rejected' });
      expect(admitOne(server('a', scope), { pending: ['a'] })).toEqual({ admitted: false, reason: 'pending_approval' });
    }
    for (const scope of ['user', 'system', 'cli', 'session', 'extension'] as const) {
      expect(admitOne(server('a', scope), { rejected: ['a'], pending: ['a'] })).toEqual({ admitted: true });
    }
  });
});

describe('admit: reason precedence (first applies)', () => {
  const everything: Gating = { excluded: ['s'], allowed: [], pending: ['s'], rejected: ['s'] };
  const gatedDisabled = server('s', 'project', { command: 's', disabled: true });

  it('untrusted_folder before everything', () => {
    expect(admitOne(gatedDisabled, everything, [], false)).toMatchObject({ reason: 'untrusted_folder' });
  });

  it('excluded before not_allowed, disabled, rejected, pending', () => {
    expect(admitOne(gatedDisabled, everything, [])).toMatchObject({ reason: 'excluded' });
  });

  it('a server both excluded and pending reports excluded', () => {
    expect(admitOne(server('s', 'project'), { excluded: ['s'], pending: ['s'] })).toMatchObject({ reason: 'excluded' });
  });

  it('not_allowed before disabled, rejected, pending', () => {
    expect(admitOne(gatedDisabled, { ...everything, excluded: [] })).toMatchObject({ reason: 'not_allowed' });
  });

  it('disabled before rejected and pending', () => {
    expect(admitOne(gatedDisabled, { pending: ['s'], rejected: ['s'] })).toMatchObject({ reason: 'disabled' });
  });

  it('rejected before pending', () => {
    expect(admitOne(server('s', 'workspace'), { pending: ['s'], rejected: ['s'] })).toMatchObject({ reason: 'rejected' });
  });
});

describe('admit: the allow bound (K/H matrix)', () => {
  const a = server('a');
  const b = server('b');

  it('flag only: the flag decides', () => {
    expect(admitOne(a, {}, ['a'])).toEqual({ admitted: true });
    expect(admitOne(b, {}, ['a'])).toEqual({ admitted: false, reason: 'not_allowed', notAllowedBy: 'flag' });
  });

  it('flag + settings narrowing: both must match', () => {
    const gating = { allowed: ['a'] };
    expect(admitOne(a, gating, ['a', 'b'])).toEqual({ admitted: true });
    expect(admitOne(b, gating, ['a', 'b'])).toEqual({ admitted: false, reason: 'not_allowed', notAllowedBy: 'settings' });
  });

  it('settings trying to widen beyond the flag: still blocked, by the flag', () => {
    expect(admitOne(b, { allowed: ['a', 'b'] }, ['a'])).toEqual({ admitted: false, reason: 'not_allowed', notAllowedBy: 'flag' });
    expect(admitOne(b, { allowed: ['*'] }, ['a'])).toEqual({ admitted: false, reason: 'not_allowed', notAllowedBy: 'flag' });
  });

  it('no flag: settings decide, or everything is allowed', () => {
    expect(admitOne(a, { allowed: ['a'] })).toEqual({ admitted: true });
    expect(admitOne(b, { allowed: ['a'] })).toEqual({ admitted: false, reason: 'not_allowed', notAllowedBy: 'settings' });
    expect(admitOne(b, {})).toEqual({ admitted: true });
  });

  it('mcp.allowed: [] denies all, with or without a flag', () => {
    expect(admitOne(a, { allowed: [] })).toEqual({ admitted: false, reason: 'not_allowed', notAllowedBy: 'settings' });
    expect(admitOne(a, { allowed: [] }, ['a'])).toEqual({ admitted: false, reason: 'not_allowed', notAllowedBy: 'settings' });
  });

  it('an empty flag denies all', () => {
    expect(admitOne(a, {}, [])).toEqual({ admitted: false, reason: 'not_allowed', notAllowedBy: 'flag' });
  });

  it('globs work in the flag and in settings', () => {
    expect(admitOne(server('git-x'), { allowed: ['git-?'] }, ['git*'])).toEqual({ admitted: true });
  });

  it('property: with a flag, the admitted set is a subset of the flag matches, whatever settings say', () => {
    const name = fc.constantFrom('a', 'b', 'ab', 'ba', 'abc', 'x', '__proto__');
    const pattern = fc.oneof(name, fc.constantFrom('*', 'a*', '?', '?b', '*c'));
    const list = fc.array(pattern, { maxLength: 4 });
    fc.assert(
      fc.property(
        fc.uniqueArray(name, { maxLength: 7 }),
        list,
        fc.option(list, { nil: undefined }),
        list,
        (names, flag, allowed, excluded) => {
          const gating: Gating = allowed === undefined ? { excluded } : { allowed, excluded };
          const admissions = admitAll(desired(names.map((n) => server(n)), gating), flag);
          for (const n of names) {
            if (admissions[n]?.admitted) expect(matchesName(n, flag)).toBe(true);
          }
        },
      ),
    );
  });
});

describe('admitAll', () => {
  it('admits every server by name', () => {
    const result = admitAll(desired([server('a'), server('b', 'project')], { pending: ['b'] }));
    expect({ ...result }).toEqual({ a: { admitted: true }, b: { admitted: false, reason: 'pending_approval' } });
  });

  it('handles __proto__ and does not expose prototype members', () => {
    const proto = server('__proto__');
    const state: DesiredState = {
      servers: JSON.parse('{"__proto__": {"name": "__proto__", "scope": "user", "source": "/u", "config": {}}}') as DesiredState['servers'],
      gating: { excluded: ['__proto__'] },
      trusted: true,
    };
    const result = admitAll(state);
    expect(Object.keys(result)).toEqual(['__proto__']);
    expect(result.__proto__).toEqual({ admitted: false, reason: 'excluded' });
    expect(result.toString).toBeUndefined();
    expect(admit('__proto__', proto, desired([proto]))).toEqual({ admitted: true });
  });
});
