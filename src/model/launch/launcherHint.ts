import { shellWord } from '../shellWord.js';

/**
 * A package runner that downloads what it runs on first use (`npx`, `uvx`, `pnpm dlx`, `bunx`):
 * its first start can outlast the connect deadline while nothing is wrong with the server.
 */
interface Launcher {
  /** How the note names it: `npx`, `pnpm dlx`. */
  name: string;
  /** The command that installs the package once, `{}` the package; undefined when the runner has none. */
  install?: string;
  /** Flags of the runner that take the package as their value (`npx -p PKG cmd`, `uvx --from PKG cmd`). */
  packageFlags: readonly string[];
  /** Flags of the runner that take some other value: skipped with it. */
  valueFlags: readonly string[];
  /** The words of `args` the runner's own words take up before its flags (`dlx` of `pnpm dlx`). */
  skip: number;
}

const NPM: Omit<Launcher, 'name' | 'skip'> = { install: 'npm install -g {}', packageFlags: ['-p', '--package'], valueFlags: ['--call', '-c'] };
const UV: Omit<Launcher, 'name' | 'skip'> = {
  install: 'uv tool install {}',
  packageFlags: ['--from'],
  valueFlags: ['--with', '--python', '-p', '--index', '--index-url', '--extra-index-url'],
};
const BUN: Omit<Launcher, 'name' | 'skip'> = { install: 'bun add -g {}', packageFlags: ['-p', '--package'], valueFlags: [] };

/** The runner `command args` starts, or undefined when it is none of them. */
function launcherOf(command: string, args: readonly string[]): Launcher | undefined {
  // `/usr/local/bin/npx`, `C:\…\npx.cmd`: the program's own name decides.
  const program = (command.split(/[\\/]/).pop() ?? '').toLowerCase().replace(/\.(cmd|exe|bat|ps1)$/, '');
  const [first, second] = args;
  if (program === 'npx' || program === 'pnpx') return { name: program, ...NPM, skip: 0 };
  if (program === 'npm' && first === 'exec') return { name: 'npm exec', ...NPM, skip: 1 };
  if (program === 'uvx') return { name: 'uvx', ...UV, skip: 0 };
  if (program === 'uv' && first === 'tool' && second === 'run') return { name: 'uv tool run', ...UV, skip: 2 };
  if (program === 'bunx') return { name: 'bunx', ...BUN, skip: 0 };
  if (program === 'bun' && first === 'x') return { name: 'bun x', ...BUN, skip: 1 };
  if (program === 'pnpm' && first === 'dlx') return { name: 'pnpm dlx', install: 'pnpm add -g {}', packageFlags: ['--package'], valueFlags: [], skip: 1 };
  if (program === 'yarn' && first === 'dlx') return { name: 'yarn dlx', packageFlags: ['-p', '--package'], valueFlags: [], skip: 1 };
  return undefined;
}

/** The package a runner's arguments name: a `--package`-like flag's value, else the first word that is no flag. */
function packageOf(launcher: Launcher, args: readonly string[]): string | undefined {
  for (let i = launcher.skip; i < args.length; i++) {
    const word = args[i]!;
    if (word === '--') return args[i + 1];
    const [flag, inline] = word.startsWith('--') && word.includes('=') ? [word.slice(0, word.indexOf('=')), word.slice(word.indexOf('=') + 1)] : [word, undefined];
    if (launcher.packageFlags.includes(flag)) return inline ?? args[i + 1];
    if (launcher.valueFlags.includes(flag) && inline === undefined) i++;
    else if (!word.startsWith('-')) return word;
  }
  return undefined;
}

/** Past this, a package word is not repeated in the note: a hint, not a copy of a file's text. */
const MAX_PACKAGE_LENGTH = 100;

/**
 * What a connect timeout of a server started through a package runner adds (decision 323), after
 * "raise "connectTimeout"": the runner may still have been downloading the package, as on a first
 * start, and what else to do — install the package once beforehand (`npm install -g PKG`, the
 * package shell-quoted) or run the command once by hand. Undefined for any other command.
 */
export function firstDownloadNote(command: string | undefined, args: readonly string[]): string | undefined {
  if (command === undefined) return undefined;
  const launcher = launcherOf(command, args);
  if (launcher === undefined) return undefined;
  const pkg = packageOf(launcher, args);
  const install =
    launcher.install === undefined || pkg === undefined || pkg === '' || pkg.length > MAX_PACKAGE_LENGTH
      ? ''
      : `install the package once beforehand (${launcher.install.replace('{}', () => shellWord(pkg))}) or `;
  return `${launcher.name} may still have been downloading the package, as on a first start: ${install}run the command once by hand, then it starts from its cache`;
}
