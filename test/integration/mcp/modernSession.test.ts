import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BehaviorSubject } from 'rxjs';
import { describe } from 'vitest';
import { createMcpLive, type McpLive, type McpLiveOptions } from '../../../src/index.js';
import type { McpLiveEvent } from '../../../src/model/report/events.js';
import { planReport } from '../../../src/live/planReport.js';
import { fixture, startedPids, textOf } from '../mcpServers.js';
import { it, noLeftoversAfterAll, until, type TempWorkspace, type TestScope } from '../workspace.js';
import { deadline } from '../../deadlines.js';

/**
 * A session with a 2026-07-28 server beside a 2025 one (decisions 380–382): the status and the
 * `server` events say which revision each speaks, a form of an `input_required` round reaches
 * `onElicitation`, and the era found is kept with the surface record for the next session.
 */

noLeftoversAfterAll();

function start(scope: TestScope, ws: TempWorkspace, servers: Record<string, unknown>, options: Partial<McpLiveOptions> = {}): Promise<McpLive> {
  const live = scope.track(
    createMcpLive({
      homeDir: ws.homeDir,
      cwd: ws.cwd,
      runtimeDir: ws.runtimeDir,
      debounceMs: 20,
      extraSources: [{ scope: 'user', source: 'stream', servers$: new BehaviorSubject(servers) }],
      ...options,
    }),
  );
  return live.start().then(() => live);
}

describe('a session with a modern server', () => {
  it('shows the revisions, answers input_required through onElicitation, and keeps the era for the next session', async ({ scope, expect }) => {
    const ws = scope.workspace('mcp-live-modern-', { qwen: false });
    const log = scope.path('modern-starts.log');
    const servers = {
      modern: { command: process.execPath, args: [fixture('modern-server.mjs'), '--start-log', log] },
      old: { command: process.execPath, args: [fixture('echo-server.mjs')] },
    };
    const asked: string[] = [];
    const events: McpLiveEvent[] = [];
    const first = await start(scope, ws, servers, {
      onElicitation: (request) => {
        asked.push(request.message);
        return Promise.resolve({ action: 'accept', content: { confirm: true } });
      },
    });
    first.events$.subscribe((e) => events.push(e));
    const modern = await until(first, 'modern', (s) => s.state === 'connected');
    const old = await until(first, 'old', (s) => s.state === 'connected');
    expect(modern).toMatchObject({ protocolVersion: '2026-07-28', era: 'modern' });
    expect(old.era).toBe('legacy');
    expect(old.protocolVersion).toMatch(/^2025-/);

    expect(textOf(await first.tools.call('mcp__modern__confirm', { env: 'staging' }))).toBe('deployed to staging');
    expect(asked).toEqual(['Deploy to staging?']);
    // A change the server tells on its listen stream reaches the session's tools.
    await first.tools.call('mcp__modern__add-tool', { name: 'fresh' });
    await until(first, 'modern', (s) => s.tools.some((t) => t.tool === 'fresh'));
    const serverEvent = events.find((e) => e.type === 'server' && e.name === 'modern' && e.state === 'connected');
    expect(serverEvent).toMatchObject({ protocolVersion: '2026-07-28', era: 'modern' });
    await first.dispose();

    // The surface record keeps the verdict; the next session connects with it, one process again.
    const records = JSON.parse(readFileSync(join(ws.homeDir, '.qwen', 'mcp-surfaces.json'), 'utf8')) as {
      servers: Record<string, { name: string; era?: { kind: string; decidedAt: number } }>;
    };
    const eras = Object.values(records.servers).map((r) => [r.name, r.era?.kind]);
    expect(eras).toEqual(expect.arrayContaining([['modern', 'modern'], ['old', 'legacy']]));
    // `mcp get` and `plan` say what the last connect found.
    const plan = await planReport({ homeDir: ws.homeDir, cwd: ws.cwd, extraSources: [{ scope: 'user', source: 'stream', servers$: new BehaviorSubject(servers) }] });
    expect(plan.servers.find((s) => s.name === 'modern')?.era).toMatchObject({ kind: 'modern', versions: ['2026-07-28'] });
    expect(plan.servers.find((s) => s.name === 'old')?.era).toMatchObject({ kind: 'legacy' });
    const second = await start(scope, ws, servers);
    expect(await until(second, 'modern', (s) => s.state === 'connected')).toMatchObject({ era: 'modern' });
    expect(await startedPids(log)).toHaveLength(2);
  }, deadline(60_000));
});
