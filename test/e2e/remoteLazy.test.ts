import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from './cliSession.js';

/**
 * Decision 221: what only a remote server needs — our OAuth provider and what it brings — is not
 * loaded by a process that embeds mcp-live until a remote server connects. (The SDK's client is one
 * bundle since its v2 line, transports and OAuth included, and costs what its v1 client alone did:
 * decision 365.) Checked on the built library in a process of its own, by every module
 * URL that process resolves (a static import anywhere in the graph would show up).
 */
const REMOTE = /\/sinks\/remote\/(oauthProvider|remoteParts|withinOrigin)\.js$/;

const dir = mkdtempSync(join(tmpdir(), 'mcp-live-lazy-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function modulesLoadedBy(script: string): Promise<string[]> {
  const hook = join(dir, 'hook.mjs');
  writeFileSync(hook, "export async function resolve(s, c, next) { const r = await next(s, c); process.stderr.write(`loaded ${r.url}\\n`); return r; }\n");
  const register = join(dir, 'register.mjs');
  writeFileSync(register, `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hook).href)});\n`);
  const { stderr } = await promisify(execFile)(process.execPath, ['--import', pathToFileURL(register).href, '--input-type=module', '-e', script], { cwd: ROOT });
  const urls = stderr
    .split('\n')
    .filter((line) => line.startsWith('loaded '))
    .map((line) => line.slice('loaded '.length));
  // Resolved once per import of it: each module once.
  return [...new Set(urls)];
}

const lib = (path: string) => JSON.stringify(pathToFileURL(join(ROOT, 'dist/src', path)).href);

describe('the remote parts load on first use', () => {
  it('importing the library and creating a session loads none of them', async () => {
    const loaded = await modulesLoadedBy(
      `const { createMcpLive } = await import(${lib('index.js')}); createMcpLive({ cwd: ${JSON.stringify(dir)}, homeDir: ${JSON.stringify(dir)} });`,
    );
    expect(loaded.some((url) => url.endsWith('/dist/src/live/createMcpLive.js'))).toBe(true);
    expect(loaded.filter((url) => REMOTE.test(url))).toEqual([]);
  });

  it('loading them brings exactly those', async () => {
    const loaded = await modulesLoadedBy(`const { loadRemoteParts } = await import(${lib('sinks/remote/remoteSdk.js')}); await loadRemoteParts();`);
    expect(loaded.filter((url) => REMOTE.test(url)).map((url) => url.split('/').pop()).sort()).toEqual(
      ['oauthProvider.js', 'remoteParts.js', 'withinOrigin.js'],
    );
  });
});
