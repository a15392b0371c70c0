import { describe, expect, it } from 'vitest';
import { assemble } from '../../src/model/settings/assemble.js';
import { isLaunchFile, launchFolders } from '../../src/model/launch/launchFiles.js';
import { launchHeld } from '../../src/model/launch/launchHold.js';
import { claudeTrusts, launchTrusted, type LaunchTrustRecords } from '../../src/model/launch/launchTrust.js';
import { reasonText, toolNotFoundMessage } from '../../src/model/report/messages.js';
import { desiredServers, resolveAssembled } from '../../src/model/reconcile/plan.js';
import { mcpGatingEqual } from '../../src/model/reconcile/equality.js';
import type { AssembledServer, LaunchHold, Scope } from '../../src/model/types.js';
import { pathKeys } from '../../src/platform/systemPathKeys.js';
import { posix, win32 } from 'node:path';

/**
 * Decision 301: the user's own servers that start a process in a folder that could change what
 * they run wait for the user's yes to that folder (decision 302).
 */

const WS = '/home/u/src/repo';
const untrusted = (files: string[] = []): LaunchHold => ({ workspace: WS, files, ignoresCase: false, windows: false });

/** The held detail for an entry of `scope`, resolved against the workspace as a pass resolves it. */
function heldFor(config: Record<string, unknown>, hold: LaunchHold | undefined = untrusted(), scope: Scope = 'user', name = 'srv'): string | undefined {
  const server: AssembledServer = { name, scope, source: '/home/u/.qwen/settings.json', config };
  const wanted = resolveAssembled(server, { HOME: '/home/u' }, hold?.workspace ?? WS);
  return launchHeld(server, wanted.resolved, hold);
}

