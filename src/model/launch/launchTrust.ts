import { folderRule } from './folderTrust.js';
import { getOwn } from '../ownProperties.js';
import { foldCase, type PathKeys } from '../pathKeys.js';

/**
 * The records that may hold the user's yes to a folder (decision 302), as read: `undefined` for
 * a file that is missing or does not read (no yes, and no no).
 */
export interface LaunchTrustRecords {
  /** mcp-live's own profile `trustedFolders.json` (the file `mcp-live trust` writes). */
  own?: Readonly<Record<string, unknown>>;
  /** Gemini CLI's and Qwen Code's `trustedFolders.json`, same rule format. */
  peers: readonly (Readonly<Record<string, unknown>> | undefined)[];
  /** Claude Code's `~/.claude.json`. */
  claude?: unknown;
}

/**
 * Whether the user said yes to `cwd` in one of the records (decision 302): an explicit rule
 * that covers it (`TRUST_FOLDER`, `TRUST_PARENT`: what folder trust means, whether or not
 * `security.folderTrust` is on), in mcp-live's own file or Gemini CLI's or Qwen Code's; or
 * Claude Code's accepted trust dialog (`projects[path].hasTrustDialogAccepted === true`) for the
 * folder or an ancestor below the home directory — Claude Code's dialog covers the folders
 * inside, but an entry for the home directory (or above) is where `claude` was run, not a yes
 * to every repository cloned under it. A `DO_NOT_TRUST` that covers the folder in mcp-live's
 * own file wins over every other record; one in another tool's file is that tool's no only.
 */
export function launchTrusted(cwd: string, home: string, records: LaunchTrustRecords, keys: PathKeys): boolean {
  const own = records.own === undefined ? undefined : folderRule(cwd, records.own, keys);
  if (own !== undefined) return own === 'trusted';
  if (records.peers.some((rules) => rules !== undefined && folderRule(cwd, rules, keys) === 'trusted')) return true;
  return claudeTrusts(cwd, home, records.claude, keys);
}

/** Claude Code's accepted trust dialogs that cover `cwd`, home and above left out (see {@link launchTrusted}). */
export function claudeTrusts(cwd: string, home: string, config: unknown, keys: PathKeys): boolean {
  const projects = config !== null && typeof config === 'object' ? getOwn(config as Record<string, unknown>, 'projects') : undefined;
  if (projects === null || typeof projects !== 'object' || Array.isArray(projects)) return false;
  const accepted: Record<string, string> = {};
  for (const path of Object.keys(projects)) {
    const project = getOwn(projects as Record<string, unknown>, path);
    if (project === null || typeof project !== 'object') continue;
    if (getOwn(project as Record<string, unknown>, 'hasTrustDialogAccepted') !== true) continue;
    if (!keys.path.isAbsolute(path) || coversHome(path, home, keys)) continue;
    accepted[path] = 'TRUST_FOLDER';
  }
  return folderRule(cwd, accepted, keys) === 'trusted';
}

/** Whether the folder `path` is `home` or one of its ancestors. */
function coversHome(path: string, home: string, keys: PathKeys): boolean {
  const fold = (p: string) => (keys.ignoresCase ? foldCase(p) : p);
  const folder = fold(keys.path.resolve(path));
  for (let at = keys.path.resolve(home); ; at = keys.path.dirname(at)) {
    if (fold(at) === folder) return true;
    if (keys.path.dirname(at) === at) return false;
  }
}
