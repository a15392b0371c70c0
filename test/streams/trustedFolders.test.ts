import { rm, writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import type { FolderTrust } from '../../src/model/launch/folderTrust.js';
import { systemPathKeys } from '../../src/platform/systemPathKeys.js';
import { fromTrustedFolders } from '../../src/streams/fromTrustedFolders.js';
import { record, waitFor, tempDirEachTest, type Recording } from './streamTestKit.js';

describe('fromTrustedFolders (real chokidar)', () => {
  const tmp = tempDirEachTest('trustedFolders.json');
  let trust: Recording<FolderTrust> | undefined;

  const last = (): FolderTrust | undefined => trust?.values.at(-1);

  it('follows the file: missing → untrusted, trusted, broken → untrusted with an error, deleted → untrusted', async () => {
    const project = tmp.path('project');
    trust = tmp.ends(record(fromTrustedFolders(tmp.file, project, { pathKeys: systemPathKeys })));
    await waitFor('a first answer', () => last() !== undefined);
    expect(trust.values).toEqual([{ trusted: false }]);

    await writeFile(tmp.file, JSON.stringify({ [project]: 'TRUST_FOLDER' }));
    await waitFor('trusted', () => last()?.trusted === true);
    expect(last()).toEqual({ trusted: true });

    // writeFile truncates first: a read in between sees an empty file, an error without a
    // position. Wait for the syntax error itself.
    const syntaxError = /^.*trustedFolders\.json:1:\d+: /;
    await writeFile(tmp.file, `{ "${project}": "TRUST_FOLDER",`);
    await waitFor('the syntax error', () => syntaxError.test(last()?.error ?? ''));
    expect(last()).toMatchObject({ trusted: false, error: expect.stringMatching(syntaxError) as unknown });

    await writeFile(tmp.file, JSON.stringify({ [project]: 'TRUST_FOLDER', '/elsewhere': 'MAYBE' }));
    await waitFor('trusted again', () => last()?.trusted === true);
    expect(last()).toEqual({
      trusted: true,
      error: `${tmp.file}: ignored "/elsewhere" (the value must be "TRUST_FOLDER", "TRUST_PARENT" or "DO_NOT_TRUST")`,
    });

    await rm(tmp.file);
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