describe('launchHeld: what holds a server', () => {
  it.each<[string, Record<string, unknown>, string[], string | undefined]>([
    // Each trigger, and the words that name it.
    ['a launcher file found', { command: 'npx', args: ['-y', '@modelcontextprotocol/server-github'] }, [`${WS}/node_modules`], 'node_modules'],
    ['launcher files in the workspace and an ancestor', { command: 'uvx', args: ['x'] }, [`${WS}/.npmrc`, `${WS}/node_modules`, '/home/u/src/package.json'], '.npmrc, node_modules, ../package.json'],
    ['more than three files: three, then …', { command: 'npx', args: ['x'] }, [`${WS}/.env`, `${WS}/.npmrc`, `${WS}/node_modules`, `${WS}/package.json`], '.env, .npmrc, node_modules, …'],
    ['a relative command with a separator', { command: './bin/server' }, [], 'its command is a relative path'],
    ['a relative command out of the folder', { command: '../tools/server' }, [], 'its command is a relative path'],
    ['a working directory inside the workspace', { command: 'npx', args: ['x'], cwd: 'packages/api' }, [], 'its working directory is inside it'],
    ['node with a relative script', { command: 'node', args: ['server.js'] }, [], 'node runs a relative path'],
    ['node with a preload', { command: 'node', args: ['-r', 'x', '/opt/s.js'] }, [], 'node -r'],
    ['node --import=./x.js', { command: 'node', args: ['--import=./x.js', '/opt/s.js'] }, [], 'node --import'],
    ['node -e', { command: '/usr/bin/node', args: ['-e', 'require("x")'] }, [], 'node -e'],
    ['python -m (the cwd is on sys.path)', { command: 'python3', args: ['-m', 'mcp_server_git'] }, [], 'python -m'],
    ['python3.12 -c', { command: 'python3.12', args: ['-c', 'import x'] }, [], 'python -c'],
    ['python -um (combined flags)', { command: 'python', args: ['-um', 'x'] }, [], 'python -m'],
    ['sh -c', { command: 'sh', args: ['-c', 'npx x'] }, [], 'sh -c'],
    ['bash with a relative script', { command: 'bash', args: ['run.sh'] }, [], 'sh runs a relative path'],
    ['deno run of a relative file', { command: 'deno', args: ['run', '-A', 'main.ts'] }, [], 'deno runs a relative path'],
    ['an interpreter reading stdin', { command: 'ruby' }, [], 'ruby without a script'],
    ['a wrapper given a relative script (npx tsx)', { command: 'npx', args: ['tsx', 'src/server.ts'] }, [], 'an argument is a relative path to a program'],
    ['uv run of a relative .py', { command: 'uv', args: ['run', 'main.py'] }, [], 'an argument is a relative path to a program'],
    ['java -jar of a relative jar', { command: 'java', args: ['-jar', 'build/server.jar'] }, [], 'an argument is a relative path to a program'],
    ['an option whose value starts ./', { command: 'mcp-runner', args: ['--entry=./serve'] }, [], 'an argument is a relative path to a program'],
    // What is not held.
    ['npx with no launcher file', { command: 'npx', args: ['-y', '@modelcontextprotocol/server-github'] }, [], undefined],
    ['a filesystem server given the folder as data', { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '.', 'docs'] }, [], undefined],
    ['a wrapper given an absolute script', { command: 'npx', args: ['tsx', '/opt/mcp/server.ts'] }, [], undefined],
    ['node with an absolute script', { command: 'node', args: ['/opt/mcp/server.js'] }, [], undefined],
    ['node with a script from $HOME', { command: 'node', args: ['$HOME/mcp/server.js'] }, [], undefined],
    ['deno run of a jsr: specifier', { command: 'deno', args: ['run', 'jsr:@x/y'] }, [], undefined],
    ['an absolute command', { command: '/usr/local/bin/server' }, [], undefined],
    ['a command without a separator (found on PATH)', { command: 'server' }, [], undefined],
    ['an explicit cwd outside the workspace, files or not', { command: 'node', args: ['server.js'], cwd: '/opt/mcp' }, [`${WS}/node_modules`], undefined],
    ['a cwd from $HOME', { command: './srv', cwd: '$HOME' }, [`${WS}/node_modules`], undefined],
    ['an HTTP server', { httpUrl: 'http://127.0.0.1:1/mcp' }, [`${WS}/node_modules`], undefined],
    ['an SSE server', { url: 'http://127.0.0.1:1/sse' }, [`${WS}/node_modules`], undefined],
    ['an invalid entry (it starts nothing)', { command: 5 }, [`${WS}/node_modules`], undefined],
  ])('%s', (_what, config, files, why) => {
    const detail = heldFor(config, untrusted(files));
    expect(detail).toBe(why === undefined ? undefined : `held: this folder can change what it runs (${why}) – run \`mcp-live trust\` to allow it`);
  });

  it('holds every scope that is never gated, a language server too; a gated scope waits for its approval instead', () => {
    const held = untrusted([`${WS}/node_modules`]);
    for (const scope of ['user', 'system', 'cli', 'session', 'extension'] as const) expect(heldFor({ command: 'npx', args: ['x'] }, held, scope)).toBeDefined();
    for (const scope of ['workspace', 'project'] as const) expect(heldFor({ command: 'npx', args: ['x'] }, held, scope)).toBeUndefined();
    const lsp = heldFor({ command: 'typescript-language-server', args: ['--stdio'], extensionToLanguage: { '.ts': 'typescript' } }, held, 'user', 'lsp:ts');
    expect(lsp).toContain('(node_modules)');
  });

  it('holds nothing once the folder is trusted (no hold)', () => {
    const server: AssembledServer = { name: 's', scope: 'user', source: 'x', config: { command: './bin/server', cwd: 'sub' } };
    const { resolved } = resolveAssembled(server, {}, WS);
    expect(launchHeld(server, resolved, untrusted())).toBeDefined();
    expect(launchHeld(server, resolved, undefined)).toBeUndefined();
  });

  it('Windows: `\\` separates, `C:\\x` is absolute, the cwd compares case-blind', () => {
    const hold: LaunchHold = { workspace: 'C:\\src\\repo', files: [], ignoresCase: true, windows: true };
    const server = (config: Record<string, unknown>): string | undefined => {
      const s: AssembledServer = { name: 's', scope: 'user', source: 'x', config };
      return launchHeld(s, { transport: 'stdio', env: {}, headers: {}, timeout: 1, command: config.command as string, args: (config.args as string[]) ?? [], cwd: config.cwd as string }, hold);
    };
    expect(server({ command: 'bin\\server.exe', cwd: 'C:\\src\\repo' })).toContain('its command is a relative path');
    expect(server({ command: 'C:\\tools\\server.exe', cwd: 'C:\\src\\repo' })).toBeUndefined();
    expect(server({ command: 'PYTHON.EXE', args: ['-m', 'x'], cwd: 'c:\\SRC\\Repo' })).toContain('-m');
    expect(server({ command: 'npx', cwd: 'c:\\src\\repo\\Pkg' })).toContain('its working directory is inside it');
    expect(server({ command: './x', cwd: 'D:\\elsewhere' })).toBeUndefined();
  });
});

