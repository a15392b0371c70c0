import { distinctUntilChanged, map, type Observable } from 'rxjs';
import { isFolderTrusted, TRUST_RULES, type FolderTrust } from '../model/launch/folderTrust.js';
import { getOwn } from '../model/ownProperties.js';
import type { PathKeys } from '../model/pathKeys.js';
import type { JsoncReadResult } from '../model/settings/parseJsonc.js';
import { readJsonc, type ReadJsoncDeps } from '../files/readJsonc.js';
import { rereadOnTick } from './rereadOnTick.js';
import { watchFile } from './watchFile.js';
import type { WatchDeps } from './watchDirectory.js';

export type TrustedFoldersDeps = WatchDeps &
  ReadJsoncDeps & {
    /** How paths become keys (this machine's: `systemPathKeys`, decision 283). */
    pathKeys: PathKeys;
  };

/**
 * Whether `cwd` is trusted, following `trustedFolders.json` live.
 *
 * ```
 * file     (missing)-----{cwd: TRUST_FOLDER}-----{broken------{}------
 * output   {false}-------{true}------------------{false, error}-{false}
 * ```
 *
 * Fail closed: a missing file means untrusted; a file that does not parse means untrusted with
 * an `error` (unlike settings, whose last good content stays, trust is never kept from a file
 * that no longer says so). Entries whose value is not a known rule are ignored and named in
 * `error`. Emits only when the answer or the error changes.
 */
export function fromTrustedFolders(file: string, cwd: string, deps: TrustedFoldersDeps): Observable<FolderTrust> {
  return watchFile(file, deps).pipe(
    rereadOnTick(() => readJsonc(file, deps), deps.onActivity),
    map((result) => evaluateTrust(file, cwd, result, deps.pathKeys)),
    distinctUntilChanged((a, b) => a.trusted === b.trusted && a.error === b.error),
  );
}

function evaluateTrust(file: string, cwd: string, result: JsoncReadResult, keys: PathKeys): FolderTrust {
  if (!result.ok) return { trusted: false, error: result.error };
  const rules = result.value ?? {};
  const ignored = Object.keys(rules).filter((path) => {
    const rule = getOwn(rules, path);
    return typeof rule !== 'string' || !TRUST_RULES.has(rule);
  });
  const trust: FolderTrust = { trusted: isFolderTrusted(cwd, rules as Record<string, string>, keys) };
  if (ignored.length > 0) {
    trust.error =
      `${file}: ignored ${ignored.map((path) => JSON.stringify(path)).join(', ')} ` +
      '(the value must be "TRUST_FOLDER", "TRUST_PARENT" or "DO_NOT_TRUST")';
  }
  return trust;
}
