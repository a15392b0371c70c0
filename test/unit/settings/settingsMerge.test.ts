import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { intersectAllowed, mergeAdmissionSettings } from '../../../src/model/settings/settingsMerge.js';
import { matchesName } from '../../../src/model/settings/namePatterns.js';
import type { LspSettings, McpSettings, Scope, SourceSnapshot } from '../../../src/model/types.js';

function settings(scope: Scope, mcp?: McpSettings, folderTrustEnabled?: boolean): SourceSnapshot {
  const source: SourceSnapshot = { scope, file: `/${scope}/settings.json`, servers: {} };
  if (mcp !== undefined) source.mcp = mcp;
  if (folderTrustEnabled !== undefined) source.folderTrustEnabled = folderTrustEnabled;
  return source;
}

describe('mergeAdmissionSettings', () => {
  it('has no allow bound, no exclusions and folder trust off by default', () => {
    expect(mergeAdmissionSettings([])).toEqual({ excluded: [], lspExcluded: [], folderTrustEnabled: false });
    expect(mergeAdmissionSettings([settings('user'), settings('workspace')])).toEqual({
      excluded: [],
      lspExcluded: [],
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
      expect(merged).toEqual({ excluded: [], lspExcluded: [], folderTrustEnabled: false });
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

describe('mergeAdmissionSettings: lsp.allowed / lsp.excluded (decision 147), merged like the mcp lists', () => {
  function lspSettings(scope: Scope, lsp: LspSettings, mcp?: McpSettings): SourceSnapshot {
    return { ...settings(scope, mcp), lsp };
  }

  it('lspExcluded is the union of user, workspace and system lists; a workspace cannot remove one', () => {
    const merged = mergeAdmissionSettings([
      lspSettings('user', { excluded: ['a', 'b'] }),
      lspSettings('workspace', { excluded: ['b', 'c'] }),
      lspSettings('system', { excluded: ['d'] }),
    ]);
    expect([...merged.lspExcluded].sort()).toEqual(['a', 'b', 'c', 'd']);
    expect(mergeAdmissionSettings([lspSettings('user', { excluded: ['evil'] }), lspSettings('workspace', { excluded: [] })]).lspExcluded).toEqual(['evil']);
  });

  it('lspAllowed: the user list, narrowed by a workspace (never widened), replaced by a system list', () => {
    const allowed = (...sources: SourceSnapshot[]) => mergeAdmissionSettings(sources).lspAllowed;
    expect(allowed(lspSettings('user', { allowed: ['ts', 'py'] }))).toEqual(['ts', 'py']);
    expect(allowed(lspSettings('workspace', { allowed: ['ts'] }))).toEqual(['ts']);
    expect(allowed(lspSettings('user', { allowed: ['ts', 'py'] }), lspSettings('workspace', { allowed: ['py', 'go'] }))).toEqual(['py']);
    expect(allowed(lspSettings('user', { allowed: ['ts'] }), lspSettings('workspace', { allowed: ['*'] }))).toEqual(['ts']);
    expect(allowed(lspSettings('user', { allowed: ['ts*'] }), lspSettings('workspace', { allowed: ['tsserver', 'go'] }))).toEqual(['tsserver']);
    expect(allowed(lspSettings('user', { allowed: ['ts'] }), lspSettings('workspace', { allowed: [] }))).toEqual([]);
    expect(allowed(lspSettings('user', { allowed: [] }), lspSettings('workspace', { allowed: ['ts'] }))).toEqual([]);
    expect(allowed(lspSettings('system', { allowed: ['z'] }), lspSettings('user', { allowed: ['ts'] }))).toEqual(['z']);
    expect(allowed(lspSettings('user', { excluded: ['x'] }))).toBeUndefined();
  });

  it('the mcp lists bound MCP servers only, the lsp lists language servers only', () => {
    const merged = mergeAdmissionSettings([
      lspSettings('user', { allowed: ['ts'], excluded: ['py'] }, { allowed: ['fs'], excluded: ['web'] }),
    ]);
    expect(merged).toEqual({ allowed: ['fs'], excluded: ['web'], lspAllowed: ['ts'], lspExcluded: ['py'], folderTrustEnabled: false });
    expect(mergeAdmissionSettings([settings('user', { allowed: [] })])).toEqual({ allowed: [], excluded: [], lspExcluded: [], folderTrustEnabled: false });
  });

  it('ignores lsp keys of non-settings scopes', () => {
    const merged = mergeAdmissionSettings([
      lspSettings('project', { excluded: ['p'], allowed: [] }),
      lspSettings('cli', { excluded: ['c'] }),
      lspSettings('extension', { allowed: ['x'] }),
      lspSettings('session', { excluded: ['s'] }),
    ]);
    expect(merged).toEqual({ excluded: [], lspExcluded: [], folderTrustEnabled: false });
  });

  it('property: the merged lsp list never matches a name the user list does not (never widens)', () => {
    const pattern = fc.oneof(fc.constantFrom('*', 'a*', '?', 'a?', '*b'), fc.constantFrom('a', 'b', 'ab', 'ba', 'aa'));
    const list = fc.array(pattern, { maxLength: 4 });
    fc.assert(
      fc.property(list, list, fc.constantFrom('a', 'b', 'ab', 'ba', 'aa', 'abc', 'x'), (user, workspace, name) => {
        const merged = mergeAdmissionSettings([lspSettings('user', { allowed: user }), lspSettings('workspace', { allowed: workspace })]);
        if (matchesName(name, merged.lspAllowed!)) {
          expect(matchesName(name, user)).toBe(true);
          expect(matchesName(name, workspace)).toBe(true);
        }
      }),
    );
  });
});
