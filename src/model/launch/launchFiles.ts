import { foldCase, type PathFlavor } from '../pathKeys.js';

/**
 * Names that a launcher (npx, uvx, pnpm dlx, bunx, deno, a version manager's shim, docker
 * compose, an interpreter) reads from its working directory or one of its ancestors, and that
 * can change which code it runs or how (decision 301). Deliberately broad: a name here only
 * means "this folder could choose what runs", so a false alarm costs one question (`mcp-live
 * trust`), a missing name costs the user's token.
 */
export const LAUNCH_FILES: readonly string[] = [
  // Node: packages, package managers, runtimes and version managers.
  'node_modules',
  'package.json',
  '.npmrc',
  '.yarnrc',
  '.yarnrc.yml',
  '.yarn',
  '.pnp.cjs',
  '.pnp.loader.mjs',
  '.pnpmfile.cjs',
  'pnpm-workspace.yaml',
  'bunfig.toml',
  'deno.json',
  'deno.jsonc',
  'import_map.json',
  '.node-version',
  '.nvmrc',
  '.tool-versions',
  'mise.toml',
  '.mise.toml',
  '.envrc',
  // Python: uv, pip, poetry, pipenv, virtual environments, and `python -m` / sys.path.
  '.python-version',
  'pyproject.toml',
  'uv.toml',
  'pip.conf',
  'setup.cfg',
  'setup.py',
  '.venv',
  'venv',
  'Pipfile',
  'poetry.toml',
  'sitecustomize.py',
  'usercustomize.py',
  // TypeScript and transpiling runners (tsx, ts-node's `require`, babel-node, swc).
  'tsconfig.json',
  'jsconfig.json',
  '.babelrc',
  'babel.config.js',
  'babel.config.json',
  '.swcrc',
  // Build and task runners whose commands run what the folder defines (`cargo run`, `make run`, …).
  'Cargo.toml',
  'Makefile',
  'makefile',
  'GNUmakefile',
  'justfile',
  'Justfile',
  '.justfile',
  'Taskfile.yml',
  'Taskfile.yaml',
  'pom.xml',
  '.mvn',
  'build.gradle',
  'build.gradle.kts',
  'settings.gradle',
  'settings.gradle.kts',
  'build.sbt',
  'Rakefile',
  'mix.exs',
  // Other ecosystems whose launchers read the folder.
  '.cargo',
  'rust-toolchain',
  'rust-toolchain.toml',
  'go.mod',
  'go.work',
  'global.json',
  'NuGet.config',
  'Directory.Build.props',
  'Directory.Build.targets',
  'Gemfile',
  '.ruby-version',
  '.bundle',
  'composer.json',
  'compose.yaml',
  'compose.yml',
  'docker-compose.yml',
  'docker-compose.yaml',
  '.env',
  'devbox.json',
  'flake.nix',
  'shell.nix',
];

/** Endings of launcher files whose names vary (`dotnet run` reads any project or solution file). */
export const LAUNCH_FILE_ENDINGS: readonly string[] = ['.csproj', '.fsproj', '.vbproj', '.sln'];

const EXACT = new Set(LAUNCH_FILES);
const FOLDED = new Set(LAUNCH_FILES.map(foldCase));

/** Whether a directory entry's name is a launcher file; `ignoresCase`: where the file system ignores case (decision 283). */
export function isLaunchFile(name: string, ignoresCase: boolean): boolean {
  const spelled = ignoresCase ? foldCase(name) : name;
  if ((ignoresCase ? FOLDED : EXACT).has(spelled)) return true;
  return LAUNCH_FILE_ENDINGS.some((ending) => spelled.length > ending.length && spelled.endsWith(ending));
}

/**
 * The folders whose launcher files count for a workspace (decision 301): the workspace and each
 * ancestor, stopping before the user's home directory (home and above are the user's own); a
 * workspace that is not inside the home is checked up to the root. The workspace being the home
 * itself (or above it) checks nothing. `workspaces` and `homes` are the spellings of each — as
 * given and as real paths: a launcher resolves from the real working directory, and a home reached
 * through a link must still stop the walk. Distinct, in order; compared case-blind where the file
 * system ignores case.
 */
export function launchFolders(workspaces: readonly string[], homes: readonly string[], path: PathFlavor, ignoresCase: boolean): string[] {
  const same = (a: string, b: string) => (ignoresCase ? foldCase(a) === foldCase(b) : a === b);
  const roots = homes.map((home) => path.resolve(home));
  const starts = workspaces.map((workspace) => path.resolve(workspace));
  if (starts.some((start) => roots.some((root) => isWithinOrSame(root, start, path, same)))) return [];
  const folders: string[] = [];
  for (const start of starts) {
    for (let folder = start; ; folder = path.dirname(folder)) {
      if (roots.some((root) => same(folder, root))) break;
      if (!folders.some((known) => same(known, folder))) folders.push(folder);
      if (path.dirname(folder) === folder) break;
    }
  }
  return folders;
}

/** Whether `path` is `folder` or lies inside it. */
function isWithinOrSame(path: string, folder: string, flavor: PathFlavor, same: (a: string, b: string) => boolean): boolean {
  for (let at = path; ; at = flavor.dirname(at)) {
    if (same(at, folder)) return true;
    if (flavor.dirname(at) === at) return false;
  }
}
