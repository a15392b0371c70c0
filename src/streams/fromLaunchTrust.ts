import { combineLatest, distinctUntilChanged, map, of, type Observable } from 'rxjs';
import { launchTrusted } from '../model/launch/launchTrust.js';
import type { PathKeys } from '../model/pathKeys.js';
import { readJsonc, type ReadFileFn, type ReadJsoncDeps } from '../files/readJsonc.js';
import { readRegularFile } from '../files/readRegularFile.js';
import { rereadOnTick } from './rereadOnTick.js';
import { watchFile } from './watchFile.js';
import type { WatchDeps } from './watchDirectory.js';

/** Where the records of the user's yes to a folder are (decision 302). */
export interface LaunchTrustFiles {
  /** mcp-live's own profile `trustedFolders.json`: the file `mcp-live trust` writes. */
  own: string;
  /** Other tools' files of the same format (`~/.gemini/trustedFolders.json`, `~/.qwen/trustedFolders.json`). */
  peers: readonly string[];
  /** Claude Code's `~/.claude.json`. */
  claude: string;
}

export type LaunchTrustDeps = WatchDeps &
  ReadJsoncDeps & {
    pathKeys: PathKeys;
  };

/**
 * Claude Code keeps its history of every project in `~/.claude.json`: it grows past the 4 MiB
 * of a settings file. Read up to this much; a larger one counts as no yes.
 */
const MAX_CLAUDE_CONFIG_BYTES = 64 * 1024 * 1024;

/**
 * Whether the user said yes to `cwd` in any record (decision 302), live: each file watched and
 * read on its own, the answer {@link launchTrusted}'s. A file that is missing, does not parse or
 * is too large says nothing (no yes, and no `DO_NOT_TRUST`). Emits only when the answer changes.
 */
export function fromLaunchTrust(files: LaunchTrustFiles, cwd: string, home: string, deps: LaunchTrustDeps): Observable<boolean> {
  const readClaude: ReadFileFn = (path) => readRegularFile(path, { maxBytes: MAX_CLAUDE_CONFIG_BYTES, kind: "Claude Code's configuration" });
  const read = (file: string, readFile?: ReadFileFn): Observable<Readonly<Record<string, unknown>> | undefined> =>
    watchFile(file, deps).pipe(
      rereadOnTick(() => readJsonc(file, { readFile: readFile ?? deps.readFile ?? readRegularFile }), deps.onActivity),
      map((result) => (result.ok ? result.value : undefined)),
    );
  const peers = [...new Set(files.peers)].filter((file) => file !== files.own);
  return combineLatest([
    read(files.own),
    peers.length === 0 ? of([]) : combineLatest(peers.map((file) => read(file))),
    read(files.claude, deps.readFile ?? readClaude),
  ]).pipe(
    map(([own, peerRules, claude]) => launchTrusted(cwd, home, { ...(own === undefined ? {} : { own }), peers: peerRules, claude }, deps.pathKeys)),
    distinctUntilChanged(),
  );
}
