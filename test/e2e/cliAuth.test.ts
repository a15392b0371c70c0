import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { playBrowser, startOAuthFixture, type OAuthFixtureOptions } from '../fixtures/oauth/authServer.js';
import { CLI, CliSession, Workspace, type OnFinished } from './cliSession.js';

/**
 * The user's part of OAuth through the built CLI (decision 83): headless `{"cmd":"auth"}` with the
 * `auth-required` URL opened by whoever plays the browser, `oauth.autoStart`, and `mcp-live auth
 * NAME` / `auth logout NAME` outside a session. No token in any line written.
 */

/** The test's OAuth fixture, closed when it ends (after its workspace's sessions stopped). */
async function oauthFixture(onFinished: OnFinished, options?: OAuthFixtureOptions) {
  const fixture = await startOAuthFixture(options);
  onFinished(() => fixture.close());
  return fixture;
}

function storedTokens(w: Workspace): string[] {
  const file = join(w.home, '.qwen', 'mcp-oauth-tokens.json');
  const records = JSON.parse(readFileSync(file, 'utf8')) as Record<string, { tokens?: { access_token?: string; refresh_token?: string } }>;
  return Object.values(records).flatMap((r) => [r.tokens?.access_token, r.tokens?.refresh_token].filter((t): t is string => t !== undefined));
}

// Side by side: every test has its own OAuth fixture (on its own ports), workspace and HOME.
describe.concurrent('OAuth through the CLI', () => {
  it('--json: needs_auth, then {"cmd":"auth"} → auth-required with the URL, unmasked → connected', async ({ onTestFinished }) => {
    const oauth = await oauthFixture(onTestFinished, { wwwAuthenticateScope: 'mcp' });
    const ws = new Workspace(onTestFinished);
    ws.write(ws.userSettings, { mcpServers: { remote: { httpUrl: oauth.mcpUrl } } });
    const cli = CliSession.start(ws);
    const waiting = await cli.waitForState('remote', 'needs_auth');
    expect(waiting.error).toBe('needs authentication – send {"cmd":"auth","server":"remote"}');
    cli.send({ cmd: 'auth', server: 'remote', id: 1 });
    const required = await cli.waitFor((e) => e.type === 'auth-required', { what: 'auth-required' });
    expect(required.server).toBe('remote');
    // The URL goes out as it is: a browser needs its query.
    const url = new URL(required.url as string);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('state')).toMatch(/^[\w-]{20,}$/);
    expect(await playBrowser(url.href)).toBe(200);
    const result = await cli.waitFor((e) => e.type === 'result' && e.id === 1, { what: 'the auth result' });
    expect(result).toMatchObject({ ok: true, data: { authenticated: 'remote' } });
    await cli.waitForState('remote', 'connected');
    const lines = JSON.stringify(cli.events) + cli.stderr;
    for (const token of storedTokens(ws)) expect(lines).not.toContain(token);
  });

  it('oauth.autoStart emits auth-required without a command; quit cancels an authorization nobody finishes', async ({ onTestFinished }) => {
    const oauth = await oauthFixture(onTestFinished);
    const ws = new Workspace(onTestFinished);
    ws.write(ws.userSettings, { mcpServers: { remote: { httpUrl: oauth.mcpUrl, oauth: { autoStart: true } } } });
    const cli = CliSession.start(ws);
    await cli.waitFor((e) => e.type === 'auth-required' && e.server === 'remote', { what: 'auth-required' });
    // Nobody opens it: the session still quits at once.
    const started = Date.now();
    expect(await cli.stop()).toBe(0);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('`mcp-live auth NAME` prints the URL, waits for the browser, stores the token and exits 0; `auth logout` forgets it', async ({ onTestFinished }) => {
    const oauth = await oauthFixture(onTestFinished);
    const ws = new Workspace(onTestFinished);
    ws.write(ws.userSettings, { mcpServers: { remote: { httpUrl: oauth.mcpUrl } } });
    const w = ws;
    const child = spawn(process.execPath, [CLI, 'auth', 'remote', '--cwd', w.cwd], { env: { ...process.env, HOME: w.home }, stdio: 'pipe' });
    let output = '';
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    const url = await new Promise<string>((resolve) => {
      createInterface({ input: child.stdout }).on('line', (line) => {
        output += `${line}\n`;
        if (/^\s+http/.test(line)) resolve(line.trim());
      });
    });
    expect(await playBrowser(url)).toBe(200);
    expect(await exited).toBe(0);
    expect(output).toContain('Authorized remote');
    const tokens = storedTokens(w);
    expect(tokens.length).toBeGreaterThan(0);
    for (const token of tokens) expect(output).not.toContain(token);

    const logout = spawn(process.execPath, [CLI, 'auth', 'logout', 'remote', '--cwd', w.cwd], { env: { ...process.env, HOME: w.home } });
    expect(await new Promise((resolve) => logout.once('exit', resolve))).toBe(0);
    expect(storedTokens(w)).toEqual([]);
  });

  it('`mcp-live auth NAME` refuses a server that waits for approval, before contacting it', async ({ onTestFinished }) => {
    const oauth = await oauthFixture(onTestFinished);
    const ws = new Workspace(onTestFinished);
    ws.write(ws.mcpJson, { mcpServers: { repo: { type: 'http', url: oauth.mcpUrl } } });
    const child = spawn(process.execPath, [CLI, 'auth', 'repo', '--cwd', ws.cwd], { env: { ...process.env, HOME: ws.home } });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    expect(await new Promise((resolve) => child.once('exit', resolve))).toBe(2);
    expect(stderr).toContain('repo is not admitted (needs approval)');
    expect(oauth.mcpRequests).toEqual([]);
  });
});
