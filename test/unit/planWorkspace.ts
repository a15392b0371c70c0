/**
 * Kit for the tests of `plan` and `status` run from real files: a writable that collects what a
 * command prints, and the folders a plan reads (a home and a project), made fresh for a test and
 * removed after it.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach } from 'vitest';

/** A stream a command prints to, and everything printed so far. */
export function collect(): { out: Writable; text: () => string } {
  const chunks: string[] = [];
  const out = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  return { out, text: () => chunks.join('') };
}

export interface PlanFiles {
  /** `~/.qwen/settings.json` of the home. */
  settings: unknown;
  /** Files at the project's root by name (`.mcp.json`, `.lsp.json`). */
  project?: Record<string, unknown>;
}

/**
 * Makes, for each call in a test, a home and a project under a new temporary folder (named from
 * `prefix`), with `files` written as JSON; every folder made is removed after the test. The home's
 * trustedFolders.json trusts the project, so `node <script>` runs the folder's own file: the user
 * has said yes to it (decision 301).
 */
export function planWorkspaceEachTest(prefix: string): (files: PlanFiles) => { cwd: string; homeDir: string } {
  const roots: string[] = [];
  afterEach(() => {
    for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
  });
  return (files) => {
    const root = mkdtempSync(join(tmpdir(), prefix));
    roots.push(root);
    const homeDir = join(root, 'home');
    const cwd = join(root, 'project');
    mkdirSync(join(homeDir, '.qwen'), { recursive: true });
    mkdirSync(cwd, { recursive: true });
    writeFileSync(join(homeDir, '.qwen', 'trustedFolders.json'), JSON.stringify({ [cwd]: 'TRUST_FOLDER' }));
    for (const [name, content] of Object.entries(files.project ?? {})) writeFileSync(join(cwd, name), JSON.stringify(content));
    writeFileSync(join(homeDir, '.qwen', 'settings.json'), JSON.stringify(files.settings));
    return { cwd, homeDir };
  };
}
