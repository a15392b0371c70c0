import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BehaviorSubject, filter, firstValueFrom, map, timeout } from 'rxjs';
import { describe, expect } from 'vitest';
import { createMcpLive, type McpLive } from '../../src/index.js';
import type { ServerStatus } from '../../src/model/report/status.js';
import { fixture, textOf } from './mcpServers.js';
import { it, noLeftoversAfterAll, type TestScope } from './workspace.js';
import { deadline } from '../deadlines.js';

/**
 * Per-entry `roots` (decision 243) against a real server that reports what it was
 * offered: the client's `roots` capability from `initialize` and its answer to `roots/list`.
 * A server given its directories in its args (server-filesystem) keeps them with `roots: false`.
 */

const rootsServer = (extra: Record<string, unknown> = {}) => ({ command: process.execPath, args: [fixture('client-requests-server.mjs')], ...extra });

noLeftoversAfterAll();

async function session(scope: TestScope, servers$: BehaviorSubject<Record<string, unknown>>): Promise<McpLive> {
  const ws = scope.workspace('mcp-live-roots-', { qwen: false });
  const live = scope.track(
    createMcpLive({ homeDir: ws.homeDir, cwd: ws.cwd, runtimeDir: ws.runtimeDir, debounceMs: 20, extraSources: [{ scope: 'user', source: 'stream', servers$ }] }),
  );
  await live.start();
  return live;
}

function connected(l: McpLive, name: string, test: (s: ServerStatus) => boolean = () => true): Promise<ServerStatus> {
  return firstValueFrom(
    l.servers.list$.pipe(
      map((all) => all.find((s) => s.name === name)),
      filter((s): s is ServerStatus => s?.state === 'connected' && test(s)),
      timeout(deadline(15_000)),
    ),
  );
}

async function offered(l: McpLive, name: string): Promise<{ capability: unknown; roots: unknown }> {
  return JSON.parse(textOf(await l.tools.call(`mcp__${name}__roots`, {}))) as { capability: unknown; roots: unknown };
}

describe.concurrent('roots per entry', () => {
  it('absent: the workspace, with listChanged; false: no roots capability at all; a list: exactly those, as file URIs', async ({ scope }) => {
    const l = await session(
      scope,
      new BehaviorSubject<Record<string, unknown>>({
        session: rootsServer(),
        none: rootsServer({ roots: false }),
        own: rootsServer({ roots: ['docs', '/srv/data'] }),
      }),
    );
    await Promise.all(['session', 'none', 'own'].map((name) => connected(l, name)));

    expect(await offered(l, 'session')).toEqual({
      capability: { listChanged: true },
      roots: [{ uri: pathToFileURL(l.cwd).href, name: 'project' }],
    });
    const none = await offered(l, 'none');
    expect(none.capability).toBeNull();
    // Not advertised, and not answered either: a server that asks anyway is told so.
    // (The fixture's SDK, of the 2025 line, prefixes "MCP error -32601: "; ours sends the words as they are.)
    expect(none.roots).toBe('error: MCP error -32601: mcp-live does not answer roots/list');
    expect(await offered(l, 'own')).toEqual({
      capability: {},
      roots: [
        { uri: pathToFileURL(join(l.cwd, 'docs')).href, name: 'docs' },
        { uri: pathToFileURL('/srv/data').href, name: 'data' },
      ],
    });
  }, deadline(30_000));

  it('a changed roots entry reconnects that server, which then sees the new roots', async ({ scope }) => {
    const servers$ = new BehaviorSubject<Record<string, unknown>>({ own: rootsServer({ roots: ['a'] }) });
    const l = await session(scope, servers$);
    const first = await connected(l, 'own');
    expect((await offered(l, 'own')).roots).toEqual([{ uri: pathToFileURL(join(l.cwd, 'a')).href, name: 'a' }]);

    servers$.next({ own: rootsServer({ roots: false }) });
    const second = await connected(l, 'own', (s) => s.pid !== first.pid);
    expect(second.pid).not.toBe(first.pid);
    expect((await offered(l, 'own')).capability).toBeNull();
  }, deadline(30_000));
});
