import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { isLiteralPattern, matchesName, nameMatcher } from '../../../src/model/settings/namePatterns.js';

describe('matchesName', () => {
  it('matches exact names, case-sensitively', () => {
    expect(matchesName('github', ['github'])).toBe(true);
    expect(matchesName('GitHub', ['github'])).toBe(false);
    expect(matchesName('git', ['github'])).toBe(false);
  });

  it('matches nothing with an empty list', () => {
    expect(matchesName('a', [])).toBe(false);
  });

  it('* matches any run of characters, also none, also dots and slashes', () => {
    expect(matchesName('github', ['git*'])).toBe(true);
    expect(matchesName('git', ['git*'])).toBe(true);
    expect(matchesName('a.b/c', ['a*'])).toBe(true);
    expect(matchesName('.hidden', ['*'])).toBe(true);
    expect(matchesName('x-y', ['*-*'])).toBe(true);
    expect(matchesName('a\nb', ['a*'])).toBe(true);
    expect(matchesName('a\n', ['a?'])).toBe(true);
    expect(matchesName('xy', ['*-*'])).toBe(false);
  });

  it('? matches exactly one character (one code point)', () => {
    expect(matchesName('db1', ['db?'])).toBe(true);
    expect(matchesName('db', ['db?'])).toBe(false);
    expect(matchesName('db12', ['db?'])).toBe(false);
    expect(matchesName('db/', ['db?'])).toBe(true);
    expect(matchesName('db😀', ['db?'])).toBe(true);
  });

  it('treats every other glob or RegExp character literally', () => {
    expect(matchesName('a', ['{a,b}'])).toBe(false);
    expect(matchesName('{a,b}', ['{a,b}'])).toBe(true);
    expect(matchesName('a', ['[ab]'])).toBe(false);
    expect(matchesName('[ab]x', ['[ab]*'])).toBe(true);
    expect(matchesName('ax', ['[ab]*'])).toBe(false);
    expect(matchesName('abc', ['a.c'])).toBe(false);
    expect(matchesName('a.c', ['a.?'])).toBe(true);
    expect(matchesName('x', ['!y'])).toBe(false);
    expect(matchesName('a+b', ['a+*'])).toBe(true);
    expect(matchesName('aab', ['a+*'])).toBe(false);
    expect(matchesName('a\\b', ['a\\*'])).toBe(true);
    expect(matchesName('(x)|y', ['(x)|?'])).toBe(true);
    expect(matchesName('^$', ['^$*'])).toBe(true);
  });

  it('anchors the whole name', () => {
    expect(matchesName('xgithubx', ['github*'])).toBe(false);
    expect(matchesName('xgithub', ['*github'])).toBe(true);
  });

  it('matches when any pattern matches', () => {
    expect(matchesName('b', ['a', 'b*'])).toBe(true);
  });

  it('property: a name matches itself used as a pattern, and * matches every name', () => {
    fc.assert(
      fc.property(fc.string(), (name) => {
        expect(matchesName(name, [name])).toBe(true);
        expect(matchesName(name, ['*'])).toBe(true);
      }),
    );
  });

  it('property: a literal pattern matches only itself', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (name, pattern) => {
        fc.pre(isLiteralPattern(pattern));
        expect(matchesName(name, [pattern])).toBe(name === pattern);
      }),
    );
  });
});

describe('nameMatcher', () => {
  it('property: a compiled list matches a name exactly when one of its patterns does on its own', () => {
    const piece = fc.constantFrom('a', 'b', '.', '*', '?', '[', '');
    const pattern = fc.array(piece, { maxLength: 4 }).map((parts) => parts.join(''));
    const name = fc.array(fc.constantFrom('a', 'b', '.', '['), { maxLength: 4 }).map((parts) => parts.join(''));
    fc.assert(
      fc.property(fc.array(pattern, { maxLength: 5 }), fc.array(name, { maxLength: 6 }), (patterns, names) => {
        const matches = nameMatcher(patterns);
        for (const n of names) {
          expect(matches(n)).toBe(patterns.some((p) => matchesName(n, [p])));
        }
      }),
    );
  });

  it('keeps literals and globs of one list apart', () => {
    const matches = nameMatcher(['git*', 'a.b', 'x?z']);
    expect(['github', 'a.b', 'xyz'].map(matches)).toEqual([true, true, true]);
    expect(['agit', 'axb', 'xz', 'x.zz'].map(matches)).toEqual([false, false, false, false]);
  });
});

