import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { createMcpLive } from '../../../src/live/createMcpLive.js';
import type { McpLive } from '../../../src/live/types.js';
import type { McpLiveEvent } from '../../../src/model/report/events.js';
import { playBrowser } from '../../fixtures/oauth/authServer.js';
import { until } from '../workspace.js';

/**
 * A session for OAuth tests: a fresh home with the given user servers (Qwen Code's settings), its
 * events collected, and the token file where mcp-live keeps it. `seed` writes into the home
 * before the session starts (a token file from an earlier version, say).
 */
export interface OAuthSession {
  live: McpLive;
  home: string;
  events: McpLiveEvent[];
  tokensFile: string;
  dispose(): Promise<void>;
}

export async function oauthSession(servers: Record<string, unknown>, seed?: (profileDir: string) => Promise<void>): Promise<OAuthSession> {
  const home = await mkdtemp(join(tmpdir(), 'mcp-live-oauth-'));
  const workspace = join(home, 'work');
  await mkdir(join(home, '.qwen'), { recursive: true });
  await mkdir(workspace, { recursive: true });
  await writeFile(join(home, '.qwen', 'settings.json'), JSON.stringify({ mcpServers: servers }));
  await seed?.(join(home, '.qwen'));
  const live = createMcpLive({ homeDir: home, cwd: workspace, debounceMs: 50, hints: 'json', runtimeDir: join(home, 'run') });
  const events: McpLiveEvent[] = [];
  live.events$.subscribe((e) => events.push(e));
  await live.start();
  return {
    live,
    home,
    events,
    tokensFile: join(home, '.qwen', 'mcp-oauth-tokens.json'),
    dispose: async () => {
      await live.dispose();
      await rm(home, { recursive: true, force: true });
    },
  };
}

/** The token file as JSON: record key → record. */
export async function tokenRecords(session: OAuthSession): Promise<Record<string, { server: string; issuer?: string; tokens?: Record<string, unknown>; client?: Record<string, unknown> }>> {
  return JSON.parse(await readFile(session.tokensFile, 'utf8')) as never;
}

/** Authorizes `name` the way a user does, from `needs_auth` to `connected`. */
export async function signIn(live: McpLive, name: string): Promise<void> {
  await until(live, name, (s) => s.state === 'needs_auth');
  const { url, completed } = await live.auth.authenticate(name);
  expect(url).toBeDefined();
  expect(await playBrowser(url!)).toBe(200);
  await completed;
  await until(live, name, (s) => s.state === 'connected');
}

/** Starts an authorization of `name` and plays the browser; resolves with how the flow ended. */
export async function attemptSignIn(live: McpLive, name: string): Promise<{ error?: Error }> {
  await until(live, name, (s) => s.state === 'needs_auth');
  const { url, completed } = await live.auth.authenticate(name);
  const settled = completed.then(
    () => ({}),
    (error: Error) => ({ error }),
  );
  await playBrowser(url!);
  return settled;
}
