import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { intersectAllowed, mergeAdmissionSettings } from '../../src/model/settingsMerge.js';
import { matchesName } from '../../src/model/namePatterns.js';
import type { McpSettings, Scope, SourceSnapshot } from '../../src/model/types.js';

function settings(scope: Scope, mcp?: McpSettings, folderTrustEnabled?: boolean): SourceSnapshot {
  const source: SourceSnapshot = { scope, file: `/${scope}/settings.json`, servers: {} };
  if (mcp !== undefined) source.mcp = mcp;
  if (folderTrustEnabled !== undefined) source.folderTrustEnabled = folderTrustEnabled;
  return source;
}

describe('mergeAdmissionSettings', () => {
  it('has no allow bound, no exclusions and folder trust off by default', () => {
    expect(mergeAdmissionSettings([])).toEqual({ excluded: [], folderTrustEnabled: false });
    expect(mergeAdmissionSettings([settings('user'), settings('workspace')])).toEqual({
      excluded: [],
      folderTrustEnabled: false,
    });
  });

  describe('excluded', () => {
    it('is the union of user, workspace and system lists', () => {
      const merged = mergeAdmissionSettings([
        settings('user', { excluded: ['a', 'b'] }),
        settings('workspace', { excluded: ['b', 'c'] }),
        settings('system', { excluded: ['d'] }),
      ]);
      expect([...merged.excluded].sort()).toEqual(['a', 'b', 'c', 'd']);
    });

    it('a workspace cannot remove a user exclusion (tighten-only)', () => {
      const merged = mergeAdmissionSettings([settings('user', { excluded: ['evil'] }), settings('workspace', { excluded: [] })]);
      expect(merged.excluded).toEqual(['evil']);
    });

    it('ignores mcp keys of non-settings scopes', () => {
      const merged = mergeAdmissionSettings([
        settings('project', { excluded: ['p'], allowed: [] }),
        settings('cli', { excluded: ['c'] }),
        settings('extension', { allowed: ['x'] }),
        settings('session', { excluded: ['s'] }),
      ]);
      expect(merged).toEqual({ excluded: [], folderTrustEnabled: false });
    });
  });

  describe('allowed', () => {
    it('is the user list alone', () => {
      expect(mergeAdmissionSettings([settings('user', { allowed: ['a', 'b'] })]).allowed).toEqual(['a', 'b']);
    });

    it('a workspace list alone narrows from allow-all', () => {
      expect(mergeAdmissionSettings([settings('workspace', { allowed: ['a'] })]).allowed).toEqual(['a']);
    });

    it('a workspace list intersects the user list: it cannot widen it', () => {
      const merged = mergeAdmissionSettings([
        settings('user', { allowed: ['a', 'b'] }),
        settings('workspace', { allowed: ['b', 'c'] }),
      ]);
      expect(merged.allowed).toEqual(['b']);
    });

    it('a workspace * does not widen the user list', () => {
      const merged = mergeAdmissionSettings([settings('user', { allowed: ['a'] }), settings('workspace', { allowed: ['*'] })]);
      expect(merged.allowed).toEqual(['a']);
    });

    it('a workspace list narrows a user glob to its literal names', () => {
      const merged = mergeAdmissionSettings([
        settings('user', { allowed: ['git*'] }),
        settings('workspace', { allowed: ['github', 'slack'] }),
      ]);
      expect(merged.allowed).toEqual(['github']);
    });

    it('a workspace [] denies all even when the user allows some', () => {
      const merged = mergeAdmissionSettings([settings('user', { allowed: ['a'] }), settings('workspace', { allowed: [] })]);
      expect(merged.allowed).toEqual([]);
    });

    it('the user [] stays deny-all whatever the workspace says', () => {
      const merged = mergeAdmissionSettings([settings('user', { allowed: [] }), settings('workspace', { allowed: ['a'] })]);
      expect(merged.allowed).toEqual([]);
    });

    it('a system list wins outright, also widening', () => {
      const merged = mergeAdmissionSettings([
        settings('user', { allowed: ['a'] }),
        settings('workspace', { allowed: ['a'] }),
        settings('system', { allowed: ['z'] }),
      ]);
      expect(merged.allowed).toEqual(['z']);
    });

    it('an absent system list leaves the merged one', () => {
      const merged = mergeAdmissionSettings([settings('user', { allowed: ['a'] }), settings('system', { excluded: [] })]);
      expect(merged.allowed).toEqual(['a']);
    });

    it('does not depend on the order the sources are given in', () => {
      const merged = mergeAdmissionSettings([
        settings('system', { allowed: ['z'] }),
        settings('workspace', { allowed: ['q'] }),
        settings('user', { allowed: ['a'] }),
      ]);
      expect(merged.allowed).toEqual(['z']);
    });

    it('property: the merged list never matches a name the user list does not (never widens)', () => {
      const pattern = fc.oneof(fc.constantFrom('*', 'a*', '?', 'a?', '*b'), fc.constantFrom('a', 'b', 'ab', 'ba', 'aa'));
      const list = fc.array(pattern, { maxLength: 4 });
      fc.assert(
        fc.property(list, list, fc.constantFrom('a', 'b', 'ab', 'ba', 'aa', 'abc', 'x'), (user, workspace, name) => {
          const merged = mergeAdmissionSettings([settings('user', { allowed: user }), settings('workspace', { allowed: workspace })]);
          if (matchesName(name, merged.allowed!)) {
            expect(matchesName(name, user)).toBe(true);
            expect(matchesName(name, workspace)).toBe(true);
          }
        }),
      );
    });
  });

  describe('folderTrustEnabled', () => {
    it('comes from the user', () => {
      expect(mergeAdmissionSettings([settings('user', undefined, true)]).folderTrustEnabled).toBe(true);
    });

    it('system wins when set', () => {
      expect(mergeAdmissionSettings([settings('user', undefined, true), settings('system', undefined, false)]).folderTrustEnabled).toBe(false);
      expect(mergeAdmissionSettings([settings('user', undefined, false), settings('system', undefined, true)]).folderTrustEnabled).toBe(true);
      expect(mergeAdmissionSettings([settings('system', undefined, true), settings('user', undefined, false)]).folderTrustEnabled).toBe(true);
    });

    it('a workspace cannot switch it on or off', () => {
      expect(mergeAdmissionSettings([settings('user', undefined, true), settings('workspace', undefined, false)]).folderTrustEnabled).toBe(true);
      expect(mergeAdmissionSettings([settings('workspace', undefined, true)]).folderTrustEnabled).toBe(false);
    });
  });
});

describe('intersectAllowed', () => {
  it('keeps patterns written identically in both', () => {
    expect(intersectAllowed(['a*', 'b'], ['b', 'a*'])).toEqual(['a*', 'b']);
  });

  it('keeps literal names the other list matches, from either side', () => {
    expect(intersectAllowed(['*'], ['a', 'b'])).toEqual(['a', 'b']);
    expect(intersectAllowed(['a', 'b'], ['a?', 'b'])).toEqual(['b']);
  });

  it('drops two different globs (errs on the side of denying)', () => {
    expect(intersectAllowed(['a*'], ['*b'])).toEqual([]);
  });

  it('has no duplicates', () => {
    expect(intersectAllowed(['a', 'a'], ['a'])).toEqual(['a']);
  });
});
