import { createRequire } from 'node:module';
import type { ParseForWindows } from '../../../src/platform/spawnCommand.js';

/**
 * The Windows side of spawnCommand's win32 branch, on Linux: cross-spawn loaded as it loads on
 * Windows, and a model of what cmd.exe and a program's C runtime make of the command line it
 * builds — so a test can say an argument arrives literally, and that nothing in it reached
 * cmd.exe as an operator.
 */

const require = createRequire(import.meta.url);

/** cross-spawn and the modules that read `process.platform` when they load. */
const PLATFORM_BOUND = /[\\/]node_modules[\\/](?:cross-spawn|which|isexe|path-key|shebang-command|shebang-regex)[\\/]/;

function forgetPlatformBoundModules(): void {
  for (const id of Object.keys(require.cache)) if (PLATFORM_BOUND.test(id)) delete require.cache[id];
}

/**
 * cross-spawn's parse as it is on Windows: loaded afresh while `process.platform` says win32
 * (it, `which` and `isexe` decide then), and dropped from the cache again so that nothing else
 * gets this copy. Paths still join the POSIX way, which the tests' temporary files need.
 */
export function loadWindowsParse(): ParseForWindows {
  const platform = Object.getOwnPropertyDescriptor(process, 'platform')!;
  forgetPlatformBoundModules();
  Object.defineProperty(process, 'platform', { ...platform, value: 'win32' });
  try {
    return (require('cross-spawn') as { _parse: ParseForWindows })._parse;
  } finally {
    Object.defineProperty(process, 'platform', platform);
    forgetPlatformBoundModules();
  }
}

/** What a run of `cmd.exe /d /e:on /v:off /s /c "…"` hands on. */
export interface CmdRun {
  /** The command cmd.exe starts (its first token, unquoted). */
  program: string;
  /** The arguments the program's C runtime reads; for a batch file, after its `%*` was parsed again. */
  argv: string[];
}

/**
 * cmd.exe's reading of `args` (the ones spawn got, passed verbatim), modelled on the phases that
 * matter (https://stackoverflow.com/q/4094699 "How does the Windows Command Interpreter parse
 * scripts"): `/s /c` strips the outer quotes; phase 1 expands `%NAME%` from `env` (an unknown
 * name stays as written, as on a command line); phase 2 takes `^x` as a literal x outside quotes,
 * toggles quoting at each `"`, and treats `& | < >` outside quotes as operators — which throws
 * here, since an argument must never become one. A batch file (`%*` of an npm shim) reads its
 * arguments through phase 2 once more. The program then splits its arguments by the Microsoft
 * C runtime rules.
 */
export function cmdExeRun(args: readonly string[], env: Record<string, string>, options: { batch: boolean }): CmdRun {
  const [d, e, v, s, c, quoted, ...extra] = args;
  if ([d, e, v, s, c].join(' ') !== '/d /e:on /v:off /s /c' || quoted === undefined || extra.length > 0) {
    throw new Error(`not a cmd.exe /d /e:on /v:off /s /c run: ${JSON.stringify(args)}`);
  }
  if (!quoted.startsWith('"') || !quoted.endsWith('"')) throw new Error('the /s /c line is not in quotes');
  const line = phase2(phase1(quoted.slice(1, -1), env));
  const [program, rest] = firstToken(line);
  return { program, argv: splitCRuntime(options.batch ? phase2(rest) : rest) };
}

/** Percent expansion, command-line flavour. `%cd:~,%` is `%cd%`'s empty substring. */
function phase1(text: string, env: Record<string, string>): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    if (ch !== '%') {
      out += ch;
      i += 1;
      continue;
    }
    const end = text.indexOf('%', i + 1);
    const name = end === -1 ? undefined : text.slice(i + 1, end);
    const known = name === undefined ? undefined : name === 'cd:~,' ? '' : lookUp(env, name);
    if (known === undefined) {
      out += '%';
      i += 1;
    } else {
      out += known;
      i = end + 1;
    }
  }
  return out;
}

function lookUp(env: Record<string, string>, name: string): string | undefined {
  if (name === '') return undefined;
  const key = Object.keys(env).find((k) => k.toUpperCase() === name.toUpperCase());
  return key === undefined ? undefined : env[key];
}

/** Carets and operators; quotes are kept (the C runtime reads them). */
function phase2(text: string): string {
  let out = '';
  let quoted = false;
  for (let i = 0; i < text.length; i += 1) {
    const ch = text[i]!;
    if (ch === '"') {
      quoted = !quoted;
      out += ch;
    } else if (!quoted && ch === '^') {
      i += 1;
      out += text[i] ?? '';
    } else if (!quoted && '&|<>'.includes(ch)) {
      throw new Error(`cmd.exe would read "${ch}" as an operator at ${i} of: ${text}`);
    } else {
      out += ch;
    }
  }
  return out;
}

/** The program token: quoted or up to the first blank. */
function firstToken(line: string): [string, string] {
  const trimmed = line.replace(/^[ \t]+/, '');
  if (trimmed.startsWith('"')) {
    const end = trimmed.indexOf('"', 1);
    return [trimmed.slice(1, end), trimmed.slice(end + 1)];
  }
  const end = trimmed.search(/[ \t]/);
  return end === -1 ? [trimmed, ''] : [trimmed.slice(0, end), trimmed.slice(end)];
}

/** CommandLineToArgvW / the MSVC runtime (2008 and later): backslashes count only before a quote; `""` in quotes is a quote. */
export function splitCRuntime(text: string): string[] {
  const argv: string[] = [];
  let i = 0;
  while (i < text.length) {
    while (text[i] === ' ' || text[i] === '\t') i += 1;
    if (i >= text.length) break;
    let arg = '';
    let quoted = false;
    while (i < text.length) {
      const ch = text[i]!;
      if (ch === '\\') {
        let count = 0;
        while (text[i] === '\\') {
          count += 1;
          i += 1;
        }
        if (text[i] === '"') {
          arg += '\\'.repeat(Math.floor(count / 2));
          if (count % 2 === 1) {
            arg += '"';
            i += 1;
          }
        } else {
          arg += '\\'.repeat(count);
        }
        continue;
      }
      if (ch === '"') {
        if (quoted && text[i + 1] === '"') {
          arg += '"';
          i += 2;
        } else {
          quoted = !quoted;
          i += 1;
        }
        continue;
      }
      if (!quoted && (ch === ' ' || ch === '\t')) break;
      arg += ch;
      i += 1;
    }
    argv.push(arg);
  }
  return argv;
}
