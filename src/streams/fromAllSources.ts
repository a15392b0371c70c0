import { combineLatest, defer, map, merge, mergeMap, of, startWith, tap, type Observable } from 'rxjs';
import type { AssembleInput } from '../model/settings/assemble.js';
import type { LogEvent, RestartRequiredEvent, SettingsErrorEvent, SettingsOkEvent } from '../model/report/events.js';
import type { PathKeys } from '../model/pathKeys.js';
import type { ApprovalsRead, ApprovalsStore, LaunchHold, Scope, SourceSnapshot } from '../model/types.js';
import type { ReadActivity } from '../operators/settleOnActivity.js';
import { fromApprovals } from './fromApprovals.js';
import { fromExtensions } from './fromExtensions.js';
import { fromSettingsFile, type SettingsFileError, type SettingsFileEvent, type SettingsFileKind } from './fromSettingsFile.js';
import type { ReadFileFn } from '../files/readJsonc.js';
import { classifyChange } from '../model/settings/restartRequired.js';
import { shareWatchersByDirectory } from './shareWatchersByDirectory.js';
import { fromTrustedFolders } from './fromTrustedFolders.js';
import { fromLaunchFiles } from './fromLaunchFiles.js';
import { fromLaunchTrust, type LaunchTrustFiles } from './fromLaunchTrust.js';
import { launchFolders } from '../model/launch/launchFiles.js';
import type { WatchDeps } from './watchDirectory.js';
import { chokidarWatchFactory, type WatchFactory } from './watchFactory.js';

/** No session language servers: the session snapshot then has no `lspServers` at all. */
const NO_SERVERS: Record<string, unknown> = {};

/** Where every settings source (docs/contract.md, "Settings sources") lives for one session. */
export interface SourcePaths {
  cwd: string;
  /** realpath of the workspace: the key of its approvals. */
  projectRoot: string;
  user: string;
  /** Absent when it is the user settings file (the workspace is the home directory). */
  workspace?: string;
  system?: string;
  project: string;
  cli: readonly string[];
  /** `<cwd>/.lsp.json`: the project's language servers (scope `project`, gated like `.mcp.json`). */
  lspProject: string;
  /** `--lsp-config` files, in order (scope `cli`). */
  lspCli: readonly string[];
  extensionsDir: string;
  extensionManifest: string;
  approvals: string;
  trustedFolders: string;
  /**
   * The user's home directory: launcher files are looked for below it (decision 301). Absent
   * (a host that builds its own paths): no server is held for its folder.
   */
  home?: string;
  /** The records of the user's yes to a folder (decision 302); with `home`. */
  launchTrust?: LaunchTrustFiles;
}

/** A settings source composed in by the host: a stream of server maps with a scope. */
export interface ExtraSource {
  scope: Scope;
  /** A label shown as the servers' source (a file path, a URL, `env:MCP_SERVERS` …). */
  source: string;
  servers$: Observable<Record<string, unknown>>;
}

/** What a source says besides content: broken (and mended) files, restart-only changes, warnings. */
export type SourceNotice =
  | Omit<SettingsErrorEvent, 'ts'>
  | Omit<SettingsOkEvent, 'ts'>
  | Omit<RestartRequiredEvent, 'ts'>
  | Omit<LogEvent, 'ts'>;

export interface AllSourcesDeps {
  store: ApprovalsStore;
  /** How paths become keys for the trust rules (this machine's: `systemPathKeys`, decision 283). */
  pathKeys: PathKeys;
  /** Servers added at run time (`/mcp add`, `session.add`). */
  session$: Observable<Record<string, unknown>>;
  /** Language servers added at run time (`lsp.addSession`), by their own names. */
  sessionLsp$?: Observable<Record<string, unknown>>;
  /** Name → approval hash approved for this session only. */
  sessionApprovals$: Observable<Readonly<Record<string, string>>>;
  /** Decisions this process just wrote, so they apply before the watcher sees the file. */
  written$: Observable<ApprovalsRead>;
  extraSources?: readonly ExtraSource[];
  watch?: WatchFactory;
  /** How settings files are read (default `readRegularFile`: regular files of at most 4 MiB): the seam for read failures in tests. */
  readFile?: ReadFileFn;
  onNotice: (notice: SourceNotice) => void;
  /** Told of every change the watchers see and of every read they cause: what the debounce is timed from. */
  onActivity?: (activity: ReadActivity) => void;
}

/**
 * Every settings source (docs/contract.md, "Settings sources") combined into the pipeline's input,
 * one value per change of any of them. Each file is read on its own (docs/contract.md, "Watching"),
 * through one watcher per directory ({@link shareWatchersByDirectory}); a broken file keeps its
 * last good content and reports a `settings-error` (once per save), and `settings-ok` once it reads
 * cleanly again; a change of restart-required keys only is reported as `restart-required` and goes
 * no further.
 */
