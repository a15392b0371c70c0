import { distinctUntilChanged, map, type Observable } from 'rxjs';
import { foldCase } from '../model/pathKeys.js';
import { systemPathKeys, type PathKeys } from '../sinks/platform/pathKeys.js';
import { getOwn } from '../model/ownProperties.js';
import type { JsoncReadResult } from '../model/settings/parseJsonc.js';
import type { TrustRule } from '../model/types.js';
import { readJsonc, type ReadJsoncDeps } from './readJsonc.js';
import { rereadOnTick } from './rereadOnTick.js';
import { watchFile } from './watchFile.js';
import type { WatchDeps } from './watchDirectory.js';


const TRUST_RULES: ReadonlySet<string> = new Set<TrustRule>(['TRUST_FOLDER', 'TRUST_PARENT', 'DO_NOT_TRUST']);

/** Whether this folder is trusted, and why the rules could not (all) be used. */
export interface FolderTrust {
  trusted: boolean;
  /** A missing file is not an error (nothing trusted yet); a bad file or bad entries are. */
  error?: string;
}

function isWithin(path: string, root: string, sep: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}

/**
 * Whether `cwd` is trusted by `rules` (SPEC §4). A rule covers a folder and everything below it:
 * `TRUST_FOLDER` and `DO_NOT_TRUST` that path, `TRUST_PARENT` the parent directory of that path.
 * The most specific (longest) covering folder wins; on a tie `DO_NOT_TRUST` wins (the file was
 * contradicting itself, so fail closed). No covering rule: untrusted. Paths are compared after
 * `path.resolve`, so trailing slashes and `..` do not matter. Unknown rule values are ignored.
 *
 * Where the file system ignores case (macOS, Windows: decision 283) the folder and each rule that
 * could cover it are compared as path keys, in their real case: a rule for `/Users/x/Proj`
 * covers `/users/x/proj`, `c:\work` covers `C:\Work\app`. On Linux, paths compare as written.
 */
export function isFolderTrusted(cwd: string, rules: Readonly<Record<string, string>>, keys: PathKeys = systemPathKeys): boolean {
  const paths = keys.path;
  const sep = paths.sep;
  const folder = keys.key(paths.resolve(cwd));
  const folded = keys.ignoresCase ? foldCase(folder) : folder;
  let best: { length: number; trusted: boolean } | undefined;
  for (const path of Object.keys(rules)) {
    const rule = getOwn(rules, path);
    if (typeof rule !== 'string' || !TRUST_RULES.has(rule)) continue;
    const spelled = rule === 'TRUST_PARENT' ? paths.dirname(paths.resolve(path)) : paths.resolve(path);
    // Only a rule that covers the folder but for case is worth a realpath.
    const covered = keys.ignoresCase && isWithin(folded, foldCase(spelled), sep) ? keys.key(spelled) : spelled;
    if (!isWithin(folder, covered, sep)) continue;
    const trusted = rule !== 'DO_NOT_TRUST';
    if (best === undefined || covered.length > best.length || (covered.length === best.length && !trusted)) {
      best = { length: covered.length, trusted };
    }
  }
  return best?.trusted ?? false;
}

export type TrustedFoldersDeps = WatchDeps &
  ReadJsoncDeps & {
    /** How paths become keys (default: this machine's, decision 283). */
    pathKeys?: PathKeys;
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
export function fromTrustedFolders(file: string, cwd: string, deps: TrustedFoldersDeps = {}): Observable<FolderTrust> {
  return watchFile(file, deps).pipe(
    rereadOnTick(() => readJsonc(file, deps), deps.onActivity),
    map((result) => evaluateTrust(file, cwd, result, deps.pathKeys)),
    distinctUntilChanged((a, b) => a.trusted === b.trusted && a.error === b.error),
  );
}

function evaluateTrust(file: string, cwd: string, result: JsoncReadResult, keys?: PathKeys): FolderTrust {
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
