import { realpathSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ignoresCase, pathFlavor, sameButCase, upperDriveLetter, type PathKeys } from '../model/pathKeys.js';

/**
 * The one place paths become keys, per platform (decision 283): trust rules, the
 * approvals' project root and the language servers' `file:` URIs are compared as keys, never as
 * the user or a server happened to spell them.
 *
 *   linux    a path is its own key (case matters there): keys are what they always were
 *   darwin   the real case of the path, from `realpathSync.native` (`/users/x/proj` → `/Users/x/Proj`)
 *   win32    the same, and the drive letter in capitals (`c:\x` → `C:\x`)
 *
 * `realpathSync.native` also resolves symbolic links (`/tmp` → `/private/tmp` on macOS), and a key
 * must not: a trust rule covers the path it names. So its answer is taken only where it differs
 * from the path in case alone; a path through a link (or one that does not exist) keeps its
 * spelling. The project root is a realpath anyway (docs/contract.md, "Approvals"), so it gets the
 * real case of every part.
 */

export interface PathKeyDeps {
  /** Default `process.platform`. */
  platform?: NodeJS.Platform;
  /** `fs.realpathSync` (JavaScript: follows links, keeps the case as given): the project root's. */
  realpath?: (path: string) => string;
  /** `fs.realpathSync.native` (the system's: the real case too). */
  realpathNative?: (path: string) => string;
}

export function pathKeys(deps: PathKeyDeps = {}): PathKeys {
  const platform = deps.platform ?? process.platform;
  const path = pathFlavor(platform);
  const realpath = deps.realpath ?? realpathSync;
  const realpathNative = deps.realpathNative ?? realpathSync.native;
  const windows = platform === 'win32';
  const caseBlind = ignoresCase(platform);

  const key = (given: string): string => {
    if (!caseBlind) return given;
    const spelled = windows ? upperDriveLetter(path.resolve(given)) : path.resolve(given);
    let real: string;
    try {
      real = realpathNative(spelled);
    } catch {
      return spelled;
    }
    if (windows) real = upperDriveLetter(real);
    return sameButCase(real, spelled) ? real : spelled;
  };

  return {
    platform,
    path,
    ignoresCase: caseBlind,
    key,
    projectRoot: (cwd) => key(realpath(cwd)),
    pathOfFileUri: (uri) => {
      try {
        return key(fileURLToPath(uri, { windows }));
      } catch {
        return undefined;
      }
    },
    fileUri: (absolute) => pathToFileURL(absolute, { windows }).href,
  };
}

/** This machine's. */
export const systemPathKeys: PathKeys = pathKeys();
