import { execFile, execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../e2e/cliSession.js';
import { POSIX } from '../platforms.js';
import { deadline } from '../deadlines.js';

// Moved here from test/e2e/packaging.test.ts (about 40 s on a quiet 2-core machine, most of it
// the strict tsc over the dependencies' declarations, and npm install). The default suite keeps
// the fast checks of the same properties there: the unpacked tarball (its files, LICENSE, the
// README's links, require() from CommonJS, the embedding example) and the published types
// reaching only dependencies with types of their own.

/**
 * Decision 235, as a new user meets it: the tarball installed with npm into a fresh project outside
 * this repository (so nothing of ours — no dev dependency, no `@types/*` — is on its resolution
 * path), which is CommonJS (`"type": "commonjs"`) and type-checks strictly with
 * `skipLibCheck: false`. npm takes the package's dependencies from its cache (`--prefer-offline`:
 * the registry only for what the cache lacks), the tarball is packed with `--ignore-scripts` from
 * the dist/ the suite's global setup built (its `prepare` would rebuild the shared dist/).
 */
const run = promisify(execFile);

/** The strict consumer tsconfig: every declaration file it reaches is checked. */
function writeStrictTsconfig(project: string, files: readonly string[]): void {
  writeFileSync(
    join(project, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, skipLibCheck: false, noEmit: true, types: ['node'] },
      files,
    }),
  );
}

/** What `tsc -p project` prints (nothing when the check passes), with the given compiler's bin. */
function strictCheck(tscBin: string, project: string): Promise<string> {
  return run(process.execPath, [tscBin, '-p', project], { cwd: project, encoding: 'utf8', timeout: 150_000 }).then(
    (r) => r.stdout,
    (error: { stdout?: string; message: string }) => error.stdout || error.message,
  );
}

/** Packs a copy of `entries` of the repository into `consumer` (as npm publishes it) and gives the tarball's name. */
function packInto(consumer: string, copy: string, entries: readonly string[]): string {
  const pkg = join(consumer, copy);
  mkdirSync(pkg);
  for (const entry of entries) cpSync(join(ROOT, entry), join(pkg, entry), { recursive: true });
  const [packed] = JSON.parse(
    execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', consumer], { cwd: pkg, encoding: 'utf8' }),
  ) as [{ filename: string }];
  return packed.filename;
}

