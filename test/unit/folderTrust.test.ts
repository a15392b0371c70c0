import { describe, expect, it } from 'vitest';
import { isFolderTrusted } from '../../src/model/launch/folderTrust.js';
import { pathKeys } from '../../src/platform/systemPathKeys.js';

/** Paths compared as written, as on Linux (the case-blind platforms: test/unit/pathKeys.test.ts). */
const LINUX = pathKeys({ platform: 'linux' });

describe('isFolderTrusted', () => {
  it.each<[string, string, Record<string, string>, boolean]>([
    ['no rules', '/home/u/p', {}, false],
    ['TRUST_FOLDER trusts the folder', '/home/u/p', { '/home/u/p': 'TRUST_FOLDER' }, true],
    ['TRUST_FOLDER trusts below', '/home/u/p/sub/deep', { '/home/u/p': 'TRUST_FOLDER' }, true],
    ['TRUST_FOLDER does not trust above', '/home/u', { '/home/u/p': 'TRUST_FOLDER' }, false],
    ['TRUST_FOLDER does not trust a sibling with the same prefix', '/home/u/p2', { '/home/u/p': 'TRUST_FOLDER' }, false],
    ['TRUST_PARENT trusts the parent', '/home/u', { '/home/u/p': 'TRUST_PARENT' }, true],
    ['TRUST_PARENT trusts siblings', '/home/u/other', { '/home/u/p': 'TRUST_PARENT' }, true],
    ['TRUST_PARENT does not trust the grandparent', '/home', { '/home/u/p': 'TRUST_PARENT' }, false],
    ['DO_NOT_TRUST under a trusted parent', '/home/u/p/vendor', { '/home/u/p': 'TRUST_FOLDER', '/home/u/p/vendor': 'DO_NOT_TRUST' }, false],
    ['DO_NOT_TRUST covers below', '/home/u/p/vendor/x', { '/home/u/p': 'TRUST_FOLDER', '/home/u/p/vendor': 'DO_NOT_TRUST' }, false],
    ['trusted beside a DO_NOT_TRUST', '/home/u/p/src', { '/home/u/p': 'TRUST_FOLDER', '/home/u/p/vendor': 'DO_NOT_TRUST' }, true],
    ['most specific wins: trusted inside an untrusted folder', '/home/u/p/ok', { '/home/u': 'DO_NOT_TRUST', '/home/u/p/ok': 'TRUST_FOLDER' }, true],
    ['most specific wins over TRUST_PARENT', '/home/u/p', { '/home/u/p/x': 'TRUST_PARENT', '/home': 'DO_NOT_TRUST' }, true],
    ['tie: DO_NOT_TRUST wins', '/home/u/p', { '/home/u/p': 'DO_NOT_TRUST', '/home/u/p/x': 'TRUST_PARENT' }, false],
    ['trailing slashes do not matter (rule)', '/home/u/p', { '/home/u/p/': 'TRUST_FOLDER' }, true],
    ['trailing slashes do not matter (cwd)', '/home/u/p/', { '/home/u/p': 'TRUST_FOLDER' }, true],
    ['.. is resolved', '/home/u/x/../p', { '/home/u/p': 'TRUST_FOLDER' }, true],
    ['the root trusts everything', '/any/where', { '/': 'TRUST_FOLDER' }, true],
    ['unknown values are ignored', '/home/u/p', { '/home/u/p': 'TRUST' }, false],
  ])('%s', (_name, cwd, rules, expected) => {
    expect(isFolderTrusted(cwd, rules, LINUX)).toBe(expected);
  });

  it('treats __proto__ as a path like any other', () => {
    const rules = JSON.parse('{ "__proto__": "TRUST_FOLDER" }') as Record<string, string>;
    expect(isFolderTrusted('/home/u/p', rules, LINUX)).toBe(false);
  });
});
