import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseCliArgs, UsageError, type CommonOptions } from '../../../src/cli/args.js';
import { checkOptionPaths } from '../../../src/cli/checkOptionPaths.js';
import { packageRoot, packageVersion } from '../../../src/cli/ownPackage.js';

/** Everyday CLI details (decision 78): --version, and command-line paths that do not exist. */

const ROOT = resolve(import.meta.dirname, '../../..');
let dir: string;
afterEach(() => dir && rmSync(dir, { recursive: true, force: true }));

function temp(): string {
  dir = mkdtempSync(join(tmpdir(), 'mcp-live-cli-'));
  return dir;
}

describe('--version', () => {
  it('-v and --version ask for the version, whatever else is on the line', () => {
    for (const argv of [['-v'], ['--version'], ['status', '--version'], ['--json', '-v']]) {
      expect(parseCliArgs(argv, { cwd: '/here' })).toEqual({ kind: 'version' });
    }
  });

  it('is the version in package.json, found from src/ as from dist/ or an installed package', () => {
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(packageVersion()).toBe(version);
    // node_modules/mcp-live/dist/src/cli/main.js inside a project whose own package.json is not ours.
    const project = temp();
    const pkg = join(project, 'node_modules', 'mcp-live');
    mkdirSync(join(pkg, 'dist', 'src', 'cli'), { recursive: true });
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'my-agent', version: '7.0.0' }));
    writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: 'mcp-live', version: '9.8.7' }));
    writeFileSync(join(pkg, 'dist', 'package.json'), '{ not json');
    expect(packageVersion(join(pkg, 'dist', 'src', 'cli', 'main.js'))).toBe('9.8.7');
    expect(packageRoot(join(pkg, 'dist', 'src', 'cli', 'main.js'))).toBe(pkg);
    expect(packageRoot()).toBe(ROOT);
    expect(() => packageVersion(join(project, 'main.js'))).toThrow(/no package.json of mcp-live above/);
  });
});

describe('checkOptionPaths: paths that do not exist are usage errors naming them', () => {
  const options = (o: Partial<CommonOptions>): CommonOptions => ({ cwd: '.', profile: 'qwen', mcpConfig: [], lspConfig: [], demo: false, strategy: 'incremental', ...o });

  it('resolves against the shell directory and accepts what exists (the approvals file may not)', () => {
    const shell = temp();
    mkdirSync(join(shell, 'project'));
    writeFileSync(join(shell, 'team.json'), '{}');
    writeFileSync(join(shell, 'user.json'), '{}');
    symlinkSync(join(shell, 'user.json'), join(shell, 'linked.json'));
    expect(() =>
      checkOptionPaths(
        options({
          cwd: 'project',
          mcpConfig: ['team.json', join(shell, 'team.json')],
          lspConfig: ['team.json'],
          userSettings: 'linked.json',
          systemSettings: 'user.json',
          approvalsFile: 'not-yet.json',
        }),
        shell,
      ),
    ).not.toThrow();
  });

  it.each([
    [{ cwd: 'missing' }, /^--cwd missing \(.*\/missing\): no such directory$/],
    [{ cwd: 'team.json' }, /^--cwd team\.json \(.*\/team\.json\): not a directory$/],
    [{ mcpConfig: ['team.json', 'teem.json'] }, /^--mcp-config teem\.json \(.*\/teem\.json\): no such file$/],
    [{ lspConfig: ['team.json', 'lsp.json'] }, /^--lsp-config lsp\.json \(.*\/lsp\.json\): no such file$/],
    [{ userSettings: 'team.json/x' }, /^--user-settings team\.json\/x .*: no such file$/],
    [{ systemSettings: '/nowhere/system.json' }, /^--system-settings \/nowhere\/system\.json: no such file$/],
  ])('%j', (o, message) => {
    const shell = temp();
    writeFileSync(join(shell, 'team.json'), '{}');
    let error: unknown;
    try {
      checkOptionPaths(options(o), shell);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toMatch(message);
  });

  it('a file the command creates may be missing: mcp add writes a new --user-settings', () => {
    const shell = temp();
    expect(() => checkOptionPaths(options({ userSettings: 'new.json' }), shell, ['--user-settings'])).not.toThrow();
    expect(() => checkOptionPaths(options({ userSettings: 'new.json' }), shell)).toThrow(/--user-settings new\.json/);
  });
});