describe('installed with npm into a fresh project', () => {
  const consumer = mkdtempSync(join(tmpdir(), 'mcp-live-consumer-'));
  afterAll(() => rmSync(consumer, { recursive: true, force: true }));

  it('require()s from CommonJS, type-checks strictly (skipLibCheck false, ESM and CJS files), ships LICENSE and docs, runs the embedding example', async () => {
    const tarball = packInto(consumer, 'pkg', ['package.json', 'README.md', 'LICENSE', 'docs', 'dist/src', 'examples']);
    const project = join(consumer, 'project');
    mkdirSync(project);
    writeFileSync(join(project, 'package.json'), '{"name":"consumer","private":true,"type":"commonjs"}\n');
    // The consumer's own @types/node (our types use node: modules, as any Node library's do), the
    // version this repository is typed against; TypeScript itself is this repository's.
    const typesNode = (JSON.parse(readFileSync(join(ROOT, 'node_modules/@types/node/package.json'), 'utf8')) as { version: string }).version;
    execFileSync(
      'npm',
      ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error', join(consumer, tarball), `@types/node@${typesNode}`],
      { cwd: project, encoding: 'utf8', timeout: 90_000 },
    );
    const installed = join(project, 'node_modules', 'mcp-live');
    // Only the package's own dependencies came along: nothing that would hide a leaked dev-only type.
    expect(existsSync(join(project, 'node_modules/@types/proper-lockfile'))).toBe(false);

    // CommonJS: require() of the ESM build (Node >= 20.19), through the `require` condition.
    expect(execFileSync(process.execPath, ['-e', "const m = require('mcp-live'); console.log(typeof m.createMcpLive, typeof m.terminalSafe)"], { cwd: project, encoding: 'utf8' })).toBe('function function\n');
    // Its own package.json through the export map, and its bin as npm linked it (decision 319).
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(execFileSync(process.execPath, ['-e', "console.log(require(require.resolve('mcp-live/package.json')).version)"], { cwd: project, encoding: 'utf8' })).toBe(`${version}\n`);
    if (POSIX) expect(execFileSync(join(project, 'node_modules/.bin/mcp-live'), ['--version'], { cwd: project, encoding: 'utf8' })).toBe(`${version}\n`);

    // LICENSE and the docs the README links to are in the installed package.
    expect(readFileSync(join(installed, 'LICENSE'), 'utf8')).toMatch(/^MIT License[\s\S]*Copyright \(c\) 2026 the mcp-live authors/);
    const links = [...readFileSync(join(installed, 'README.md'), 'utf8').matchAll(/\]\(((?:docs|examples)\/[^)#\s]+)\)/g)].map((m) => m[1]!);
    expect(links.length).toBeGreaterThan(3);
    expect(links.filter((link) => !existsSync(join(installed, link)))).toEqual([]);

    // The public types, used from an ES module and from a CommonJS one, under a strict tsconfig
    // that checks every declaration file it reaches (a dev-only @types leak is TS7016 here).
    writeFileSync(
      join(project, 'esm.mts'),
      [
        "import { createMcpLive, terminalSafe, type McpLive, type McpLiveEvent, type ServerStatus } from 'mcp-live';",
        "const live: McpLive = createMcpLive({ cwd: process.cwd(), extraSources: [] });",
        "live.events$.subscribe((e: McpLiveEvent) => { if (e.type === 'server') console.log(terminalSafe(e.name), e.state); });",
        'await live.start();',
        'const servers: readonly ServerStatus[] = live.servers.status();',
        "const names: string[] = servers.flatMap((s) => s.tools.map((t) => t.name));",
        "if (names[0] !== undefined) console.log(await live.tools.call(names[0], { text: 'hi' }));",
        'await live.dispose();',
        '',
      ].join('\n'),
    );
    writeFileSync(
      join(project, 'cjs.cts'),
      [
        "import { createMcpLive, type McpLive } from 'mcp-live';",
        'const live: McpLive = createMcpLive({ cwd: __dirname });',
        'void live.dispose();',
        '',
      ].join('\n'),
    );
    writeStrictTsconfig(project, ['esm.mts', 'cjs.cts']);
    // The type check (most of this test's time) and the example run side by side.
    const home = join(consumer, 'home');
    mkdirSync(home);
    const env = { ...process.env, HOME: home, USERPROFILE: home, MCP_LIVE_EXTRA: '' };
    const [typeCheck, example] = await Promise.all([
      strictCheck(join(ROOT, 'node_modules/typescript/bin/tsc'), project),
      // The embedding example, from the installed package with only its dependencies, runs the
      // demo's clock server it ships and calls its echo.
      run(process.execPath, [join(installed, 'examples/embedding/host.mjs'), home], { cwd: project, encoding: 'utf8', env, timeout: 60_000 }).then((r) => r.stdout),
    ]);
    expect(typeCheck).toBe('');
    expect(example).toContain('server demo: connected');
    expect(example).toContain('hello from the host');
  }, deadline(180_000));

  it('type-checks strictly under the TypeScript and @types/node a consumer installs: TypeScript 5.9 and 7, @types/node 20 to 26 (decision 355)', async () => {
    const tarball = packInto(consumer, 'pkg-matrix', ['package.json', 'README.md', 'LICENSE', 'dist/src']);
    const project = join(consumer, 'matrix');
    mkdirSync(project);
    writeFileSync(join(project, 'package.json'), '{"name":"consumer-matrix","private":true,"type":"module"}\n');
    const npmInstall = (...specs: string[]) =>
      execFileSync('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error', ...specs], {
        cwd: project,
        encoding: 'utf8',
        timeout: 120_000,
      });
    // Both compilers side by side under their own names; TypeScript 7's compiler is a native
    // binary that npm installs as an optional dependency of its platform (no install script).
    npmInstall(join(consumer, tarball), 'ts5@npm:typescript@5.9', 'ts7@npm:typescript@7');
    writeFileSync(
      join(project, 'main.ts'),
      [
        "import { createMcpLive, planReport, type McpLive, type ServerStatus } from 'mcp-live';",
        "import { createReconciler, settle, GATED_SCOPES, type ReconcilerDeps } from 'mcp-live/pipeline';",
        'const live: McpLive = createMcpLive({ cwd: process.cwd() });',
        'const statuses: readonly ServerStatus[] = live.servers.status();',
        'const deps: Pick<ReconcilerDeps, "debounceMs"> = { debounceMs: 300 };',
        'console.log(statuses.length, deps, typeof planReport, typeof createReconciler, typeof settle, GATED_SCOPES.size);',
        'await live.dispose();',
        '',
      ].join('\n'),
    );
    writeStrictTsconfig(project, ['main.ts']);
    const tsc = (compiler: string) => strictCheck(join(project, 'node_modules', compiler, 'bin/tsc'), project);
    const results: Record<string, string> = {};
    for (const major of [20, 22, 24, 25, 26]) {
      npmInstall(`@types/node@${major}`);
      const [ts5, ts7] = await Promise.all([tsc('ts5'), tsc('ts7')]);
      results[`@types/node ${major}, TypeScript 5.9`] = ts5;
      results[`@types/node ${major}, TypeScript 7`] = ts7;
    }
    expect(Object.values(results).length).toBe(10);
    expect(Object.entries(results).filter(([, output]) => output !== '')).toEqual([]);
  }, deadline(600_000));
});
