import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, posix, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { POSIX } from '../platforms.js';
import { ROOT } from './cliSession.js';
import { deadline } from '../deadlines.js';

/**
 * Packaging (decision 79): `npm pack` ships what a user runs and nothing a demo run wrote, and the
 * packed CLI knows its version. Packs a copy of the package (with the built dist/) in which a
 * demo run's leftovers are planted, so the work tree is never touched. The tarball installed with
 * npm into a fresh project and type-checked strictly there (about 40 s) is in the slow suite:
 * test/slow/packaging-install.test.ts.
 */
const COPY = join(ROOT, '.tmp-test', `pack-${process.pid}`);

afterAll(() => rmSync(COPY, { recursive: true, force: true }));

describe('npm pack', () => {
  it('ships the CLI, the demo and the examples, no demo runtime state, and the packed CLI prints its version', () => {
    const pkg = join(COPY, 'pkg');
    mkdirSync(pkg, { recursive: true });
    for (const entry of ['package.json', 'README.md', 'LICENSE', 'docs', 'dist/src', 'examples']) cpSync(join(ROOT, entry), join(pkg, entry), { recursive: true });
    // What demo runs wrote into the demo home before decision 79, and what one might write.
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
    // Decision 319: the build (`npm run build`, and the test build before this suite) leaves the
    // bin executable: a clone linked with `npm link` runs it from dist/ as it is.
    if (POSIX) expect(statSync(join(ROOT, 'dist/src/cli/main.js')).mode & 0o111).toBe(0o111);
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

    // Decision 264: the licence, and every document the README links to, are in the package.
    const installed = join(COPY, 'package');
    expect(files).toContain('LICENSE');
    expect(readFileSync(join(installed, 'LICENSE'), 'utf8')).toMatch(/^MIT License[\s\S]*Copyright \(c\) 2026 the mcp-live authors/);
    const links = [...readFileSync(join(installed, 'README.md'), 'utf8').matchAll(/\]\(((?:docs|examples)\/[^)#\s]+)\)/g)].map((m) => m[1]!);
    expect(links.length).toBeGreaterThan(3);
    expect(links.filter((link) => !existsSync(join(installed, link)))).toEqual([]);

    // A CommonJS project requires it (require(esm), Node >= 20.19, through the `require` condition).
    const cjs = join(COPY, 'cjs');
    mkdirSync(join(cjs, 'node_modules'), { recursive: true });
    symlinkSync(installed, join(cjs, 'node_modules', 'mcp-live'));
    writeFileSync(join(cjs, 'package.json'), '{"type":"commonjs"}');
    writeFileSync(join(cjs, 'index.js'), "const { createMcpLive, terminalSafe } = require('mcp-live'); console.log(typeof createMcpLive, terminalSafe('\\u001b'));\n");
    expect(execFileSync(process.execPath, [join(cjs, 'index.js')], { encoding: 'utf8' })).toBe('function \\x1b\n');
    // The pipeline's building blocks are the subpath `mcp-live/pipeline` (decision 347), from
    // CommonJS and from ESM; the root does not carry them.
    writeFileSync(
      join(cjs, 'pipeline.js'),
      "const p = require('mcp-live/pipeline'); const root = require('mcp-live'); console.log(typeof p.createReconciler, typeof p.exhaustMapWithTrailing, [...p.GATED_SCOPES].join(','), typeof root.createReconciler);\n",
    );
    expect(execFileSync(process.execPath, [join(cjs, 'pipeline.js')], { encoding: 'utf8' })).toBe('function function project,workspace undefined\n');
    writeFileSync(join(cjs, 'pipeline.mjs'), "import { assemble, settle } from 'mcp-live/pipeline'; console.log(typeof assemble, typeof settle);\n");
    expect(execFileSync(process.execPath, [join(cjs, 'pipeline.mjs')], { encoding: 'utf8' })).toBe('function function\n');
    expect(files).toContain('dist/src/pipeline.d.ts');
    // Decision 319: tools and hosts read the package's own package.json (its version, its bin)
    // through the export map, from CommonJS and from ESM.
    writeFileSync(join(cjs, 'meta.js'), "console.log(require(require.resolve('mcp-live/package.json')).version);\n");
    expect(execFileSync(process.execPath, [join(cjs, 'meta.js')], { encoding: 'utf8' })).toBe(`${version}\n`);
    writeFileSync(join(cjs, 'meta.mjs'), "console.log(new URL(import.meta.resolve('mcp-live/package.json')).pathname.endsWith('/package/package.json'));\n");
    expect(execFileSync(process.execPath, [join(cjs, 'meta.mjs')], { encoding: 'utf8' })).toBe('true\n');

    // The embedding example runs from the installed package, with the demo server it ships.
    const userHome = join(COPY, 'home');
    mkdirSync(userHome, { recursive: true });
    const env = { ...process.env, HOME: userHome, MCP_LIVE_EXTRA: '' };
    const example = execFileSync(process.execPath, [join(installed, 'examples/embedding/host.mjs'), userHome], { encoding: 'utf8', env, timeout: 30_000 });
    expect(example).toContain('server demo: connected');
    expect(example).toContain('hello from the host');
  }, deadline(90_000));
});

/**
 * Decision 264: the public types compile for a strict consumer (`skipLibCheck: false`) that has
 * only the package's dependencies. Every module specifier reachable from `index.d.ts` is relative,
 * `node:`, or a dependency that ships its own types — never a package whose types come from a
 * dev-only `@types/*` (proper-lockfile's leaked before, TS7016; decision 264).
 */
describe('the published types', () => {
  it('reach only dependencies with types of their own', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    const seen = new Set<string>();
    const bare = new Set<string>();
    const visit = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      const text = readFileSync(file, 'utf8');
      for (const [, spec] of text.matchAll(/(?:from\s+|import\()\s*['"]([^'"]+)['"]/g)) {
        if (spec!.startsWith('.')) visit(resolve(dirname(file), spec!.replace(/\.js$/, '.d.ts')));
        else bare.add(spec!);
      }
    };
    // Both entry points of the export map: the root and `mcp-live/pipeline`.
    visit(join(ROOT, 'dist/src/index.d.ts'));
    visit(join(ROOT, 'dist/src/pipeline.d.ts'));
    expect(seen.size).toBeGreaterThan(10);
    const packageOf = (spec: string) => (spec.startsWith('@') ? spec.split('/').slice(0, 2) : spec.split('/').slice(0, 1)).join('/');
    const offending = [...bare]
      .filter((spec) => !spec.startsWith('node:'))
      .map(packageOf)
      .filter((name) => {
        if (!Object.hasOwn(pkg.dependencies, name)) return true;
        const own = JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as Record<string, unknown>;
        const hasTypes = own.types !== undefined || own.typings !== undefined || JSON.stringify(own.exports ?? {}).includes('"types"') || existsSync(join(ROOT, 'node_modules', name, 'index.d.ts'));
        return !hasTypes;
      });
    expect([...new Set(offending)]).toEqual([]);
  });
});

/**
 * Decision 320: the documents the package ships (README.md, docs/, the examples' Markdown) are read
 * from node_modules too, where only the package's files are. Every relative link in them — to a
 * file, a folder or an image, a `#dN` anchor included — resolves inside the package; a file that
 * stays in the repository (the conformance adapter, a test fixture) is named as a path, not linked.
 * The file list is npm's own (`npm pack --dry-run`), so `files` in package.json and npm's defaults
 * (README, LICENSE, package.json) both count. Links inside code (fenced or inline) are examples.
 */
describe('the shipped documents', () => {
  it('link only to files the package ships', () => {
    const [packed] = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8' })) as [{ files: { path: string }[] }];
    const shipped = new Set(packed.files.map((f) => f.path));
    const shippedDir = (dir: string) => [...shipped].some((file) => file.startsWith(`${dir}/`));
    const documents = [...shipped].filter((file) => file.endsWith('.md'));
    expect(documents).toEqual(expect.arrayContaining(['README.md', 'docs/embedding.md', 'docs/conformance.md', 'docs/decisions/README.md']));
    const dead: string[] = [];
    let checked = 0;
    for (const document of documents) {
      const text = readFileSync(join(ROOT, document), 'utf8')
        .replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '')
        .replace(/(`+)[^`][\s\S]*?\1/g, '');
      const targets = [...text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g), ...text.matchAll(/^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm), ...text.matchAll(/\b(?:href|src)="([^"]+)"/g)].map((m) => m[1]!);
      for (const target of targets) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) continue; // https:, mailto: …
        checked++;
        const [pathPart, anchor] = target.split('#') as [string, string | undefined];
        const file = pathPart === '' ? document : posix.normalize(posix.join(posix.dirname(document), decodeURI(pathPart))).replace(/\/$/, '');
        if (!shipped.has(file) && !shippedDir(file)) dead.push(`${document}: ${target}`);
        else if (anchor !== undefined && /^d\d+$/.test(anchor) && shipped.has(file) && !readFileSync(join(ROOT, file), 'utf8').includes(`<a id="${anchor}"></a>`)) dead.push(`${document}: ${target} (no such anchor)`);
      }
    }
    expect(checked).toBeGreaterThan(100);
    expect(dead).toEqual([]);
  });
});
