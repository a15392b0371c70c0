import { isFolderTrusted } from '../../model/launch/folderTrust.js';
import type { PathKeys } from '../../model/pathKeys.js';
import { setTrustRule } from '../../model/settings/serverEntryEdits.js';
import type { TrustRule } from '../../model/types.js';
import { readJsonc } from '../../files/readJsonc.js';
import { editJsoncFile } from './editJsoncFile.js';

/**
 * Sets `dir`'s rule in a `trustedFolders.json` (comments and layout kept, written through
 * `writeOwnedFile`), then reads the file back: whether `dir` is trusted now. Another key naming
 * the same folder (`/p/` beside `/p`) may still decide it — the caller says so. `mcp-live trust`
 * and the session's `/trust` (decision 304) write through here.
 */
export async function writeTrustRule(file: string, dir: string, rule: TrustRule, keys: PathKeys): Promise<{ trusted: boolean }> {
  await editJsoncFile(file, (text) => setTrustRule(text, dir, rule, file));
  const read = await readJsonc(file);
  return { trusted: read.ok && isFolderTrusted(dir, (read.value ?? {}) as Record<string, string>, keys) };
}
