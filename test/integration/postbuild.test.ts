import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { posixOnly } from '../platforms.js';

/**
 * Decision 319: the build ends with scripts/postbuild.mjs, which makes every `bin` of package.json
 * executable again after tsc wrote it anew. Run here on a copy of package.json with a bin written
 * as tsc writes it (0o644); test/e2e/packaging.test.ts checks the dist/ the test build wrote.
 */
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const SCRIPT = join(ROOT, 'scripts', 'postbuild.mjs');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { bin: Record<string, string>; scripts: Record<string, string> };
const dir = mkdtempSync(join(tmpdir(), 'mcp-live-postbuild-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the build keeps the bins executable', () => {
  it('runs scripts/postbuild.mjs after tsc, in `npm run build` (so in bench and pack too)', () => {
    const steps = pkg.scripts.build!.split('&&').map((step) => step.trim());
    expect(steps.findIndex((step) => step.startsWith('tsc '))).toBe(steps.length - 2);
    expect(steps.at(-1)).toBe('node scripts/postbuild.mjs');
    expect(pkg.scripts.prepare).toBe('npm run build');
    expect(pkg.scripts.bench).toMatch(/^npm run build && /);
  });

  posixOnly('file mode bits').it('makes every bin of package.json 0o755', () => {
    const root = join(dir, 'pkg');
    mkdirSync(root, { recursive: true });
    writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'x', bin: { ...pkg.bin, other: 'bin/other.js' } }));
    const bins = [...Object.values(pkg.bin), 'bin/other.js'];
    for (const bin of bins) {
      mkdirSync(dirname(join(root, bin)), { recursive: true });
      writeFileSync(join(root, bin), '#!/usr/bin/env node\n');
      chmodSync(join(root, bin), 0o644);
    }
    const r = spawnSync(process.execPath, [SCRIPT, root], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    for (const bin of bins) expect((statSync(join(root, bin)).mode & 0o777).toString(8)).toBe('755');
  });

  it('fails the build, naming it, when tsc did not write a bin', () => {
    const root = join(dir, 'missing');
    mkdirSync(root, { recursive: true });
    writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'x', bin: pkg.bin }));
    const r = spawnSync(process.execPath, [SCRIPT, root], { encoding: 'utf8' });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('dist/src/cli/main.js');
  });
});