describe('untrusted_launch in a pass', () => {
  const source = (servers: Record<string, unknown>, scope: Scope = 'user', mcp?: { excluded?: string[] }) => ({ scope, file: `/${scope}.json`, servers, ...(mcp ? { mcp } : {}) });

  it('comes after every admission reason: an excluded, disabled or pending server keeps its own reason', () => {
    const desired = assemble({
      sources: [
        source({ held: { command: 'npx', args: ['x'] }, excluded: { command: 'npx' }, disabled: { command: 'npx', disabled: true }, remote: { httpUrl: 'http://h/mcp' } }, 'user', { excluded: ['excluded'] }),
        source({ repo: { command: 'npx' } }, 'project'),
      ],
      approvals: {},
      sessionApprovals: {},
      folderTrusted: false,
      launchHold: untrusted([`${WS}/node_modules`]),
    });
    const { wanted, blocked } = desiredServers(desired, undefined, {}, WS);
    expect(blocked.held).toEqual({ reason: 'untrusted_launch', detail: 'held: this folder can change what it runs (node_modules) – run `mcp-live trust` to allow it' });
    expect(blocked.excluded).toEqual({ reason: 'excluded' });
    expect(blocked.disabled).toEqual({ reason: 'disabled' });
    expect(blocked.repo).toEqual({ reason: 'pending_approval' });
    expect(Object.keys(wanted)).toEqual(['remote']);
  });

  it('is part of the gating the reconcile gate compares: a file that appears or goes, or a yes, is a change', () => {
    const a = untrusted([`${WS}/node_modules`]);
    expect(mcpGatingEqual({ launch: a }, { launch: { ...a, files: [...a.files] } })).toBe(true);
    expect(mcpGatingEqual({ launch: a }, { launch: untrusted([]) })).toBe(false);
    expect(mcpGatingEqual({ launch: a }, {})).toBe(false);
    expect(mcpGatingEqual({}, {})).toBe(true);
  });

  it('has words of its own: the list, the tool-not-found text (the UI says /trust)', () => {
    const detail = 'held: this folder can change what it runs (node_modules) – run `mcp-live trust` to allow it';
    expect(reasonText('untrusted_launch', undefined, detail)).toBe(detail);
    expect(toolNotFoundMessage('gh__x', 'gh', { reason: 'untrusted_launch', detail })).toBe(
      'Tool "gh__x" is not available: MCP server "gh" is held because this folder can change what it runs (node_modules) – run `mcp-live trust` to allow it.',
    );
    expect(toolNotFoundMessage('gh__x', 'gh', { reason: 'untrusted_launch', detail }, { audience: 'ui' })).toContain('– type /trust to allow it.');
  });
});

describe('launchFolders and isLaunchFile', () => {
  it('the workspace and its ancestors, stopping before the home directory', () => {
    expect(launchFolders(['/home/u/src/repo'], ['/home/u'], posix, false)).toEqual(['/home/u/src/repo', '/home/u/src']);
  });
  it('up to the root for a workspace outside the home', () => {
    expect(launchFolders(['/tmp/w/repo'], ['/home/u'], posix, false)).toEqual(['/tmp/w/repo', '/tmp/w', '/tmp', '/']);
  });
  it('nothing for the home directory itself or above it', () => {
    expect(launchFolders(['/home/u'], ['/home/u'], posix, false)).toEqual([]);
    expect(launchFolders(['/home'], ['/home/u'], posix, false)).toEqual([]);
  });
  it('each spelling of the workspace (as given, real) and of the home (a link to it stops the walk too)', () => {
    // ~/src/repo is a link to /data/repos/repo; /home/u is a link to /data/u.
    expect(launchFolders(['/home/u/src/repo', '/data/repos/repo'], ['/home/u', '/data/u'], posix, false)).toEqual([
      '/home/u/src/repo',
      '/home/u/src',
      '/data/repos/repo',
      '/data/repos',
      '/data',
      '/',
    ]);
    expect(launchFolders(['/home/u/src/repo', '/data/u/src/repo'], ['/home/u', '/data/u'], posix, false)).toEqual(['/home/u/src/repo', '/home/u/src', '/data/u/src/repo', '/data/u/src']);
    expect(launchFolders(['/home/u', '/data/u'], ['/home/u', '/data/u'], posix, false)).toEqual([]);
  });

  it('case-blind where the file system ignores case', () => {
    expect(launchFolders(['C:\\Users\\U\\src\\repo'], ['c:\\users\\u'], win32, true)).toEqual(['C:\\Users\\U\\src\\repo', 'C:\\Users\\U\\src']);
    expect(isLaunchFile('Node_Modules', true)).toBe(true);
    expect(isLaunchFile('Node_Modules', false)).toBe(false);
    expect(isLaunchFile('node_modules', false)).toBe(true);
    expect(isLaunchFile('README.md', true)).toBe(false);
  });

  it('build and task files, and project files whose names vary (`dotnet run`)', () => {
    for (const name of ['Cargo.toml', 'Makefile', 'justfile', 'pom.xml', 'build.gradle.kts', 'tsconfig.json', 'Api.csproj', 'App.sln']) expect(isLaunchFile(name, false)).toBe(true);
    expect(isLaunchFile('API.CSPROJ', true)).toBe(true);
    expect(isLaunchFile('.csproj.md', false)).toBe(false);
    expect(isLaunchFile('notes.md', false)).toBe(false);
  });
});

