import { realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { projectRoot } from '../sinks/stores/approvalsStore.js';

/** Where a session's settings and its own files are; every path has its default (docs/contract.md, "Settings sources"). */
export interface SettingsLocations {
  /** Workspace directory (default `process.cwd()`). */
  cwd?: string;
  /** Settings directory name: `qwen` → `.qwen` (default). */
  profile?: string;
  /** Home directory (default `os.homedir()`). */
  homeDir?: string;
  userSettings?: string;
  systemSettings?: string;
  /** `--mcp-config` files, in order. */
  mcpConfig?: readonly string[];
  /** `--lsp-config` files (`.lsp.json` format), in order: language servers of scope `cli`. */
  lspConfig?: readonly string[];
  approvalsFile?: string;
  trustedFoldersFile?: string;
  /** The user's OAuth tokens (default `<home>/.<profile>/mcp-oauth-tokens.json`). */
  oauthTokensFile?: string;
  /**
   * The surface record (decisions 195–197): what each server last listed, per fingerprint, and
   * the surfaces the user approved (default `<home>/.<profile>/mcp-surfaces.json`).
   */
  surfacesFile?: string;
  /** The pins of approved surfaces (decision 307; default `mcp-pins.json` beside the surface record). */
  pinsFile?: string;
}

/**
 * Settings file paths for a profile (docs/contract.md, "Settings sources"). File options given as
 * relative paths resolve against the process's working directory, as every CLI does (decision 63:
 * `--mcp-config team.json` — or `--lsp-config` — must never pick up a file of the workspace, where
 * a repository could have put it). When the workspace settings file is the user settings file
 * (`--cwd ~`, compared by real path), there is no workspace layer: the user's own servers are not a
 * repository's.
 */
export function settingsPaths(options: SettingsLocations) {
  const cwd = resolve(options.cwd ?? process.cwd());
  const profile = options.profile ?? 'qwen';
  const dir = `.${profile}`;
  const home = options.homeDir ?? homedir();
  const user = resolve(options.userSettings ?? join(home, dir, 'settings.json'));
  const workspace = join(cwd, dir, 'settings.json');
  const trustedFolders = resolve(options.trustedFoldersFile ?? join(home, dir, 'trustedFolders.json'));
  const surfaces = resolve(options.surfacesFile ?? join(home, dir, 'mcp-surfaces.json'));
  return {
    cwd,
    /** The home directory (a user's `headersHelper` runs in it: decision 299). */
    home: resolve(home),
    projectRoot: safeProjectRoot(cwd),
    profile,
    user,
    workspace: sameFile(workspace, user) ? undefined : workspace,
    system: options.systemSettings === undefined ? undefined : resolve(options.systemSettings),
    project: join(cwd, '.mcp.json'),
    cli: [...(options.mcpConfig ?? [])].map((f) => resolve(f)),
    lspProject: join(cwd, '.lsp.json'),
    lspCli: [...(options.lspConfig ?? [])].map((f) => resolve(f)),
    extensionsDir: join(home, dir, 'extensions'),
    extensionManifest: `${profile}-extension.json`,
    approvals: resolve(options.approvalsFile ?? join(home, dir, 'mcpApprovals.json')),
    trustedFolders,
    oauthTokens: resolve(options.oauthTokensFile ?? join(home, dir, 'mcp-oauth-tokens.json')),
    surfaces,
    pins: resolve(options.pinsFile ?? join(dirname(surfaces), 'mcp-pins.json')),
    // The records of the user's yes to a folder (decision 302): ours, the peers', Claude Code's.
    launchTrust: {
      own: trustedFolders,
      peers: [join(home, '.gemini', 'trustedFolders.json'), join(home, '.qwen', 'trustedFolders.json')],
      claude: join(home, '.claude.json'),
    },
  };
}

/** Whether two paths name one file: their directories compared by real path (the files may not exist yet). */
function sameFile(a: string, b: string): boolean {
  const real = (path: string): string => {
    try {
      return join(realpathSync(dirname(path)), basename(path));
    } catch {
      return path;
    }
  };
  return a === b || real(a) === real(b);
}

/** realpath of the workspace; a workspace that does not exist yet keys by its resolved path. */
function safeProjectRoot(cwd: string): string {
  try {
    return projectRoot(cwd);
  } catch {
    return cwd;
  }
}

/** Every file a session watches, in precedence order, once each. */
export function watchedFiles(paths: ReturnType<typeof settingsPaths>): string[] {
  return [
    ...new Set([
      paths.extensionsDir,
      paths.user,
      paths.project,
      paths.lspProject,
      ...(paths.workspace === undefined ? [] : [paths.workspace]),
      ...(paths.system ? [paths.system] : []),
      ...paths.cli,
      ...paths.lspCli,
      paths.approvals,
      paths.trustedFolders,
      // The other records of the user's yes to this folder (decision 302).
      ...paths.launchTrust.peers,
      paths.launchTrust.claude,
    ]),
  ];
}