describe('isLiteralPattern', () => {
  it('is false only for patterns with * or ?', () => {
    expect(isLiteralPattern('a.b{c}')).toBe(true);
    expect(isLiteralPattern('a*')).toBe(false);
    expect(isLiteralPattern('a?')).toBe(false);
  });
});

describe('ignoreCase (mcp.excluded)', () => {
  const ignoreCase = { ignoreCase: true };

  it('matches literals and globs whatever the case of name or pattern', () => {
    expect(matchesName('blocked-server', ['BLOCKED-server'], ignoreCase)).toBe(true);
    expect(matchesName('BLOCKED-SERVER', ['blocked-server'], ignoreCase)).toBe(true);
    expect(matchesName('blocked-server', ['BLOCKED-*'], ignoreCase)).toBe(true);
    expect(matchesName('Blocked-Server', ['b?OCKED-s*'], ignoreCase)).toBe(true);
    expect(matchesName('blocked-server', ['BLOCKED-'], ignoreCase)).toBe(false);
    expect(matchesName('other', ['BLOCKED-*'], ignoreCase)).toBe(false);
  });

  it('is off by default: allow lists and the flag stay exact', () => {
    expect(matchesName('blocked-server', ['BLOCKED-server'])).toBe(false);
    expect(matchesName('blocked-server', ['BLOCKED-*'])).toBe(false);
  });

  it('folds one code point to one, so ? still matches exactly one character', () => {
    expect(matchesName('STRASSE', ['stra?e'], ignoreCase)).toBe(false);
    expect(matchesName('Straße', ['STRA?E'], ignoreCase)).toBe(true);
    expect(matchesName('ΟΔΟΣ', ['οδος'], ignoreCase)).toBe(true);
    expect(matchesName('οδος', ['*Σ'], ignoreCase)).toBe(true);
    expect(matchesName('\u212Aelvin', ['kelvin'], ignoreCase)).toBe(true);
  });

  const piece = fc.constantFrom('a', 'A', 'ß', 'ẞ', 'Σ', 'ς', 'σ', 'İ', 'i', 'ſ', 'S', '*', '?', '.');
  const text = fc.array(piece, { maxLength: 5 }).map((parts) => parts.join(''));

  it('property: ignoring case only ever matches more (an exclusion can only deny more)', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(text, fc.string()), { maxLength: 4 }), fc.oneof(text, fc.string()), (patterns, name) => {
        if (matchesName(name, patterns)) expect(matchesName(name, patterns, ignoreCase)).toBe(true);
      }),
    );
  });

  it('property: on ASCII it is exact matching of the lower-cased name and patterns', () => {
    const ascii = fc.string({ unit: fc.constantFrom('a', 'B', 'c', 'D', '-', '*', '?') });
    fc.assert(
      fc.property(fc.array(ascii, { maxLength: 4 }), ascii.filter((s) => !/[*?]/.test(s)), (patterns, name) => {
        const lower = (s: string) => s.toLowerCase();
        expect(matchesName(name, patterns, ignoreCase)).toBe(matchesName(lower(name), patterns.map(lower)));
      }),
    );
  });

  it('property: a compiled list matches exactly when one of its patterns does on its own', () => {
    fc.assert(
      fc.property(fc.array(text, { maxLength: 5 }), fc.array(text, { maxLength: 6 }), (patterns, names) => {
        const matches = nameMatcher(patterns, ignoreCase);
        for (const n of names) expect(matches(n)).toBe(patterns.some((p) => matchesName(n, [p], ignoreCase)));
      }),
    );
  });
});