describe('launchTrusted: the records of the user’s yes', () => {
  const LINUX = pathKeys({ platform: 'linux' });
  const trusted = (records: Partial<LaunchTrustRecords>, cwd = WS): boolean => launchTrusted(cwd, '/home/u', { peers: [], ...records }, LINUX);
  const claude = (projects: Record<string, unknown>) => ({ projects, numStartups: 3 });

  it.each<[string, Partial<LaunchTrustRecords>, boolean]>([
    ['no record', {}, false],
    ['its own TRUST_FOLDER (folder trust on or off)', { own: { [WS]: 'TRUST_FOLDER' } }, true],
    ['its own TRUST_PARENT of a sibling', { own: { '/home/u/src/other': 'TRUST_PARENT' } }, true],
    ['its own TRUST_FOLDER of an ancestor', { own: { '/home/u/src': 'TRUST_FOLDER' } }, true],
    ['Gemini CLI’s or Qwen Code’s TRUST_FOLDER', { peers: [undefined, { [WS]: 'TRUST_FOLDER' }] }, true],
    ['a peer’s DO_NOT_TRUST is its own no only', { peers: [{ [WS]: 'DO_NOT_TRUST' }, { [WS]: 'TRUST_FOLDER' }] }, true],
    ['Claude Code’s accepted dialog for the folder', { claude: claude({ [WS]: { hasTrustDialogAccepted: true } }) }, true],
    ['Claude Code’s accepted dialog for an ancestor', { claude: claude({ '/home/u/src': { hasTrustDialogAccepted: true } }) }, true],
    ['Claude Code’s dialog not accepted', { claude: claude({ [WS]: { hasTrustDialogAccepted: false } }) }, false],
    ['Claude Code’s dialog for the home directory does not count', { claude: claude({ '/home/u': { hasTrustDialogAccepted: true } }) }, false],
    ['Claude Code’s dialog for the root does not count', { claude: claude({ '/': { hasTrustDialogAccepted: true } }) }, false],
    ['Claude Code’s dialog for a sibling', { claude: claude({ '/home/u/src/repo2': { hasTrustDialogAccepted: true } }) }, false],
    ['Claude Code’s file of another shape', { claude: { projects: [] } }, false],
    ['its own DO_NOT_TRUST wins over a peer', { own: { [WS]: 'DO_NOT_TRUST' }, peers: [{ [WS]: 'TRUST_FOLDER' }] }, false],
    ['its own DO_NOT_TRUST wins over Claude Code', { own: { '/home/u/src': 'DO_NOT_TRUST' }, claude: claude({ [WS]: { hasTrustDialogAccepted: true } }) }, false],
  ])('%s', (_what, records, expected) => {
    expect(trusted(records)).toBe(expected);
  });

  it('Claude Code’s paths compare case-blind where the file system ignores case', () => {
    // The disk's real case, as realpath.native gives it.
    const real = ['/Users/u/src/Repo', '/Users/u/src', '/Users/u', '/Users'];
    const realpathNative = (p: string): string => {
      const found = real.find((r) => r.toLowerCase() === p.toLowerCase());
      if (found === undefined) throw new Error(`ENOENT: ${p}`);
      return found;
    };
    const darwin = pathKeys({ platform: 'darwin', realpathNative });
    expect(claudeTrusts('/Users/u/src/Repo', '/Users/u', claude({ '/users/u/src/repo': { hasTrustDialogAccepted: true } }), darwin)).toBe(true);
    expect(claudeTrusts('/Users/u/src/repo', '/Users/u', claude({ '/USERS/U': { hasTrustDialogAccepted: true } }), darwin)).toBe(false);
  });
});
