import { stat } from 'node:fs/promises';
import type { McpLiveOptions } from '../live/types.js';
import { settingsPaths } from '../live/settingsPaths.js';
import { writeTrustRule } from '../sinks/stores/folderTrustFile.js';
import { getOwn, isPlainObject } from '../model/ownProperties.js';
import { readJsonc } from '../files/readJsonc.js';
import type { TrustRule } from '../model/types.js';
import { systemPathKeys } from '../platform/systemPathKeys.js';
import type { CliCommand } from './args.js';
import { terminalWriter, writeJson } from './terminalWriter.js';
import { UsageError } from './usageError.js';

/**
 * `mcp-live trust [DIR]` / `untrust [DIR]`: sets DIR's rule in `~/.<profile>/trustedFolders.json`
 * (the file Gemini CLI and Qwen Code share: docs/contract.md, "Folder trust") — `TRUST_FOLDER`, or
 * `DO_NOT_TRUST`, which covers DIR and everything below it whatever a parent's rule says. The file
 * keeps its comments and layout and is written through `writeOwnedFile`; a running session follows
 * it live. The rule is also the user's yes that lets the user's own servers start in a folder that
 * could change what they run (decision 302), folder trust on or off; when it is off, says what the
 * rule does then.
 */
export async function runTrust(
  options: McpLiveOptions,
  command: Extract<CliCommand, { kind: 'trust' }>,
  out: NodeJS.WritableStream,
): Promise<number> {
  const { dir, action, json } = command;
  // Terminal-safe (decision 164): a directory name may hold any character.
  const print = terminalWriter(out);
  const isDirectory = await stat(dir).then((s) => s.isDirectory(), () => false);
  if (!isDirectory) throw new UsageError(`${action}: ${dir} is not a directory`);
  const paths = settingsPaths(options);
  const file = paths.trustedFolders;
  const rule: TrustRule = action === 'trust' ? 'TRUST_FOLDER' : 'DO_NOT_TRUST';
  const { trusted } = await writeTrustRule(file, dir, rule, systemPathKeys);
  const enabled = (await folderTrustEnabled(paths.user)) || (paths.system !== undefined && (await folderTrustEnabled(paths.system)));
  if (trusted !== (action === 'trust')) {
    // Another key naming the same folder (`/p/` beside `/p`) ties with ours, and DO_NOT_TRUST wins ties.
    const error = `${dir} is still ${trusted ? 'trusted' : 'untrusted'}: another rule in ${file} decides it; edit that file`;
    if (json) writeJson(out, { ok: false, dir, rule, file, trusted, error });
    else terminalWriter(process.stderr)(`mcp-live: ${error}\n`);
    return 1;
  }
  if (json) {
    writeJson(out, { ok: true, dir, rule, file, trusted, folderTrustEnabled: enabled });
    return 0;
  }
  print(`${trusted ? 'Trusted' : 'Untrusted'} ${dir} (${rule} in ${file})\n`);
  if (!enabled) {
    print(
      rule === 'TRUST_FOLDER'
        ? `note: folder trust is off (security.folderTrust.enabled is not true in your user or system settings): workspace settings are read in every folder; this rule lets your own servers start here (held while the folder could change what they run)\n`
        : `note: folder trust is off (security.folderTrust.enabled is not true in your user or system settings), so every folder counts as trusted until it is on — except that your own servers are held here while it could change what they run\n`,
    );
  }
  return 0;
}

/** `security.folderTrust.enabled` of a user or system settings file (for the hint only). */
async function folderTrustEnabled(settings: string): Promise<boolean> {
  const read = await readJsonc(settings);
  const security = read.ok && read.value ? getOwn(read.value, 'security') : undefined;
  const folderTrust = isPlainObject(security) ? getOwn(security, 'folderTrust') : undefined;
  return isPlainObject(folderTrust) && getOwn(folderTrust, 'enabled') === true;
}

/**
 * The session's `/trust` (decision 304): `TRUST_FOLDER` for the session's folder in the profile's
 * `trustedFolders.json`, as `mcp-live trust` writes it; the running session follows the file.
 * Resolves to the words shown; rejects with the reason when the rule did not take.
 */
export async function trustSessionFolder(options: McpLiveOptions, dir: string): Promise<string> {
  const file = settingsPaths(options).trustedFolders;
  const { trusted } = await writeTrustRule(file, dir, 'TRUST_FOLDER', systemPathKeys);
  if (!trusted) throw new Error(`${dir} is still untrusted: another rule in ${file} decides it; edit that file`);
  return `Trusted ${dir} (TRUST_FOLDER in ${file}): your own servers held here start now.`;
}
