import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { admit, admitAll } from '../../src/model/admission/admit.js';
import { assemble, type AssembleInput } from '../../src/model/settings/assemble.js';
import { approvalHash } from '../../src/model/settings/approvalHash.js';
import { desiredStateEqual } from '../../src/model/reconcile/equality.js';

/** `/mcp enable|disable` for this session: an override of `disabled` only, never of approval or exclusion. */

const input = (sessionEnablement?: Record<string, boolean>, extra: Partial<AssembleInput> = {}): AssembleInput => ({
  sources: [
    { scope: 'user', file: '/u.json', servers: { on: { command: 'a' }, off: { command: 'b', disabled: true } }, mcp: { excluded: ['ex'] } },
    { scope: 'user', file: '/u2.json', servers: { ex: { command: 'c', disabled: true } } },
    { scope: 'project', file: '/p/.mcp.json', servers: { repo: { command: 'd', disabled: true } } },
  ],
  approvals: {},
  sessionApprovals: {},
  folderTrusted: true,
  ...(sessionEnablement === undefined ? {} : { sessionEnablement }),
  ...extra,
});

const reasons = (i: AssembleInput) =>
  Object.fromEntries(Object.entries(admitAll(assemble(i))).map(([name, a]) => [name, a.admitted ? 'admitted' : [a.reason, 'detail' in a ? a.detail : undefined]]));

describe('session enablement', () => {
  it('without overrides: the file decides', () => {
    expect(reasons(input())).toEqual({
      on: 'admitted',
      off: ['disabled', undefined],
      ex: ['excluded', undefined],
      repo: ['disabled', undefined],
    });
  });

  it('disable for this session: reason disabled, "disabled for this session"', () => {
    expect(reasons(input({ on: false }))).toMatchObject({ on: ['disabled', 'disabled for this session'] });
  });

  it('enable for this session lifts disabled: true only — exclusion and approval still apply', () => {
    expect(reasons(input({ off: true, ex: true, repo: true }))).toEqual({
      on: 'admitted',
      off: 'admitted',
      ex: ['excluded', undefined],
      repo: ['pending_approval', undefined],
    });
    // Approved for the entry as written (disabled: true included), the repository server connects.
    const approvals = { repo: { hash: approvalHash({ command: 'd', disabled: true }), status: 'approved' as const } };
    expect(reasons(input({ repo: true }, { approvals }))).toMatchObject({ repo: 'admitted' });
  });

  it('overrides are part of the gate’s desired state (a change reconciles); unknown names are ignored', () => {
    const base = assemble(input({}));
    expect(desiredStateEqual(base, assemble(input({ on: false })))).toBe(false);
    expect(desiredStateEqual(base, assemble(input({ off: true })))).toBe(false);
    expect(desiredStateEqual(base, assemble(input({ nope: false })))).toBe(true);
    expect(base.gating).not.toHaveProperty('sessionDisabled');
    expect(assemble(input({ on: false, off: true })).gating).toMatchObject({ sessionDisabled: ['on'], sessionEnabled: ['off'] });
  });

  it('never widens: an override admits nothing that is blocked for any reason but disabled', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom('on', 'off', 'ex', 'repo'), fc.boolean()), fc.boolean(), (overrides, trusted) => {
        const folder = { folderTrusted: trusted, sources: input().sources.map((s) => (s.scope === 'user' && s.file === '/u.json' ? { ...s, folderTrustEnabled: true } : s)) };
        const without = assemble(input(undefined, folder));
        const withOverrides = assemble(input(overrides, folder));
        for (const [name, server] of Object.entries(withOverrides.servers)) {
          const before = admit(name, server, without);
          const after = admit(name, server, withOverrides);
          if (after.admitted && !before.admitted) expect(before.reason).toBe('disabled');
        }
      }),
    );
  });
});