export function fromAllSources(paths: SourcePaths, deps: AllSourcesDeps): Observable<AssembleInput> {
  const watchDeps = {
    watch: shareWatchersByDirectory(deps.watch ?? chokidarWatchFactory),
    ...(deps.onActivity ? { onActivity: deps.onActivity } : {}),
  };
  const settingsError = (e: SettingsFileError) =>
    deps.onNotice({
      type: 'settings-error',
      file: e.file,
      error: e.error,
      ...(e.line === undefined ? {} : { line: e.line, column: e.column }),
    });

  const settingsOk = (file: string) => deps.onNotice({ type: 'settings-ok', file });

  /** A file's source; `lsp`: a `.lsp.json`-format file, one more snapshot of its scope (servers `{}`). */
  const fileSource = (file: string, scope: Scope, kind?: SettingsFileKind): Observable<SourceSnapshot[]> =>
    defer(() => {
      let last: SourceSnapshot | undefined;
      return fromSettingsFile(file, scope, {
        ...watchDeps,
        ...(deps.readFile ? { readFile: deps.readFile } : {}),
        ...(kind ? { kind } : {}),
      }).pipe(
        mergeMap((e: SettingsFileEvent): SourceSnapshot[][] => {
          // A file broken from its first read arrives as an error, then as empty content.
          if (e.kind === 'error') {
            settingsError(e);
            return [];
          }
          if (e.kind === 'ok') {
            settingsOk(e.file);
            return [];
          }
          // A file that was broken always applies once it parses: it blocks every server.
          if (last !== undefined && last.broken === undefined) {
            const change = classifyChange(e.changedKeys);
            if (!change.hot) {
              deps.onNotice({ type: 'restart-required', file, keys: change.restartKeys });
              return [];
            }
          }
          last = e.snapshot;
          return [[e.snapshot]];
        }),
      );
    });

  const sources: Observable<SourceSnapshot[]>[] = [
    fromExtensions(paths.extensionsDir, paths.extensionManifest, watchDeps).pipe(
      tap((e) => e.errors.forEach(settingsError)),
      tap((e) => e.cleared.forEach(settingsOk)),
      tap((e) => e.warnings.forEach((message) => deps.onNotice({ type: 'log', level: 'warn', message }))),
      map((e) => e.snapshots),
    ),
    fileSource(paths.user, 'user'),
    fileSource(paths.project, 'project'),
    fileSource(paths.lspProject, 'project', 'lsp'),
    // `--cwd ~`: the workspace settings file is the user's own; read it once, as user settings.
    ...(paths.workspace === undefined ? [] : [fileSource(paths.workspace, 'workspace')]),
    ...(paths.system ? [fileSource(paths.system, 'system')] : []),
    ...paths.cli.map((f) => fileSource(f, 'cli')),
    ...paths.lspCli.map((f) => fileSource(f, 'cli', 'lsp')),
    combineLatest([deps.session$, deps.sessionLsp$ ?? of(NO_SERVERS)]).pipe(
      map(([servers, lspServers]) => [{ scope: 'session' as const, file: 'session', servers, ...(lspServers === NO_SERVERS ? {} : { lspServers }) }]),
    ),
    ...(deps.extraSources ?? []).map((x) =>
      x.servers$.pipe(
        map((servers) => [{ scope: x.scope, file: x.source, servers }]),
        startWith([] as SourceSnapshot[]),
      ),
    ),
  ];

  const approvals$ = merge(fromApprovals(paths.approvals, paths.projectRoot, { ...watchDeps, store: deps.store }), deps.written$).pipe(
    tap((a) => {
      if (a.warning) deps.onNotice({ type: 'log', level: 'warn', message: `approvals: ${a.warning}` });
    }),
    map((a) => a.decisions),
  );
  const trust$ = fromTrustedFolders(paths.trustedFolders, paths.cwd, { ...watchDeps, pathKeys: deps.pathKeys }).pipe(
    tap((t) => {
      if (t.error) deps.onNotice({ type: 'log', level: 'warn', message: `trusted folders: ${t.error}` });
    }),
    map((t) => t.trusted),
  );

  return combineLatest([combineLatest(sources), approvals$, deps.sessionApprovals$, trust$, launchHold$(paths, deps.pathKeys, watchDeps)]).pipe(
    map(([snapshots, approvals, sessionApprovals, folderTrusted, launchHold]) => ({
      sources: snapshots.flat(),
      approvals,
      sessionApprovals,
      folderTrusted,
      ...(launchHold === undefined ? {} : { launchHold }),
    })),
  );
}

/**
 * What may hold the user's own servers in this workspace (decision 301), live: `undefined` once
 * a record trusts it (decision 302), or when the workspace is the home directory or above it
 * (the user's own folders); else the launcher files found.
 */
function launchHold$(paths: SourcePaths, pathKeys: PathKeys, watchDeps: WatchDeps): Observable<LaunchHold | undefined> {
  const { home, launchTrust } = paths;
  if (home === undefined || launchTrust === undefined) return of(undefined);
  const workspace = pathKeys.path.resolve(paths.cwd);
  // As spelled and as real paths: npx walks up from the real cwd; a home reached by a link still stops the walk.
  const workspaces = [...new Set([workspace, paths.projectRoot])];
  const homes = [...new Set([home, realHome(home, pathKeys)])];
  if (launchFolders(workspaces, homes, pathKeys.path, pathKeys.ignoresCase).length === 0) return of(undefined);
  return combineLatest([fromLaunchFiles(workspaces, homes, { ...watchDeps, pathKeys }), fromLaunchTrust(launchTrust, workspace, home, { ...watchDeps, pathKeys })]).pipe(
    map(([files, trusted]) => (trusted ? undefined : { workspace, files, ignoresCase: pathKeys.ignoresCase, windows: pathKeys.platform === 'win32' })),
  );
}

/** The home directory's real path (itself when it cannot be resolved). */
function realHome(home: string, pathKeys: PathKeys): string {
  try {
    return pathKeys.projectRoot(home);
  } catch {
    return home;
  }
}
