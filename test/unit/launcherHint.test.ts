import { describe, expect, it } from 'vitest';
import { firstDownloadNote } from '../../src/model/launch/launcherHint.js';

describe('firstDownloadNote (decision 323)', () => {
  it('names the runner, the package and how to install it once, for each package runner', () => {
    expect(firstDownloadNote('npx', ['-y', '@modelcontextprotocol/server-everything'])).toBe(
      'npx may still have been downloading the package, as on a first start: install the package once beforehand ' +
        '(npm install -g @modelcontextprotocol/server-everything) or run the command once by hand, then it starts from its cache',
    );
    expect(firstDownloadNote('/usr/local/bin/npx', ['--yes', '--package=@a/b@1.2', 'b-server'])).toContain('(npm install -g @a/b@1.2)');
    expect(firstDownloadNote('C:\\Program Files\\nodejs\\npx.cmd', ['-p', 'pkg', 'cmd'])).toContain('(npm install -g pkg)');
    expect(firstDownloadNote('npm', ['exec', '--', 'pkg'])).toMatch(/^npm exec may .*\(npm install -g pkg\)/);
    expect(firstDownloadNote('uvx', ['--python', '3.12', 'mcp-server-fetch'])).toMatch(/^uvx may .*\(uv tool install mcp-server-fetch\)/);
    expect(firstDownloadNote('uvx', ['--from', 'git+https://x/y', 'y'])).toContain('(uv tool install git+https://x/y)');
    expect(firstDownloadNote('uv', ['tool', 'run', 'pkg'])).toMatch(/^uv tool run may .*\(uv tool install pkg\)/);
    expect(firstDownloadNote('pnpm', ['dlx', 'pkg'])).toMatch(/^pnpm dlx may .*\(pnpm add -g pkg\)/);
    expect(firstDownloadNote('bunx', ['pkg'])).toMatch(/^bunx may .*\(bun add -g pkg\)/);
    expect(firstDownloadNote('bun', ['x', 'pkg'])).toMatch(/^bun x may .*\(bun add -g pkg\)/);
    // No global install for yarn dlx: run it once by hand.
    expect(firstDownloadNote('yarn', ['dlx', 'pkg'])).toBe('yarn dlx may still have been downloading the package, as on a first start: run the command once by hand, then it starts from its cache');
  });

  it('shell-quotes the package, and leaves out one it cannot show', () => {
    expect(firstDownloadNote('npx', ["evil'; rm -rf ~"])).toContain(`(npm install -g 'evil'\\''; rm -rf ~')`);
    expect(firstDownloadNote('npx', ['x'.repeat(101)])).not.toContain('install the package');
    expect(firstDownloadNote('npx', ['-y'])).not.toContain('install the package');
  });

  it('says nothing for a command that is no package runner', () => {
    expect(firstDownloadNote('node', ['server.js'])).toBeUndefined();
    expect(firstDownloadNote('pnpm', ['exec', 'x'])).toBeUndefined();
    expect(firstDownloadNote('uv', ['run', 'x'])).toBeUndefined();
    expect(firstDownloadNote('/opt/npx-tools/server', [])).toBeUndefined();
    expect(firstDownloadNote(undefined, [])).toBeUndefined();
  });
});
