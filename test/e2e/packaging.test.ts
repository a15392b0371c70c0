import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from './cliSession.js';

/**
 * Issue 13, packaging: `npm pack` ships what a user runs and nothing a demo run wrote, and the
 * packed CLI knows its version. Packs a copy of the package (with the built dist/) in which a
 * demo run's leftovers are planted, so the work tree is never touched.
 */
const COPY = join(ROOT, '.tmp-test', `pack-${process.pid}`);

afterAll(() => rmSync(COPY, { recursive: true, force: true }));

describe('npm pack', () => {
  it('ships the CLI, the demo and the examples, no demo runtime state, and the packed CLI prints its version', () => {
    const pkg = join(COPY, 'pkg');
    mkdirSync(pkg, { recursive: true });
    for (const entry of ['package.json', 'README.md', 'dist/src', 'examples']) cpSync(join(ROOT, entry), join(pkg, entry), { recursive: true });
    // What demo runs wrote into the demo home before issue 13, and what one might write.
    const home = join(pkg, 'examples/demo/home/.qwen');
    mkdirSync(join(home, 'run'), { recursive: true });
    for (const file of ['mcpApprovals.json', 'mcpApprovals.json.lock', 'mcpApprovals.json.corrupt-1.bak', 'trustedFolders.json', 'run/1-2.json']) {
      writeFileSync(join(home, file), '{}');
    }

    const [packed] = JSON.parse(
      execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', COPY], { cwd: pkg, encoding: 'utf8' }),
    ) as [{ filename: string; files: { path: string }[] }];
    const files = packed.files.map((f) => f.path);
    expect(files.filter((f) => f.startsWith('examples/demo/home/'))).toEqual(['examples/demo/home/.qwen/settings.json']);
    // Tests that live beside their module in src/ are built into dist/src, but are not the package.
    expect(files.filter((f) => /\.test\./.test(f))).toEqual([]);
    expect(files).toEqual(
      expect.arrayContaining([
        'dist/src/cli/main.js',
        'dist/src/index.d.ts',
        'examples/demo/servers/http-server.mjs',
        'examples/demo/workspace/.mcp.json',
        'examples/demo/workspace/.qwen/settings.json',
        'examples/embedding/host.mjs',
      ]),
    );

    // Installed: the tarball unpacked beside this package's node_modules (its dependencies).
    execFileSync('tar', ['-xzf', join(COPY, packed.filename), '-C', COPY]);
    symlinkSync(join(ROOT, 'node_modules'), join(COPY, 'package', 'node_modules'));
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(execFileSync(process.execPath, [join(COPY, 'package/dist/src/cli/main.js'), '--version'], { encoding: 'utf8' })).toBe(`${version}\n`);
  }, 60_000);
});
