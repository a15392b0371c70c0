import type { TrustRule } from '../types.js';
import { foldCase, type PathKeys } from '../pathKeys.js';
import { getOwn } from '../ownProperties.js';

export const TRUST_RULES: ReadonlySet<string> = new Set<TrustRule>(['TRUST_FOLDER', 'TRUST_PARENT', 'DO_NOT_TRUST']);

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
 * Whether `cwd` is trusted by `rules` (docs/contract.md, "Folder trust"). A rule covers a folder
 * and everything below it: `TRUST_FOLDER` and `DO_NOT_TRUST` that path, `TRUST_PARENT` the parent
 * directory of that path. The most specific (longest) covering folder wins; on a tie `DO_NOT_TRUST`
 * wins (the file was contradicting itself, so fail closed). No covering rule: untrusted. Paths are
 * compared after `path.resolve`, so trailing slashes and `..` do not matter. Unknown rule values
 * are ignored.
 *
 * Where the file system ignores case (macOS, Windows: decision 283) the folder and each rule that
 * could cover it are compared as path keys, in their real case: a rule for `/Users/x/Proj`
 * covers `/users/x/proj`, `c:\work` covers `C:\Work\app`. On Linux, paths compare as written.
 */
export function isFolderTrusted(cwd: string, rules: Readonly<Record<string, string>>, keys: PathKeys): boolean {
  return folderRule(cwd, rules, keys) === 'trusted';
}

/**
 * What the rules say of `cwd` ({@link isFolderTrusted}'s answer, told apart): `trusted`,
 * `distrusted` (the covering rule is `DO_NOT_TRUST`), or `undefined` when no rule covers it.
 */
export function folderRule(cwd: string, rules: Readonly<Record<string, unknown>>, keys: PathKeys): 'trusted' | 'distrusted' | undefined {
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
  return best === undefined ? undefined : best.trusted ? 'trusted' : 'distrusted';
}
