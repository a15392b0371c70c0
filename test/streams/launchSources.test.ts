import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { systemPathKeys } from '../../src/platform/systemPathKeys.js';
import { fromLaunchFiles } from '../../src/streams/fromLaunchFiles.js';
import { fromLaunchTrust, type LaunchTrustFiles } from '../../src/streams/fromLaunchTrust.js';
import { makeTempDir, record, removeDir, waitFor, type Recording } from './streamTestKit.js';

/** Decisions 301–302: the launcher files and the records of the user's yes, followed live (real chokidar). */
describe('launch sources (real chokidar)', () => {
  let root: string;
  let home: string;
  let workspace: string;
  let recording: Recording<unknown> | undefined;
  beforeEach(async () => {
    root = await makeTempDir('mcp-live-launch-');
    home = join(root, 'home');
    workspace = join(home, 'src', 'repo');
    await mkdir(workspace, { recursive: true });
  });
  afterEach(async () => {
    recording?.subscription.unsubscribe();
    recording = undefined;
    await removeDir(root);
  });

  it('sees a launcher file created after start, in the workspace or an ancestor below home, and one removed', async () => {
    // Above the home directory: the user's own, never looked at.
    await writeFile(join(root, 'package.json'), '{}');
    await writeFile(join(workspace, 'README.md'), 'hello');
    const files = record(fromLaunchFiles(workspace, home, { pathKeys: systemPathKeys }));
    recording = files;
    const last = () => files.values.at(-1);
    await waitFor('a first list', () => last() !== undefined);
    expect(last()).toEqual([]);

    await mkdir(join(workspace, 'node_modules', '@modelcontextprotocol', 'server-github'), { recursive: true });
    await waitFor('node_modules', () => last()?.length === 1);
    expect(last()).toEqual([join(workspace, 'node_modules')]);

    await writeFile(join(home, 'src', '.npmrc'), 'script-shell=/tmp/evil');
    await waitFor('the ancestor’s .npmrc', () => last()?.length === 2);
    expect(last()).toEqual([join(home, 'src', '.npmrc'), join(workspace, 'node_modules')].sort());

    await rm(join(workspace, 'node_modules'), { recursive: true });
    await waitFor('node_modules gone', () => last()?.length === 1);
    expect(last()).toEqual([join(home, 'src', '.npmrc')]);
    // Only changes are emitted.
    files.values.slice(1).forEach((value, i) => expect(value).not.toEqual(files.values[i]));
  });

  it('follows the records of the user’s yes: Claude Code’s dialog, Gemini CLI’s rules, and its own DO_NOT_TRUST over both', async () => {
    const trustFiles: LaunchTrustFiles = {
      own: join(home, '.qwen', 'trustedFolders.json'),
      peers: [join(home, '.gemini', 'trustedFolders.json'), join(home, '.qwen', 'trustedFolders.json')],
      claude: join(home, '.claude.json'),
    };
    const trust = record(fromLaunchTrust(trustFiles, workspace, home, { pathKeys: systemPathKeys }));
    recording = trust;
    const last = () => trust.values.at(-1);
    await waitFor('a first answer', () => last() !== undefined);
    expect(last()).toBe(false);

    // Claude Code's accepted dialog for the repository's parent folder.
    await writeFile(trustFiles.claude, JSON.stringify({ numStartups: 4, projects: { [join(home, 'src')]: { hasTrustDialogAccepted: true, allowedTools: [] } } }));
    await waitFor('trusted by Claude Code', () => last() === true);

    // Its own DO_NOT_TRUST wins.
    await mkdir(join(home, '.qwen'), { recursive: true });
    await writeFile(trustFiles.own, JSON.stringify({ [workspace]: 'DO_NOT_TRUST' }));
    await waitFor('its own no', () => last() === false);

    // Gone again: Claude Code's yes counts; then taken back there, Gemini CLI's rule says yes.
    await rm(trustFiles.own);
    await waitFor('Claude Code’s yes again', () => last() === true);
    await writeFile(trustFiles.claude, JSON.stringify({ projects: { [join(home, 'src')]: { hasTrustDialogAccepted: false } } }));
    await waitFor('no yes', () => last() === false);
    await mkdir(join(home, '.gemini'), { recursive: true });
    await writeFile(trustFiles.peers[0]!, JSON.stringify({ [join(home, 'src')]: 'TRUST_FOLDER' }));
    await waitFor('trusted by Gemini CLI', () => last() === true);
    trust.values.slice(1).forEach((value, i) => expect(value).not.toBe(trust.values[i]));
  });
});
