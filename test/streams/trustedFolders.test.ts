import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fromTrustedFolders, isFolderTrusted, type FolderTrust } from '../../src/streams/trustedFolders.js';
import { makeTempDir, record, removeDir, waitFor, type Recording } from './streamTestKit.js';

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
    expect(isFolderTrusted(cwd, rules)).toBe(expected);
  });

  it('treats __proto__ as a path like any other', () => {
    const rules = JSON.parse('{ "__proto__": "TRUST_FOLDER" }') as Record<string, string>;
    expect(isFolderTrusted('/home/u/p', rules)).toBe(false);
  });
});

describe('fromTrustedFolders (real chokidar)', () => {
  let dir: string;
  let file: string;
  let trust: Recording<FolderTrust> | undefined;
  beforeEach(async () => {
    dir = await makeTempDir();
    file = join(dir, 'trustedFolders.json');
  });
  afterEach(async () => {
    trust?.subscription.unsubscribe();
    trust = undefined;
    await removeDir(dir);
  });

  const last = (): FolderTrust | undefined => trust?.values.at(-1);

  it('follows the file: missing → untrusted, trusted, broken → untrusted with an error, deleted → untrusted', async () => {
    const project = join(dir, 'project');
    trust = record(fromTrustedFolders(file, project));
    await waitFor('a first answer', () => last() !== undefined);
    expect(trust.values).toEqual([{ trusted: false }]);

    await writeFile(file, JSON.stringify({ [project]: 'TRUST_FOLDER' }));
    await waitFor('trusted', () => last()?.trusted === true);
    expect(last()).toEqual({ trusted: true });

    // writeFile truncates first: a read in between sees an empty file, an error without a
    // position. Wait for the syntax error itself.
    const syntaxError = /^.*trustedFolders\.json:1:\d+: /;
    await writeFile(file, `{ "${project}": "TRUST_FOLDER",`);
    await waitFor('the syntax error', () => syntaxError.test(last()?.error ?? ''));
    expect(last()).toMatchObject({ trusted: false, error: expect.stringMatching(syntaxError) as unknown });

    await writeFile(file, JSON.stringify({ [project]: 'TRUST_FOLDER', '/elsewhere': 'MAYBE' }));
    await waitFor('trusted again', () => last()?.trusted === true);
    expect(last()).toEqual({
      trusted: true,
      error: `${file}: ignored "/elsewhere" (the value must be "TRUST_FOLDER", "TRUST_PARENT" or "DO_NOT_TRUST")`,
    });

    await rm(file);
    await waitFor('untrusted after delete', () => last()?.trusted === false);
    expect(last()).toEqual({ trusted: false });
    // Only changes are emitted: no two in a row are equal, and apart from "the file is empty"
    // (a save seen between its truncation and its write), these are all of them.
    trust.values.slice(1).forEach((value, i) => expect(value).not.toEqual(trust!.values[i]));
    const isTruncatedSave = (t: FolderTrust): boolean => t.error?.endsWith('the file is empty (expected a JSON object such as {})') ?? false;
    expect(trust.values.filter((t) => !isTruncatedSave(t))).toEqual([
      { trusted: false },
      { trusted: true },
      { trusted: false, error: expect.stringMatching(syntaxError) as unknown },
      { trusted: true, error: expect.stringContaining('ignored "/elsewhere"') as unknown },
      { trusted: false },
    ]);
  });
});
